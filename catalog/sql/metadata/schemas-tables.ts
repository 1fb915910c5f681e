/**
 * Schemas, tables and columns: the catalog load's schema and table+column reads at a snapshot (with the
 * tables' tags, inlined-data tables and column tags), and the small lookups DuckLake makes by id (a
 * schema's path, a table's schema and table paths, a table's highest column id). Each evaluates
 * DuckLake's SQL over the `ducklake_*` rows exactly as DuckDB does, including its joins over every
 * version row where the SQL has no snapshot filter.
 */
import { columnVersionsOf, schemaVersionRowsOf, tableVersionsOf } from "../../reads/by-table.ts";
import type { Row } from "../../reads/ducklake-tables.ts";
import type { ReadTemplate } from "../reads.ts";
import { listOf, type SqlValue, structOf, T } from "../result.ts";
import {
  big,
  byShape,
  cell,
  compareIds,
  intLiteral,
  listOrNull,
  requireView,
  result,
  rowsOf,
  rowVisibleAt,
  snapshotLiteral,
  tagList,
} from "./common.ts";

const TAGS = listOf(structOf({ key: T.VARCHAR, value: T.VARCHAR }));

function groupBy<K>(rows: readonly Row[], key: (r: Row) => K): Map<K, Row[]> {
  const out = new Map<K, Row[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

const schemas = byShape(
  "catalog.schemas",
  'SELECT schema_id, schema_uuid::VARCHAR, schema_name, path, path_is_relative FROM "main".ducklake_schema WHERE 0 >= begin_snapshot AND (0 < end_snapshot OR end_snapshot IS NULL)',
  async (ctx, stmt) => {
    const s = snapshotLiteral(stmt);
    const rows = (await rowsOf(ctx, "ducklake_schema"))
      .filter((r) => rowVisibleAt(r, s))
      .map((r) => [
        big(r.schema_id),
        cell(r.schema_uuid),
        cell(r.schema_name),
        cell(r.path),
        cell(r.path_is_relative),
      ]);
    return result(
      [
        { name: "schema_id", type: T.BIGINT },
        { name: "CAST(schema_uuid AS VARCHAR)", type: T.VARCHAR },
        { name: "schema_name", type: T.VARCHAR },
        { name: "path", type: T.VARCHAR },
        { name: "path_is_relative", type: T.BOOLEAN },
      ],
      rows,
    );
  },
);

const TABLE_COLUMNS = [
  { name: "schema_id", type: T.BIGINT },
  { name: "table_id", type: T.BIGINT },
  { name: "CAST(table_uuid AS VARCHAR)", type: T.VARCHAR },
  { name: "table_name", type: T.VARCHAR },
  { name: "tag", type: TAGS },
  { name: "inlined_data_tables", type: listOf(structOf({ name: T.VARCHAR, schema_version: T.BIGINT })) },
  { name: "path", type: T.VARCHAR },
  { name: "path_is_relative", type: T.BOOLEAN },
  { name: "column_id", type: T.BIGINT },
  { name: "column_name", type: T.VARCHAR },
  { name: "column_type", type: T.VARCHAR },
  { name: "initial_default", type: T.VARCHAR },
  { name: "default_value", type: T.VARCHAR },
  { name: "nulls_allowed", type: T.BOOLEAN },
  { name: "parent_column", type: T.BIGINT },
  { name: "column_tags", type: TAGS },
  { name: "default_value_type", type: T.VARCHAR },
];

const tables = byShape(
  "catalog.tables_and_columns",
  "SELECT schema_id, tbl.table_id, table_uuid::VARCHAR, table_name, ( SELECT LIST({'key': key, 'value': value}) FROM \"main\".ducklake_tag tag WHERE object_id=table_id AND 0 >= tag.begin_snapshot AND (0 < tag.end_snapshot OR tag.end_snapshot IS NULL) ) AS tag, ( SELECT LIST({'name': table_name, 'schema_version': schema_version}) FROM \"main\".ducklake_inlined_data_tables inlined_data_tables WHERE inlined_data_tables.table_id = tbl.table_id ) AS inlined_data_tables, path, path_is_relative, col.column_id, column_name, column_type, initial_default, default_value, nulls_allowed, parent_column, ( SELECT LIST({'key': key, 'value': value}) FROM \"main\".ducklake_column_tag col_tag WHERE col_tag.table_id=tbl.table_id AND col_tag.column_id=col.column_id AND 0 >= col_tag.begin_snapshot AND (0 < col_tag.end_snapshot OR col_tag.end_snapshot IS NULL) ) AS column_tags, default_value_type FROM \"main\".ducklake_table tbl LEFT JOIN \"main\".ducklake_column col USING (table_id) WHERE 0 >= tbl.begin_snapshot AND (0 < tbl.end_snapshot OR tbl.end_snapshot IS NULL) AND ((0 >= col.begin_snapshot AND (0 < col.end_snapshot OR col.end_snapshot IS NULL)) OR column_id IS NULL) ORDER BY table_id, parent_column NULLS FIRST, column_order",
  async (ctx, stmt) => {
    const s = snapshotLiteral(stmt);
    const [tbls, cols, tags, colTags, inlined] = await Promise.all([
      rowsOf(ctx, "ducklake_table"),
      rowsOf(ctx, "ducklake_column"),
      rowsOf(ctx, "ducklake_tag"),
      rowsOf(ctx, "ducklake_column_tag"),
      rowsOf(ctx, "ducklake_inlined_data_tables"),
    ]);
    const colsByTable = groupBy(cols, (r) => r.table_id);
    const tagsByObject = groupBy(tags, (r) => r.object_id);
    const colTagsBy = groupBy(colTags, (r) => `${r.table_id}/${r.column_id}`);
    const inlinedBy = groupBy(inlined, (r) => r.table_id);
    const out: { row: SqlValue[]; order: [number, number | null, number | null] }[] = [];
    for (const t of tbls) {
      if (!rowVisibleAt(t, s)) continue;
      const id = t.table_id as number;
      const head: SqlValue[] = [
        big(t.schema_id),
        big(t.table_id),
        cell(t.table_uuid),
        cell(t.table_name),
        tagList(tagsByObject.get(id) ?? [], s),
        listOrNull(
          // Registry insertion order: ascending schema version.
          [...(inlinedBy.get(id) ?? [])]
            .sort((a, b) => compareIds(a.schema_version, b.schema_version))
            .map((r) => ({
              name: cell(r.table_name),
              schema_version: big(r.schema_version),
            })),
        ),
        cell(t.path),
        cell(t.path_is_relative),
      ];
      const mine = colsByTable.get(id) ?? [];
      // LEFT JOIN: a table without any column row keeps one row of NULL columns.
      if (mine.length === 0) {
        out.push({ row: [...head, ...Array<SqlValue>(8).fill(null), null], order: [id, null, null] });
        continue;
      }
      for (const c of mine) {
        if (!rowVisibleAt(c, s)) continue;
        out.push({
          row: [
            ...head,
            big(c.column_id),
            cell(c.column_name),
            cell(c.column_type),
            cell(c.initial_default),
            cell(c.default_value),
            cell(c.nulls_allowed),
            big(c.parent_column),
            tagList(colTagsBy.get(`${id}/${c.column_id}`) ?? [], s),
            cell(c.default_value_type),
          ],
          order: [id, c.parent_column as number | null, c.column_order as number | null],
        });
      }
    }
    // ORDER BY table_id, parent_column NULLS FIRST, column_order (NULLS LAST).
    out.sort(
      (a, b) =>
        a.order[0] - b.order[0] ||
        (a.order[1] === b.order[1]
          ? 0
          : a.order[1] === null
            ? -1
            : b.order[1] === null
              ? 1
              : a.order[1] - b.order[1]) ||
        compareIds(a.order[2], b.order[2]),
    );
    return result(
      TABLE_COLUMNS,
      out.map((o) => o.row),
    );
  },
);

const schemaPath = byShape(
  "schema.path",
  'SELECT path, path_is_relative FROM "main".ducklake_schema WHERE schema_id = 1',
  async (ctx, stmt) => {
    const rows = await schemaVersionRowsOf(requireView(ctx), intLiteral(stmt, 0));
    return result(
      [
        { name: "path", type: T.VARCHAR },
        { name: "path_is_relative", type: T.BOOLEAN },
      ],
      rows.map((r) => [r.path, r.path_is_relative]),
    );
  },
);

const tablePaths = byShape(
  "table.paths",
  'SELECT s.path AS s_path, s.path_is_relative AS s_path_is_relative, t.path AS t_path, t.path_is_relative AS t_path_is_relative FROM "main".ducklake_schema s JOIN "main".ducklake_table t USING (schema_id) WHERE table_id = 2',
  async (ctx, stmt) => {
    const view = requireView(ctx);
    const tableRows = await tableVersionsOf(view, intLiteral(stmt, 0));
    const schemaIds = [...new Set(tableRows.map((t) => t.schema_id))];
    const schemaRows = (await Promise.all(schemaIds.map((id) => schemaVersionRowsOf(view, id)))).flat();
    const rows: SqlValue[][] = [];
    // No snapshot filter: every version row of the table joins every version row of its schema.
    for (const t of tableRows) {
      for (const sch of schemaRows) {
        if (sch.schema_id === t.schema_id)
          rows.push([sch.path, sch.path_is_relative, t.path, t.path_is_relative]);
      }
    }
    return result(
      [
        { name: "s_path", type: T.VARCHAR },
        { name: "s_path_is_relative", type: T.BOOLEAN },
        { name: "t_path", type: T.VARCHAR },
        { name: "t_path_is_relative", type: T.BOOLEAN },
      ],
      rows,
    );
  },
);

const maxColumnId = byShape(
  "table.max_column_id",
  'SELECT MAX(column_id) FROM "main".ducklake_column WHERE table_id=2',
  async (ctx, stmt) => {
    let max: number | null = null;
    for (const c of await columnVersionsOf(requireView(ctx), intLiteral(stmt, 0))) {
      if (max === null || c.column_id > max) max = c.column_id;
    }
    return result([{ name: "max(column_id)", type: T.BIGINT }], [[max === null ? null : BigInt(max)]]);
  },
);

export const SCHEMA_TABLE_READS: readonly ReadTemplate[] = [
  schemas,
  tables,
  schemaPath,
  tablePaths,
  maxColumnId,
];
