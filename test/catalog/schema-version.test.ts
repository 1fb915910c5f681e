/** The schema-version matrix across every verb (seed "Schema-version tracking", ducklake-facts §5). */
import { describe, expect, it } from "vitest";
import { type CommitRequest, ducklakeTable, head, listSnapshots, type Verb } from "../../catalog/index.ts";
import { cols, file, fresh, settle } from "./support.ts";

const t = { name: "t" };
// [verb, bumps schema_version, mints a snapshot, writes a ducklake_schema_versions row, changes_made]
const MATRIX: [Verb, boolean, boolean, boolean, string | null][] = [
  [{ op: "create_schema", name: "s2" }, true, true, false, 'created_schema:"s2"'],
  [
    {
      op: "create_table",
      name: "t",
      columns: [...cols, { name: "st", type: "struct", children: [{ name: "a", type: "int32" }] }],
    },
    true,
    true,
    true,
    'created_table:"main"."t"',
  ],
  [{ op: "create_table", name: "u", columns: cols }, true, true, true, 'created_table:"main"."u"'],
  [
    { op: "register_data_file", table: t, file: file("a.parquet", 10) },
    false,
    true,
    false,
    "inserted_into_table:2",
  ],
  [
    {
      op: "register_delete_file",
      table: t,
      dataFileId: 0,
      file: { path: "d.parquet", deleteCount: 1, fileSizeBytes: 1 },
    },
    false,
    true,
    false,
    "deleted_from_table:2",
  ],
  [{ op: "expire_delete_file", table: t, deleteFileId: 1 }, false, true, false, "rewrite_delete:2"],
  [{ op: "inline_insert", table: t, rows: [{ id: 1 }, { id: 2 }] }, false, true, false, "inlined_insert:2"],
  [{ op: "inline_delete", table: t, rowIds: [10] }, false, true, false, "inlined_delete:2"],
  [
    {
      op: "flush_inlined",
      table: t,
      throughRowId: 11,
      file: file("f.parquet", 2),
      deleteFile: { path: "fd.parquet", deleteCount: 1, fileSizeBytes: 1 },
    },
    false,
    true,
    false,
    "inline_flush:2",
  ],
  [{ op: "set_table_stats", table: t, recordCount: 11 }, false, true, false, null],
  [{ op: "set_column_stats", table: t, column: "id", min: "0", max: "9" }, false, true, false, null],
  [
    // int32, so the later type change is a widening DuckLake allows (int32 → int64).
    { op: "add_column", table: t, column: { name: "c", type: "int32" } },
    true,
    true,
    true,
    "altered_table:2",
  ],
  [
    { op: "add_column", table: t, parent: "st", column: { name: "b", type: "int32" } },
    true,
    true,
    true,
    "altered_table:2",
  ],
  [{ op: "rename_column", table: t, column: "c", newName: "c2" }, true, true, true, "altered_table:2"],
  [{ op: "alter_column", table: t, column: "c2", type: "int64" }, true, true, true, "altered_table:2"],
  [{ op: "alter_column", table: t, column: "c2", default: "7" }, true, true, true, "altered_table:2"],
  [{ op: "alter_column", table: t, column: "c2", nullable: false }, true, true, true, "altered_table:2"],
  [{ op: "drop_column", table: t, column: { path: ["st", "b"] } }, true, true, true, "altered_table:2"],
  [
    { op: "set_partitioning", table: t, columns: [{ column: "id", transform: "identity" }] },
    true,
    true,
    true,
    "altered_table:2",
  ],
  // Like RESET PARTITIONED BY, it opens an empty partition version with a fresh catalog id (golden
  // partitioned.json), so later catalog ids are one higher than before.
  [{ op: "clear_partitioning", table: t }, true, true, true, "altered_table:2"],
  [
    { op: "set_sorting", table: t, keys: [{ expression: "id", direction: "DESC" }] },
    true,
    true,
    false,
    "altered_table:2",
  ],
  [{ op: "clear_sorting", table: t }, true, true, false, "altered_table:2"],
  [{ op: "set_comment", target: { table: t }, comment: "orders" }, true, true, false, "altered_table:2"],
  [
    { op: "set_tag", target: { table: t, column: "id" }, key: "pii", value: "no" },
    true,
    true,
    false,
    "altered_table:2",
  ],
  [
    { op: "remove_tag", target: { table: t, column: "id" }, key: "pii" },
    true,
    true,
    false,
    "altered_table:2",
  ],
  [{ op: "set_tag", target: { schema: "s2" }, key: "owner", value: "ana" }, true, true, false, null],
  [{ op: "create_view", name: "v", sql: "select 1" }, true, true, false, 'created_view:"main"."v"'],
  [{ op: "alter_view", view: { name: "v" }, sql: "select 2" }, true, true, false, "altered_view:7"],
  [
    { op: "set_comment", target: { view: { name: "v" } }, comment: "a view" },
    true,
    true,
    false,
    "altered_view:7",
  ],
  [{ op: "rename_view", view: { name: "v" }, newName: "v2" }, true, true, false, 'created_view:"main"."v2"'],
  [{ op: "drop_view", view: { name: "v2" } }, true, true, false, "dropped_view:7"],
  [
    { op: "create_macro", name: "m", impls: [{ sql: "x + 1", parameters: [{ name: "x" }] }] },
    true,
    true,
    false,
    'created_scalar_macro:"main"."m"',
  ],
  [{ op: "drop_macro", macro: { name: "m" } }, true, true, false, "dropped_scalar_macro:8"],
  [
    { op: "create_macro", name: "tm", type: "table", impls: [{ sql: "select 1" }] },
    true,
    true,
    false,
    'created_table_macro:"main"."tm"',
  ],
  [{ op: "drop_macro", macro: { name: "tm" } }, true, true, false, "dropped_table_macro:9"],
  [{ op: "expire_data_file", table: t, dataFileId: 0 }, false, true, false, "merge_adjacent:2"],
  [
    { op: "rename_table", table: { name: "u" }, newName: "u2" },
    true,
    true,
    true,
    'created_table:"main"."u2"',
  ],
  [{ op: "move_table", table: { name: "u2" }, toSchema: "s2" }, true, true, true, 'created_table:"s2"."u2"'],
  [{ op: "drop_table", table: { schema: "s2", name: "u2" } }, true, true, false, "dropped_table:3"],
  [{ op: "drop_schema", schema: "s2" }, true, true, false, "dropped_schema:1"],
  [{ op: "set_option", name: "data_inlining_row_limit", value: "20" }, false, false, false, null],
  [
    { op: "set_option", scope: { table: t }, name: "auto_compact", value: "FALSE" },
    false,
    false,
    false,
    null,
  ],
  [{ op: "unset_option", scope: { table: t }, name: "auto_compact" }, false, false, false, null],
];

