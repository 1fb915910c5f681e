/**
 * The file-pruning predicate over `ducklake_file_column_stats` on a BOOLEAN column, in the forms DuckLake
 * 1.5.5 generates (`GenerateConstantFilter`: a quoted constant, stats under `TRY_CAST(... AS BOOLEAN)`),
 * against the stats texts its client records for a BOOLEAN Parquet column ('0'/'1'). A file holding the
 * value must never be pruned: DuckLake's suite `transaction/update_null_column.test` line 25 counted 0 rows
 * where stock counts 1 (docs/decisions/0412-suite-wrong-answers.md). Expected truths are DuckDB 1.5.5's
 * (`TRY_CAST('0' AS BOOLEAN)` is false, `'true' BETWEEN true AND true` is true).
 */
import { describe, expect, it } from "vitest";
import type { FileColumnStats } from "../../../catalog/records.ts";
import { statsPredicate } from "../../../catalog/sql/files/stats-filter.ts";
import { tokenize } from "../../../catalog/sql/index.ts";

const row = (min: string | null, max: string | null): FileColumnStats =>
  ({
    data_file_id: 1,
    table_id: 1,
    column_id: 1,
    column_size_bytes: 26,
    value_count: 1,
    null_count: 0,
    min_value: min,
    max_value: max,
    contains_nan: null,
    extra_stats: null,
  }) as FileColumnStats;

const pred = (sql: string) => statsPredicate(tokenize(sql));
const eq = (c: string) =>
  pred(
    `(value_count IS NULL OR value_count > 0) AND (max_value IS NULL OR min_value IS NULL OR (${c} BETWEEN TRY_CAST(min_value AS BOOLEAN) AND TRY_CAST(max_value AS BOOLEAN)))`,
  );

describe("stats filter on BOOLEAN columns", () => {
  it("keeps the file holding the value, with DuckLake's '0'/'1' stats texts", () => {
    expect(eq("'false'")(row("0", "0"))).toBe(true);
    expect(eq("'true'")(row("1", "1"))).toBe(true);
    expect(eq("'false'")(row("0", "1"))).toBe(true);
    expect(eq("'true'")(row("0", "1"))).toBe(true);
  });

  it("prunes the file that cannot hold it", () => {
    expect(eq("'true'")(row("0", "0"))).toBe(false);
    expect(eq("'false'")(row("1", "1"))).toBe(false);
  });

  it("reads every text DuckDB casts to BOOLEAN; an unreadable one selects nothing, as in DuckDB", () => {
    expect(eq("'false'")(row("f", "false"))).toBe(true);
    expect(eq("'true'")(row("yes", "T"))).toBe(true);
    expect(eq("'true'")(row("n", "NO"))).toBe(false);
    // TRY_CAST('2' AS BOOLEAN) is NULL: BETWEEN is unknown and the WHERE selects no row, as in DuckDB
    expect(eq("'true'")(row("2", "2"))).toBe(false);
    expect(pred("TRY_CAST(min_value AS BOOLEAN) IS NULL")(row("2", "2"))).toBe(true);
  });

  it("answers <> as DuckLake writes it", () => {
    const ne = (c: string) =>
      pred(`NOT (TRY_CAST(min_value AS BOOLEAN) = ${c} AND TRY_CAST(max_value AS BOOLEAN) = ${c})`);
    expect(ne("'false'")(row("0", "0"))).toBe(false);
    expect(ne("'false'")(row("0", "1"))).toBe(true);
    expect(ne("'true'")(row("0", "0"))).toBe(true);
  });
});
