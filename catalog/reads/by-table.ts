/**
 * One table's rows of the per-table `ducklake_*` tables, read by its id prefix instead of scanning the
 * whole kind: what the statements DuckLake sends about one table need (its stats, its schema versions,
 * its inlined-data tables, its versions and its columns). Same rows as `ducklakeTable` at the cut's head
 * (`ducklake-tables.ts`), narrowed to the table: stats are the current rows, schema versions and the
 * inlined registry are unversioned, tables and columns show every version.
 */
import type { ReadView } from "../../storage/api.ts";
import { ValueKind } from "../codec.ts";
import { Kind, keys } from "../keys.ts";
import type {
  ColumnRecord,
  InlinedTableRecord,
  SchemaRecord,
  SchemaVersionRecord,
  TableColumnStatsRecord,
  TableRecord,
  TableStatsRecord,
} from "../records.ts";
import { allVersions, scanAll } from "./versions.ts";

export interface TableStatsRows {
  /** ducklake_table_stats: at most one live row per table. */
  stats: TableStatsRecord[];
  /** ducklake_table_column_stats, by column id. */
  columns: TableColumnStatsRecord[];
}

export async function tableStatsOf(view: ReadView, tableId: number): Promise<TableStatsRows> {
  const [stats, columns] = await Promise.all([
    scanAll<TableStatsRecord>(
      view,
      keys.current(Kind.tableStats, tableId),
      ValueKind.tableStats,
      "table stats",
    ),
    scanAll<TableColumnStatsRecord>(
      view,
      keys.current(Kind.tableColumnStats, tableId),
      ValueKind.tableColumnStats,
      "table column stats",
    ),
  ]);
  return { stats, columns };
}

/** ducklake_schema_versions rows of one table, by begin_snapshot. */
export function schemaVersionsOf(view: ReadView, tableId: number): Promise<SchemaVersionRecord[]> {
  return scanAll<SchemaVersionRecord>(
    view,
    keys.current(Kind.schemaVersion, tableId),
    ValueKind.schemaVersion,
    "schema version",
  );
}

/** ducklake_inlined_data_tables rows of one table, by schema version. */
export function inlinedTablesOf(view: ReadView, tableId: number): Promise<InlinedTableRecord[]> {
  return scanAll<InlinedTableRecord>(
    view,
    keys.current(Kind.inlinedTable, tableId),
    ValueKind.inlinedTable,
    "inlined table",
  );
}

/** Every ducklake_table version row of one table (live and ended). */
export function tableVersionsOf(view: ReadView, tableId: number): Promise<TableRecord[]> {
  return allVersions<TableRecord>(view, Kind.table, ValueKind.table, tableId);
}

/** Every ducklake_schema version row of one schema. */
export function schemaVersionRowsOf(view: ReadView, schemaId: number): Promise<SchemaRecord[]> {
  return allVersions<SchemaRecord>(view, Kind.schema, ValueKind.schema, schemaId);
}

/** Every ducklake_column version row of one table. */
export function columnVersionsOf(view: ReadView, tableId: number): Promise<ColumnRecord[]> {
  return allVersions<ColumnRecord>(view, Kind.column, ValueKind.column, tableId);
}
