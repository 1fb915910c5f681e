/**
 * Managed maintenance (issue 14) through the lake writer (`durable-objects/writer.ts`, the code the
 * Durable Object hosts) in Node against Miniflare's R2: N single-row commits to one table `t`, then the
 * five jobs in turn, each run as `POST …/maintenance` runs it (`Writer.runMaintenance`):
 *   1 flush the inlined rows; then more single-row commits, each slice flushed as the alarm would, so
 *   2 merge has small adjacent files; 3 rewrite after most rows are deleted; 4 expire with a retention;
 *   5 delete the files expiry scheduled, once the grace has passed (the wall clock is skewed, no sleeps).
 * Per phase: `t`'s scan-plan bytes and a cold read of it (GETs, lists and ms from a fresh reader, no cache).
 * Per job: rows in/out, rows/s, bytes PUT under the data prefix and write amplification (bytes the job
 * PUT / bytes of data files it replaced; job 1 replaces inlined rows, so its figure is per plan byte).
 * Appender: a second table `u` takes single-row commits in interleaved windows, idle (W commits right
 * before the job) and during the job (commits until it answers), same run; p50/p90 and the ratio.
 * A final `defaults` section feeds a fresh lake N single-row commits with the lake's default settings and
 * runs the writer's background pass whenever the writer asked for one, and reports the plan and cold
 * read at several history lengths (the goal: ≤ 1 MB and ≤ 20 GETs at any length).
 *
 *     npm run bench -- maintenance [--quick] [only=jobs|defaults] [passes=N] [probe=1] [yieldMax=MS]
 *     (N commits = 1,000 with --quick, else 10,000; passes: the defaults section's alarm passes, default 40)
 * `probe=1` profiles each timed job and prints the functions on the stack during its longest stalls.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { tableFilesAt } from "../catalog/index.ts";
import type { CommitRequest } from "../catalog/verbs/schema.ts";
import { systemClock } from "../durable-objects/clock.ts";
import { DEFAULT_TUNABLES, type WriterTunables } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
import type { JobName, StoredJobRun } from "../maintenance/history.ts";
import type { Bucket } from "../storage/api.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { openLatest } from "../storage/index.ts";
import { walPrefix } from "../storage/keys.ts";
import { sstPrefix } from "../storage/sst/key.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";
import { probeStalls, type Stall } from "./stall-probe.ts";

const COLUMNS = [
  { name: "id", type: "int64" },
  { name: "s", type: "varchar" },
];
/** Single-row commits submitted together (each its own DuckLake commit and snapshot, coalesced). */
const LOAD_GROUP = 64;
const HOUR_MS = 3600_000;

const oneRow = (table: string, i: number): CommitRequest => ({
  verbs: [{ op: "inline_insert", table: { name: table }, rows: [{ id: i, s: `row-${i}` }] }],
});

interface Lake {
  lake: string;
  bucket: FaultBucket;
  writer: Writer;
  /** Wall-clock skew the jobs see (retention and grace pass without sleeping). */
  skew: { ms: number };
  /** Set when the writer asked for its background pass (the alarm). */
  alarm: { due: boolean };
}

let lakeSeq = 0;
/** `probe=1`: profile each timed job and print its longest event-loop stalls (bench/stall-probe.ts). */
let probe = false;
/** `yieldMax=N`: the writers' `maintenanceYieldMaxMs` (0: a job's pause is one macrotask, as before 0326). */
let tunables: WriterTunables = DEFAULT_TUNABLES;
const stalls: { job: JobName; stalls: Stall[] }[] = [];
const writers: Writer[] = [];

/**
 * Waits for the writers' own background reads to settle before Miniflare goes (a read of a disposed
 * Miniflare's bucket throws from its proxy): each writer's durable head, then one macrotask turn.
 */
async function drainWriters(): Promise<void> {
  for (const w of writers.splice(0)) await w.head().catch(() => undefined);
  await new Promise<void>((resolve) => setImmediate(resolve));
}

