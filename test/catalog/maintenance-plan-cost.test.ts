/**
 * What the flush, merge and rewrite plans (jobs 1–3) read per table. They visit every table; a table without
 * data files has no merge or rewrite candidates, one within its inlining limit nothing to flush, and
 * building its scan plan anyway (head, snapshot, names, table, schema
 * versions, inlined deletes: a handful of reads and decodes per table) made one writer pass over a lake of
 * a few thousand tables run for seconds — long enough that `wrangler dev`'s runtime died building such a
 * lake, and one-row INSERTs waited behind the pass. Counts only, never times.
 */
import { describe, expect, it } from "vitest";
import { planFlushes } from "../../catalog/maintenance/inline-flush-plan.ts";
import { planMerges } from "../../catalog/maintenance/merge-plan.ts";
import { planRewrites } from "../../catalog/maintenance/rewrite-plan.ts";
import type { ReadView } from "../../storage/api.ts";
import { appendFile, commit, freshLake } from "../maintenance/lake.ts";

const COLUMNS = [
  { name: "id", type: "int64" },
  { name: "s", type: "varchar" },
];

/** Store reads (gets and scans) of the merge, rewrite and flush plans over t plus `empty` empty tables. */
async function planReads(empty: number): Promise<{ reads: number; merges: number }> {
  const l = await freshLake(`plan-cost-${empty}`);
  await commit(l, [
    { op: "create_table", name: "t", columns: COLUMNS },
    ...Array.from({ length: empty }, (_, i) => ({ op: "create_table", name: `e${i}`, columns: COLUMNS })),
  ]);
  await appendFile(l, [{ id: "1", s: "a" }]);
  await appendFile(l, [{ id: "2", s: "b" }]);
  const view = l.store.snapshot();
  let reads = 0;
  const counted: ReadView = {
    position: view.position,
    get: (key) => {
      reads++;
      return view.get(key);
    },
    scan: (range) => {
      reads++;
      return view.scan(range);
    },
  };
  const merges = await planMerges(counted);
  await planRewrites(counted);
  await planFlushes(counted);
  return { reads, merges: merges.steps.length };
}

describe("maintenance plans over many tables", () => {
  it("read at most one probe more per table without data files", async () => {
    const small = await planReads(3);
    const large = await planReads(40);
    // The two files of t merge either way.
    expect([small.merges, large.merges]).toEqual([1, 1]);
    // Three plans, each probing each empty table once: 3 × 37 more reads, not a scan plan per table.
    expect(large.reads - small.reads).toBeLessThanOrEqual(3 * 37);
  });
});
