/** Partition and sort keys of the catalog load at a snapshot, one row per key column, in DuckLake's order. */
import type { Row } from "../../reads/ducklake-tables.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import { big, byShape, cell, compareIds, result, rowsOf, rowVisibleAt, snapshotLiteral } from "./common.ts";

/** `info JOIN keys USING (id) WHERE S visible on info ORDER BY info.table_id, id, key index`. */
function joinKeys(
  info: readonly Row[],
  keyRows: readonly Row[],
  id: string,
  index: string,
  s: number,
): [Row, Row][] {
  const out: [Row, Row][] = [];
  for (const i of info) {
    if (!rowVisibleAt(i, s)) continue;
    for (const k of keyRows) if (k[id] === i[id]) out.push([i, k]);
  }
  return out.sort(
    ([a, ka], [b, kb]) =>
      compareIds(a.table_id, b.table_id) || compareIds(a[id], b[id]) || compareIds(ka[index], kb[index]),
  );
}

const partitions = byShape(
  "catalog.partitions",
  'SELECT partition_id, part.table_id, partition_key_index, column_id, transform FROM "main".ducklake_partition_info part JOIN "main".ducklake_partition_column part_col USING (partition_id) WHERE 0 >= part.begin_snapshot AND (0 < part.end_snapshot OR part.end_snapshot IS NULL) ORDER BY part.table_id, partition_id, partition_key_index',
  async (ctx, stmt) => {
    const s = snapshotLiteral(stmt);
    const [info, cols] = await Promise.all([
      rowsOf(ctx, "ducklake_partition_info"),
      rowsOf(ctx, "ducklake_partition_column"),
    ]);
    const rows = joinKeys(info, cols, "partition_id", "partition_key_index", s).map(([p, c]): SqlValue[] => [
      big(p.partition_id),
      big(p.table_id),
      big(c.partition_key_index),
      big(c.column_id),
      cell(c.transform),
    ]);
    return result(
      [
        { name: "partition_id", type: T.BIGINT },
        { name: "table_id", type: T.BIGINT },
        { name: "partition_key_index", type: T.BIGINT },
        { name: "column_id", type: T.BIGINT },
        { name: "transform", type: T.VARCHAR },
      ],
      rows,
    );
  },
);

const sorts = byShape(
  "catalog.sorts",
  'SELECT sort.sort_id, sort.table_id, sort_expr.sort_key_index, sort_expr.expression, sort_expr.dialect, sort_expr.sort_direction, sort_expr.null_order FROM "main".ducklake_sort_info sort JOIN "main".ducklake_sort_expression sort_expr USING (sort_id) WHERE 0 >= sort.begin_snapshot AND (0 < sort.end_snapshot OR sort.end_snapshot IS NULL) ORDER BY sort.table_id, sort.sort_id, sort_expr.sort_key_index',
  async (ctx, stmt) => {
    const s = snapshotLiteral(stmt);
    const [info, exprs] = await Promise.all([
      rowsOf(ctx, "ducklake_sort_info"),
      rowsOf(ctx, "ducklake_sort_expression"),
    ]);
    const rows = joinKeys(info, exprs, "sort_id", "sort_key_index", s).map(([i, e]): SqlValue[] => [
      big(i.sort_id),
      big(i.table_id),
      big(e.sort_key_index),
      cell(e.expression),
      cell(e.dialect),
      cell(e.sort_direction),
      cell(e.null_order),
    ]);
    return result(
      [
        { name: "sort_id", type: T.BIGINT },
        { name: "table_id", type: T.BIGINT },
        { name: "sort_key_index", type: T.BIGINT },
        { name: "expression", type: T.VARCHAR },
        { name: "dialect", type: T.VARCHAR },
        { name: "sort_direction", type: T.VARCHAR },
        { name: "null_order", type: T.VARCHAR },
      ],
      rows,
    );
  },
);

export const PARTITION_SORT_READS: readonly ReadTemplate[] = [partitions, sorts];
