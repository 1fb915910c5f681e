/**
 * The sustained-load phase of `npm run bench -- sustained`: `writers` callers commit single-row
 * `inline_insert`s into one table for a fixed time through the lake writer's core (durable-objects/
 * writer.ts, the code the Durable Object hosts), with injected PUT/GET latency and the object's alarm
 * emulated (background work runs when it asks, never two at once). Per window: commits/s, latency
 * quantiles, maintenance steps, manifest size. For the whole run: bytes PUT to R2 by kind over the live
 * bytes the newest cut names (write amplification), bytes stored, the manifest's size and record counts.
 */

import { mintIdempotencyKey } from "../catalog/index.ts";
import { InlineKind, key, Subspace } from "../catalog/keys.ts";
import { systemClock } from "../durable-objects/clock.ts";
import { DEFAULT_TUNABLES } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
import type { Bucket } from "../storage/api.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { lakePrefix, manifestPrefix, parseWalKey, walPrefix } from "../storage/keys.ts";
import { decodeManifest, type Manifest } from "../storage/manifest.ts";
import { type EntryCount, startEntryCount } from "../test/support/entry-counter.ts";
import type { Row } from "./report.ts";

export interface LoadSpec {
  writers: number;
  seconds: number;
  windows: number;
  /** Injected latency of every PUT and GET, ms. */
  latencyMs: number;
  /**
   * Stop after this many commits instead of after `seconds`, and cut the windows by commit count: the
   * bytes written then depend on the workload, not on how fast a loaded machine runs it.
   */
  commits?: number;
  /**
   * Count the store entries every read steps over (tombstones included; `entries=1`): per window, per
   * commit, in all and under the inlined-row subspace (decision 0182). Costs CPU, so off by default.
   */
  countEntries?: boolean;
  /**
   * The idempotency key each commit carries (`keys=`): none (the default), one minted as the Worker mints
   * it for a client that sent none (every HTTP commit without a key; docs/decisions/0189-time-ordered-minted-keys.md),
   * or a random client key.
   */
  keys?: "none" | "minted" | "client";
}

interface Commit {
  end: number;
  ms: number;
  /** The entry counts (cumulative) when this commit ended, with `countEntries`. */
  entries?: { all: number; under: number };
}

/** p99 of the commits whose span overlapped a maintenance interval vs of those that overlapped none. */
function overlapP99(
  commits: Commit[],
  busy: { end: number; ms: number }[],
): { overlapping: number; p99Overlapping: number; p99Clear: number } {
  const spans = busy.map((b) => [b.end - b.ms, b.end] as const).sort((a, b) => a[0] - b[0]);
  const over: number[] = [];
  const clear: number[] = [];
  for (const c of commits) {
    const start = c.end - c.ms;
    const hit = spans.some(([from, to]) => from < c.end && to > start);
    (hit ? over : clear).push(c.ms);
  }
  over.sort((a, b) => a - b);
  clear.sort((a, b) => a - b);
  return { overlapping: over.length, p99Overlapping: quantile(over, 0.99), p99Clear: quantile(clear, 0.99) };
}

interface Step {
  end: number;
  ms: number;
  compacted: boolean;
  flushed: boolean;
  /** Bytes the step's compaction wrote, by what it merged (L0 into a new run, or runs into a run). */
  l0Bytes: number;
  runBytes: number;
}

/** The Durable Object alarm: one pending time (an earlier request wins), runs never overlap. */
class Alarm {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private at = Number.POSITIVE_INFINITY;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly fire: () => Promise<void>) {}

  schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, delayMs);
    if (this.timer !== undefined && this.at <= at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.at = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.at = Number.POSITIVE_INFINITY;
      this.running = this.running.then(() => (this.stopped ? undefined : this.fire()));
    }, at - Date.now());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function listAll(bucket: Bucket, prefix: string): Promise<{ key: string; size: number }[]> {
  const out: { key: string; size: number }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) out.push({ key: o.key, size: o.size });
    if (!page.truncated || page.cursor === undefined) return out;
    cursor = page.cursor;
  }
}

