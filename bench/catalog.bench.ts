/**
 * Catalog benchmark (Node, real Miniflare R2, no injected latency): verb commits/s for a single caller,
 * store reads and bytes per name-addressed create_table + register_data_file commit at 10 / 1k / 10k
 * tables, and the cost of time-travel reads (catalogAt, tableFilesAt) at head and at an old snapshot.
 */
import { catalogAt, openCatalog, tableFilesAt, type Verb } from "../catalog/index.ts";
import { openWriter } from "../storage/index.ts";
import { StoreCounter } from "../test/support/store-counter.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

const cols = [
  { name: "id", type: "int64" },
  { name: "amount", type: "decimal(18,2)" },
];

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const { bucket, dispose } = await localBucket();
  const rows: Row[] = [];
  const commits = opts.quick ? 200 : 2000;
  const sizes = opts.quick ? [10, 1000] : [10, 1000, 10_000];
  try {
    // 1. Verb commits/s, single caller: one data file per commit on one table.
    {
      const store = await openWriter(bucket, "bench-rate");
      const catalog = await openCatalog(store);
      await catalog.commit({ verbs: [{ op: "create_table", name: "t", columns: cols }] });
      await store.flush();
      const t0 = performance.now();
      for (let i = 0; i < commits; i++) {
        const out = await catalog.commit({
          verbs: [
            {
              op: "register_data_file",
              table: { name: "t" },
              file: { path: `f${i}.parquet`, recordCount: 100, fileSizeBytes: 1000 },
            },
          ],
        });
        if (i % 50 === 49) {
          await store.flush();
          await out.durable;
        }
      }
      await store.flush();
      const ms = performance.now() - t0;
      rows.push({
        case: "register_data_file commits (flush every 50)",
        tables: 1,
        commits,
        commits_per_s: (commits / ms) * 1000,
        ms_per_commit: ms / commits,
      });
      await store.close();
    }
    // 2. Reads and bytes per commit, and time-travel read cost, by catalog size.
    for (const n of sizes) {
      const store = await openWriter(bucket, `bench-size-${n}`);
      const catalog = await openCatalog(store);
      for (let start = 0; start < n; start += 2000) {
        const verbs: Verb[] = [];
        for (let i = start; i < Math.min(n, start + 2000); i++)
          verbs.push({ op: "create_table", name: `t${i}`, columns: cols });
        await catalog.commit({ verbs });
        await store.flush();
      }
      const first = await catalog.commit({
        verbs: [
          {
            op: "register_data_file",
            table: { name: "t0" },
            file: { path: "old.parquet", recordCount: 1, fileSizeBytes: 1 },
          },
        ],
      });
      await store.flush();
      const counter = new StoreCounter();
      const counted = await openCatalog(counter.wrapStore(store));
      counter.reset();
      const t0 = performance.now();
      await counted.commit({
        verbs: [
          { op: "create_table", schema: "main", name: "orders", columns: cols },
          {
            op: "register_data_file",
            table: { schema: "main", name: "orders" },
            file: { path: "o.parquet", recordCount: 10, fileSizeBytes: 100 },
          },
        ],
      });
      const commitMs = performance.now() - t0;
      rows.push({
        case: "create_table+register_data_file by name",
        tables: n,
        reads: counter.reads,
        read_bytes: counter.bytes,
        written_bytes: counter.written,
        ms: commitMs,
      });
      await store.flush();
      for (const [label, at] of [
        ["head", undefined],
        ["old snapshot", first.snapshotId ?? undefined],
      ] as const) {
        counter.reset();
        let t = performance.now();
        const view = counter.wrapView(store.snapshot());
        const state = await catalogAt(view, at);
        rows.push({
          case: `catalogAt ${label}`,
          tables: n,
          reads: counter.reads,
          read_bytes: counter.bytes,
          ms: performance.now() - t,
          entities: state.tables.length,
        });
        counter.reset();
        t = performance.now();
        const plan = await tableFilesAt(view, 1, at);
        rows.push({
          case: `tableFilesAt(by id) ${label}`,
          tables: n,
          reads: counter.reads,
          read_bytes: counter.bytes,
          ms: performance.now() - t,
          entities: plan.files.length,
        });
      }
      await store.close();
    }
    return { name: "catalog", params: { commits, sizes, storeLatencyMs: 0 }, rows };
  } finally {
    await dispose();
  }
}
