/**
 * The verbs equivalent to each golden scenario's SQL (tools/ducklake-golden.py), one commit per statement
 * in the same order. File registrations carry the record counts, row-id layout, column stats and
 * partition values the golden rows show; byte sizes and uuids are arbitrary (the goldens normalise them).
 */
import type { CommitRequest, Verb } from "../../catalog/index.ts";
import type { ColumnDef } from "../../catalog/verbs/schema.ts";

type FileSpec = Extract<Verb, { op: "register_data_file" }>["file"];
type DeleteSpec = Extract<Verb, { op: "register_delete_file" }>["file"];
type Stat = NonNullable<FileSpec["columnStats"]>[number];

const uuid = (): string => crypto.randomUUID();

/** A Parquet data file as DuckLake names it (`ducklake-<uuid>.parquet`, relative to the table path). */
function parquet(recordCount: number, columnStats: Stat[], dir = ""): FileSpec {
  return {
    path: `${dir}ducklake-${uuid()}.parquet`,
    recordCount,
    fileSizeBytes: 600 + recordCount,
    footerSize: 400,
    columnStats,
  };
}

function deletes(deleteCount: number): DeleteSpec {
  return { path: `ducklake-${uuid()}-delete.parquet`, deleteCount, fileSizeBytes: 900, footerSize: 700 };
}

/** A column's file stats as DuckDB's Parquet writer reports them (value_count excludes NULLs). */
function stat(column: string, valueCount: number, nullCount: number, min: string, max: string): Stat {
  return { column, columnSizeBytes: 30, valueCount, nullCount, min, max };
}

