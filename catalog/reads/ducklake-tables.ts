/**
 * The 28 DuckLake 1.0 `ducklake_*` tables as rows, with the spec's exact column names and order, as they
 * stood when snapshot S was the head: rows begun by S, an end after S shown as NULL. Unversioned tables
 * (file stats, mappings, schema versions) show the rows of entities begun by S; options are outside the
 * snapshot protocol and always current.
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { InvalidRequest, quoteName } from "../errors.ts";
import { readHead, resolveSnapshot } from "../head.ts";
import { Kind, keyIds, keys } from "../keys.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  DeleteFileRecord,
  GcFileRecord,
  InlinedTableRecord,
  MacroRecord,
  MappingRecord,
  OptionRecord,
  PartitionRecord,
  SchemaRecord,
  SchemaVersionRecord,
  SnapshotRecord,
  SortRecord,
  TableColumnStatsRecord,
  TableRecord,
  TableStatsRecord,
  TagContainer,
  ViewRecord,
} from "../records.ts";
import { allVersions, asOf, scanAll } from "./versions.ts";

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

/** Column lists exactly as DuckLake 1.0's DDL declares them. */
/**
 * `row_id_start` as DuckLake registers it: NULL for a file that carries its own row ids (a rewrite, or a
 * merge of non-adjacent files); the record keeps the lowest id for this catalog's readers (decision 0322).
 * A flushed file carrying its ids is registered from its lowest (docs/decisions/0617-partitioned-flush.md).
 */
export function shownRowIdStart(
  f: Pick<DataFileRecord, "row_id_start" | "x_row_ids_in_file" | "x_row_id_start_shown">,
): number | null {
  return f.x_row_ids_in_file && !f.x_row_id_start_shown ? null : f.row_id_start;
}

export const DUCKLAKE_TABLES: Record<string, readonly string[]> = {
  ducklake_metadata: ["key", "value", "scope", "scope_id"],
  ducklake_snapshot: ["snapshot_id", "snapshot_time", "schema_version", "next_catalog_id", "next_file_id"],
  ducklake_snapshot_changes: ["snapshot_id", "changes_made", "author", "commit_message", "commit_extra_info"],
  ducklake_schema: [
    "schema_id",
    "schema_uuid",
    "begin_snapshot",
    "end_snapshot",
    "schema_name",
    "path",
    "path_is_relative",
  ],
  ducklake_table: [
    "table_id",
    "table_uuid",
    "begin_snapshot",
    "end_snapshot",
    "schema_id",
    "table_name",
    "path",
    "path_is_relative",
  ],
  ducklake_view: [
    "view_id",
    "view_uuid",
    "begin_snapshot",
    "end_snapshot",
    "schema_id",
    "view_name",
    "dialect",
    "sql",
    "column_aliases",
  ],
  ducklake_tag: ["object_id", "begin_snapshot", "end_snapshot", "key", "value"],
  ducklake_column_tag: ["table_id", "column_id", "begin_snapshot", "end_snapshot", "key", "value"],
  ducklake_data_file: [
    "data_file_id",
    "table_id",
    "begin_snapshot",
    "end_snapshot",
    "file_order",
    "path",
    "path_is_relative",
    "file_format",
    "record_count",
    "file_size_bytes",
    "footer_size",
    "row_id_start",
    "partition_id",
    "encryption_key",
    "mapping_id",
    "partial_max",
  ],
  ducklake_file_column_stats: [
    "data_file_id",
    "table_id",
    "column_id",
    "column_size_bytes",
    "value_count",
    "null_count",
    "min_value",
    "max_value",
    "contains_nan",
    "extra_stats",
  ],
  ducklake_file_variant_stats: [
    "data_file_id",
    "table_id",
    "column_id",
    "variant_path",
    "shredded_type",
    "column_size_bytes",
    "value_count",
    "null_count",
    "min_value",
    "max_value",
    "contains_nan",
    "extra_stats",
  ],
  ducklake_delete_file: [
    "delete_file_id",
    "table_id",
    "begin_snapshot",
    "end_snapshot",
    "data_file_id",
    "path",
    "path_is_relative",
    "format",
    "delete_count",
    "file_size_bytes",
    "footer_size",
    "encryption_key",
    "partial_max",
  ],
  ducklake_column: [
    "column_id",
    "begin_snapshot",
    "end_snapshot",
    "table_id",
    "column_order",
    "column_name",
    "column_type",
    "initial_default",
    "default_value",
    "nulls_allowed",
    "parent_column",
    "default_value_type",
    "default_value_dialect",
  ],
  ducklake_table_stats: ["table_id", "record_count", "next_row_id", "file_size_bytes"],
  ducklake_table_column_stats: [
    "table_id",
    "column_id",
    "contains_null",
    "contains_nan",
    "min_value",
    "max_value",
    "extra_stats",
  ],
  ducklake_partition_info: ["partition_id", "table_id", "begin_snapshot", "end_snapshot"],
  ducklake_partition_column: ["partition_id", "table_id", "partition_key_index", "column_id", "transform"],
  ducklake_file_partition_value: ["data_file_id", "table_id", "partition_key_index", "partition_value"],
  ducklake_files_scheduled_for_deletion: ["data_file_id", "path", "path_is_relative", "schedule_start"],
  ducklake_inlined_data_tables: ["table_id", "table_name", "schema_version"],
  ducklake_column_mapping: ["mapping_id", "table_id", "type"],
  ducklake_name_mapping: [
    "mapping_id",
    "column_id",
    "source_name",
    "target_field_id",
    "parent_column",
    "is_partition",
  ],
  ducklake_schema_versions: ["begin_snapshot", "schema_version", "table_id"],
  ducklake_macro: ["schema_id", "macro_id", "macro_name", "begin_snapshot", "end_snapshot"],
  ducklake_macro_impl: ["macro_id", "impl_id", "dialect", "sql", "type"],
  ducklake_macro_parameters: [
    "macro_id",
    "impl_id",
    "column_id",
    "parameter_name",
    "parameter_type",
    "default_value",
    "default_value_type",
  ],
  ducklake_sort_info: ["sort_id", "table_id", "begin_snapshot", "end_snapshot"],
  ducklake_sort_expression: [
    "sort_id",
    "table_id",
    "sort_key_index",
    "expression",
    "dialect",
    "sort_direction",
    "null_order",
  ],
};