async function openLake(inner: Bucket, name: string): Promise<Lake> {
  const lake = `bench-maintenance-${name}-${lakeSeq++}`;
  const bucket = new FaultBucket(inner);
  const skew = { ms: 0 };
  const alarm = { due: false };
  const writer = new Writer({
    lake,
    bucket,
    identity: "bench",
    registry: new MemoryRegistry(),
    clock: systemClock,
    now: () => Date.now() + skew.ms,
    tunables,
    abort: (reason) => {
      throw new Error(`writer aborted during the benchmark: ${reason}`);
    },
    scheduleBackground: () => {
      alarm.due = true;
    },
    log: (level, fields) => {
      if (level === "error") console.error(JSON.stringify(fields));
    },
  });
  writers.push(writer);
  await writer.createLake();
  for (const t of ["t", "u"])
    await writer.commit({ verbs: [{ op: "create_table", name: t, columns: COLUMNS }] });
  return { lake, bucket, writer, skew, alarm };
}

/** `count` single-row commits to `table`, submitted LOAD_GROUP at a time. */
async function load(w: Writer, table: string, first: number, count: number): Promise<void> {
  for (let i = 0; i < count; i += LOAD_GROUP) {
    const n = Math.min(LOAD_GROUP, count - i);
    const answers = await w.commitGroup(Array.from({ length: n }, (_, k) => oneRow(table, first + i + k)));
    const failed = answers.find((a) => !a.ok);
    if (failed) throw new Error(`a load commit failed: ${JSON.stringify(failed)}`);
  }
}

