/**
 * Jobs 2 and 3 (decision 0322) in Node against Miniflare's R2: a table of many small Parquet files is
 * merged (`runMergeJob`), then files with most rows deleted are rewritten (`runRewriteJob`). Reports rows
 * per second through each job (GETs, decode, re-encode, PUT and commit included), its write
 * amplification (bytes written / bytes read) and the live data files before and after.
 *
 *     npm run bench -- compaction [--quick]
 */
import { type Catalog, type CommitRequest, openCatalog, tableFilesAt } from "../catalog/index.ts";
import { buildMerge, planMerges } from "../catalog/maintenance/merge-plan.ts";
import { fileColumnStats, layoutColumns, parquetFields, toParquetRow } from "../catalog/parquet-layout.ts";
import { runMergeJob, runRewriteJob } from "../maintenance/compaction.ts";
import type { JobRun } from "../maintenance/history.ts";
import { writeParquet } from "../parquet/index.ts";
import type { Bucket, Store } from "../storage/api.ts";
import { openWriter } from "../storage/index.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

const LAKE = "bench-compaction";

async function settle(store: Store, durable: Promise<void>): Promise<void> {
  await store.flush();
  await durable;
}

async function append(
  bucket: Bucket,
  store: Store,
  catalog: Catalog,
  first: number,
  rows: number,
): Promise<void> {
  const plan = await tableFilesAt(store.snapshot(), { name: "t" });
  const top = layoutColumns(plan.columns);
  const file = writeParquet(
    parquetFields(plan.columns),
    Array.from({ length: rows }, (_, i) =>
      toParquetRow(top, { id: String(first + i), s: `row-${first + i}`, v: (first + i) / 7 }),
    ),
  );
  const name = `app-${first}.parquet`;
  await bucket.put(`lakes/${LAKE}/data/main/t/${name}`, file.bytes);
  const r = await catalog.commit({
    verbs: [
      {
        op: "register_data_file",
        table: { name: "t" },
        file: {
          path: name,
          recordCount: rows,
          fileSizeBytes: file.bytes.byteLength,
          footerSize: file.footerSize,
          columnStats: fileColumnStats(plan.columns, file).map((s) => ({
            column: { id: s.column_id },
            min: s.min_value,
            max: s.max_value,
          })),
        },
      },
    ],
  });
  await settle(store, r.durable);
}

function summary(job: string, runs: JobRun[], ms: number, before: number, after: number): Row {
  const rowsIn = runs.reduce((n, r) => n + r.rowsIn, 0);
  const bytesIn = runs.reduce((n, r) => n + (r.bytesIn ?? 0), 0);
  const bytesOut = runs.reduce((n, r) => n + (r.bytesOut ?? 0), 0);
  const errors = runs.filter((r) => r.error !== null).length;
  return {
    job,
    steps: runs.length,
    errors,
    rowsIn,
    rowsOut: runs.reduce((n, r) => n + r.rowsOut, 0),
    ms: Math.round(ms),
    rowsPerSec: Math.round(rowsIn / (ms / 1000)),
    bytesIn,
    bytesOut,
    writeAmplification: bytesIn === 0 ? 0 : Number((bytesOut / bytesIn).toFixed(3)),
    filesBefore: before,
    filesAfter: after,
  };
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const files = opts.quick ? 100 : 1000;
  const rowsPerFile = opts.quick ? 100 : 200;
  const { bucket, dispose } = await localBucket();
  try {
    const store = await openWriter(bucket, LAKE);
    const catalog = await openCatalog(store, { dataPath: `r2://ducklake-edge/lakes/${LAKE}/data/` });
    await store.flush();
    const c = await catalog.commit({
      verbs: [
        {
          op: "create_table",
          name: "t",
          columns: [
            { name: "id", type: "int64" },
            { name: "s", type: "varchar" },
            { name: "v", type: "float64" },
          ],
        },
      ],
    });
    await settle(store, c.durable);
    for (let f = 0; f < files; f++) await append(bucket, store, catalog, f * rowsPerFile, rowsPerFile);
    const deps = {
      lake: LAKE,
      bucket,
      view: () => store.snapshot(),
      commit: async (request: CommitRequest) => {
        const r = await catalog.commit(request);
        await settle(store, r.durable);
        return { snapshotId: r.snapshotId };
      },
      now: () => Date.now(),
    };
    const live = async () => (await tableFilesAt(store.snapshot(), { name: "t" })).files.length;
    const rows: Row[] = [];
    let before = await live();
    // The CPU part alone (decode, re-lay, encode) with the inputs already in memory: what a step costs
    // beyond its GETs, PUT and commit (Miniflare's local R2 makes those slow and noisy on a shared box).
    const { steps } = await planMerges(store.snapshot());
    const held = new Map<string, Uint8Array>();
    for (const c of steps.flatMap((x) => x.inputs)) {
      const o = await bucket.get(`lakes/${LAKE}/data/${c.relativeToDataPath}`);
      if (o) held.set(c.relativeToDataPath, new Uint8Array(await o.arrayBuffer()));
    }
    let t = performance.now();
    let cpuRows = 0;
    for (const step of steps) {
      cpuRows += (
        await buildMerge(
          step,
          async (rel) => held.get(rel) ?? new Uint8Array(),
          () => Date.now(),
        )
      ).rowsOut;
    }
    const cpuMs = performance.now() - t;
    rows.push({
      job: "merge (CPU only)",
      rowsIn: cpuRows,
      ms: Math.round(cpuMs),
      rowsPerSec: Math.round(cpuRows / (cpuMs / 1000)),
    });
    t = performance.now();
    const merged = await runMergeJob(deps);
    rows.push(summary("merge", merged, performance.now() - t, before, await live()));
    // Delete 96% of every merged file's rows (above DuckLake's 0.95 default), then rewrite them.
    const plan = await tableFilesAt(store.snapshot(), { name: "t" });
    for (const f of plan.files) {
      const positions = Array.from({ length: f.record_count }, (_, i) => i).filter((i) => i % 25 !== 0);
      const r = await catalog.commit({
        verbs: [
          {
            op: "inline_delete",
            table: { name: "t" },
            fileDeletes: [{ dataFileId: f.data_file_id, positions }],
          },
        ],
      });
      await settle(store, r.durable);
    }
    before = await live();
    t = performance.now();
    const rewritten = await runRewriteJob(deps);
    rows.push(summary("rewrite", rewritten, performance.now() - t, before, await live()));
    return { name: "compaction", params: { files, rowsPerFile, quick: opts.quick }, rows };
  } finally {
    await dispose();
  }
}
