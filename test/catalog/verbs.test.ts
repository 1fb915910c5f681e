import { describe, expect, it } from "vitest";
import { catalogAt, ducklakeTable, head, listSnapshots, tableFilesAt } from "../../catalog/index.ts";
import { cols, file, fresh, settle } from "./support.ts";

describe("core verbs", () => {
  it("create_table with nested columns writes DuckLake's rows", async () => {
    const { store, catalog } = await fresh("nested");
    const out = await catalog.commit({
      verbs: [
        {
          op: "create_table",
          name: "events",
          columns: [
            { name: "id", type: "INT64", nullable: false },
            {
              name: "payload",
              type: "struct",
              children: [
                { name: "tags", type: "list", children: [{ name: "element", type: "varchar" }] },
                {
                  name: "attrs",
                  type: "map",
                  children: [
                    { name: "key", type: "varchar" },
                    { name: "value", type: "float64" },
                  ],
                },
              ],
            },
            { name: "note", type: "varchar", default: "'none'" },
          ],
        },
      ],
      author: "ana",
      message: "create events",
    });
    await settle(store, out.durable);
    expect(out.snapshotId).toBe(1);
    expect(out.schemaVersion).toBe(1);
    expect(out.assigned).toEqual([{ tableId: 1, columnIds: [1, 2, 3, 4, 5, 6, 7, 8] }]);
    const view = store.snapshot();
    const columns = await ducklakeTable(view, "ducklake_column");
    expect(
      columns.map((c) => [c.column_id, c.column_name, c.column_type, c.parent_column, c.column_order]),
    ).toEqual([
      [1, "id", "int64", null, 1],
      [2, "payload", "struct", null, 2],
      [3, "tags", "list", 2, 3],
      [4, "element", "varchar", 3, 4],
      [5, "attrs", "map", 2, 5],
      [6, "key", "varchar", 5, 6],
      [7, "value", "float64", 5, 7],
      [8, "note", "varchar", null, 8],
    ]);
    expect(columns[0]).toMatchObject({
      nulls_allowed: false,
      default_value: "NULL",
      default_value_type: "literal",
      default_value_dialect: "duckdb",
    });
    expect(columns[7]).toMatchObject({ default_value: "'none'" });
    expect(await ducklakeTable(view, "ducklake_snapshot_changes", 1)).toContainEqual({
      snapshot_id: 1,
      changes_made: 'created_table:"main"."events"',
      author: "ana",
      commit_message: "create events",
      commit_extra_info: null,
    });
    expect(await ducklakeTable(view, "ducklake_schema_versions")).toEqual([
      { begin_snapshot: 1, schema_version: 1, table_id: 1 },
    ]);
    expect(await ducklakeTable(view, "ducklake_inlined_data_tables")).toEqual([
      { table_id: 1, table_name: "ducklake_inlined_data_1_1", schema_version: 1 },
    ]);
    const table = (await ducklakeTable(view, "ducklake_table"))[0];
    expect(table).toMatchObject({
      table_id: 1,
      schema_id: 0,
      table_name: "events",
      path: "events/",
      path_is_relative: true,
      end_snapshot: null,
    });
    const state = await catalogAt(view);
    expect(state.tables[0]?.columns.map((c) => c.column_name)).toEqual(["id", "payload", "note"]);
    expect(state.tables[0]?.columns[1]?.children.map((c) => c.column_name)).toEqual(["tags", "attrs"]);
  });

  it("data files take dense row ids from next_row_id and merge stats; delete files target them", async () => {
    const { store, catalog } = await fresh("files", { dataPath: "r2://bkt/lake/data/" });
    const t = { name: "orders" };
    await catalog.commit({ verbs: [{ op: "create_table", name: "orders", columns: cols }] });
    const a = await catalog.commit({
      verbs: [
        {
          op: "register_data_file",
          table: t,
          file: file("a.parquet", 100, {
            columnStats: [{ column: "id", min: "5", max: "90", nullCount: 0 }],
          }),
        },
        {
          op: "register_data_file",
          table: t,
          file: file("b.parquet", 50, {
            columnStats: [{ column: "id", min: "100", max: "7", nullCount: 2 }],
          }),
        },
      ],
    });
    expect(a.assigned).toEqual([
      { dataFileId: 0, rowIdStart: 0 },
      { dataFileId: 1, rowIdStart: 100 },
    ]);
    expect(a.schemaVersion).toBe(1);
    const d = await catalog.commit({
      verbs: [
        {
          op: "register_delete_file",
          table: t,
          dataFileId: 0,
          file: { path: "a-del.parquet", deleteCount: 3, fileSizeBytes: 10 },
        },
      ],
    });
    const d2 = await catalog.commit({
      verbs: [
        {
          op: "register_delete_file",
          table: t,
          dataFileId: 0,
          file: { path: "a-del2.parquet", deleteCount: 4, fileSizeBytes: 10 },
        },
      ],
    });
    await settle(store, d2.durable);
    const view = store.snapshot();
    expect(await ducklakeTable(view, "ducklake_table_stats")).toEqual([
      { table_id: 1, record_count: 150, next_row_id: 150, file_size_bytes: 1500 },
    ]);
    const colStats = await ducklakeTable(view, "ducklake_table_column_stats");
    expect(colStats).toEqual([
      {
        table_id: 1,
        column_id: 1,
        contains_null: true,
        contains_nan: null, // no file reports NaN for an integer column (golden data.json)
        min_value: "5",
        max_value: "90",
        extra_stats: null,
      },
    ]);
    const snaps = await listSnapshots(view);
    expect(snaps.map((s) => s.changes_made)).toEqual([
      'created_schema:"main"',
      'created_table:"main"."orders"',
      "inserted_into_table:1",
      "deleted_from_table:1",
      "deleted_from_table:1",
    ]);
    expect(snaps.map((s) => [s.next_catalog_id, s.next_file_id, s.schema_version])).toEqual([
      [1, 0, 0],
      [2, 0, 1],
      [2, 2, 1],
      [2, 3, 1],
      [2, 4, 1],
    ]);
    const plan = await tableFilesAt(view, { name: "orders" });
    expect(
      plan.files.map((f) => [f.data_file_id, f.resolved_path, f.delete_file?.delete_file_id ?? null]),
    ).toEqual([
      [0, "r2://bkt/lake/data/main/orders/a.parquet", 3],
      [1, "r2://bkt/lake/data/main/orders/b.parquet", null],
    ]);
    // Time travel: at the first delete's snapshot, file 0's delete file was 2.
    const planAt = await tableFilesAt(view, 1, d.snapshotId as number);
    expect(planAt.files[0]?.delete_file?.delete_file_id).toBe(2);
    const deletes = await ducklakeTable(view, "ducklake_delete_file");
    expect(deletes.map((x) => [x.delete_file_id, x.begin_snapshot, x.end_snapshot])).toEqual([
      [2, 3, 4],
      [3, 4, null],
    ]);
    expect(await ducklakeTable(view, "ducklake_delete_file", 3)).toEqual([
      expect.objectContaining({ delete_file_id: 2, end_snapshot: null }),
    ]);
  });

  it("an empty commit and an options-only commit mint no snapshot; options still return a position", async () => {
    const { store, catalog } = await fresh("empty");
    const h0 = await head(store.snapshot());
    const empty = await catalog.commit({ verbs: [] });
    expect(empty.snapshotId).toBeNull();
    expect(store.position).toBe(h0.position);
    const opt = await catalog.commit({
      verbs: [{ op: "set_option", name: "parquet_compression", value: "ZSTD" }],
    });
    await settle(store, opt.durable);
    expect(opt.snapshotId).toBeNull();
    expect(opt.position).toBeGreaterThan(h0.position);
    const h1 = await head(store.snapshot());
    expect(h1).toMatchObject({ snapshot_id: 0, batch_count: 1 });
    expect(await ducklakeTable(store.snapshot(), "ducklake_metadata")).toContainEqual({
      key: "parquet_compression",
      value: "zstd",
      scope: null,
      scope_id: null,
    });
    const last = await catalog.commit({
      verbs: [{ op: "set_option", name: "parquet_compression", value: "snappy" }],
    });
    await settle(store, last.durable);
    const rows = (await ducklakeTable(store.snapshot(), "ducklake_metadata")).filter(
      (r) => r.key === "parquet_compression",
    );
    expect(rows).toEqual([{ key: "parquet_compression", value: "snappy", scope: null, scope_id: null }]);
    await expect(
      catalog.commit({ verbs: [{ op: "set_option", name: "data_path", value: "x/" }] }),
    ).rejects.toMatchObject({
      code: "Unsupported",
    });
  });

  it("validates premises: NotFound, AlreadyExists (tables and views share names), Constraint, Unsupported", async () => {
    const { catalog } = await fresh("premise");
    await catalog.commit({
      verbs: [
        { op: "create_schema", name: "s" },
        { op: "create_table", schema: "s", name: "unique_ids", columns: cols },
      ],
    });
    const cases: [unknown[], string][] = [
      [[{ op: "drop_table", table: { schema: "s", name: "conflicts" } }], "NotFound"],
      [[{ op: "create_view", schema: "s", name: "UNIQUE_IDS", sql: "select 1" }], "AlreadyExists"],
      [[{ op: "create_table", schema: "s", name: "unique_ids", columns: cols }], "AlreadyExists"],
      [[{ op: "drop_schema", schema: "s" }], "Constraint"],
      [[{ op: "create_table", name: "v", columns: [{ name: "x", type: "variant" }] }], "Unsupported"],
      [[{ op: "create_table", name: "v", columns: [{ name: "x", type: "geography" }] }], "Unsupported"],
      [[{ op: "create_table", schema: "nope", name: "t", columns: cols }], "NotFound"],
      [[{ op: "drop_column", table: { schema: "s", name: "unique_ids" }, column: "missing" }], "NotFound"],
    ];
    for (const [verbs, code] of cases) {
      const err = await catalog
        .commit({ verbs: verbs as never })
        .catch((e: { code: string; message: string }) => e);
      expect(err, JSON.stringify(verbs)).toMatchObject({ code });
      const text = (err as { message: string }).message.toLowerCase();
      for (const w of ["unique", "conflict", "concurrent", "primary key"])
        expect(text, text).not.toContain(w);
    }
  });
});
