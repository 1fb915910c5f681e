/**
 * Table statistics: one table's stats with its column stats, the tables that have stats, and the
 * combined "latest snapshot + changes since + every table's stats" read DuckLake sends before a commit.
 */

import { tableStatsOf } from "../../reads/by-table.ts";
import type { Row } from "../../reads/ducklake-tables.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlColumn, type SqlValue, T } from "../result.ts";
import {
  asRows,
  big,
  byShape,
  cell,
  compareIds,
  intLiteral,
  literal,
  requireView,
  result,
  rowsOf,
} from "./common.ts";
import { headSnapshot } from "./snapshots.ts";

const STAT_COLUMNS: readonly SqlColumn[] = [
  { name: "table_id", type: T.BIGINT },
  { name: "column_id", type: T.BIGINT },
  { name: "record_count", type: T.BIGINT },
  { name: "next_row_id", type: T.BIGINT },
  { name: "file_size_bytes", type: T.BIGINT },
  { name: "contains_null", type: T.BOOLEAN },
  { name: "contains_nan", type: T.BOOLEAN },
  { name: "min_value", type: T.VARCHAR },
  { name: "max_value", type: T.VARCHAR },
  { name: "extra_stats", type: T.VARCHAR },
];

/**
 * `ducklake_table_stats LEFT JOIN ducklake_table_column_stats USING (table_id) WHERE record_count IS NOT
 * NULL AND file_size_bytes IS NOT NULL` (optionally for one table), ordered by table_id then column_id.
 */
function statRows(stats: readonly Row[], colStats: readonly Row[]): SqlValue[][] {
  const out: SqlValue[][] = [];
  const sorted = [...stats].sort((a, b) => compareIds(a.table_id, b.table_id));
  for (const t of sorted) {
    if (t.record_count === null || t.file_size_bytes === null) continue;
    const cols = colStats
      .filter((c) => c.table_id === t.table_id)
      .sort((a, b) => compareIds(a.column_id, b.column_id));
    const row = (c: Row | undefined): SqlValue[] => [
      big(t.table_id),
      big(c?.column_id),
      big(t.record_count),
      big(t.next_row_id),
      big(t.file_size_bytes),
      cell(c?.contains_null),
      cell(c?.contains_nan),
      cell(c?.min_value),
      cell(c?.max_value),
      cell(c?.extra_stats),
    ];
    if (cols.length === 0) out.push(row(undefined));
    else for (const c of cols) out.push(row(c));
  }
  return out;
}

const tableStats = byShape(
  "stats.table",
  'SELECT table_id, column_id, record_count, next_row_id, file_size_bytes, contains_null, contains_nan, min_value, max_value, extra_stats FROM "main".ducklake_table_stats LEFT JOIN "main".ducklake_table_column_stats USING (table_id) WHERE table_id = 2 AND record_count IS NOT NULL AND file_size_bytes IS NOT NULL ORDER BY table_id',
  async (ctx, stmt) => {
    const { stats, columns } = await tableStatsOf(requireView(ctx), intLiteral(stmt, 0));
    return result(STAT_COLUMNS, statRows(asRows(stats), asRows(columns)));
  },
);

const tablesWithStats = byShape(
  "stats.table_ids",
  'SELECT DISTINCT table_id FROM "main".ducklake_table_stats',
  async (ctx) => {
    const ids = new Set<number>();
    for (const r of await rowsOf(ctx, "ducklake_table_stats")) ids.add(r.table_id as number);
    return result(
      [{ name: "table_id", type: T.BIGINT }],
      [...ids].sort((a, b) => a - b).map((id) => [BigInt(id)]),
    );
  },
);

const snapshotAndStats = byShape(
  "stats.snapshot_and_all_tables",
  'SELECT snapshot_id, schema_version, next_catalog_id, next_file_id, COALESCE(( SELECT STRING_AGG(changes_made, \',\') FROM "main".ducklake_snapshot_changes c WHERE c.snapshot_id > 19 ),\'\') AS changes, NULL AS table_id, NULL AS column_id, NULL AS record_count, NULL AS next_row_id, NULL AS file_size_bytes, NULL AS contains_null, NULL AS contains_nan, NULL AS min_value, NULL AS max_value, NULL AS extra_stats FROM "main".ducklake_snapshot WHERE snapshot_id = ( SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot) UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, table_id, column_id, record_count, next_row_id, file_size_bytes, contains_null, contains_nan, min_value, max_value, extra_stats FROM "main".ducklake_table_stats LEFT JOIN "main".ducklake_table_column_stats USING (table_id) WHERE record_count IS NOT NULL AND file_size_bytes IS NOT NULL ORDER BY table_id NULLS FIRST',
  async (ctx, stmt) => {
    const separator = literal(stmt, 0);
    const since = intLiteral(stmt, 1);
    const fallback = literal(stmt, 2);
    const head = await headSnapshot(ctx);
    const changes = [...(await rowsOf(ctx, "ducklake_snapshot_changes"))]
      .filter((r) => (r.snapshot_id as number) > since && r.changes_made !== null)
      .sort((a, b) => compareIds(a.snapshot_id, b.snapshot_id))
      .map((r) => r.changes_made as string);
    const first: SqlValue[] = [
      BigInt(head.snapshot_id),
      BigInt(head.schema_version),
      BigInt(head.next_catalog_id),
      BigInt(head.next_file_id),
      changes.length === 0 ? fallback : changes.join(separator),
      ...Array<SqlValue>(10).fill(null),
    ];
    const [all, allColumns] = await Promise.all([
      rowsOf(ctx, "ducklake_table_stats"),
      rowsOf(ctx, "ducklake_table_column_stats"),
    ]);
    const stats = statRows(all, allColumns).map((r): SqlValue[] => [null, null, null, null, null, ...r]);
    return result(
      [
        { name: "snapshot_id", type: T.BIGINT },
        { name: "schema_version", type: T.BIGINT },
        { name: "next_catalog_id", type: T.BIGINT },
        { name: "next_file_id", type: T.BIGINT },
        { name: "changes", type: T.VARCHAR },
        ...STAT_COLUMNS,
      ],
      [first, ...stats],
    );
  },
);

export const STATS_READS: readonly ReadTemplate[] = [tableStats, tablesWithStats, snapshotAndStats];
