/**
 * Options (`ducklake_metadata`), the registry of inlined-data tables (a table's newest one, the
 * superseded ones), and schema versions (the snapshot that began a table's schema version).
 */
import { inlinedTablesOf, schemaVersionsOf } from "../../reads/by-table.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import {
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

const metadata = byShape(
  "options.metadata",
  'SELECT key, value, scope, scope_id FROM "main".ducklake_metadata',
  async (ctx) =>
    result(
      [
        { name: "key", type: T.VARCHAR },
        { name: "value", type: T.VARCHAR },
        { name: "scope", type: T.VARCHAR },
        { name: "scope_id", type: T.BIGINT },
      ],
      (await rowsOf(ctx, "ducklake_metadata")).map((r) => [
        cell(r.key),
        cell(r.value),
        cell(r.scope),
        big(r.scope_id),
      ]),
    ),
);

/**
 * `CALL lake.set_option(name, value)` without a scope first counts the global rows of that key (to
 * choose between INSERT and UPDATE). DuckDB names the column `count_star()`.
 */
const globalOptionCount = byShape(
  "options.global_count",
  "SELECT COUNT(*) FROM \"main\".ducklake_metadata WHERE key = 'data_inlining_row_limit' AND scope IS NULL",
  async (ctx, stmt) => {
    const key = literal(stmt, 0);
    const n = (await rowsOf(ctx, "ducklake_metadata")).filter(
      (r) => r.key === key && r.scope === null,
    ).length;
    return result([{ name: "count_star()", type: T.BIGINT }], [[BigInt(n)]]);
  },
);

const newestInlined = byShape(
  "inlined_tables.newest",
  'SELECT table_name, schema_version FROM "main".ducklake_inlined_data_tables WHERE table_id = 2 AND schema_version = ( SELECT MAX(schema_version) FROM "main".ducklake_inlined_data_tables WHERE table_id = 2)',
  async (ctx, stmt) => {
    const view = requireView(ctx);
    const id = intLiteral(stmt, 0);
    const maxOf = intLiteral(stmt, 1);
    const [rows, ofMax] = await Promise.all([
      inlinedTablesOf(view, id),
      maxOf === id ? Promise.resolve(null) : inlinedTablesOf(view, maxOf),
    ]);
    let max: number | null = null;
    for (const r of ofMax ?? rows) if (max === null || r.schema_version > max) max = r.schema_version;
    return result(
      [
        { name: "table_name", type: T.VARCHAR },
        { name: "schema_version", type: T.BIGINT },
      ],
      rows.filter((r) => r.schema_version === max).map((r) => [r.table_name, BigInt(r.schema_version)]),
    );
  },
);

const superseded = byShape(
  "inlined_tables.superseded",
  'SELECT idt.table_id, idt.schema_version, idt.table_name FROM "main".ducklake_inlined_data_tables idt WHERE idt.schema_version < ( SELECT MAX(idt2.schema_version) FROM "main".ducklake_inlined_data_tables idt2 WHERE idt2.table_id = idt.table_id )',
  async (ctx) => {
    const rows = await rowsOf(ctx, "ducklake_inlined_data_tables");
    const max = new Map<number, number>();
    for (const r of rows) {
      const t = r.table_id as number;
      max.set(t, Math.max(max.get(t) ?? Number.NEGATIVE_INFINITY, r.schema_version as number));
    }
    const out: SqlValue[][] = [...rows]
      .filter(
        (r) => (r.schema_version as number) < (max.get(r.table_id as number) ?? Number.NEGATIVE_INFINITY),
      )
      .sort((a, b) => compareIds(a.table_id, b.table_id) || compareIds(a.schema_version, b.schema_version))
      .map((r) => [big(r.table_id), big(r.schema_version), cell(r.table_name)]);
    return result(
      [
        { name: "table_id", type: T.BIGINT },
        { name: "schema_version", type: T.BIGINT },
        { name: "table_name", type: T.VARCHAR },
      ],
      out,
    );
  },
);

const schemaVersionBegin = byShape(
  "schema_versions.begin",
  'SELECT begin_snapshot FROM "main".ducklake_schema_versions WHERE table_id = 2 AND schema_version = 2',
  async (ctx, stmt) => {
    const table = intLiteral(stmt, 0);
    const version = intLiteral(stmt, 1);
    return result(
      [{ name: "begin_snapshot", type: T.BIGINT }],
      (await schemaVersionsOf(requireView(ctx), table))
        .filter((r) => r.schema_version === version)
        .map((r) => [BigInt(r.begin_snapshot)]),
    );
  },
);

export const OPTION_READS: readonly ReadTemplate[] = [
  metadata,
  globalOptionCount,
  newestInlined,
  superseded,
  schemaVersionBegin,
];
