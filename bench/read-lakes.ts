/**
 * Lakes for the read benchmark, written in Node straight through the store and the catalog (no Durable
 * Object): `tables` unrelated tables plus one read table `main.orders` with `files` registered data
 * files, then maintained to the steady state a lake writer leaves behind (memtable flushed, L0 compacted
 * into the sorted run), so a read sees sorted tables and a short WAL tail rather than one long WAL.
 */
import { openCatalog, type Verb } from "../catalog/index.ts";
import type { Bucket, Store } from "../storage/api.ts";
import { openLatest, openWriter } from "../storage/index.ts";

export interface LakeSpec {
  lake: string;
  /** Tables besides the read table. */
  tables: number;
  /** Data files registered in the read table. */
  files: number;
}

export interface BuiltLake extends LakeSpec {
  snapshots: number;
  buildMs: number;
  /** WAL segments a latest read replays over the manifest, after maintenance. */
  walTail: number;
  /** Sorted-table objects in the lake's prefix (L0 and run partitions, plus any awaiting GC). */
  sstObjects: number;
}

/** Verbs per commit while populating: big batches keep the build fast without one giant segment. */
const CHUNK = 1000;

const columns = [
  { name: "id", type: "int64" },
  { name: "region", type: "varchar" },
  { name: "amount", type: "decimal(18,2)" },
];

function fileVerb(i: number): Verb {
  return {
    op: "register_data_file",
    table: { name: "orders" },
    file: {
      // Inside the lake's data path (the catalog's rule); committed straight through the catalog, so no
      // upload is checked, and readers only plan.
      path: `part-${i}.parquet`,
      recordCount: 1000,
      fileSizeBytes: 64_000,
      columnStats: [
        { column: "id", min: String(i * 1000), max: String(i * 1000 + 999), nullCount: 0 },
        { column: "region", min: "eu", max: "us", nullCount: 0 },
      ],
    },
  };
}

async function commitChunks(store: Store, verbs: Verb[], commit: (v: Verb[]) => Promise<unknown>) {
  for (let i = 0; i < verbs.length; i += CHUNK) {
    await commit(verbs.slice(i, i + CHUNK));
    await store.flush();
  }
}

/** Runs maintenance to quiescence, then forces the memtable out and L0 into the run. */
async function settle(store: Store): Promise<void> {
  while (store.needsMaintenance) await store.maintain();
  let report = await store.maintain({ forceFlush: true, forceCompaction: true });
  while (report.more || report.compaction?.finished === false) report = await store.maintain();
}

export async function buildLake(bucket: Bucket, spec: LakeSpec): Promise<BuiltLake> {
  const t0 = performance.now();
  const store = await openWriter(bucket, spec.lake);
  const catalog = await openCatalog(store, { dataPath: `r2://bench/lakes/${spec.lake}/data/` });
  await store.flush();
  let snapshots = 1;
  const commit = async (verbs: Verb[]) => {
    const out = await catalog.commit({ verbs });
    if (out.snapshotId !== null) snapshots++;
  };
  await commit([{ op: "create_table", name: "orders", columns }]);
  const others: Verb[] = Array.from({ length: spec.tables }, (_, i) => ({
    op: "create_table",
    name: `unrelated_${i}`,
    columns,
  }));
  await commitChunks(store, others, commit);
  await commitChunks(
    store,
    Array.from({ length: spec.files }, (_, i) => fileVerb(i)),
    commit,
  );
  await store.flush();
  await settle(store);
  await store.close();
  const cut = (await openLatest(bucket, spec.lake)).cut;
  const ssts = await bucket.list({ prefix: `lakes/${spec.lake}/sst/`, limit: 1000 });
  return {
    ...spec,
    snapshots,
    buildMs: performance.now() - t0,
    walTail: Math.max(0, cut.wal.to - cut.wal.from + 1),
    sstObjects: ssts.objects.length,
  };
}
