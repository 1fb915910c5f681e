/**
 * A plan-shaped cold read through a stateless reader, at every sorted-table count from 1 to 16: a first
 * prefetch of lookup ranges (records at the start of the keyspace, the newest "head" entry at its end),
 * a read of the head naming an id, then a prefetch and scan of that id's range. Storage knows nothing of
 * what the keys mean; the shape is a catalog scan plan by name (docs/decisions/0173-plan-by-name-rounds.md).
 *
 * Counted: serial rounds (FaultBucket.serialRounds) — list → manifest + tail → the reached tables'
 * metadata beside the lookups' fence windows → the id's blocks: 4 at every count. Before
 * docs/decisions/0184-cold-round-packing.md a reader with `prefetchTables` opened all its tables at
 * open, so at exactly 6 and 12 tables their metadata GETs filled the last wave of six connections, no
 * window went, and the plan took 5.
 */
import { describe, expect, it } from "vitest";
import { FaultBucket } from "../../../storage/fault-bucket.ts";
import { openLatest } from "../../../storage/index.ts";
import { lakePrefix } from "../../../storage/keys.ts";
import { PREFETCH_TABLES_MAX } from "../../../storage/layers.ts";
import { PREFETCH_CONNECTIONS } from "../../../storage/prefetch.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, faultBucket, lakeName, open, realBucket, s } from "../helpers.ts";

const PARTITION_BYTES = 16 * 1024;
/** Entries per id: about one partition's worth of 100-byte values. */
const PER_ID = 130;
const value = new Uint8Array(100).fill(3);
const pad = (i: number): string => String(i).padStart(4, "0");

/** A lake maintained into one sorted run of about `ids` partitions; the head names the middle id. */
async function lakeOf(ids: number): Promise<{ name: string; tables: number; target: number }> {
  const name = lakeName(`plan-rounds-${ids}`);
  const st = (await open(faultBucket(), name, {
    maintenance: { partitionBytes: PARTITION_BYTES, l0CompactionTrigger: 100 },
  })) as LakeStore;
  const target = Math.floor(ids / 2);
  st.write(Array.from({ length: 8 }, (_, i) => ({ key: b(`a/rec/${pad(i)}`), value })));
  for (let id = 0; id < ids; id++)
    st.write(Array.from({ length: PER_ID }, (_, j) => ({ key: b(`m/${pad(id)}/${pad(j)}`), value })));
  st.write(Array.from({ length: 8 }, (_, i) => ({ key: b(`z/head/${pad(i)}`), value: b(pad(target)) })));
  await st.flush();
  let r = await st.maintain({ forceFlush: true, forceCompaction: true });
  while (r.more || r.compaction?.finished === false) r = await st.maintain();
  const tables = st.manifest.sortedTables.length;
  await st.close();
  return { name, tables, target };
}

async function coldPlan(name: string): Promise<{ rounds: number; gets: number; rows: number; id: string }> {
  const fb = new FaultBucket(realBucket());
  const reader = await openLatest(fb, name, { prefetchTables: true });
  await reader.prefetch([{ prefix: b("a/rec/") }, { prefix: b("z/head/"), last: true }]);
  let id = "";
  for await (const e of reader.scan({ prefix: b("z/head/") })) id = s(e.value) ?? "";
  let recs = 0;
  for await (const _ of reader.scan({ prefix: b("a/rec/") })) recs++;
  expect(recs).toBe(8);
  const prefix = b(`m/${id}/`);
  await reader.prefetch([{ prefix }]);
  let rows = 0;
  for await (const _ of reader.scan({ prefix })) rows++;
  const k = fb.counts(lakePrefix(name));
  return { rounds: fb.serialRounds({ prefix: lakePrefix(name) }), gets: k.get, rows, id };
}

describe("a cold plan-shaped read's round trips at every table count", () => {
  it("are 4 for 1..16 sorted tables (with and past PREFETCH_TABLES_MAX)", async () => {
    const seen = new Map<number, number>();
    for (let ids = 1; seen.size < 16 && ids <= 24; ids++) {
      const { name, tables, target } = await lakeOf(ids);
      if (tables > 16 || seen.has(tables)) continue;
      const plan = await coldPlan(name);
      expect(plan.id).toBe(pad(target));
      expect(plan.rows).toBe(PER_ID);
      seen.set(tables, plan.rounds);
      // One metadata GET per table at most, plus the manifest, a short tail and two prefetches' GETs.
      expect(plan.gets).toBeLessThanOrEqual(1 + 5 + tables + 2 * PREFETCH_CONNECTIONS);
    }
    // Every count from 1 to 16 was reached, the bound's edges (6, 12: full waves) included.
    expect([...seen.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(PREFETCH_TABLES_MAX).toBeLessThan(16);
    // (On main before 0184: 5 rounds at 5, 6, 11 and 12 tables, where the open's metadata GETs left one
    // connection or none of their last wave for the two tables' windows.)
    const over = [...seen].filter(([, rounds]) => rounds > 4);
    expect(over).toEqual([]);
  }, 300_000);
});
