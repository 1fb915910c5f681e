/** Per-table statistics (ducklake_table_stats / ducklake_table_column_stats), versioned for time travel. */
import { ValueKind } from "../../codec.ts";
import { Kind, keys } from "../../keys.ts";
import type { TableColumnStatsRecord, TableStatsRecord } from "../../records.ts";
import type { VerbContext } from "../context.ts";

export async function readTableStats(
  ctx: VerbContext,
  tableId: number,
): Promise<TableStatsRecord | undefined> {
  return ctx.read<TableStatsRecord>(
    keys.current(Kind.tableStats, tableId),
    ValueKind.tableStats,
    "table stats",
  );
}

/** Writes the table's stats as a new version (DuckLake inserts the row on first use, then updates it). */
export function writeTableStats(
  ctx: VerbContext,
  old: TableStatsRecord | undefined,
  next: Omit<TableStatsRecord, "begin_snapshot" | "end_snapshot">,
): TableStatsRecord {
  const rec: TableStatsRecord = { ...next, begin_snapshot: ctx.snapshotId, end_snapshot: null };
  if (old) return ctx.replaceVersion(Kind.tableStats, [next.table_id], ValueKind.tableStats, old, rec);
  return ctx.putVersion(Kind.tableStats, [next.table_id], ValueKind.tableStats, rec);
}

export function emptyTableStats(tableId: number): Omit<TableStatsRecord, "begin_snapshot" | "end_snapshot"> {
  return { table_id: tableId, record_count: 0, next_row_id: 0, file_size_bytes: 0 };
}

export async function readColumnStats(
  ctx: VerbContext,
  tableId: number,
  columnId: number,
): Promise<TableColumnStatsRecord | undefined> {
  return ctx.read<TableColumnStatsRecord>(
    keys.current(Kind.tableColumnStats, tableId, columnId),
    ValueKind.tableColumnStats,
    "column stats",
  );
}

export function writeColumnStats(
  ctx: VerbContext,
  old: TableColumnStatsRecord | undefined,
  next: TableColumnStatsRecord,
): void {
  const ids = [next.table_id, next.column_id];
  if (old) ctx.replaceVersion(Kind.tableColumnStats, ids, ValueKind.tableColumnStats, old, next);
  else ctx.putVersion(Kind.tableColumnStats, ids, ValueKind.tableColumnStats, next);
}