const one = (...verbs: Verb[]): CommitRequest => ({ verbs });
const col = (name: string, type: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({
  name,
  type,
  ...extra,
});
const list = (name: string, element: ColumnDef): ColumnDef => ({
  name,
  type: "list",
  children: [{ ...element, name: "element" }],
});
const noInlining = one({ op: "set_option", name: "data_inlining_row_limit", value: "0" });

const S1_ORDERS = { schema: "s1", name: "orders" };
const N = { schema: "s2", name: "n" };
const T = { name: "t" };

/**
 * A maintenance call among the statements: `ducklake_expire_snapshots(versions => …)` is job 4's step
 * (catalog/maintenance/expire.ts), `ducklake_cleanup_old_files(cleanup_all => true)` job 5's catalog half.
 */
export type MaintenanceStep = { maintenance: "expire"; versions: number[] } | { maintenance: "cleanup" };

/** Scenario name → one commit (or maintenance step) per SQL statement of the golden, in order. */
export const SCENARIO_COMMITS: Record<string, (CommitRequest | MaintenanceStep)[]> = {
  fresh: [],
  ddl: [
    one({ op: "create_schema", name: "s1" }),
    one({
      op: "create_table",
      schema: "s1",
      name: "orders",
      columns: [
        col("id", "int64"),
        col("amount", "decimal(10,2)"),
        list("tags", col("element", "varchar")),
        col("addr", "struct", { children: [col("city", "varchar"), col("zip", "int32")] }),
      ],
    }),
    one({
      op: "create_view",
      schema: "s1",
      name: "big",
      sql: "SELECT id FROM {DUCKLAKE_CATALOG}.s1.orders WHERE (amount > 10)",
    }),
    one({ op: "set_comment", target: { table: S1_ORDERS }, comment: "customer orders" }),
    one({ op: "set_comment", target: { table: S1_ORDERS, column: "id" }, comment: "order id" }),
    one({ op: "add_column", table: S1_ORDERS, column: col("note", "varchar", { default: "none" }) }),
    one({ op: "rename_column", table: S1_ORDERS, column: "note", newName: "memo" }),
    one({ op: "alter_column", table: S1_ORDERS, column: "memo", default: "n/a" }),
    one({ op: "drop_column", table: S1_ORDERS, column: "tags" }),
    one({ op: "rename_table", table: S1_ORDERS, newName: "orders2" }),
    one({ op: "drop_view", view: { schema: "s1", name: "big" } }),
    one({ op: "create_table", name: "doomed", columns: [col("x", "int32")] }),
    one({ op: "drop_table", table: { name: "doomed" } }),
  ],
  data: [
    noInlining,
    one({ op: "create_table", name: "t", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(3, [stat("id", 3, 0, "1", "3"), stat("s", 2, 1, "a", "b")]),
    }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(2, [stat("id", 2, 0, "4", "5"), stat("s", 2, 0, "d", "e")]),
    }),
    one({ op: "register_delete_file", table: T, dataFileId: 0, file: deletes(1) }),
  ],
  inlined: [
    one({ op: "create_table", name: "small", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "inline_insert",
      table: { name: "small" },
      rows: [
        { id: 1, s: "a" },
        { id: 2, s: "b" },
      ],
    }),
    one({ op: "inline_delete", table: { name: "small" }, rowIds: [0] }),
  ],
  partitioned: [
    noInlining,
    one({
      op: "create_table",
      name: "events",
      columns: [col("day", "date"), col("kind", "varchar"), col("n", "int32")],
    }),
    one({ op: "set_partitioning", table: { name: "events" }, columns: [{ column: "kind" }] }),
    // One INSERT writes one file per partition value, in one snapshot.
    one(
      ...["a", "b"].map(
        (kind, i): Verb => ({
          op: "register_data_file",
          table: { name: "events" },
          file: {
            ...parquet(
              1,
              [
                stat("day", 1, 0, `2026-01-0${i + 1}`, `2026-01-0${i + 1}`),
                stat("kind", 1, 0, kind, kind),
                stat("n", 1, 0, `${i + 1}`, `${i + 1}`),
              ],
              `kind=${kind}/`,
            ),
            partitionValues: [{ index: 0, value: kind }],
          },
        }),
      ),
    ),
    one({ op: "clear_partitioning", table: { name: "events" } }),
  ],
  types: [
    one({ op: "create_schema", name: "s2" }),
    one({
      op: "create_table",
      schema: "s2",
      name: "n",
      columns: [
        col("id", "int32", { nullable: false }),
        col("m", "map", { children: [col("key", "varchar"), col("value", "int32")] }),
        list(
          "ls",
          col("element", "struct", { children: [col("a", "int32"), list("b", col("e", "varchar"))] }),
        ),
        col("ts", "timestamp"),
        col("u", "uuid"),
        col("d", "float64"),
        col("f", "float32"),
        col("b", "boolean"),
        col("sm", "int16"),
        col("ti", "int8"),
        col("ub", "uint64"),
        col("h", "int128"),
        col("bl", "blob"),
        col("j", "json"),
        col("tz", "timestamptz"),
        col("iv", "interval"),
        col("tm", "time"),
        col("dt", "date"),
      ],
    }),
    one({ op: "alter_column", table: N, column: "sm", type: "int32" }),
    one({ op: "alter_column", table: N, column: "id", nullable: true }),
    one({ op: "alter_column", table: N, column: "d", default: null }),
    one({ op: "add_column", table: N, column: col("st", "struct", { children: [col("x", "int32")] }) }),
    // DuckLake 1.5.5 records a struct field added by `ADD COLUMN st.y` with nulls_allowed false, so the
    // equivalent verb says so.
    one({ op: "add_column", table: N, parent: "st", column: col("y", "varchar", { nullable: false }) }),
    one({ op: "drop_column", table: N, column: { path: ["st", "x"] } }),
    one({
      op: "set_sorting",
      table: N,
      keys: [{ expression: "id", direction: "DESC", nulls: "NULLS_FIRST" }, { expression: "ts" }],
    }),
    one({ op: "clear_sorting", table: N }),
    one({ op: "add_column", table: N, column: col("e", "int32", { default: "7" }) }),
    one({ op: "set_comment", target: { table: N, column: "m" }, comment: "a map" }),
    one({ op: "set_comment", target: { table: N, column: "m" }, comment: null }),
    one({ op: "drop_table", table: N }),
    one({ op: "drop_schema", schema: "s2" }),
  ],
  views_macros: [
    one({ op: "create_view", name: "v1", sql: "SELECT 1, 2", columnAliases: '"a","b"' }),
    one({ op: "rename_view", view: { name: "v1" }, newName: "v2" }),
    one({ op: "set_comment", target: { view: { name: "v2" } }, comment: "view note" }),
    one({
      op: "create_macro",
      name: "add1",
      impls: [
        {
          sql: "(a + b)",
          parameters: [{ name: "a" }, { name: "b", default: "1", defaultType: "int32" }],
        },
      ],
    }),
    one({
      op: "create_macro",
      name: "tm",
      type: "table",
      impls: [{ sql: "SELECT x AS y", parameters: [{ name: "x" }] }],
    }),
    one({ op: "drop_macro", macro: { name: "add1" } }),
    one({ op: "drop_macro", macro: { name: "tm" } }),
    one({ op: "drop_view", view: { name: "v2" } }),
  ],
  flush: [
    one({ op: "create_table", name: "t", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "inline_insert",
      table: T,
      rows: [
        { id: 1, s: "a" },
        { id: 2, s: "b" },
        { id: 3, s: "c" },
      ],
    }),
    one({ op: "inline_delete", table: T, rowIds: [0] }),
    one({ op: "inline_delete", table: T, rowIds: [2] }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(20, [stat("id", 20, 0, "10", "29"), stat("s", 20, 0, "x10", "x29")]),
    }),
    one({ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 1, positions: [2] }] }),
    one({ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 1, positions: [5] }] }),
    one({ op: "alter_column", table: T, column: "id", nullable: false }),
    one({
      op: "flush_inlined",
      table: T,
      throughRowId: 2,
      file: parquet(3, [stat("id", 3, 0, "1", "3"), stat("s", 3, 0, "a", "c")]),
      deleteFile: deletes(2),
      fileDeletes: [{ dataFileId: 1, file: deletes(2) }],
    }),
  ],
  deletes: [
    one({ op: "create_table", name: "t", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(30, [stat("id", 30, 0, "10", "39"), stat("s", 30, 0, "x10", "x39")]),
    }),
    one({ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 0, positions: [2] }] }),
    one({ op: "register_delete_file", table: T, dataFileId: 0, file: deletes(20) }),
    one({ op: "inline_delete", table: T, fileDeletes: [{ dataFileId: 0, positions: [3] }] }),
    // No inlined rows: the flush only merges the file's inlined deletes with its live delete file.
    one({ op: "flush_inlined", table: T, fileDeletes: [{ dataFileId: 0, file: deletes(22) }] }),
  ],
  merge: [
    noInlining,
    one({ op: "create_table", name: "t", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(3, [stat("id", 3, 0, "1", "3"), stat("s", 3, 0, "a", "c")]),
    }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(2, [stat("id", 2, 0, "4", "5"), stat("s", 2, 0, "d", "e")]),
    }),
    one({ op: "register_delete_file", table: T, dataFileId: 0, file: deletes(1) }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(1, [stat("id", 1, 0, "6", "6"), stat("s", 1, 0, "f", "f")]),
    }),
    one({
      op: "merge_adjacent_files",
      table: T,
      dataFileIds: [1, 3],
      file: parquet(3, [stat("id", 3, 0, "4", "6"), stat("s", 3, 0, "d", "f")]),
    }),
  ],
  merge_gap: [
    noInlining,
    one({ op: "create_table", name: "t", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(3, [stat("id", 3, 0, "1", "3"), stat("s", 3, 0, "a", "c")]),
    }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(2, [stat("id", 2, 0, "4", "5"), stat("s", 2, 0, "d", "e")]),
    }),
    one({ op: "register_delete_file", table: T, dataFileId: 1, file: deletes(1) }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(1, [stat("id", 1, 0, "6", "6"), stat("s", 1, 0, "f", "f")]),
    }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(1, [stat("id", 1, 0, "7", "7"), stat("s", 1, 0, "g", "g")]),
    }),
    one({
      op: "merge_adjacent_files",
      table: T,
      dataFileIds: [0, 3, 4],
      file: parquet(5, [stat("id", 5, 0, "1", "7"), stat("s", 5, 0, "a", "g")]),
    }),
  ],
  rewrite: [
    noInlining,
    one({ op: "create_table", name: "t", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(3, [stat("id", 3, 0, "1", "3"), stat("s", 3, 0, "a", "c")]),
    }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(2, [stat("id", 2, 0, "4", "5"), stat("s", 2, 0, "d", "e")]),
    }),
    one({ op: "register_delete_file", table: T, dataFileId: 0, file: deletes(2) }),
    one({ op: "register_delete_file", table: T, dataFileId: 1, file: deletes(1) }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(1, [stat("id", 1, 0, "6", "6"), stat("s", 1, 0, "f", "f")]),
    }),
    one({
      op: "rewrite_data_files",
      table: T,
      dataFileIds: [0, 1],
      file: parquet(2, [stat("id", 2, 0, "3", "4"), stat("s", 2, 0, "c", "d")]),
      rowIdStart: 2,
    }),
  ],
  expire: [
    noInlining,
    one({ op: "create_table", name: "t", columns: [col("id", "int32"), col("s", "varchar")] }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(3, [stat("id", 3, 0, "1", "3"), stat("s", 2, 1, "a", "b")]),
    }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(2, [stat("id", 2, 0, "4", "5"), stat("s", 2, 0, "d", "e")]),
    }),
    one({ op: "register_delete_file", table: T, dataFileId: 0, file: deletes(1) }),
    one({ op: "create_table", name: "gone", columns: [col("x", "int32")] }),
    one({ op: "register_data_file", table: { name: "gone" }, file: parquet(2, [stat("x", 2, 0, "7", "8")]) }),
    one({ op: "register_delete_file", table: { name: "gone" }, dataFileId: 3, file: deletes(1) }),
    one({ op: "drop_table", table: { name: "gone" } }),
    one({
      op: "register_data_file",
      table: T,
      file: parquet(1, [stat("id", 1, 0, "6", "6"), stat("s", 1, 0, "f", "f")]),
    }),
    { maintenance: "expire", versions: [0, 1, 2, 3, 4, 5, 6, 7] },
    { maintenance: "cleanup" },
  ],
};
