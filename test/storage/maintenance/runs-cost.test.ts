/**
 * Tiered runs by counting (docs/decisions/0162-tiered-runs.md):
 * - L0 merges make new runs and write each L0 byte once more; a due tier merges into its oldest run, and
 *   appended keys rewrite no partition of the target;
 * - a cold point read over several L0 tables and runs opens every layer that may hold the key in one
 *   round, so it costs 2 serial rounds (metadata, then a block) however many layers there are.
 */
import { describe, expect, it } from "vitest";
import { RUN_MERGE_MIN_RUNS } from "../../../storage/compaction/plan.ts";
import { sstPrefix } from "../../../storage/sst/key.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, faultBucket, lakeName, s } from "../helpers.ts";
import { Clock, openLake } from "./support.ts";

const POLICY = {
  flushAfterSegments: 10_000,
  forceFlushAfterSegments: 10_000,
  flushAfterBytes: 1 << 30,
  l0CompactionTrigger: 2,
  partitionBytes: 16 * 1024,
  stepBytes: 1 << 30,
};
const key = (i: number): string => `k/${String(i).padStart(6, "0")}`;
const val = (i: number, round: number): string => `v${round}-${i}-${"y".repeat(20)}`;

/** One memtable flush of 500 appended keys (round r covers keys r*500 .. r*500+499). */
async function round(st: LakeStore, r: number): Promise<void> {
  const muts = [];
  for (let i = r * 500; i < r * 500 + 500; i++) muts.push({ key: b(key(i)), value: b(val(i, r)) });
  st.write(muts);
  await st.flushMemtable();
}

describe("tiered runs (cost by counting)", () => {
  it("appends climb the tiers without rewriting target partitions; a cold read opens all layers in one round", async () => {
    const clock = new Clock();
    const lake = lakeName("runs-cost");
    const st = await openLake(faultBucket(), lake, clock, POLICY);
    let l0Merges = 0;
    let runMerges = 0;
    let replacedInRunMerges = 0;
    // Runs in the manifest when the first run merge started (docs/decisions/0165-lazy-tiers.md).
    let runsAtFirstMerge: number | undefined;
    const runCount = (): number =>
      new Set(st.manifest.sortedTables.filter((t) => t.level === 1).map((t) => t.run ?? 0)).size;
    for (let r = 0; r < 16; r++) {
      await round(st, r);
      for (;;) {
        const before = runCount();
        const rep = await st.maintain();
        if (rep.compaction?.kind === "l0") l0Merges++;
        if (rep.compaction?.kind === "runs") {
          runsAtFirstMerge ??= before;
          runMerges++;
          replacedInRunMerges += rep.compaction.partitionsReplaced;
        }
        if (!rep.more || rep.compaction === undefined) break;
      }
    }
    expect(l0Merges).toBe(8);
    expect(runMerges).toBeGreaterThan(0);
    // Same-tier runs wait for RUN_MERGE_MIN_RUNS before merging: earlier merges only spend writes.
    expect(runsAtFirstMerge).toBeGreaterThanOrEqual(RUN_MERGE_MIN_RUNS);
    // Pure appends: every key of a newer run lies past the target's last key.
    expect(replacedInRunMerges).toBe(0);
    const c = st.maintenanceCounters;
    // Each L0 byte is written by the flush, once by its L0 merge, and at most once per tier it climbs.
    expect(c.bytesRewritten).toBeLessThan(3 * c.bytesFlushed);

    // Sparse updates over the whole key range: one more run (an L0 merge of two flushes) and one L0
    // table above it, both covering every key by range.
    const sparse = async (r: number): Promise<void> => {
      const muts = [];
      for (let i = 1; i < 8_000; i += 97) muts.push({ key: b(key(i)), value: b(val(i, r)) });
      st.write(muts);
      await st.flushMemtable();
    };
    await sparse(100);
    await sparse(101);
    expect((await st.compact())?.kind).toBe("l0");
    await sparse(102);
    const { sortedTables } = st.manifest;
    expect(sortedTables.filter((t) => t.level === 0)).toHaveLength(1);
    expect(new Set(sortedTables.filter((t) => t.level === 1).map((t) => t.run ?? 0)).size).toBeGreaterThan(1);
    await st.close();

    const fb = faultBucket();
    const re = await openLake(fb, lake, clock, POLICY);
    fb.resetCounters();
    // Key 3 is covered by the L0 table, the sparse run and the oldest run; only the oldest holds it.
    expect(s(await re.snapshot().get(b(key(3))))).toBe(val(3, 0));
    expect(fb.count({ op: "get", prefix: sstPrefix(lake) })).toBeGreaterThanOrEqual(3);
    expect(fb.serialRounds({ prefix: sstPrefix(lake) })).toBe(2);
    await re.close();
  });
});
