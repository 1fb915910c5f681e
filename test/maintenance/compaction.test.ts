/**
 * Maintenance jobs 2 (merge adjacent files) and 3 (rewrite files with deletes): across random histories
 * of appends, delete files, inlined deletes, updates and a column add, every snapshot reads the same rows
 * (row ids included) before and after each job; a second pass plans nothing; racing a concurrent append
 * is benign and a concurrent delete of an input is a CommitConflict; a crash at every write boundary of a
 * job (FaultBucket, each proved to fire) leaves the lake readable and the job resumable.
 */
import { describe, expect, it } from "vitest";
import { head, openCatalog, tableFilesAt } from "../../catalog/index.ts";
import { runMergeJob, runRewriteJob } from "../../maintenance/compaction.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { bucket, racing } from "../catalog/support.ts";
import {
  appendFile,
  commit,
  DATA_PREFIX,
  deleteWithFile,
  everySnapshot,
  freshLake,
  jobCommit,
  type Lake,
  randomHistory,
  reopen,
  rowsAt,
} from "./lake.ts";

const now = () => Date.now();

async function createT(l: Lake): Promise<void> {
  await commit(l, [
    {
      op: "create_table",
      name: "t",
      columns: [
        { name: "id", type: "int64" },
        { name: "s", type: "varchar" },
      ],
    },
  ]);
}

/** A random history on the catalog-level lake (the generator is shared with the stock expiry dump). */
const history = (l: Lake, seed: number, steps: number) =>
  randomHistory(
    {
      append: (rows) => appendFile(l, rows),
      deleteWithFile: (fileId, positions) => deleteWithFile(l, fileId, positions),
      commit: async (verbs) => {
        await commit(l, verbs);
      },
    },
    seed,
    steps,
  );

function jobDeps(l: Lake) {
  return { lake: l.lake, bucket: l.b, view: () => l.store.snapshot(), commit: jobCommit(l), now };
}

/**
 * A random history is read at every snapshot four times over (before, after merge, rewrite and the second
 * merge): 13–22 s alone on a 2-core machine, over vitest's 60 s default here when the machine is shared.
 */
const HISTORY_TIMEOUT_MS = 240_000;
const SUITE = "maintenance: merge adjacent files and rewrite deleted-heavy files";

