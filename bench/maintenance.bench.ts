/**
 * Managed maintenance in Node against Miniflare's R2: N single-row commits to one table, then job 1
 * (flush inlined rows) runs while an appender commits single rows to another table. Reports, before and
 * after the job: the table's scan-plan bytes and a cold read of it (GETs and ms from a fresh reader, no
 * cache); rows/s through the flush; the bytes it wrote against the inlined bytes it replaced; and the
 * appender's commit latency while the job runs vs idle, in the same run.
 *
 *     npm run bench -- maintenance [--quick]
 */
import { type Catalog, type CommitRequest, openCatalog, tableFilesAt } from "../catalog/index.ts";
import { runFlushJob } from "../maintenance/flush.ts";
import type { Bucket, Store } from "../storage/api.ts";
import { CountingBucket, openLatest, openWriter, ReaderCounters } from "../storage/index.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

const LAKE = "bench-maintenance";
const COLUMNS = [
  { name: "id", type: "int64" },
  { name: "s", type: "varchar" },
];

async function settle(store: Store, durable: Promise<void>): Promise<void> {
  await store.flush();
  await durable;
}

async function commit(store: Store, catalog: Catalog, request: CommitRequest): Promise<number | null> {
  const r = await catalog.commit(request);
  await settle(store, r.durable);
  return r.snapshotId;
}

const oneRow = (table: string, i: number): CommitRequest => ({
  verbs: [{ op: "inline_insert", table: { name: table }, rows: [{ id: i, s: `row-${i}` }] }],
});

/** The table's scan plan read by a fresh reader with no cache: its bytes, GETs and time. */
async function coldPlan(bucket: Bucket, table: string): Promise<Row> {
  const counters = new ReaderCounters();
  const t = performance.now();
  const view = await openLatest(new CountingBucket(bucket, counters), LAKE);
  const plan = await tableFilesAt(view, { name: table });
  const ms = performance.now() - t;
  return {
    planBytes: JSON.stringify(plan).length,
    inlinedRows: plan.inlined_rows.length,
    files: plan.files.length,
    coldGets: counters.calls.get,
    coldLists: counters.calls.list,
    coldMs: Math.round(ms),
  };
}

async function dataBytes(bucket: Bucket): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: `lakes/${LAKE}/data/`, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) n += o.size;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const commits = opts.quick ? 1000 : 10_000;
  const appends = opts.quick ? 20 : 100;
  const { bucket, dispose } = await localBucket();
  try {
    const store = await openWriter(bucket, LAKE);
    const catalog = await openCatalog(store, { dataPath: `r2://ducklake-edge/lakes/${LAKE}/data/` });
    await store.flush();
    for (const name of ["t", "u"])
      await commit(store, catalog, { verbs: [{ op: "create_table", name, columns: COLUMNS }] });
    for (let i = 0; i < commits; i++) await commit(store, catalog, oneRow("t", i));
    await store.maintain({ forceFlush: true });
    const rows: Row[] = [];
    const before = await coldPlan(bucket, "t");
    rows.push({ phase: "before jobs", ...before });

    // Appender latency, idle.
    const idle: number[] = [];
    for (let i = 0; i < appends; i++) {
      const t = performance.now();
      await commit(store, catalog, oneRow("u", i));
      idle.push(performance.now() - t);
    }

    // Job 1 on t while the appender keeps committing to u.
    const deps = {
      lake: LAKE,
      bucket,
      view: () => store.snapshot(),
      commit: async (request: CommitRequest) => ({ snapshotId: await commit(store, catalog, request) }),
      now: () => Date.now(),
      threshold: 10,
    };
    const bytesBefore = await dataBytes(bucket);
    const t0 = performance.now();
    let jobMs = 0;
    const job = runFlushJob(deps).then((r) => {
      jobMs = performance.now() - t0;
      return r;
    });
    const during: number[] = [];
    let duringJob = 0;
    for (let i = 0; i < appends; i++) {
      const t = performance.now();
      await commit(store, catalog, oneRow("u", appends + i));
      during.push(performance.now() - t);
      if (jobMs === 0) duringJob++;
    }
    const runs = await job;
    const written = (await dataBytes(bucket)) - bytesBefore;
    await store.maintain({ forceFlush: true });
    const after = await coldPlan(bucket, "t");
    rows.push({ phase: "after job 1", ...after });
    const flushed = runs
      .filter((r) => r.tableId !== undefined && r.error === null)
      .reduce((n, r) => n + r.rowsIn, 0);
    rows.push({
      phase: "job 1 (flush)",
      rowsIn: flushed,
      ms: Math.round(jobMs),
      rowsPerSec: Math.round(flushed / (jobMs / 1000)),
      parquetBytes: written,
      inlinedPlanBytes: Number(before.planBytes),
      bytesWrittenPerPlanByte: Number((written / Number(before.planBytes)).toFixed(3)),
      errors: runs.filter((r) => r.error !== null).length,
    });
    rows.push({
      phase: "appender (u)",
      idleP50Ms: Number(median(idle).toFixed(1)),
      duringJobP50Ms: Number(median(during).toFixed(1)),
      ratio: Number((median(during) / Math.max(median(idle), 0.001)).toFixed(2)),
      commitsWhileJobRan: duringJob,
    });
    return { name: "maintenance", params: { commits, appends, quick: opts.quick }, rows };
  } finally {
    await dispose();
  }
}
