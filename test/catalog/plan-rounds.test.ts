/**
 * A cold scan plan through a stateless reader counts its serial R2 round trips, not its time: the plan
 * names the ranges its dependent lookups read (catalog/reads/plan-prefetch.ts) and the reader fetches
 * their blocks together (storage/prefetch.ts, docs/decisions/0170-plan-prefetch.md). The rounds must not
 * grow with the table's file count, and the GETs stay a handful.
 */
import { describe, expect, it } from "vitest";
import { openCatalog, tableFilesAt, type Verb } from "../../catalog/index.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { openLatest, openWriter } from "../../storage/index.ts";
import { lakePrefix } from "../../storage/keys.ts";
import { PREFETCH_CONNECTIONS } from "../../storage/prefetch.ts";
import { bucket, lakeName } from "./support.ts";

/** Small partitions, so the larger lake's catalog spans several run partitions (as 10k files do at 2 MiB). */
const PARTITION_BYTES = 512 * 1024;
const CHUNK = 500;

const columns = [
  { name: "id", type: "int64" },
  { name: "region", type: "varchar" },
];

const fileVerb = (i: number): Verb => ({
  op: "register_data_file",
  table: { name: "orders" },
  file: {
    path: `part-${i}.parquet`,
    recordCount: 1000,
    fileSizeBytes: 64_000,
    columnStats: [{ column: "id", min: String(i * 1000), max: String(i * 1000 + 999), nullCount: 0 }],
  },
});

/** A lake with `files` files in main.orders plus five other tables, maintained into a sorted run. */
async function lakeWith(files: number): Promise<{ lake: string; tables: number; ordersId: number }> {
  const lake = lakeName(`plan-rounds-${files}`);
  const store = await openWriter(bucket(), lake, { maintenance: { partitionBytes: PARTITION_BYTES } });
  const catalog = await openCatalog(store, { dataPath: `r2://bench/lakes/${lake}/data/` });
  const commit = async (verbs: Verb[]): Promise<void> => {
    await catalog.commit({ verbs });
    await store.flush();
  };
  await commit([{ op: "create_table", name: "orders", columns }]);
  await commit(Array.from({ length: 5 }, (_, i) => ({ op: "create_table", name: `other_${i}`, columns })));
  for (let i = 0; i < files; i += CHUNK)
    await commit(Array.from({ length: Math.min(CHUNK, files - i) }, (_, j) => fileVerb(i + j)));
  let report = await store.maintain({ forceFlush: true, forceCompaction: true });
  while (report.more || report.compaction?.finished === false) report = await store.maintain();
  const tables = (store as unknown as { manifest: { sortedTables: unknown[] } }).manifest.sortedTables.length;
  await store.close();
  const plan = await tableFilesAt(await openLatest(bucket(), lake), { name: "orders" }, undefined, {
    limit: 1,
  });
  return { lake, tables, ordersId: plan.table.table_id };
}

async function coldPlan(lake: string, ref: Parameters<typeof tableFilesAt>[1]) {
  const fb = new FaultBucket(bucket());
  const reader = await openLatest(fb, lake, { prefetchTables: true });
  const plan = await tableFilesAt(reader, ref, undefined, { limit: 1000 });
  const k = fb.counts(lakePrefix(lake));
  return { plan, gets: k.get, lists: k.list, rounds: fb.serialRounds({ prefix: lakePrefix(lake) }) };
}

describe("a cold scan plan's round trips", () => {
  it("do not grow with the file count: 5 by name, 4 by id, at 300 and 3,000 files", async () => {
    const rows = [];
    for (const files of [300, 3000]) {
      const { lake, tables, ordersId } = await lakeWith(files);
      const byName = await coldPlan(lake, { name: "orders" });
      const byId = await coldPlan(lake, ordersId);
      expect(byName.plan.files).toHaveLength(Math.min(files, 1000));
      expect(byId.plan.files.map((f) => f.data_file_id)).toEqual(
        byName.plan.files.map((f) => f.data_file_id),
      );
      rows.push({ files, tables, byName, byId });
      // list → manifest + tail → table metadata → the lookups' blocks (→ the table's blocks, by name).
      expect(byName.rounds).toBeLessThanOrEqual(5);
      expect(byId.rounds).toBeLessThanOrEqual(4);
      // One list; the manifest and a short tail; one metadata GET per table; at most six block GETs per
      // prefetch (one for a plan by id, two by name).
      expect(byName.lists).toBe(1);
      const bound = 1 + 5 + tables + 2 * PREFETCH_CONNECTIONS;
      expect(byName.gets).toBeLessThanOrEqual(bound);
      expect(byId.gets).toBeLessThanOrEqual(bound - PREFETCH_CONNECTIONS);
    }
    const [small, large] = rows;
    expect(large!.tables).toBeGreaterThan(small!.tables);
    expect(large!.byName.rounds).toBe(small!.byName.rounds);
    expect(large!.byId.rounds).toBe(small!.byId.rounds);
  }, 300_000);
});