/** `t`'s scan plan read by a fresh reader with no cache, after the writer's memtable is flushed. */
async function coldPlan(lake: Lake): Promise<Row> {
  await lake.writer.maintainNow();
  const reader = new FaultBucket(lake.bucket.inner);
  const t = performance.now();
  const view = await openLatest(reader, lake.lake);
  const plan = await tableFilesAt(view, { name: "t" });
  const ms = performance.now() - t;
  return {
    planBytes: JSON.stringify(plan).length,
    inlinedRows: plan.inlined_rows.length,
    files: plan.files.length,
    coldGets: reader.count({ op: "get" }),
    sstGets: reader.count({ op: "get", prefix: sstPrefix(lake.lake) }),
    walGets: reader.count({ op: "get", prefix: walPrefix(lake.lake) }),
    coldLists: reader.count({ op: "list" }),
    serialRounds: reader.serialRounds(),
    coldMs: Math.round(ms),
  };
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

interface Window {
  idle: number[];
  during: number[];
  /** Longest stretch the event loop was blocked while the job ran (ms): synchronous work in the job. */
  loopMaxMs?: number;
}

/** Appender commits to `u`: `count` of them, or (with `until`) until it settles, at least one. */
async function appendWindow(lake: Lake, seq: { n: number }, count: number, until?: Promise<unknown>) {
  let settled = false;
  void until?.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  const ms: number[] = [];
  for (let i = 0; until ? !settled || i === 0 : i < count; i++) {
    const t = performance.now();
    await lake.writer.commit(oneRow("u", seq.n++));
    ms.push(performance.now() - t);
  }
  return ms;
}

const dataPrefix = (lake: Lake): string => `lakes/${lake.lake}/data/`;

/** Runs one job while the appender commits, after an idle window; answers its runs and figures. */
async function timedJob(
  lake: Lake,
  job: JobName,
  seq: { n: number },
  window: number,
  windows: Window,
): Promise<JobFigures> {
  windows.idle.push(...(await appendWindow(lake, seq, window)));
  const liveBefore = await liveFileBytes(lake);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const putsBefore = lake.bucket.bytesPut({ prefix: dataPrefix(lake), outcome: "ok" });
  const t0 = performance.now();
  let ms = 0;
  loop.enable();
  const jobAndAppender = async () => {
    const running = lake.writer.runMaintenance({ jobs: [job] }).then((r) => {
      ms = performance.now() - t0;
      return r;
    });
    windows.during.push(...(await appendWindow(lake, seq, 0, running)));
    return running;
  };
  let runs: StoredJobRun[];
  if (probe) {
    const probed = await probeStalls(jobAndAppender);
    runs = probed.value;
    stalls.push({ job, stalls: probed.stalls });
  } else runs = await jobAndAppender();
  loop.disable();
  windows.loopMaxMs = Math.round(loop.max / 1e6);
  const bytesPut = lake.bucket.bytesPut({ prefix: dataPrefix(lake), outcome: "ok" }) - putsBefore;
  // live after = live before - replaced + written.
  const bytesReplaced = liveBefore - (await liveFileBytes(lake)) + bytesPut;
  return { runs, ms, bytesPut, bytesReplaced };
}

interface JobFigures {
  runs: StoredJobRun[];
  ms: number;
  /** Bytes the job PUT under the data prefix. */
  bytesPut: number;
  /** Bytes of `t`'s data files the job took out of the live set. */
  bytesReplaced: number;
}

const sum = (runs: readonly StoredJobRun[], f: (r: StoredJobRun) => number): number =>
  runs.reduce((n, r) => n + f(r), 0);

/** `writeAmp`: bytes PUT per byte of data files replaced (null when the job replaced no file). */
function jobRow(phase: string, r: JobFigures, replaces: boolean): Row {
  const bytesReplaced = replaces ? r.bytesReplaced : null;
  const rowsIn = sum(r.runs, (x) => x.rowsIn);
  const errors = r.runs.filter((x) => x.error !== null);
  if (errors.length > 0) throw new Error(`${phase} failed: ${JSON.stringify(errors)}`);
  return {
    phase,
    runs: r.runs.length,
    filesIn: sum(r.runs, (x) => x.filesIn),
    filesOut: sum(r.runs, (x) => x.filesOut),
    rowsIn,
    rowsOut: sum(r.runs, (x) => x.rowsOut),
    snapshotsExpired: sum(r.runs, (x) => x.snapshotsExpired ?? 0),
    ms: Math.round(r.ms),
    rowsPerSec: rowsIn > 0 ? Math.round(rowsIn / (r.ms / 1000)) : 0,
    bytesPut: r.bytesPut,
    writeAmp: bytesReplaced && bytesReplaced > 0 ? Number((r.bytesPut / bytesReplaced).toFixed(3)) : null,
  };
}

/** Bytes of `t`'s live data files (what a merge or rewrite replaces). */
async function liveFileBytes(lake: Lake): Promise<number> {
  const plan = await tableFilesAt(await openLatest(lake.bucket.inner, lake.lake), { name: "t" });
  return plan.files.reduce((n, f) => n + f.file_size_bytes, 0);
}

async function setOption(w: Writer, name: string, value: string): Promise<void> {
  await w.commit({ verbs: [{ op: "set_option", name, value }] });
}

function latencyRow(phase: string, w: Window): Row {
  const idle = quantile(w.idle, 0.5);
  return {
    phase,
    idleCommits: w.idle.length,
    idleP50Ms: Number(idle.toFixed(2)),
    idleP90Ms: Number(quantile(w.idle, 0.9).toFixed(2)),
    duringCommits: w.during.length,
    duringP50Ms: Number(quantile(w.during, 0.5).toFixed(2)),
    duringP90Ms: Number(quantile(w.during, 0.9).toFixed(2)),
    p50Ratio: Number((quantile(w.during, 0.5) / Math.max(idle, 0.001)).toFixed(2)),
    p90Ratio: Number((quantile(w.during, 0.9) / Math.max(quantile(w.idle, 0.9), 0.001)).toFixed(2)),
    ...(w.loopMaxMs !== undefined ? { loopBlockedMaxMs: w.loopMaxMs } : {}),
  };
}

async function jobsSection(inner: Bucket, commits: number, window: number): Promise<Row[]> {
  const lake = await openLake(inner, "jobs");
  const w = lake.writer;
  const rows: Row[] = [];
  const seq = { n: 0 };
  const all: Window = { idle: [], during: [] };
  const perJob: [string, Window][] = [];
  const run = async (job: JobName) => {
    const win: Window = { idle: [], during: [] };
    const r = await timedJob(lake, job, seq, window, win);
    perJob.push([job, win]);
    all.idle.push(...win.idle);
    all.during.push(...win.during);
    return r;
  };

  await load(w, "t", 0, commits);
  const before = await coldPlan(lake);
  rows.push({ phase: `after ${commits} commits`, ...before });

  const flush = await run("flush_inlined");
  rows.push(jobRow("job 1 flush", flush, false));
  rows.push({ phase: "after job 1", ...(await coldPlan(lake)) });

  // The stream goes on and the alarm flushes each slice: small adjacent files for job 2.
  const slices = 10;
  for (let s = 0; s < slices; s++) {
    await load(w, "t", commits + (s * commits) / slices, commits / slices);
    await w.runMaintenance({ jobs: ["flush_inlined"] });
  }
  rows.push({ phase: `after ${commits} more, ${slices} flushes`, ...(await coldPlan(lake)) });

  const merge = await run("merge_adjacent");
  rows.push(jobRow("job 2 merge", merge, true));
  rows.push({ phase: "after job 2", ...(await coldPlan(lake)) });

  // Delete 96% of the rows (inlined file deletes), past DuckLake's rewrite_delete_threshold (0.95).
  const plan = await tableFilesAt(await openLatest(lake.bucket.inner, lake.lake), { name: "t" });
  for (const f of plan.files) {
    const n = f.record_count;
    const positions = Array.from({ length: n }, (_, i) => i).filter((i) => i % 25 !== 0);
    for (let i = 0; i < positions.length; i += 5000)
      await w.commit({
        verbs: [
          {
            op: "inline_delete",
            table: { name: "t" },
            fileDeletes: [{ dataFileId: f.data_file_id, positions: positions.slice(i, i + 5000) }],
          },
        ],
      });
  }
  rows.push({ phase: "after 96% deleted", ...(await coldPlan(lake)) });
  const rewrite = await run("rewrite_deletes");
  rows.push(jobRow("job 3 rewrite", rewrite, true));
  rows.push({ phase: "after job 3", ...(await coldPlan(lake)) });

  await setOption(w, "expire_older_than", "1 hour");
  await setOption(w, "delete_older_than", "1 hour");
  lake.skew.ms += 2 * HOUR_MS;
  const expire = await run("expire_snapshots");
  rows.push(jobRow("job 4 expire", expire, false));
  rows.push({ phase: "after job 4", ...(await coldPlan(lake)) });

  lake.skew.ms += 2 * HOUR_MS;
  const bytesStored = await dataBytes(lake);
  const del = await run("delete_files");
  rows.push({
    ...jobRow("job 5 delete files", del, false),
    dataBytesBefore: bytesStored,
    dataBytesAfter: await dataBytes(lake),
  });
  rows.push({ phase: "after job 5", ...(await coldPlan(lake)) });

  for (const [job, win] of perJob) rows.push(latencyRow(`appender during ${job}`, win));
  rows.push(latencyRow("appender, all jobs", all));
  return rows;
}

/**
 * Alarm passes one defaults run takes by default (one every commits/passes single-row commits); `passes=N`
 * asks for more, so more flushes and merges happen at the same history length (decision 0333's figure).
 */
const ALARM_PASSES = 40;
/** The most alarm passes `passes=N` may ask for (one per commit at most). */
const MAX_ALARM_PASSES = 10_000;

/**
 * A fresh lake at default settings: `commits` single-row commits to `t`, the writer's background pass (its
 * alarm) run every commits/ALARM_PASSES commits; the plan and cold read at four history lengths, and the
 * bytes the jobs PUT against the live data they leave (write amplification of the defaults).
 */
async function defaultsSection(inner: Bucket, commits: number, alarmPasses: number): Promise<Row[]> {
  const lake = await openLake(inner, "defaults");
  const rows: Row[] = [];
  const every = Math.max(1, Math.floor(commits / alarmPasses));
  const marks = new Set([commits / 4, commits / 2, (3 * commits) / 4, commits].map(Math.floor));
  let passes = 0;
  let passMs = 0;
  for (let done = 0; done < commits; ) {
    const n = Math.min(every, commits - done);
    await load(lake.writer, "t", done, n);
    done += n;
    const t0 = performance.now();
    await lake.writer.background();
    passMs = Math.max(passMs, performance.now() - t0);
    passes++;
    if ([...marks].some((m) => m <= done)) {
      for (const m of marks) if (m <= done) marks.delete(m);
      rows.push({ phase: `defaults, ${done} commits`, alarmPasses: passes, ...(await coldPlan(lake)) });
    }
  }
  const put = lake.bucket.bytesPut({ prefix: dataPrefix(lake), outcome: "ok" });
  const live = await liveFileBytes(lake);
  const runs = lake.writer.stats.maintenance;
  rows.push({
    phase: "defaults, jobs",
    flushRuns: runs.filter((r) => r.job === "flush_inlined").length,
    mergeRuns: runs.filter((r) => r.job === "merge_adjacent").length,
    errors: runs.filter((r) => r.error !== null).length,
    longestPassMs: Math.round(passMs),
    dataBytesPut: put,
    liveDataBytes: live,
    writeAmp: live > 0 ? Number((put / live).toFixed(2)) : null,
  });
  return rows;
}

async function dataBytes(lake: Lake): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await lake.bucket.inner.list({ prefix: dataPrefix(lake), ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) n += o.size;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const commits = opts.quick ? 1000 : 10_000;
  const window = opts.quick ? 30 : 100;
  const { bucket, dispose } = await localBucket();
  try {
    const only = opts.args.find((a) => a.startsWith("only="))?.slice(5);
    const passesArg = opts.args.find((a) => a.startsWith("passes="))?.slice(7);
    const passes = passesArg === undefined ? ALARM_PASSES : Number(passesArg);
    if (!Number.isInteger(passes) || passes < 1 || passes > MAX_ALARM_PASSES)
      throw new RangeError(`passes=${passesArg}: expected an integer from 1 to ${MAX_ALARM_PASSES}`);
    probe = opts.args.includes("probe=1");
    const yieldArg = opts.args.find((a) => a.startsWith("yieldMax="))?.slice(9);
    if (yieldArg !== undefined) {
      const ms = Number(yieldArg);
      if (!Number.isInteger(ms) || ms < 0)
        throw new RangeError(`yieldMax=${yieldArg}: expected an integer ≥ 0 (ms)`);
      tunables = { ...DEFAULT_TUNABLES, maintenanceYieldMaxMs: ms };
    }
    const rows = [
      ...(only === undefined || only === "jobs" ? await jobsSection(bucket, commits, window) : []),
      ...(only === undefined || only === "defaults" ? await defaultsSection(bucket, commits, passes) : []),
    ];
    for (const { job, stalls: list } of stalls) {
      console.log(`\nlongest event-loop stalls during ${job}:`);
      for (const st of list) console.log(`  ${st.ms} ms\n    ${st.frames.join("\n    ")}`);
    }
    return {
      name: "maintenance",
      params: { commits, window, passes, yieldMaxMs: tunables.maintenanceYieldMaxMs, quick: opts.quick },
      rows,
    };
  } finally {
    await drainWriters();
    await dispose();
  }
}