type Source = (view: ReadView, snap: SnapshotRecord) => Promise<Row[]>;

const v =
  <T extends { begin_snapshot: number; end_snapshot: number | null }>(kind: Kind, vk: ValueKind) =>
  async (view: ReadView, snap: SnapshotRecord): Promise<T[]> =>
    asOf(await allVersions<T>(view, kind, vk), snap.snapshot_id);

const plain =
  <T>(kind: Kind, vk: ValueKind) =>
  (view: ReadView): Promise<T[]> =>
    scanAll<T>(view, keys.current(kind), vk, "record");

/**
 * Name maps in the order stock's tables hold them: written once each, by ascending id (ids come from
 * `next_file_id`), not by the key's table-first order (docs/decisions/0600-staged-name-maps.md).
 */
async function mappings(view: ReadView): Promise<MappingRecord[]> {
  const all = await plain<MappingRecord>(Kind.mapping, ValueKind.mapping)(view);
  return all.sort((a, b) => a.mapping_id - b.mapping_id);
}

async function snapshotsThrough(view: ReadView, snap: SnapshotRecord): Promise<SnapshotRecord[]> {
  return scanAll<SnapshotRecord>(view, keys.snapshotPrefix(), ValueKind.snapshot, "snapshot").then((all) =>
    all.filter((r) => r.snapshot_id <= snap.snapshot_id),
  );
}

/** Data files begun by S (the unversioned per-file tables hang off them). */
const files = v<DataFileRecord>(Kind.dataFile, ValueKind.dataFile);

/**
 * Tag rows as at S. At the head every entry is shown as stored: a row a client appended may begin or end
 * after the head, and stock shows it as written (decision 0710); DuckLake's own rows never do, so for them
 * this is `asOf` at the head.
 */
async function tagRows(view: ReadView, snap: SnapshotRecord, kind: Kind): Promise<Row[]> {
  const out: Row[] = [];
  const atHead = (await readHead(view)).snapshot_id === snap.snapshot_id;
  for await (const kv of view.scan({ prefix: keys.current(kind) })) {
    const c = decodeValue<TagContainer>(ValueKind.tagContainer, kv.value, "tag");
    const ids = keyIds(kv.key, 2);
    for (const e of atHead ? c.entries : asOf(c.entries, snap.snapshot_id)) {
      out.push(
        kind === Kind.tag
          ? { object_id: ids[0] ?? null, ...e }
          : { table_id: ids[0] ?? null, column_id: ids[1] ?? null, ...e },
      );
    }
  }
  return out;
}

