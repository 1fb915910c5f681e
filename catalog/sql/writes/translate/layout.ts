/**
 * A table's layout: `ducklake_partition_info` (with its partition columns) and `ducklake_sort_info` (with
 * its sort expressions) as versioned records.
 */
import { ValueKind } from "../../../codec.ts";
import { NotFound } from "../../../errors.ts";
import { Kind, keys } from "../../../keys.ts";
import type { ColumnRecord, PartitionRecord, SortRecord } from "../../../records.ts";
import type { Batch } from "./batch.ts";
import { bad, type Cells, int } from "./cells.ts";
import { catalogId, checkBegin, liveTable, noEnd } from "./checks.ts";

export async function insertPartition(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  const id = catalogId(batch, int(r.partition_id, "partition_id"), "partition");
  checkBegin(batch, r.begin_snapshot, "partition");
  noEnd(r.end_snapshot, "partition");
  const cols = batch.partitionColumns.get(id) ?? [];
  batch.partitionColumns.delete(id);
  for (const c of cols) {
    if (
      !(await batch.ctx.read<ColumnRecord>(
        keys.current(Kind.column, t, c.column_id),
        ValueKind.column,
        "column",
      ))
    ) {
      throw new NotFound(`partition column ${c.column_id} of table ${t} does not exist`);
    }
  }
  batch.ctx.putVersion<PartitionRecord>(Kind.partition, [t, id], ValueKind.partition, {
    partition_id: id,
    table_id: t,
    begin_snapshot: batch.S,
    end_snapshot: null,
    x_columns: cols.sort((a, b) => a.partition_key_index - b.partition_key_index),
  });
}

/**
 * `ALTER TABLE … SET SORTED BY`: a new sort version of a live table (its expressions embedded, in key
 * order), after the `UPDATE ducklake_sort_info SET end_snapshot` that ends the previous one. The
 * expressions are DuckDB SQL kept as text, as stock keeps them.
 */
export async function insertSort(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  const id = catalogId(batch, int(r.sort_id, "sort_id"), "sort");
  checkBegin(batch, r.begin_snapshot, "sort");
  noEnd(r.end_snapshot, "sort");
  const exprs = batch.sortExpressions.get(id) ?? [];
  batch.sortExpressions.delete(id);
  const live = await batch.ctx.scan<SortRecord>(keys.current(Kind.sort, t), ValueKind.sort, "sort");
  if (live.some((x) => x.end_snapshot === null))
    throw bad(`table ${t} already has a live sort order; end it before inserting sort ${id}`);
  const wrong = exprs.find((e) => e.tableId !== t);
  if (wrong) throw bad(`sort ${id}'s expression names table ${wrong.tableId}, not ${t}`);
  const x_expressions = exprs.map((e) => e.expr).sort((a, b) => a.sort_key_index - b.sort_key_index);
  batch.ctx.putVersion<SortRecord>(Kind.sort, [t, id], ValueKind.sort, {
    sort_id: id,
    table_id: t,
    begin_snapshot: batch.S,
    end_snapshot: null,
    x_expressions,
  });
}
