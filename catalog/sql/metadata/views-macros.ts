/** Views and macros of the catalog load at a snapshot (views with their tags, macros with impls and parameters). */
import type { ReadTemplate } from "../reads.ts";
import { listOf, type SqlValue, structOf, T } from "../result.ts";
import {
  big,
  byShape,
  cell,
  compareIds,
  listOrNull,
  result,
  rowsOf,
  rowVisibleAt,
  snapshotLiteral,
  tagList,
} from "./common.ts";

const views = byShape(
  "catalog.views",
  "SELECT view_id, view_uuid, schema_id, view_name, dialect, sql, column_aliases, ( SELECT LIST({'key': key, 'value': value}) FROM \"main\".ducklake_tag tag WHERE object_id=view_id AND 0 >= tag.begin_snapshot AND (0 < tag.end_snapshot OR tag.end_snapshot IS NULL) ) AS tag FROM \"main\".ducklake_view view WHERE 0 >= begin_snapshot AND (0 < view.end_snapshot OR view.end_snapshot IS NULL)",
  async (ctx, stmt) => {
    const s = snapshotLiteral(stmt);
    const [viewRows, tags] = await Promise.all([rowsOf(ctx, "ducklake_view"), rowsOf(ctx, "ducklake_tag")]);
    const rows = viewRows
      .filter((v) => rowVisibleAt(v, s))
      .map((v): SqlValue[] => [
        big(v.view_id),
        cell(v.view_uuid),
        big(v.schema_id),
        cell(v.view_name),
        cell(v.dialect),
        cell(v.sql),
        cell(v.column_aliases),
        tagList(
          tags.filter((t) => t.object_id === v.view_id),
          s,
        ),
      ]);
    return result(
      [
        { name: "view_id", type: T.BIGINT },
        { name: "view_uuid", type: T.UUID },
        { name: "schema_id", type: T.BIGINT },
        { name: "view_name", type: T.VARCHAR },
        { name: "dialect", type: T.VARCHAR },
        { name: "sql", type: T.VARCHAR },
        { name: "column_aliases", type: T.VARCHAR },
        { name: "tag", type: listOf(structOf({ key: T.VARCHAR, value: T.VARCHAR })) },
      ],
      rows,
    );
  },
);

const PARAMS = listOf(
  structOf({
    parameter_name: T.VARCHAR,
    parameter_type: T.VARCHAR,
    default_value: T.VARCHAR,
    default_value_type: T.VARCHAR,
  }),
);
const IMPLS = listOf(structOf({ dialect: T.VARCHAR, sql: T.VARCHAR, type: T.VARCHAR, params: PARAMS }));

const macros = byShape(
  "catalog.macros",
  "SELECT schema_id, ducklake_macro.macro_id, macro_name, ( SELECT LIST({'dialect': dialect, 'sql': sql, 'type': type, 'params': ( SELECT LIST({'parameter_name': parameter_name, 'parameter_type': parameter_type, 'default_value': default_value, 'default_value_type': default_value_type}) FROM \"main\".ducklake_macro_parameters WHERE ducklake_macro_impl.macro_id = ducklake_macro_parameters.macro_id AND ducklake_macro_impl.impl_id = ducklake_macro_parameters.impl_id ) }) FROM \"main\".ducklake_macro_impl WHERE ducklake_macro.macro_id = ducklake_macro_impl.macro_id ) AS impl FROM \"main\".ducklake_macro WHERE 0 >= ducklake_macro.begin_snapshot AND (0 < ducklake_macro.end_snapshot OR ducklake_macro.end_snapshot IS NULL)",
  async (ctx, stmt) => {
    const s = snapshotLiteral(stmt);
    const [macroRows, impls, params] = await Promise.all([
      rowsOf(ctx, "ducklake_macro"),
      rowsOf(ctx, "ducklake_macro_impl"),
      rowsOf(ctx, "ducklake_macro_parameters"),
    ]);
    const rows = macroRows
      .filter((m) => rowVisibleAt(m, s))
      .map((m): SqlValue[] => [
        big(m.schema_id),
        big(m.macro_id),
        cell(m.macro_name),
        listOrNull(
          impls
            .filter((i) => i.macro_id === m.macro_id)
            .sort((a, b) => compareIds(a.impl_id, b.impl_id))
            .map((i) => ({
              dialect: cell(i.dialect),
              sql: cell(i.sql),
              type: cell(i.type),
              params: listOrNull(
                params
                  .filter((p) => p.macro_id === i.macro_id && p.impl_id === i.impl_id)
                  .sort((a, b) => compareIds(a.column_id, b.column_id))
                  .map((p) => ({
                    parameter_name: cell(p.parameter_name),
                    parameter_type: cell(p.parameter_type),
                    default_value: cell(p.default_value),
                    default_value_type: cell(p.default_value_type),
                  })),
              ),
            })),
        ),
      ]);
    return result(
      [
        { name: "schema_id", type: T.BIGINT },
        { name: "macro_id", type: T.BIGINT },
        { name: "macro_name", type: T.VARCHAR },
        { name: "impl", type: IMPLS },
      ],
      rows,
    );
  },
);

export const VIEW_MACRO_READS: readonly ReadTemplate[] = [views, macros];
