/**
 * `npm run bench -- commit [--quick]`: the lake writer's commit path (durable-objects/writer.ts, the same
 * code the Durable Object hosts) in Node against Miniflare's R2 through the fault-injecting bucket, with
 * injected PUT latency L. For each (L, c, workload): c callers commit in a loop, each to its own table
 * ("own") or all appending to one table ("one"); commits/s, median and p99 latency, WAL PUTs, commits
 * per PUT and mean coalesced batch, against the targets. Then the cold (first commit after a
 * wake) versus warm commit cost.
 */
import type { CommitRequest } from "../catalog/index.ts";
import { systemClock } from "../durable-objects/clock.ts";
import { DEFAULT_TUNABLES, type WriterTunables } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

type Workload = "own" | "one";

let lakeSeq = 0;

export function makeWriter(
  bucket: FaultBucket,
  lake: string,
  registry: MemoryRegistry,
  tunables: WriterTunables,
): Writer {
  return new Writer({
    lake,
    bucket,
    identity: "bench",
    registry,
    clock: systemClock,
    now: () => Date.now(),
    tunables,
    abort: (reason) => {
      throw new Error(`writer aborted during the benchmark: ${reason}`);
    },
    scheduleBackground: () => {},
    log: (level, fields) => {
      if (level === "error") console.error(JSON.stringify(fields));
    },
  });
}

const cols = [{ name: "id", type: "int64" }];
const append = (table: string, n: number): CommitRequest["verbs"] => [
  {
    op: "register_data_file",
    table: { name: table },
    file: { path: `${table}/f${n}.parquet`, recordCount: 10, fileSizeBytes: 1000 },
  },
];

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Median time of a WAL-sized put-if-absent against Miniflare's R2 with no injected latency. */
async function basePutMs(inner: FaultBucket["inner"]): Promise<number> {
  const body = new Uint8Array(2048);
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const s = performance.now();
    await inner.put(`bench-base/${lakeSeq++}-${i}`, body, { onlyIf: { etagDoesNotMatch: "*" } });
    times.push(performance.now() - s);
  }
  return quantile(
    times.sort((a, b) => a - b),
    0.5,
  );
}

