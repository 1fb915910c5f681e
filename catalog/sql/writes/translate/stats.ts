/**
 * `ducklake_table_stats` and `ducklake_table_column_stats`: inserted for a new table, updated by a
 * commit that adds rows (through the verbs' stats helpers).
 */
import type { TableColumnStatsRecord } from "../../../records.ts";
import {
  readColumnStats,
  readTableStats,
  writeColumnStats,
  writeTableStats,
} from "../../../verbs/ops/stats-support.ts";
import type { Literal, RowOp } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, boolOrNull, type Cells, int, strOrNull } from "./cells.ts";
import { liveTable, premiseRowIds } from "./checks.ts";

export async function insertTableStats(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  await premiseRowIds(batch, t);
  if (await readTableStats(batch.ctx, t)) throw bad(`table ${t} already has a ducklake_table_stats row`);
  writeTableStats(batch.ctx, undefined, {
    table_id: t,
    record_count: int(r.record_count, "record_count"),
    next_row_id: int(r.next_row_id, "next_row_id"),
    file_size_bytes: int(r.file_size_bytes, "file_size_bytes"),
  });
}

export async function updateTableStats(
  batch: Batch,
  op: Extract<RowOp, { op: "table_stats" }>,
): Promise<number> {
  await liveTable(batch, op.tableId);
  await premiseRowIds(batch, op.tableId);
  const old = await readTableStats(batch.ctx, op.tableId);
  if (!old) return 0;
  if (op.nextRowId < old.next_row_id) {
    throw bad(`table ${op.tableId}: next_row_id ${op.nextRowId} is below the head's ${old.next_row_id}`);
  }
  writeTableStats(batch.ctx, old, {
    table_id: op.tableId,
    record_count: op.recordCount,
    next_row_id: op.nextRowId,
    file_size_bytes: op.fileSizeBytes,
  });
  return 1;
}

function columnStats(batch: Batch, t: number, c: number, cells: Literal[]): TableColumnStatsRecord {
  return {
    table_id: t,
    column_id: c,
    contains_null: boolOrNull(cells[0], "contains_null"),
    contains_nan: boolOrNull(cells[1], "contains_nan"),
    min_value: strOrNull(cells[2], "min_value"),
    max_value: strOrNull(cells[3], "max_value"),
    extra_stats: strOrNull(cells[4], "extra_stats"),
    begin_snapshot: batch.S,
    end_snapshot: null,
  };
}

export async function insertColumnStats(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  const c = int(r.column_id, "column_id");
  if (await readColumnStats(batch.ctx, t, c)) throw bad(`column ${c} of table ${t} already has column stats`);
  writeColumnStats(
    batch.ctx,
    undefined,
    columnStats(batch, t, c, [
      r.contains_null,
      r.contains_nan,
      r.min_value,
      r.max_value,
      r.extra_stats,
    ] as Literal[]),
  );
}

export async function updateColumnStats(
  batch: Batch,
  op: Extract<RowOp, { op: "column_stats" }>,
): Promise<number> {
  let n = 0;
  for (const row of op.rows) {
    const t = int(row[0], "tid");
    const c = int(row[1], "cid");
    await liveTable(batch, t);
    const old = await readColumnStats(batch.ctx, t, c);
    if (!old) continue; // stock's UPDATE … FROM touches no row for it
    writeColumnStats(batch.ctx, old, columnStats(batch, t, c, row.slice(2)));
    n++;
  }
  return n;
}