describe("schema_version matrix", () => {
  it("bumps exactly for structural verbs, carries forward for data verbs, and options mint nothing", async () => {
    const { store, catalog } = await fresh("svmatrix");
    for (const [verb, bumps, mints, versionRow, changes] of MATRIX) {
      const before = await head(store.snapshot());
      const prev = (await listSnapshots(store.snapshot(), { after: before.snapshot_id - 1 }))[0];
      const req: CommitRequest = { verbs: [verb] };
      const out = await catalog.commit(req).catch((e: Error) => {
        throw new Error(`${verb.op}: ${e.message}`);
      });
      await settle(store, out.durable);
      const label = JSON.stringify(verb);
      if (!mints) {
        expect(out.snapshotId, label).toBeNull();
        expect((await head(store.snapshot())).snapshot_id, label).toBe(before.snapshot_id);
        continue;
      }
      expect(out.snapshotId, label).toBe(before.snapshot_id + 1);
      expect(out.schemaVersion, label).toBe((prev?.schema_version ?? 0) + (bumps ? 1 : 0));
      const snap = (await listSnapshots(store.snapshot(), { after: before.snapshot_id }))[0];
      expect(snap?.changes_made, label).toBe(changes);
      const rows = (await ducklakeTable(store.snapshot(), "ducklake_schema_versions")).filter(
        (r) => r.begin_snapshot === out.snapshotId,
      );
      expect(rows.length > 0, label).toBe(versionRow);
    }
    const view = store.snapshot();
    const inlined = (await ducklakeTable(view, "ducklake_inlined_data_tables")).map((r) => [
      r.table_id,
      r.schema_version,
      r.table_name,
    ]);
    expect(inlined.sort((a, b) => (a[1] as number) - (b[1] as number))).toEqual(
      [
        [2, 2],
        [3, 3],
        [2, 4],
        [2, 5],
        [2, 6],
        [2, 7],
        [2, 10],
        [2, 11],
        [2, 12],
        [3, 28], // rename_table opens one too, as DuckLake's RENAME TO does (golden ddl.json: 2_10)
      ].map(([tid, sv]) => [tid, sv, `ducklake_inlined_data_${tid}_${sv}`]),
    );
    expect(await ducklakeTable(view, "ducklake_metadata")).toContainEqual({
      key: "data_inlining_row_limit",
      value: "20",
      scope: null,
      scope_id: null,
    });
    expect((await ducklakeTable(view, "ducklake_metadata")).filter((r) => r.scope === "table")).toEqual([]);
  });
});