async function cell(
  inner: FaultBucket["inner"],
  P: number,
  L: number,
  c: number,
  workload: Workload,
  perCaller: number,
  tunables: WriterTunables,
): Promise<Row> {
  const bucket = new FaultBucket(inner);
  const lake = `bench-${workload}-${L}-${c}-${lakeSeq++}`;
  const w = makeWriter(bucket, lake, new MemoryRegistry(), tunables);
  await w.createLake();
  const tables = workload === "own" ? Array.from({ length: c }, (_, i) => `t${i}`) : ["t0"];
  for (let i = 0; i < tables.length; i += 64) {
    await w.commitGroup(
      tables.slice(i, i + 64).map((t) => ({ verbs: [{ op: "create_table", name: t, columns: cols }] })),
    );
  }
  if (L > 0) bucket.delay({ op: "put", ms: L });
  bucket.resetCounters();
  const before = w.stats;
  const flushesBefore = w.pacer?.flushCount ?? 0;
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async (_, caller) => {
      const table = workload === "own" ? `t${caller}` : "t0";
      for (let k = 0; k < perCaller; k++) {
        const s = performance.now();
        await w.commit({ verbs: append(table, caller * 100_000 + k) });
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const after = w.stats;
  const commits = c * perCaller;
  const walPuts = bucket.count({ op: "put", prefix: `lakes/${lake}/wal/`, outcome: "ok" });
  latencies.sort((a, b) => a - b);
  const S = tunables.flushSpacingMs;
  const commitsPerSec = commits / seconds;
  // Targets with the PUT latency the writer actually sees: the injected L plus Miniflare's own P.
  const Leff = L + P;
  const targetTput = (0.9 * Math.min(c, 64)) / (Math.max(Leff, S) / 1000);
  const meanBatch =
    (after.batchedRequests - before.batchedRequests) / Math.max(1, after.batches - before.batches);
  const p50 = quantile(latencies, 0.5);
  const row: Row = {
    L,
    c,
    workload,
    commits,
    commitsPerSec: Math.round(commitsPerSec),
    p50Ms: p50,
    p99Ms: quantile(latencies, 0.99),
    walPuts,
    flushes: (w.pacer?.flushCount ?? 0) - flushesBefore,
    commitsPerPut: commits / Math.max(1, walPuts),
    submitMsPerBatch: (after.submitMs - before.submitMs) / Math.max(1, after.batches - before.batches),
    meanBatch,
    targetBatch: Math.min(c, 64),
    targetTput: Math.round(targetTput),
    tputOk: commitsPerSec >= targetTput,
    batchOk: meanBatch >= Math.min(c, 64) - 1e-9,
  };
  if (c === 1) {
    const loneTarget = Math.max(1.1 * Leff, S / 10) + 3;
    row.loneTargetMs = loneTarget;
    row.loneOk = p50 <= loneTarget;
  }
  return row;
}

/** The first commit after a wake (a new writer over an existing lake) against a warm one. */
async function coldWarm(inner: FaultBucket["inner"], L: number, tunables: WriterTunables): Promise<Row[]> {
  const bucket = new FaultBucket(inner);
  const lake = `bench-cold-${L}-${lakeSeq++}`;
  const registry = new MemoryRegistry();
  const first = makeWriter(bucket, lake, registry, tunables);
  await first.createLake();
  await first.commit({ verbs: [{ op: "create_table", name: "t", columns: cols }] });
  for (let i = 0; i < 20; i++) await first.commit({ verbs: append("t", i) });
  if (L > 0) bucket.delay({ ms: L });
  const rows: Row[] = [];
  const measure = async (label: string, w: Writer, n: number): Promise<void> => {
    bucket.resetCounters();
    const s = performance.now();
    await w.commit({ verbs: append("t", 1000 + n) });
    const ms = performance.now() - s;
    const k = bucket.counts(`lakes/${lake}/`);
    rows.push({
      L,
      case: label,
      ms,
      r2Ops: k.put + k.get + k.head + k.list + k.delete,
      puts: k.put,
      gets: k.get,
      lists: k.list,
      objectsWritten: bucket.count({ op: "put", outcome: "ok" }),
    });
  };
  // A wake: the object's memory is gone, its own storage (registry: existence, held epoch) is kept.
  const woken = makeWriter(bucket, lake, registry, tunables);
  await measure("cold (wake, held epoch)", woken, 1);
  await new Promise((r) => setTimeout(r, tunables.flushSpacingMs * 1.2));
  await measure("warm", woken, 2);
  // A wake that lost its own storage too: existence check and a new epoch.
  const bare = makeWriter(bucket, lake, new MemoryRegistry(), tunables);
  await measure("cold (wake, no object storage)", bare, 3);
  // The same wake once the store has flushed its memtable (what the alarm's maintenance keeps true):
  // the open replays a short WAL tail instead of every segment since the lake began.
  bucket.clearFaults();
  const maintained = makeWriter(bucket, lake, registry, tunables);
  await maintained.commit({ verbs: append("t", 5000) });
  await maintained.maintainNow();
  if (L > 0) bucket.delay({ ms: L });
  await measure("cold (wake, after memtable flush)", makeWriter(bucket, lake, registry, tunables), 4);
  return rows;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const spacing = Number(
    opts.args.find((a) => a.startsWith("spacing="))?.slice(8) ?? DEFAULT_TUNABLES.flushSpacingMs,
  );
  const tunables: WriterTunables = { ...DEFAULT_TUNABLES, flushSpacingMs: spacing };
  const latencies = [0, 25, 100];
  const concurrency = opts.quick ? [1, 4, 16, 64, 128] : [1, 2, 4, 8, 16, 32, 64, 128];
  const { bucket, dispose } = await localBucket();
  const inner = bucket;
  const rows: Row[] = [];
  let P = 0;
  try {
    P = await basePutMs(inner);
    for (const workload of ["own", "one"] as const) {
      for (const L of latencies) {
        for (const c of concurrency) {
          // Enough rounds that the lone flush and the first full-spacing measurement do not dominate.
          const perCaller = Math.max(opts.quick ? 4 : 10, Math.ceil((opts.quick ? 16 : 40) / c));
          rows.push(await cell(inner, P, L, c, workload, perCaller, tunables));
          const last = rows.at(-1);
          if (last) console.error(JSON.stringify(last));
        }
      }
    }
    for (const L of latencies) rows.push(...(await coldWarm(inner, L, tunables)));
  } finally {
    await dispose();
  }
  return {
    name: "commit",
    params: {
      flushSpacingMs: spacing,
      miniflarePutMedianMs: P,
      latenciesMs: latencies,
      concurrency,
      quick: opts.quick,
      note: "L is added to every PUT; targets use L + Miniflare's own median PUT time (miniflarePutMedianMs)",
    },
    rows,
  };
}