/** The per-file tables as rows of their data file records (one home for the SQL reader and this one). */
export const FILE_ROWS = {
  ducklake_data_file: (fs: readonly DataFileRecord[]): Row[] =>
    fs.map((f) => ({ ...f, row_id_start: shownRowIdStart(f) })) as unknown as Row[],
  ducklake_file_column_stats: (fs: readonly DataFileRecord[]): Row[] =>
    fs.flatMap((f) =>
      f.x_column_stats.map((c) => ({ data_file_id: f.data_file_id, table_id: f.table_id, ...c })),
    ),
  ducklake_file_variant_stats: (fs: readonly DataFileRecord[]): Row[] =>
    fs.flatMap((f) =>
      f.x_variant_stats.map((c) => ({ data_file_id: f.data_file_id, table_id: f.table_id, ...c })),
    ),
  ducklake_file_partition_value: (fs: readonly DataFileRecord[]): Row[] =>
    fs.flatMap((f) =>
      f.x_partition_values.map((pv) => ({ data_file_id: f.data_file_id, table_id: f.table_id, ...pv })),
    ),
} as const;

const SOURCES: Record<string, Source> = {
  ducklake_metadata: async (view) =>
    (await plain<OptionRecord>(Kind.option, ValueKind.option)(view)).flatMap((o) =>
      Object.entries(o.values).map(([key, value]) => ({ key, value, scope: o.scope, scope_id: o.scope_id })),
    ),
  ducklake_snapshot: async (view, snap) => (await snapshotsThrough(view, snap)) as unknown as Row[],
  // With the rows a client appended for snapshots not minted yet (docs/decisions/0710-metadata-appends.md).
  ducklake_snapshot_changes: async (view, snap) => [
    ...((await snapshotsThrough(view, snap)) as unknown as Row[]),
    ...(((await readHead(view)).x_reserved_changes ?? []) as unknown as Row[]),
  ],
  ducklake_schema: async (view, snap) =>
    (await v<SchemaRecord>(Kind.schema, ValueKind.schema)(view, snap)) as unknown as Row[],
  ducklake_table: async (view, snap) =>
    (await v<TableRecord>(Kind.table, ValueKind.table)(view, snap)) as unknown as Row[],
  ducklake_view: async (view, snap) =>
    (await v<ViewRecord>(Kind.view, ValueKind.view)(view, snap)) as unknown as Row[],
  ducklake_tag: (view, snap) => tagRows(view, snap, Kind.tag),
  ducklake_column_tag: (view, snap) => tagRows(view, snap, Kind.columnTag),
  ducklake_data_file: async (view, snap) => FILE_ROWS.ducklake_data_file(await files(view, snap)),
  ducklake_file_column_stats: async (view, snap) =>
    FILE_ROWS.ducklake_file_column_stats(await files(view, snap)),
  ducklake_file_variant_stats: async (view, snap) =>
    FILE_ROWS.ducklake_file_variant_stats(await files(view, snap)),
  ducklake_delete_file: async (view, snap) =>
    (await v<DeleteFileRecord>(Kind.deleteFile, ValueKind.deleteFile)(view, snap)) as unknown as Row[],
  ducklake_column: async (view, snap) =>
    (await v<ColumnRecord>(Kind.column, ValueKind.column)(view, snap)) as unknown as Row[],
  ducklake_table_stats: async (view, snap) =>
    (await v<TableStatsRecord>(Kind.tableStats, ValueKind.tableStats)(view, snap)).filter(
      (r) => r.end_snapshot === null,
    ) as unknown as Row[],
  ducklake_table_column_stats: async (view, snap) =>
    (await v<TableColumnStatsRecord>(Kind.tableColumnStats, ValueKind.tableColumnStats)(view, snap)).filter(
      (r) => r.end_snapshot === null,
    ) as unknown as Row[],
  ducklake_partition_info: async (view, snap) =>
    (await v<PartitionRecord>(Kind.partition, ValueKind.partition)(view, snap)) as unknown as Row[],
  ducklake_partition_column: async (view, snap) =>
    (await v<PartitionRecord>(Kind.partition, ValueKind.partition)(view, snap)).flatMap((p) =>
      p.x_columns.map((c) => ({ partition_id: p.partition_id, table_id: p.table_id, ...c })),
    ),
  ducklake_file_partition_value: async (view, snap) =>
    FILE_ROWS.ducklake_file_partition_value(await files(view, snap)),
  ducklake_files_scheduled_for_deletion: async (view) =>
    (await plain<GcFileRecord>(Kind.gcFile, ValueKind.gcFile)(view)) as unknown as Row[],
  ducklake_inlined_data_tables: async (view, snap) =>
    (await plain<InlinedTableRecord>(Kind.inlinedTable, ValueKind.inlinedTable)(view)).filter(
      (r) => r.schema_version <= snap.schema_version,
    ) as unknown as Row[],
  ducklake_column_mapping: async (view) => (await mappings(view)) as unknown as Row[],
  ducklake_name_mapping: async (view) =>
    (await mappings(view)).flatMap((m) => m.x_names.map((n) => ({ mapping_id: m.mapping_id, ...n }))),
  ducklake_schema_versions: async (view, snap) =>
    (await plain<SchemaVersionRecord>(Kind.schemaVersion, ValueKind.schemaVersion)(view)).filter(
      (r) => r.begin_snapshot <= snap.snapshot_id,
    ) as unknown as Row[],
  ducklake_macro: async (view, snap) =>
    (await v<MacroRecord>(Kind.macro, ValueKind.macro)(view, snap)) as unknown as Row[],
  ducklake_macro_impl: async (view, snap) =>
    (await v<MacroRecord>(Kind.macro, ValueKind.macro)(view, snap)).flatMap((m) =>
      m.x_impls.map((i) => ({ macro_id: m.macro_id, ...i })),
    ) as unknown as Row[],
  ducklake_macro_parameters: async (view, snap) =>
    (await v<MacroRecord>(Kind.macro, ValueKind.macro)(view, snap)).flatMap((m) =>
      m.x_impls.flatMap((i) =>
        i.x_parameters.map((p) => ({ macro_id: m.macro_id, impl_id: i.impl_id, ...p })),
      ),
    ),
  ducklake_sort_info: async (view, snap) =>
    (await v<SortRecord>(Kind.sort, ValueKind.sort)(view, snap)) as unknown as Row[],
  ducklake_sort_expression: async (view, snap) =>
    (await v<SortRecord>(Kind.sort, ValueKind.sort)(view, snap)).flatMap((srt) =>
      srt.x_expressions.map((e) => ({ sort_id: srt.sort_id, table_id: srt.table_id, ...e })),
    ),
};

