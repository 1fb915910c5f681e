/**
 * `npm run bench -- ingest [--quick]`: row ingestion through the lake writer (durable-objects/writer.ts,
 * the code the Durable Object hosts) in Node against Miniflare's R2 through the fault bucket, with
 * injected PUT latency L. For each (L, path wal|lake, writers c, rows per request r): rows/s, ack p50/p99
 * and R2 PUTs per 1k rows; then flush throughput (rows/s into DuckLake) and lake + tail read latency as
 * the tail grows.
 */
import { readRows } from "../catalog/index.ts";
import { systemClock } from "../durable-objects/clock.ts";
import { DEFAULT_TUNABLES, type WriterTunables } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
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
  for (const tail of [100, 1_000, 5_000]) {
    while (id < tail) {
      const ops = Array.from({ length: 100 }, () => ({ op: "insert" as const, row: { id: id++, v: "x" } }));
      await w.commit({ verbs: [{ op: "rows_write", table: T, ops }] });
    }
    const view = await openLatest(inner, lake);
    const s = performance.now();
    const r = await readRows(view, T, {});
    out.push({
      L,
      case: "lake+tail read",
      tailRecords: tail,
      rows: r.rows.length,
      ms: Math.round(performance.now() - s),
    });
  }
  const s = performance.now();
  const f = await w.flushRows();
  const secs = (performance.now() - s) / 1000;
  out.push({
    L,
    case: "flush",
    records: f.records,
    batches: f.batches,
    rowsPerSec: Math.round(f.records / secs),
    ms: Math.round(secs * 1000),
  });
  const view = await openLatest(inner, lake);
  const r0 = performance.now();
  const r = await readRows(view, T, {});
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
