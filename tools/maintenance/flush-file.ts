/**
 * Writes `<dir>/flush.parquet`: three rows of a table (a INTEGER, s VARCHAR) laid out and paced (three row
 * groups) as job 1 writes a flush (catalog/parquet-layout.ts + its internal row/snapshot id columns, `ROW_ID_FIELD` / `SNAPSHOT_ID_FIELD`),
 * for tools/maintenance/flush-check.py to swap into a stock DuckLake's own flush. Run: npx tsx tools/maintenance/flush-file.ts DIR
 */
import { writeFileSync } from "node:fs";
import {
  layoutColumns,
  parquetFields,
  ROW_ID_COLUMN,
  ROW_ID_FIELD,
  SNAPSHOT_ID_COLUMN,
  SNAPSHOT_ID_FIELD,
  toParquetRow,
} from "../../catalog/parquet-layout.ts";
import type { ColumnRecord } from "../../catalog/records.ts";
import { writeParquetPaced } from "../../parquet/index.ts";

const col = (id: number, name: string, type: string): ColumnRecord => ({
  column_id: id,
  table_id: 1,
  begin_snapshot: 1,
  end_snapshot: null,
  column_order: id,
  column_name: name,
  column_type: type,
  initial_default: null,
  default_value: null,
  nulls_allowed: true,
  parent_column: null,
  default_value_type: null,
  default_value_dialect: null,
});
const cols = [col(1, "a", "int32"), col(2, "s", "varchar")];
// Paced as job 1 writes (decision 0325), in row groups of one row so the stock reader crosses row groups.
const file = await writeParquetPaced(
  [...parquetFields(cols), ROW_ID_FIELD, SNAPSHOT_ID_FIELD],
  // Row i inserted by snapshot i + 2 (snapshot 1 created the table), as the stock scenario does.
  [0, 1, 2].map((i) => ({
    ...toParquetRow(layoutColumns(cols), { a: i, s: `x${i}` }),
    [ROW_ID_COLUMN]: BigInt(i),
    [SNAPSHOT_ID_COLUMN]: BigInt(i + 2),
  })),
  { rowGroupSize: 1, pause: () => new Promise((resolve) => setTimeout(resolve, 0)) },
);
writeFileSync(`${process.argv[2] ?? "."}/flush.parquet`, file.bytes);