async function newestManifest(bucket: Bucket, lake: string): Promise<{ m: Manifest; size: number }> {
  const page = await bucket.list({ prefix: manifestPrefix(lake), limit: 1 });
  const key = page.objects[0]?.key;
  const obj = key === undefined ? null : await bucket.get(key);
  if (obj === null) throw new Error(`lake ${lake} has no manifest`);
  const bytes = new Uint8Array(await obj.arrayBuffer());
  return { m: decodeManifest(bytes), size: bytes.length };
}

/** Entries stepped over per commit across a window (the counts include maintenance's reads). */
function entriesPerCommit(inWin: Commit[]): { entriesPerCommit: number; inlineEntriesPerCommit: number } {
  const first = inWin[0]?.entries;
  const last = inWin.at(-1)?.entries;
  const k = Math.max(1, inWin.length - 1);
  if (!first || !last) return { entriesPerCommit: 0, inlineEntriesPerCommit: 0 };
  return {
    entriesPerCommit: Math.round(((last.all - first.all) / k) * 10) / 10,
    inlineEntriesPerCommit: Math.round(((last.under - first.under) / k) * 10) / 10,
  };
}

let seq = 0;
const LAG_TICK_MS = 10;

export async function sustainedLoad(inner: Bucket, spec: LoadSpec): Promise<Row[]> {
  const lake = `sustained-${spec.writers}-${seq++}`;
  const fb = new FaultBucket(inner);
  const steps: Step[] = [];
  const jobs: { end: number; ms: number; job: string }[] = [];
  let failures = 0;
  let firstFailure = "";
  let writer: Writer | undefined;
  const alarm = new Alarm(async () => {
    await writer?.background().catch((e: unknown) => {
      failures++;
      firstFailure ||= `background: ${String(e)}`;
    });
  });
  writer = new Writer({
    lake,
    bucket: fb,
    identity: "bench",
    registry: new MemoryRegistry(),
    clock: systemClock,
    now: () => Date.now(),
    tunables: DEFAULT_TUNABLES,
    abort: (reason) => {
      throw new Error(`writer aborted during the benchmark: ${reason}`);
    },
    scheduleBackground: (ms) => alarm.schedule(ms),
    log: (level, f) => {
      if (f.msg === "store maintenance step") {
        const c = f.compaction as { kind: "l0" | "runs"; bytesWritten: number } | null;
        steps.push({
          l0Bytes: c?.kind === "l0" ? c.bytesWritten : 0,
          runBytes: c?.kind === "runs" ? c.bytesWritten : 0,
          end: performance.now(),
          ms: Number(f.ms),
          compacted: f.compaction !== null,
          flushed: f.memtableFlushed === true,
        });
      } else if (f.msg === "maintenance run") {
        // Catalog-level jobs (maintenance/): they commit through the coalescer, so commits queue behind them.
        jobs.push({ end: performance.now(), ms: Number(f.durationMs), job: String(f.job) });
      } else if (level === "error") console.error(JSON.stringify(f));
    },
  });
  const w = writer;
  await w.createLake();
  await w.commit({
    verbs: [
      {
        op: "create_table",
        name: "t",
        columns: [
          { name: "id", type: "int64" },
          { name: "v", type: "varchar" },
        ],
      },
    ],
  });
  if (spec.latencyMs > 0) fb.delay({ op: ["put", "get"], ms: spec.latencyMs });
  fb.resetCounters();

  const commits: Commit[] = [];
  const manifestSizes: { t: number; size: number }[] = [];
  const windowMs = (spec.seconds * 1000) / spec.windows;
  const t0 = performance.now();
  const stopAt = t0 + spec.seconds * 1000;
  const more = (): boolean => (spec.commits === undefined ? performance.now() < stopAt : n < spec.commits);
  const sampler = setInterval(() => {
    newestManifest(inner, lake).then(
      (r) => manifestSizes.push({ t: performance.now(), size: r.size }),
      () => {},
    );
  }, windowMs / 4);
  // Event-loop lag: a 10 ms timer that fires late shows work holding the loop (a commit's apply and its
  // segment PUT callback wait exactly as long).
  // With it, the process's CPU time per tick: a late tick on a process that got little CPU is the machine
  // starving it (other processes), not our work holding the loop.
  const lags: { t: number; ms: number; cpuMs: number }[] = [];
  let tick = performance.now();
  let cpu = process.cpuUsage();
  const lagTimer = setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    lags.push({ t: now, ms: Math.max(0, now - tick - LAG_TICK_MS), cpuMs: (used.user + used.system) / 1000 });
    tick = now;
  }, LAG_TICK_MS);
  let n = 0;
  const counted: EntryCount | undefined = spec.countEntries
    ? startEntryCount(key([Subspace.inline, InlineKind.row]))
    : undefined;
  await Promise.all(
    Array.from({ length: spec.writers }, async () => {
      while (more()) {
        const id = n++;
        const s = performance.now();
        try {
          const idempotencyKey =
            spec.keys === "minted"
              ? mintIdempotencyKey(Date.now())
              : spec.keys === "client"
                ? `client-${crypto.randomUUID()}`
                : undefined;
          await w.commit({
            verbs: [{ op: "inline_insert", table: { name: "t" }, rows: [{ id, v: `row ${id}` }] }],
            ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
          });
          const end = performance.now();
          commits.push({
            end,
            ms: end - s,
            ...(counted ? { entries: { all: counted.all, under: counted.under } } : {}),
          });
        } catch (e) {
          failures++;
          firstFailure ||= String(e);
        }
      }
    }),
  );
  clearInterval(sampler);
  clearInterval(lagTimer);
  await alarm.stop();
  counted?.stop();

  const rows: Row[] = [];
  const elapsedMs = performance.now() - t0;
  // By count: window i holds the i-th quarter of the commits in completion order.
  const bounds = (i: number): [number, number] => {
    if (spec.commits === undefined) return [t0 + i * windowMs, t0 + (i + 1) * windowMs];
    const per = Math.ceil(commits.length / spec.windows);
    const lo = commits[i * per]?.end ?? Number.POSITIVE_INFINITY;
    const hi = commits[(i + 1) * per]?.end ?? Number.POSITIVE_INFINITY;
    return [lo, hi];
  };
  const lagsIn = (from: number, to: number) => lags.filter((x) => x.t >= from && x.t < to);
  for (let i = 0; i < spec.windows; i++) {
    const [from, to] = bounds(i);
    const spanMs = spec.commits === undefined ? windowMs : Math.min(to, t0 + elapsedMs) - from;
    const inWin = commits.filter((c) => c.end >= from && (c.end < to || i === spec.windows - 1));
    const lat = inWin.map((c) => c.ms).sort((a, b) => a - b);
    const st = steps.filter((x) => x.end >= from && x.end < to).map((x) => x.ms);
    const stSorted = [...st].sort((a, b) => a - b);
    const sizes = manifestSizes.filter((x) => x.t < to).map((x) => x.size);
    const cpuMs = lagsIn(from, to).reduce((a, x) => a + x.cpuMs, 0);
    rows.push({
      writers: spec.writers,
      window: i + 1,
      commitsPerSec: Math.round(inWin.length / (Math.max(1, spanMs) / 1000)),
      // CPU the whole process spent per commit (commits, maintenance, the bench itself): a per-commit cost
      // that grows with history shows here whatever the machine's load.
      cpuMsPerCommit: Math.round((cpuMs / Math.max(1, inWin.length)) * 100) / 100,
      p50Ms: quantile(lat, 0.5),
      p99Ms: quantile(lat, 0.99),
      p999Ms: quantile(lat, 0.999),
      maintSteps: st.length,
      maintMedianMs: quantile(stSorted, 0.5),
      maintMaxMs: stSorted.at(-1) ?? 0,
      jobRuns: jobs.filter((x) => x.end >= from && x.end < to).length,
      loopLagMaxMs: Math.round(Math.max(0, ...lagsIn(from, to).map((x) => x.ms))),
      // CPU the process got over the window's wall time (1 = one core busy): low with a high lag = starved.
      cpuShare: Math.round((cpuMs / Math.max(1, spanMs)) * 100) / 100,
      manifestKiB: Math.round((sizes.at(-1) ?? Number.NaN) / 102.4) / 10,
      ...(counted ? entriesPerCommit(inWin) : {}),
    });
  }

  const { m, size } = await newestManifest(inner, lake);
  const wal = await listAll(inner, walPrefix(lake));
  const all = await listAll(inner, lakePrefix(lake));
  const tableBytes = m.sortedTables.reduce((a, t) => a + Number((t as { size?: number }).size ?? 0), 0);
  const tailBytes = wal
    .filter((o) => (parseWalKey(lake, o.key) ?? 0) > m.wal.replayAfter)
    .reduce((a, o) => a + o.size, 0);
  const live = tableBytes + tailBytes + size;
  const put = (kind: string) => fb.bytesPut({ prefix: `${lakePrefix(lake)}${kind}/`, outcome: "ok" });
  const written = fb.bytesPut({ prefix: lakePrefix(lake), outcome: "ok" });
  const sstWritten = put("sst");
  const l0Merged = steps.reduce((a, x) => a + x.l0Bytes, 0);
  const runMerged = steps.reduce((a, x) => a + x.runBytes, 0);
  const stepMs = steps.map((x) => x.ms).sort((a, b) => a - b);
  // Commits that ran while a store maintenance step or a catalog job ran, against the rest.
  const overlap = overlapP99(commits, [...steps, ...jobs]);
  rows.push({
    writers: spec.writers,
    window: "total",
    commitsPerSec: Math.round(commits.length / (elapsedMs / 1000)),
    commits: commits.length,
    failures,
    p50Ms: quantile(
      commits.map((c) => c.ms).sort((a, b) => a - b),
      0.5,
    ),
    p99LastOverFirst:
      Math.round(((rows.at(-1)?.p99Ms as number) / Math.max(1, rows[0]?.p99Ms as number)) * 100) / 100,
    maintSteps: steps.length,
    commitsDuringMaint: overlap.overlapping,
    p99DuringMaintMs: overlap.p99Overlapping,
    p99OutsideMaintMs: overlap.p99Clear,
    compactions: steps.filter((x) => x.compacted).length,
    jobRuns:
      [...new Set(jobs.map((x) => x.job))]
        .map((j) => `${j}×${jobs.filter((x) => x.job === j).length}`)
        .join(" ") || "none",
    maintMedianMs: quantile(stepMs, 0.5),
    maintMaxMs: stepMs.at(-1) ?? 0,
    mibPutWal: put("wal") / 2 ** 20,
    mibPutSst: sstWritten / 2 ** 20,
    // Where the table bytes go: memtable flushes (L0), L0 merges into new runs, run merges (tiers).
    mibSstFlush: (sstWritten - l0Merged - runMerged) / 2 ** 20,
    mibSstL0Merge: l0Merged / 2 ** 20,
    mibSstRunMerge: runMerged / 2 ** 20,
    mibPutManifest: put("manifest") / 2 ** 20,
    mibPutGcLedger: put("gc") / 2 ** 20,
    mibPutData: put("data") / 2 ** 20,
    mibPutOther: (written - put("wal") - sstWritten - put("manifest") - put("gc") - put("data")) / 2 ** 20,
    mibLive: live / 2 ** 20,
    mibStored: all.reduce((a, o) => a + o.size, 0) / 2 ** 20,
    objectsStored: all.length,
    writeAmp: Math.round((written / live) * 100) / 100,
    sstWriteAmp: Math.round((sstWritten / Math.max(1, tableBytes)) * 100) / 100,
    manifestKiB: Math.round(size / 102.4) / 10,
    manifestTables: m.sortedTables.length,
    manifestUnreferenced: m.unreferenced.length,
    gcLedgers: m.gcLedgers?.length ?? 0,
    manifestMaxKiB: Math.round(Math.max(size, ...manifestSizes.map((x) => x.size)) / 102.4) / 10,
  });
  if (failures > 0) console.error(`${failures} failures; first: ${firstFailure}`);
  return rows;
}