/** Projects a record onto exactly the table's columns (missing → NULL), dropping internal fields. */
function project(row: Row, columns: readonly string[]): Row {
  const out: Row = {};
  for (const c of columns) {
    const value = row[c];
    out[c] = value === undefined ? null : value;
  }
  return out;
}

function compareRows(a: Row, b: Row, columns: readonly string[]): number {
  for (const c of columns) {
    const x = a[c];
    const y = b[c];
    if (x === y) continue;
    if (x === null || x === undefined) return -1;
    if (y === null || y === undefined) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Records of one `ducklake_*` table as its rows: exactly its columns, in the order of their values. */
export function tableRows(tableName: string, records: readonly Row[]): Row[] {
  const columns = DUCKLAKE_TABLES[tableName];
  if (!columns) throw new InvalidRequest(`${quoteName(tableName)} is not one of the 28 DuckLake 1.0 tables`);
  return records.map((r) => project(r, columns)).sort((a, b) => compareRows(a, b, columns));
}

/** Rows of one `ducklake_*` table at snapshot S (default: head), sorted by their columns in order. */
export async function ducklakeTable(view: ReadView, tableName: string, snapshotId?: number): Promise<Row[]> {
  const columns = DUCKLAKE_TABLES[tableName];
  const source = SOURCES[tableName];
  if (!columns || !source) {
    throw new InvalidRequest(`${quoteName(tableName)} is not one of the 28 DuckLake 1.0 tables`);
  }
  const snap = await resolveSnapshot(view, snapshotId);
  const rows = (await source(view, snap)).map((r) => project(r, columns));
  return rows.sort((a, b) => compareRows(a, b, columns));
}
