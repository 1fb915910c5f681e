/**
 * The scan plan's row ids are what DuckLake's metadata says: a file numbered from `row_id_start` covers
 * [row_id_start, row_id_start + record_count); a file that carries its own row ids (a rewrite, or a merge
 * of non-adjacent files; DuckLake registers `row_id_start` NULL) claims no range — its ids need not be
 * contiguous and are read from `_ducklake_internal_row_id` (decision 0322).
 */
import { describe, expect, it } from "vitest";
import { runRewriteJob } from "../../maintenance/compaction.ts";
import { call } from "../support/http.ts";
import { appendVia, b, commitVia, deleteVia, latestView } from "./http-lake.ts";

const LAKE = "plan-row-ids";

interface PlanFile {
  data_file_id: number;
  record_count: number;
  row_id_start: number | null;
  row_id_end: number | null;
  row_ids_in_file: boolean;
}

describe("scan plan row ids", () => {
  it("claims no contiguous range for a rewritten file whose row ids have a gap", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    await commitVia(LAKE, {
      verbs: [{ op: "create_table", name: "t", columns: [{ name: "id", type: "int64" }] }],
    });
    const f0 = await appendVia(
      LAKE,
      [0, 1, 2, 3].map((i) => ({ id: String(i) })),
    );
    const f1 = await appendVia(LAKE, [{ id: "4" }, { id: "5" }]);
    // Row id 1 deleted: the rewrite keeps ids 0, 2, 3 — three rows that are not 0..2.
    await deleteVia(LAKE, f0, [1]);
    const v = await latestView(LAKE);
    const rewritten = await runRewriteJob({
      lake: LAKE,
      bucket: b,
      view: () => v,
      commit: async (request: unknown) => ({ snapshotId: (await commitVia(LAKE, request)).snapshotId }),
      now: () => Date.now(),
      deleteThreshold: 0.1,
    });
    expect(rewritten.map((r) => r.error)).toEqual(rewritten.map(() => null));

    const res = await call(`/v1/lakes/${LAKE}/tables/main/t/plan`);
    expect(res.status).toBe(200);
    const files = ((await res.json()) as { files: PlanFile[] }).files;
    const kept = files.find((f) => f.data_file_id !== f1);
    expect(files.find((f) => f.data_file_id === f1)).toMatchObject({
      record_count: 2,
      row_id_start: 4,
      row_id_end: 6,
      row_ids_in_file: false,
    });
    expect(kept).toMatchObject({
      record_count: 3,
      row_id_start: null,
      row_id_end: null,
      row_ids_in_file: true,
    });
    // The same file as DuckLake's own table shows it: row_id_start NULL.
    const dl = (await (await call(`/v1/lakes/${LAKE}/ducklake/ducklake_data_file`)).json()) as {
      rows: { data_file_id: number; row_id_start: number | null; end_snapshot: number | null }[];
    };
    expect(dl.rows.find((r) => r.data_file_id === kept?.data_file_id)?.row_id_start).toBeNull();
  });
});