describe(SUITE, { timeout: HISTORY_TIMEOUT_MS }, () => {
  for (const seed of [11, 23, 37, 51]) {
    it(`seed ${seed}: every snapshot reads the same rows before and after merge and rewrite`, async () => {
      const l = await freshLake(`mt-cmp-${seed}`);
      await createT(l);
      await history(l, seed, 24);
      const before = await everySnapshot(l);
      const last = Math.max(...before.keys());
      const merged = await runMergeJob(jobDeps(l));
      expect(merged.map((r) => r.error)).toEqual(merged.map(() => null));
      expect(merged.length).toBeGreaterThan(0);
      const afterMerge = await everySnapshot(l);
      for (const [s, rows] of before) expect([s, afterMerge.get(s)]).toEqual([s, rows]);
      for (const r of merged) expect(afterMerge.get(r.snapshotId ?? -1)).toEqual(before.get(last));
      // Nothing left to merge: the second pass plans nothing.
      expect(await runMergeJob(jobDeps(l))).toEqual([]);

      const rewritten = await runRewriteJob({ ...jobDeps(l), deleteThreshold: 0.2 });
      expect(rewritten.map((r) => r.error)).toEqual(rewritten.map(() => null));
      expect(rewritten.length).toBeGreaterThan(0);
      const afterRewrite = await everySnapshot(l);
      for (const [s, rows] of afterMerge) expect([s, afterRewrite.get(s)]).toEqual([s, rows]);
      const h = await head(l.store.snapshot());
      expect(await rowsAt(l, h.snapshot_id)).toEqual(before.get(last));
      expect(await runRewriteJob({ ...jobDeps(l), deleteThreshold: 0.2 })).toEqual([]);
      // Rewritten files (own row ids) merge again without losing or renumbering a row.
      await runMergeJob(jobDeps(l));
      const final = await everySnapshot(l);
      for (const [s, rows] of afterRewrite) expect([s, final.get(s)]).toEqual([s, rows]);
    });
  }

  for (const race of ["append", "delete"] as const) {
    it(`merge racing a concurrent ${race}: ${race === "append" ? "benign, no row lost or duplicated" : "a true conflict, nothing merged"}`, async () => {
      const l = await freshLake(`mt-cmp-race-${race}`);
      await createT(l);
      const ids: number[] = [];
      for (let i = 0; i < 4; i++) ids.push(await appendFile(l, [{ id: String(i), s: `a${i}` }]));
      let landed = 0;
      const raced = racing(l.store, async () => {
        landed++;
        if (race === "append") await appendFile(l, [{ id: "100", s: "late" }]);
        else
          await commit(l, [
            {
              op: "inline_delete",
              table: { name: "t" },
              fileDeletes: [{ dataFileId: ids[1] as number, positions: [0] }],
            },
          ]);
      });
      const merger = await openCatalog(raced.store, { dataPath: `${DATA_PREFIX}${l.lake}/data/` });
      raced.arm(1);
      const runs = await runMergeJob({ ...jobDeps(l), commit: jobCommit(l, merger) });
      // The interference really landed inside the merge's transaction.
      expect(landed).toBe(1);
      const h = await head(l.store.snapshot());
      const rows = await rowsAt(l, h.snapshot_id);
      const values = [...rows.values()].map((v) => Number(v.id)).sort((a, b) => a - b);
      if (race === "append") {
        expect(runs.map((r) => [r.error, r.filesIn])).toEqual([[null, 4]]);
        expect(values).toEqual([0, 1, 2, 3, 100]);
        expect([...rows.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
      } else {
        expect(runs[0]?.error).toMatch(/^CommitConflict/);
        expect(values).toEqual([0, 2, 3]);
        expect((await tableFilesAt(l.store.snapshot(), { name: "t" })).files).toHaveLength(4);
      }
    });
  }

  for (const job of ["merge", "rewrite"] as const) {
    it(`${job}: a crash at every write boundary leaves the lake readable and the job resumable`, async () => {
      let boundaries = 0;
      for (let n = 0; ; n++) {
        const fb = new FaultBucket(bucket());
        const l = await freshLake(`mt-cmp-crash-${job}-${n}`, fb);
        await createT(l);
        const ids: number[] = [];
        for (let i = 0; i < 3; i++)
          ids.push(
            await appendFile(l, [
              { id: String(2 * i), s: "x" },
              { id: String(2 * i + 1), s: "y" },
            ]),
          );
        if (job === "rewrite") {
          await deleteWithFile(l, ids[0] as number, [0]);
          await commit(l, [
            {
              op: "inline_delete",
              table: { name: "t" },
              fileDeletes: [{ dataFileId: ids[1] as number, positions: [1] }],
            },
          ]);
        }
        const before = await everySnapshot(l);
        const run = () =>
          job === "merge" ? runMergeJob(jobDeps(l)) : runRewriteJob({ ...jobDeps(l), deleteThreshold: 0.4 });
        fb.crashAfterWrites(n);
        let runs: Awaited<ReturnType<typeof run>>;
        try {
          runs = await run();
        } catch (e) {
          runs = [];
          expect(String(e)).toMatch(/InjectedCrash|crash/);
        }
        const crashed = fb.count({ outcome: "crashed" });
        fb.clearFaults();
        if (crashed === 0) {
          // Past the last write boundary: the job completed.
          expect(runs.every((r) => r.error === null)).toBe(true);
          expect(boundaries).toBeGreaterThanOrEqual(2);
          break;
        }
        boundaries++;
        // The lake as R2 holds it (a fresh writer recovers) reads what it read before, at every snapshot.
        const back = await reopen(l, bucket());
        const seen = await everySnapshot(back);
        for (const [s, rows] of before) expect([n, s, seen.get(s)]).toEqual([n, s, rows]);
        // Resumable: the next pass completes and keeps every row.
        const again =
          job === "merge"
            ? await runMergeJob(jobDeps(back))
            : await runRewriteJob({ ...jobDeps(back), deleteThreshold: 0.4 });
        expect(again.length).toBeGreaterThan(0);
        expect(again.map((r) => r.error)).toEqual(again.map(() => null));
        const after = await everySnapshot(back);
        for (const [s, rows] of before) expect([n, s, after.get(s)]).toEqual([n, s, rows]);
        expect(n).toBeLessThan(10);
      }
    });
  }

  it("the compaction verbs refuse inputs DuckLake would not compact, and commit alone", async () => {
    const l = await freshLake("mt-cmp-verbs");
    await createT(l);
    const a = await appendFile(l, [{ id: "0", s: "a" }]);
    const b = await appendFile(l, [{ id: "1", s: "b" }]);
    const c = await appendFile(l, [{ id: "2", s: "c" }]);
    await deleteWithFile(l, c, [0]);
    const file = (recordCount: number) => ({ path: "ducklake-x.parquet", recordCount, fileSizeBytes: 10 });
    const refused = async (verbs: unknown[]) => {
      try {
        await commit(l, verbs);
      } catch (e) {
        return String(e);
      }
      return "committed";
    };
    expect(
      await refused([
        { op: "merge_adjacent_files", table: { name: "t" }, dataFileIds: [b, c], file: file(2) },
      ]),
    ).toMatch(/has deletes/);
    expect(
      await refused([
        { op: "merge_adjacent_files", table: { name: "t" }, dataFileIds: [a, b], file: file(3) },
      ]),
    ).toMatch(/holds 3 rows but its inputs hold 2/);
    expect(
      await refused([
        { op: "merge_adjacent_files", table: { name: "t" }, dataFileIds: [a, a], file: file(2) },
      ]),
    ).toMatch(/twice/);
    expect(
      await refused([
        { op: "rewrite_data_files", table: { name: "t" }, dataFileIds: [a], file: file(1), rowIdStart: 0 },
      ]),
    ).toMatch(/no deletes to rewrite/);
    expect(
      await refused([
        { op: "rewrite_data_files", table: { name: "t" }, dataFileIds: [c], file: file(1), rowIdStart: 2 },
      ]),
    ).toMatch(/keep 0 after their deletes/);
    expect(
      await refused([
        { op: "merge_adjacent_files", table: { name: "t" }, dataFileIds: [a, b], file: file(2) },
        { op: "add_column", table: { name: "t" }, column: { name: "z", type: "int32" } },
      ]),
    ).toMatch(/either compacts/);
  });
});
