/**
 * Maintenance listings that touch no file rows: tables whose every version lies wholly in expired
 * snapshots (expire_snapshots drops them), and the files scheduled for deletion (cleanup_old_files).
 */
import { literalsOf, shapeOf, tokenize } from "../lexer.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import { big, byShape, cell, result, rowsOf } from "./common.ts";

const expiredTables = byShape(
  "maintenance.expired_tables",
  'SELECT table_id FROM "main".ducklake_table t WHERE end_snapshot IS NOT NULL AND NOT EXISTS ( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= begin_snapshot AND snapshot_id < end_snapshot ) AND NOT EXISTS ( SELECT 1 FROM "main".ducklake_table t2 WHERE t2.table_id = t.table_id AND (t2.end_snapshot IS NULL OR EXISTS (SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= begin_snapshot AND snapshot_id < t2.end_snapshot)) )',
  async (ctx) => {
    const [tables, snaps] = await Promise.all([
      rowsOf(ctx, "ducklake_table"),
      rowsOf(ctx, "ducklake_snapshot"),
    ]);
    const ids = snaps.map((s) => s.snapshot_id as number);
    const anyIn = (begin: number, end: number): boolean => ids.some((id) => id >= begin && id < end);
    // A version survives while it is live or some remaining snapshot lies in [begin, end).
    const alive = (r: (typeof tables)[number]): boolean =>
      r.end_snapshot === null || anyIn(r.begin_snapshot as number, r.end_snapshot as number);
    const rows: SqlValue[][] = tables
      .filter(
        (t) =>
          t.end_snapshot !== null &&
          !alive(t) &&
          !tables.some((t2) => t2.table_id === t.table_id && alive(t2)),
      )
      .map((t) => [big(t.table_id)]);
    return result([{ name: "table_id", type: T.BIGINT }], rows);
  },
);

const scheduled = byShape(
  "maintenance.files_scheduled_for_deletion",
  'SELECT data_file_id, path, path_is_relative, schedule_start FROM "main".ducklake_files_scheduled_for_deletion',
  async (ctx) =>
    result(
      [
        { name: "data_file_id", type: T.BIGINT },
        { name: "path", type: T.VARCHAR },
        { name: "path_is_relative", type: T.BOOLEAN },
        { name: "schedule_start", type: T.TIMESTAMPTZ },
      ],
      (await rowsOf(ctx, "ducklake_files_scheduled_for_deletion")).map((r) => [
        big(r.data_file_id),
        cell(r.path),
        cell(r.path_is_relative),
        big(r.schedule_start),
      ]),
    ),
);

/**
 * The inlined tables of the tables expire_snapshots drops whole (`… WHERE table_id IN (…)`, one `?` per
 * id, so the list is folded to one `?` before matching).
 */
const inlinedOfShape = shapeOf(
  tokenize('SELECT table_name FROM "main".ducklake_inlined_data_tables WHERE table_id IN (3)'),
);
const inlinedOfTables: ReadTemplate = {
  name: "maintenance.inlined_tables_of",
  matches: (s) => s.replace(/IN \( \?(?: , \?)* \)$/, "IN ( ? )") === inlinedOfShape,
  answer: async (ctx, stmt) => {
    const ids = new Set(literalsOf(stmt.tokens).map((t) => Number(t.value)));
    const rows: SqlValue[][] = (await rowsOf(ctx, "ducklake_inlined_data_tables"))
      .filter((r) => ids.has(Number(r.table_id)))
      .map((r) => [cell(r.table_name)]);
    return result([{ name: "table_name", type: T.VARCHAR }], rows);
  },
};

export const MAINTENANCE_READS: readonly ReadTemplate[] = [expiredTables, scheduled, inlinedOfTables];
