/**
 * Jobs 2 and 3 against stock DuckDB: a lake fed through the front door (Parquet uploads, register_data_file,
 * delete files, inlined file deletes, an update and a column add) is compacted by `runMergeJob` and
 * `runRewriteJob` committing through the same commits route, then every table is dumped through the
 * `ducklake_*` route to test-output/compaction-dump/ with the lake's objects and the rows (row ids
 * included) each snapshot must show. `tools/ducklake-dump-check.py test-output/compaction-dump` (CI) loads
 * it into a stock DuckLake 1.5.5 catalog and checks that stock time travel reads exactly those rows at
 * every snapshot: those from before the jobs, which this test first proves unchanged by them, and the
 * jobs' own.
 */
import { describe, expect, it } from "vitest";
import { JOB_SWITCH } from "../../catalog/index.ts";
import { runMergeJob, runRewriteJob } from "../../maintenance/compaction.ts";
import { everySnapshot } from "../maintenance/lake.ts";
import { call } from "../support/http.ts";
import { appendVia, b, commitVia, deleteVia, dumpLake, expectedOf, latest, latestView } from "./http-lake.ts";

const LAKE = "compaction-dump";
const commit = (request: unknown) => commitVia(LAKE, request);
const append = (rows: Parameters<typeof appendVia>[1]) => appendVia(LAKE, rows);
const deleteFile = (fileId: number, positions: number[]) => deleteVia(LAKE, fileId, positions);
const view = () => latestView(LAKE);

describe("compaction jobs read back by stock DuckDB", () => {
  it("merges and rewrites a lake; every snapshot's rows and row ids are dumped for the stock check", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    // The test runs jobs 2 and 3 itself, on files it names: the writer's own passes (on by default,
    // decision 0323) would rewrite those files under it, so every job is switched off for this lake.
    await commit({
      verbs: [
        ...Object.values(JOB_SWITCH).map((name) => ({ op: "set_option", name, value: "false" })),
        {
          op: "create_table",
          name: "t",
          columns: [
            { name: "id", type: "int64" },
            { name: "s", type: "varchar" },
          ],
        },
      ],
    });
    const f0 = await append([0, 1, 2].map((i) => ({ id: String(i), s: `a${i}` })));
    const f1 = await append([3, 4].map((i) => ({ id: String(i), s: `a${i}` })));
    await deleteFile(f0, [1]);
    const f2 = await append([{ id: "5", s: "a5" }]);
    await append([{ id: "6", s: "a6" }]);
    await commit({
      verbs: [
        { op: "inline_delete", table: { name: "t" }, fileDeletes: [{ dataFileId: f1, positions: [0] }] },
      ],
    });
    // An update: the old row goes through a delete file, the new version arrives in a file of its own.
    await deleteFile(f2, [0]);
    await append([{ id: "5", s: "updated" }]);
    await commit({
      verbs: [{ op: "add_column", table: { name: "t" }, column: { name: "e", type: "int32" } }],
    });
    await append([{ id: "7", s: "a7", e: 70 }]);
    await append([{ id: "8", s: "a8", e: null }]);
    const before = await everySnapshot(await latest(LAKE));
    const deps = {
      lake: LAKE,
      bucket: b,
      view: () => {
        throw new Error("replaced below");
      },
      commit: async (request: unknown) => ({ snapshotId: (await commit(request)).snapshotId }),
      now: () => Date.now(),
    };
    const v1 = await view();
    const merged = await runMergeJob({ ...deps, view: () => v1 });
    expect(merged.map((r) => r.error)).toEqual(merged.map(() => null));
    expect(merged.length).toBeGreaterThan(0);
    const v2 = await view();
    const rewritten = await runRewriteJob({ ...deps, view: () => v2, deleteThreshold: 0.3 });
    expect(rewritten.map((r) => r.error)).toEqual(rewritten.map(() => null));
    expect(rewritten.length).toBeGreaterThan(0);
    const after = await everySnapshot(await latest(LAKE));
    for (const [s, rows] of before) expect([s, after.get(s)]).toEqual([s, rows]);

    await dumpLake(LAKE, "compaction-dump", await expectedOf(LAKE, after));
  });
});
