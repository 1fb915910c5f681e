/**
 * `npm run bench -- ingest [--quick]`: row ingestion through the lake writer (durable-objects/writer.ts,
 * the code the Durable Object hosts) in Node against Miniflare's R2 through the fault bucket, with
 * injected PUT latency L. For each (L, path wal|lake, writers c, rows per request r): rows/s, ack p50/p99
 * and R2 PUTs per 1k rows (and requests per PUT), and where a commit's time went (mean queue / submit / durability ms, mean
 * batch size, from the writer's metrics); the `wal` ÷ `lake` rows/s ratio per cell; then flush throughput
 * (rows/s into Parquet: the flusher's batches pass the inlining limit), flush lag (from the last
 * acknowledged append to the watermark covering it, an on-demand flush started at once), and lake + tail
 * read latency as the tail grows, and after the flush (rows read back from the Parquet files).
 */
import { readRows } from "../catalog/index.ts";
import { systemClock } from "../durable-objects/clock.ts";
import { DEFAULT_TUNABLES, type WriterTunables } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
import { dataObjectReader } from "../storage/data-objects.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { openLatest } from "../storage/index.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

let lakeSeq = 0;

function makeWriter(bucket: FaultBucket, lake: string, tunables: WriterTunables): Writer {
  return new Writer({
    lake,
    bucket,
    identity: "bench",
    registry: new MemoryRegistry(),
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

const T = { name: "events" };
const COLS = [
  { name: "id", type: "int64" },
  { name: "v", type: "varchar" },
];

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function newLake(inner: FaultBucket["inner"], tag: string, tunables: WriterTunables) {
  const bucket = new FaultBucket(inner);
  const lake = `bench-ingest-${tag}-${lakeSeq++}`;
  const w = makeWriter(bucket, lake, tunables);
  await w.createLake();
  await w.commit({ verbs: [{ op: "create_table", name: "events", columns: COLS }] });
  return { bucket, lake, w };
}

async function cell(
  inner: FaultBucket["inner"],
  L: number,
  path: "wal" | "lake",
  c: number,
  perRequest: number,
  requests: number,
  tunables: WriterTunables,
): Promise<Row> {
  const { bucket, w } = await newLake(inner, `${path}-${L}-${c}-${perRequest}`, tunables);
  if (L > 0) bucket.delay({ op: "put", ms: L });
  bucket.resetCounters();
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      for (let k = 0; k < requests; k++) {
        const ops = Array.from({ length: perRequest }, () => ({
          op: "insert" as const,
          row: { id: next++, v: "x" },
        }));
        const s = performance.now();
        await w.commit({ verbs: [{ op: "rows_write", table: T, ops, writePath: path }] });
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const rows = c * requests * perRequest;
  latencies.sort((a, b) => a - b);
  const puts = bucket.count({ op: "put", outcome: "ok" });
  const m = w.metricsSnapshot();
  const mean = (h: { sum: number; count: number }) => (h.count === 0 ? 0 : Math.round(h.sum / h.count));
  return {
    L,
    path,
    writers: c,
    rowsPerRequest: perRequest,
    rows,
    rowsPerSec: Math.round(rows / seconds),
    ackP50Ms: Math.round(quantile(latencies, 0.5)),
    ackP99Ms: Math.round(quantile(latencies, 0.99)),
    putsPer1kRows: Math.round((puts * 1000) / rows),
    // Both paths share the pacer: how many acknowledged requests one PUT carried (decision 0319).
    commitsPerPut: puts === 0 ? 0 : Math.round(((c * requests) / puts) * 10) / 10,
    queueMs: mean(m.latencyMs.queue),
    submitMs: mean(m.latencyMs.submit),
    durabilityMs: mean(m.latencyMs.durability),
    meanBatch: m.batches.count === 0 ? 0 : Math.round((m.batches.members / m.batches.count) * 10) / 10,
  };
}

/** Flush throughput, and lake + tail read latency for a growing tail. */
async function flushAndReads(
  inner: FaultBucket["inner"],
  L: number,
  tunables: WriterTunables,
): Promise<Row[]> {
  const { bucket, lake, w } = await newLake(inner, `flush-${L}`, tunables);
  if (L > 0) bucket.delay({ op: "put", ms: L });
  const out: Row[] = [];
  let id = 0;
  const files = dataObjectReader(inner, lake);
  for (const tail of [100, 1_000, 5_000, 20_000]) {
    while (id < tail) {
      const ops = Array.from({ length: 100 }, () => ({ op: "insert" as const, row: { id: id++, v: "x" } }));
      await w.commit({ verbs: [{ op: "rows_write", table: T, ops }] });
    }
    // Through the fault bucket (no latency on reads), so the read's GETs are counted.
    const view = await openLatest(bucket, lake);
    const g0 = bucket.count({ op: "get" });
    const s = performance.now();
    const r = await readRows(view, T, {}, dataObjectReader(bucket, lake));
    out.push({
      L,
      case: "lake+tail read",
      tailRecords: tail,
      rows: r.rows.length,
      ms: Math.round(performance.now() - s),
      gets: bucket.count({ op: "get" }) - g0,
    });
  }
  const dataPuts = () => bucket.count({ op: "put", prefix: `lakes/${lake}/data/`, outcome: "ok" });
  const files0 = dataPuts();
  const s = performance.now();
  const f = await w.flushRows();
  const secs = (performance.now() - s) / 1000;
  out.push({
    L,
    case: "flush (Parquet)",
    records: f.records,
    batches: f.batches,
    parquetFiles: dataPuts() - files0,
    rowsPerSec: Math.round(f.records / secs),
    ms: Math.round(secs * 1000),
  });
  // Flush lag: one more write acknowledged, then an on-demand flush; the lag is until the watermark
  // covering it is durable (the alarm path adds at most flushIntervalMs before the flush starts).
  const lagOps = Array.from({ length: 100 }, () => ({ op: "insert" as const, row: { id: id++, v: "x" } }));
  await w.commit({ verbs: [{ op: "rows_write", table: T, ops: lagOps }] });
  const l0 = performance.now();
  const lf = await w.flushRows();
  out.push({
    L,
    case: "flush lag (100-row tail)",
    records: lf.records,
    ms: Math.round(performance.now() - l0),
  });
  const view = await openLatest(inner, lake);
  const r0 = performance.now();
  const r = await readRows(view, T, {}, files);
  out.push({
    L,
    case: "read after flush (tail 0)",
    rows: r.rows.length,
    ms: Math.round(performance.now() - r0),
  });
  return out;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const tunables: WriterTunables = { ...DEFAULT_TUNABLES };
  const latencies = [0, 50];
  const writers = [1, 16, 64];
  const requests = opts.quick ? 3 : 10;
  const { bucket: inner, dispose } = await localBucket();
  const rows: Row[] = [];
  try {
    for (const L of latencies) {
      for (const perRequest of [1, 100]) {
        for (const c of writers) {
          for (const path of ["wal", "lake"] as const) {
            rows.push(await cell(inner, L, path, c, perRequest, requests, tunables));
            console.error(JSON.stringify(rows.at(-1)));
          }
          const [wal, lake] = rows.slice(-2);
          rows.push({
            L,
            case: "wal ÷ lake rows/s",
            writers: c,
            rowsPerRequest: perRequest,
            ratio: Math.round((Number(wal?.rowsPerSec) / Number(lake?.rowsPerSec)) * 10) / 10,
          });
        }
      }
      rows.push(...(await flushAndReads(inner, L, tunables)));
    }
  } finally {
    await dispose();
  }
  return {
    name: "ingest",
    params: {
      flushSpacingMs: tunables.flushSpacingMs,
      latenciesMs: latencies,
      writers,
      requestsPerWriter: requests,
      quick: opts.quick,
    },
    rows,
  };
}
