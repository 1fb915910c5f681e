/**
 * A cold scan plan through a stateless reader counts its serial R2 round trips, not its time: the plan
 * names the ranges its dependent lookups read (catalog/reads/plan-prefetch.ts) and the reader fetches
 * their blocks together (storage/prefetch.ts, docs/decisions/0170-plan-prefetch.md), the first set beside
 * the tables' metadata through the manifest's block fences (docs/decisions/0175-block-fences.md). The
 * rounds by name must not grow with the table's file count, and the GETs stay a handful.
 */
import { describe, expect, it } from "vitest";
import { openCatalog, tableFilesAt, type Verb } from "../../catalog/index.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { openLatest, openWriter } from "../../storage/index.ts";
import { lakePrefix } from "../../storage/keys.ts";
import { PREFETCH_CONNECTIONS } from "../../storage/prefetch.ts";
import { FENCE_SPACING_MIN_BYTES } from "../../storage/sst/fences.ts";
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
async function lakeWith(
  files: number,
): Promise<{ lake: string; tables: number; dataBytes: number; ordersId: number }> {
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
  const records = (store as unknown as { manifest: { sortedTables: { metaOffset: number }[] } }).manifest
    .sortedTables;
  const tables = records.length;
  // The tables' data regions (blocks): what a window that ran to the end of every table would read.
  const dataBytes = records.reduce((sum, r) => sum + r.metaOffset, 0);
  await store.close();
  const plan = await tableFilesAt(await openLatest(bucket(), lake), { name: "orders" }, undefined, {
    limit: 1,
  });
  return { lake, tables, dataBytes, ordersId: plan.table.table_id };
}

async function coldPlan(lake: string, ref: Parameters<typeof tableFilesAt>[1]) {
  const fb = new FaultBucket(bucket());
  const reader = await openLatest(fb, lake, { prefetchTables: true });
  const plan = await tableFilesAt(reader, ref, undefined, { limit: 1000 });
  const k = fb.counts(lakePrefix(lake));
  const t = reader.counters.tables;
  return {
    plan,
    gets: k.get,
    lists: k.list,
    rounds: fb.serialRounds({ prefix: lakePrefix(lake) }),
    bytes: reader.counters.bytesRead,
    fences: {
      windows: t.fenceWindows,
      windowBytes: t.fenceWindowBytes,
      adopted: t.fenceBlocksAdopted,
      mismatches: t.fenceMismatches,
    },
  };
}

describe("a cold scan plan's round trips", () => {
  it("do not grow with the file count: 4 by name at 300 and 3,000 files; by id 3, or 4 past six connections", async () => {
    const rows = [];
    for (const files of [300, 3000]) {
      const { lake, tables, dataBytes, ordersId } = await lakeWith(files);
      const byName = await coldPlan(lake, { name: "orders" });
      const byId = await coldPlan(lake, ordersId);
      expect(byName.plan.files).toHaveLength(Math.min(files, 1000));
      expect(byId.plan.files.map((f) => f.data_file_id)).toEqual(
        byName.plan.files.map((f) => f.data_file_id),
      );
      rows.push({ files, tables, byName, byId });
      // list → manifest + tail → table metadata beside the lookups' fence windows (and the table's, by
      // id) → the table's blocks, by name (docs/decisions/0175-block-fences.md).
      expect(byName.rounds).toBe(4);
      // By id the windows hold every block; they fill what the metadata GETs leave of six connections, so
      // with four partitions two tables' blocks come in a fourth round.
      expect(byId.rounds).toBeLessThanOrEqual(4);
      if (tables === 1) expect(byId.rounds).toBe(3);
      expect(byName.fences.windows).toBeGreaterThan(0);
      expect(byName.fences.adopted).toBeGreaterThan(0);
      expect(byName.fences.mismatches).toBe(0);
      // Bytes: the lookups' windows are a few fence segments, not whole tables (at 3,000 files ~5% of
      // the data; 128 KiB is four minimum fence spacings, the floor for a table of a few blocks).
      expect(byName.fences.windowBytes).toBeLessThanOrEqual(
        Math.max(dataBytes / 8, 4 * FENCE_SPACING_MIN_BYTES),
      );
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
  }, 300_000);
});
