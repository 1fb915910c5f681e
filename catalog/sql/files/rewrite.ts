/**
 * The per-file column statistics `ducklake_rewrite_data_files` reads before it rewrites a table's files
 * whose deletes pass the threshold: every data file visible at S with each of its column stats rows (a file
 * without any keeps one row of NULLs, the LEFT JOIN's), ordered by data_file_id.
 * Decision record `docs/decisions/0243-quack-rewrite-data-files.md`.
 */
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import { at, big, col, filesOf, intLiterals, shapeOfSql, visibleWhere } from "./common.ts";

const PER_FILE_STATS = shapeOfSql(
  `SELECT data.data_file_id, data.record_count, data.file_size_bytes, stats.column_id, stats.value_count, stats.null_count, stats.min_value, stats.max_value, stats.contains_nan, stats.extra_stats FROM "main".ducklake_data_file data LEFT JOIN "main".ducklake_file_column_stats stats ON stats.data_file_id = data.data_file_id WHERE data.table_id = 1 AND 3 >= data.begin_snapshot AND (3 < data.end_snapshot OR data.end_snapshot IS NULL) ORDER BY data.data_file_id`,
);

const perFileStats: ReadTemplate = {
  name: "maintenance.rewrite_file_stats",
  matches: (s) => s === PER_FILE_STATS,
  answer: async (ctx, stmt) => {
    const lits = intLiterals(stmt);
    const [t, s, s2] = [at(lits, 0), at(lits, 1), at(lits, 2)];
    const files = (await filesOf(ctx, t)).data_files
      .filter((f) => f.table_id === t && visibleWhere(s, s2)(f))
      .sort((a, b) => a.data_file_id - b.data_file_id);
    const rows: SqlValue[][] = [];
    for (const f of files) {
      const head: SqlValue[] = [big(f.data_file_id), big(f.record_count), big(f.file_size_bytes)];
      if (f.x_column_stats.length === 0) rows.push([...head, null, null, null, null, null, null, null]);
      for (const c of f.x_column_stats)
        rows.push([
          ...head,
          big(c.column_id),
          big(c.value_count),
          big(c.null_count),
          c.min_value,
          c.max_value,
          c.contains_nan,
          c.extra_stats,
        ]);
    }
    return {
      columns: [
        col("data_file_id", T.BIGINT),
        col("record_count", T.BIGINT),
        col("file_size_bytes", T.BIGINT),
        col("column_id", T.BIGINT),
        col("value_count", T.BIGINT),
        col("null_count", T.BIGINT),
        col("min_value", T.VARCHAR),
        col("max_value", T.VARCHAR),
        col("contains_nan", T.BOOLEAN),
        col("extra_stats", T.VARCHAR),
      ],
      rows,
    };
  },
};

export const REWRITE_READS: readonly ReadTemplate[] = [perFileStats];
