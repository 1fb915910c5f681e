/**
 * Tiered runs by counting (docs/decisions/0162-tiered-runs.md):
 * - L0 merges make new runs and write each L0 byte once more; a due tier merges into its oldest run, and
 *   appended keys rewrite no partition of the target;
 * - a cold point read over several L0 tables and runs opens every layer that may hold the key in one
 *   round, so it costs 2 serial rounds (metadata, then a block) however many layers there are;
 * - with an append-only range's bounds named as partition cuts, run merges move its partitions instead of
 *   rewriting them (docs/decisions/0186-partition-moves.md), measured side by side with no cuts.
 */
import { describe, expect, it } from "vitest";
import { RUN_MERGE_MIN_RUNS } from "../../../storage/compaction/plan.ts";
import { sstPrefix } from "../../../storage/sst/key.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, s } from "../helpers.ts";
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

/**
 * A catalog-shaped lake: every round rewrites a few hot keys below and above an append-only log (a head,
 * statistics) and appends 500 log entries, then flushes; maintenance runs until nothing is due. Returns
 * the maintenance counters and the final state.
 */
async function catalogShaped(
  cuts: string[] | undefined,
  shape: { rounds: number; entries: number; policy: typeof POLICY } = {
    rounds: 24,
    entries: 500,
    policy: POLICY,
  },
): Promise<{ runMerged: number; flushed: number; moved: number; state: Record<string, string> }> {
  const lake = lakeName(cuts === undefined ? "shape-plain" : "shape-cuts");
  const st = await openLake(
    faultBucket(),
    lake,
    new Clock(),
    shape.policy,
    cuts === undefined ? {} : { partitionCuts: cuts.map(b) },
  );
  let runMerged = 0;
  for (let r = 0; r < shape.rounds; r++) {
    const muts = [{ key: b("a/head"), value: b(`head ${r}`) }];
    for (let i = 0; i < shape.entries; i++) {
      const n = r * shape.entries + i;
      muts.push({ key: b(`m/${String(n).padStart(7, "0")}`), value: b(`entry ${n} ${"x".repeat(24)}`) });
    }
    for (let i = 0; i < 10; i++)
      muts.push({ key: b(`z/stats/${i}`), value: b(`stats ${r} ${"s".repeat(20)}`) });
    st.write(muts);
    await st.flushMemtable();
    for (let i = 0; i < 100; i++) {
      const rep = await st.maintain();
      if (rep.compaction?.kind === "runs") runMerged += rep.compaction.bytesWritten;
      if (!rep.more || rep.compaction === undefined) break;
    }
  }
  const c = st.maintenanceCounters;
  const state = await dump(st.snapshot());
  await st.close();
  const re = await openLake(faultBucket(), lake, new Clock(), shape.policy);
  expect(await dump(re.snapshot())).toEqual(state);
  await re.close();
  return { runMerged, flushed: c.bytesFlushed, moved: c.partitionsMoved, state };
}

describe("tiered runs (cost by counting)", () => {
  it("partition cuts around an append-only log let run merges move its partitions instead of rewriting them", async () => {
    const plain = await catalogShaped(undefined);
    const cut = await catalogShaped(["m/", "m0"]);
    expect(cut.state).toEqual(plain.state);
    expect(plain.moved).toBe(0);
    expect(cut.moved).toBeGreaterThan(0);
    // Without cuts the log shares partitions with the hot keys, so every run merge rewrites it; with them
    // a run merge writes only the hot keys' partitions and the small log partitions it packs together.
    expect(plain.runMerged).toBeGreaterThan(0.5 * plain.flushed);
    expect(cut.runMerged).toBeLessThan(0.25 * plain.runMerged);
    console.info(
      `catalog-shaped lake, run-merge bytes / flushed bytes: no cuts ${(plain.runMerged / plain.flushed).toFixed(2)}, cuts ${(cut.runMerged / cut.flushed).toFixed(2)} (${cut.moved} partitions moved)`,
    );
  });

  it("small flushes: L0 merges wait until the log partition they make can be moved, so run merges leave the log alone", async () => {
    // Four flushes' log entries (~48 bytes each) make a sixth of a partition, under the move bar (¼). L0
    // merges wait for half a partition of L0 bytes or twice the trigger, here eight flushes: a third
    // (docs/decisions/0187-l0-merges-wait-for-movable-output.md).
    const policy = { ...POLICY, l0CompactionTrigger: 4 };
    const entries = Math.round(policy.partitionBytes / 24 / 48);
    const cut = await catalogShaped(["m/", "m0"], { rounds: 160, entries, policy });
    expect(cut.moved).toBeGreaterThan(0);
    // What run merges write is the hot keys' partitions, not the log.
    expect(cut.runMerged).toBeLessThan(0.1 * cut.flushed);
    console.info(
      `small flushes, run-merge bytes / flushed bytes: ${(cut.runMerged / cut.flushed).toFixed(2)} (${cut.moved} partitions moved)`,
    );
  });

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
    // Two small flushes: forced, since L0 at the trigger waits for half a partition (compaction/plan.ts).
    expect((await st.compact({ force: true }))?.kind).toBe("l0");
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
    // Tables this small (16 KiB partitions) come whole, blocks with their metadata: one round for all
    // (docs/decisions/0188-small-tables-whole.md).
    expect(fb.serialRounds({ prefix: sstPrefix(lake) })).toBe(1);
    expect(re.readCounters.wholeTables).toBeGreaterThanOrEqual(3);
    await re.close();
  });
});
