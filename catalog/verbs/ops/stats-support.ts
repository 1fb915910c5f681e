/**
 * Per-table statistics (ducklake_table_stats / ducklake_table_column_stats) as current rows, as stock
 * DuckLake keeps them: an update rewrites the current key in place (first begin_snapshot kept), so a
 * commit adds no history version of them (docs/decisions/0167-current-row-stats.md). Only a drop ends
 * them (the table's other rows end with it). Lakes written before 0167 still hold history keys of both
 * kinds; reads and expiry treat them as any ended version.
 */
import { ValueKind } from "../../codec.ts";
import { mergeExtraStats } from "../../extra-stats.ts";
import { Kind, keys } from "../../keys.ts";
import type { TableColumnStatsRecord, TableStatsRecord } from "../../records.ts";
import { compareStat } from "../../types.ts";
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

/** Writes the table's stats: DuckLake inserts the row on first use, then updates it in place. */
export function writeTableStats(
  ctx: VerbContext,
  old: TableStatsRecord | undefined,
  next: Omit<TableStatsRecord, "begin_snapshot" | "end_snapshot">,
): TableStatsRecord {
  const rec: TableStatsRecord = { ...next, begin_snapshot: ctx.snapshotId, end_snapshot: null };
  if (old) return updateInPlace(ctx, Kind.tableStats, [next.table_id], ValueKind.tableStats, old, rec);
  return ctx.putVersion(Kind.tableStats, [next.table_id], ValueKind.tableStats, rec);
}

/** The current key rewritten with `next`'s values, keeping the row's first begin_snapshot (0167). */
function updateInPlace<T extends TableStatsRecord | TableColumnStatsRecord>(
  ctx: VerbContext,
  kind: Kind,
  ids: number[],
  vk: ValueKind,
  old: T,
  next: T,
): T {
  const rec: T = { ...next, begin_snapshot: old.begin_snapshot, end_snapshot: null };
  ctx.write(keys.current(kind, ...ids), vk, rec);
  return rec;
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
  if (old) updateInPlace(ctx, Kind.tableColumnStats, ids, ValueKind.tableColumnStats, old, next);
  else ctx.putVersion(Kind.tableColumnStats, ids, ValueKind.tableColumnStats, next);
}

/** What one batch of new rows (a file, or inlined rows) says about a column. */
export interface NewColumnStats {
  null_count: number | null;
  contains_nan: boolean | null;
  min_value: string | null;
  max_value: string | null;
  extra_stats: string | null;
  /**
   * Whether the batch holds a non-NULL value (DuckLake's `AnyValid`: value count above null count when both
   * are known); absent means yes. An all-NULL batch leaves the table's extra stats as they were.
   */
  any_valid?: boolean;
}

/**
 * DuckLake's `MergeStats` of extra stats: a first batch's are copied; later ones are merged only when both
 * the table (min, max or extra stats known) and the batch hold values (docs/decisions/0620-extra-stats.md).
 */
function mergedExtra(old: TableColumnStatsRecord | undefined, s: NewColumnStats): string | null {
  if (old === undefined) return s.extra_stats;
  const tableValid = old.min_value !== null || old.max_value !== null || old.extra_stats !== null;
  if (s.any_valid === false || !tableValid) return old.extra_stats;
  return mergeExtraStats(old.extra_stats, s.extra_stats);
}

/**
 * DuckLake's MergeFileStats into ducklake_table_column_stats: contains_null/contains_nan OR-ed (NaN stays
 * NULL while no source reports it, as for non-float columns), min/max widened in the column type's order.
 */
export async function mergeColumnStats(
  ctx: VerbContext,
  tableId: number,
  columnId: number,
  type: string,
  s: NewColumnStats,
): Promise<void> {
  const old = await readColumnStats(ctx, tableId, columnId);
  const pick = (a: string | null | undefined, b: string | null, lower: boolean): string | null => {
    if (a === null || a === undefined) return b;
    if (b === null) return a;
    const c = compareStat(type, a, b);
    return lower ? (c <= 0 ? a : b) : c >= 0 ? a : b;
  };
  const oldNan = old?.contains_nan ?? null;
  writeColumnStats(ctx, old, {
    table_id: tableId,
    column_id: columnId,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    contains_null: (old?.contains_null ?? false) || (s.null_count ?? 0) > 0,
    contains_nan:
      oldNan === null && s.contains_nan === null ? null : oldNan === true || s.contains_nan === true,
    min_value: pick(old?.min_value, s.min_value, true),
    max_value: pick(old?.max_value, s.max_value, false),
    extra_stats: mergedExtra(old, s),
  });
}
