/**
 * The probes DuckLake sends on ATTACH over Quack, answered as a stock DuckDB 1.5.5 Quack server whose
 * database file holds the lake's metadata answers them: its schemata, its tables' `CREATE TABLE` text
 * (the 28 `ducklake_*` tables and every inlined table that exists) and views, its (absent) secrets, the
 * `ducklake_metadata` existence probe, and the `ducklake_commit` function probe — answered with its row, as a
 * server with `ducklake` loaded answers it (decision records `docs/decisions/0210-quack-metadata-reads.md`,
 * `docs/decisions/0260-staged-commit.md`). With no
 * lake yet (`ctx.view === null`) they answer as an empty database, so DuckLake initializes it.
 */

import { DUCKDB_KEYWORDS } from "../../duckdb-keywords.ts";
import { inlinedDeclarationsAt } from "../../reads/inlined-declarations.ts";
import type { ReadTemplate, SqlReadContext } from "../reads.ts";
import type { SqlValue } from "../result.ts";
import { listOf, T } from "../result.ts";
import { byShape, literal, literalText, memoised, result } from "./common.ts";
import { DUCKLAKE_TABLE_SQL, SYSTEM_VIEWS } from "./system-catalog.ts";

/**
 * The catalog name a stock server reports is its database file's stem; the capture server's file is
 * `meta.duckdb`. DuckLake only reads the schema names from this answer.
 */
export const QUACK_CATALOG_NAME = "meta";
/** The schema DuckLake's tables live in (`"main".ducklake_*`). */
export const METADATA_SCHEMA = "main";

/** DuckDB's rendering of an identifier in DDL text: quoted when a keyword or not plain lower-case. */
export function ddlIdentifier(name: string): string {
  if (/^[a-z_][a-z0-9_]*$/.test(name) && !DUCKDB_KEYWORDS.has(name)) return name;
  return `"${name.replace(/"/g, '""')}"`;
}

/** `CREATE TABLE name(col TYPE, ...);` as duckdb_tables().sql renders a constraint-free table. */
export function createTableSql(name: string, columns: readonly (readonly [string, string])[]): string {
  return `CREATE TABLE ${ddlIdentifier(name)}(${columns.map(([c, t]) => `${ddlIdentifier(c)} ${t}`).join(", ")});`;
}

/** DuckDB's catalog lists entries by name compared case-insensitively in upper case (so `FILES_` < `FILE_C`). */
function catalogOrder(a: string, b: string): number {
  const x = a.toUpperCase();
  const y = b.toUpperCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Every table of the metadata database at the head: name → CREATE TABLE text. */
async function tablesOf(ctx: SqlReadContext): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (ctx.view === null) return out;
  for (const [name, sql] of Object.entries(DUCKLAKE_TABLE_SQL)) out.set(name, sql);
  const view = ctx.view;
  const declared = await memoised(ctx, "metadata-reads:inlined-declarations", () =>
    inlinedDeclarationsAt(view),
  );
  for (const [name, cols] of Object.entries(declared)) {
    out.set(name, createTableSql(name, cols));
  }
  return out;
}

const schemata = byShape(
  "attach.schemata",
  "SELECT catalog_name, schema_name FROM information_schema.schemata WHERE catalog_name NOT IN ('system', 'temp') ORDER BY ALL",
  async () =>
    result(
      [
        { name: "catalog_name", type: T.VARCHAR },
        { name: "schema_name", type: T.VARCHAR },
      ],
      [[QUACK_CATALOG_NAME, METADATA_SCHEMA]],
    ),
);

const tablesAndViews = byShape(
  "attach.tables_and_views",
  "SELECT schema_name, sql, 'table' FROM duckdb_tables() UNION ALL SELECT schema_name, view_name, 'view' FROM duckdb_views()",
  async (ctx, stmt) => {
    const tables = await tablesOf(ctx);
    const tableTag = literal(stmt, 0);
    const viewTag = literal(stmt, 1);
    const rows: SqlValue[][] = [...tables.keys()]
      .sort(catalogOrder)
      .map((name) => [METADATA_SCHEMA, tables.get(name) ?? null, tableTag]);
    for (const [schema, view] of SYSTEM_VIEWS) rows.push([schema, view, viewTag]);
    return result(
      [
        { name: "schema_name", type: T.VARCHAR },
        { name: "sql", type: T.VARCHAR },
        { name: literalText(stmt, 0), type: T.VARCHAR },
      ],
      rows,
    );
  },
);

const secrets = byShape("attach.secrets", "FROM duckdb_secrets()", async () =>
  result(
    [
      { name: "name", type: T.VARCHAR },
      { name: "type", type: T.VARCHAR },
      { name: "provider", type: T.VARCHAR },
      { name: "persistent", type: T.BOOLEAN },
      { name: "storage", type: T.VARCHAR },
      { name: "scope", type: listOf(T.VARCHAR) },
      { name: "secret_string", type: T.VARCHAR },
    ],
    [],
  ),
);

/** DuckLake's existence probe over Quack; its second literal names the metadata schema (metadata-schema.ts). */
export const TABLE_EXISTS_PROBE =
  "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'ducklake_metadata' AND table_schema = 'main'";

const tableExists = byShape("attach.table_exists", TABLE_EXISTS_PROBE, async (ctx, stmt) => {
  const tables = await tablesOf(ctx);
  const n = literal(stmt, 1) === METADATA_SCHEMA && tables.has(literal(stmt, 0)) ? 1n : 0n;
  return result([{ name: "count_star()", type: T.BIGINT }], [[n]]);
});

/**
 * The server-side `ducklake_commit` is listed: DuckLake then sends its data-only commits as one staged
 * batch the writer rebases onto the head it lands on, and keeps DDL on client-side batches
 * (docs/decisions/0260-staged-commit.md). It is the only function DuckLake 1.5.5 probes for. A deployment
 * that switches it off answers as a stock server without `ducklake` (no row): DuckLake then commits
 * client-side (docs/decisions/0262-server-commit-switch.md).
 */
const functionsProbe = byShape(
  "attach.functions_probe",
  "SELECT 1 FROM duckdb_functions() WHERE function_name = 'ducklake_commit' LIMIT 1",
  async (ctx, stmt) =>
    result(
      [{ name: literalText(stmt, 0), type: T.INTEGER }],
      ctx.serverCommit === false ? [] : [[Number(literalText(stmt, 0))]],
    ),
);

export const ATTACH_READS: readonly ReadTemplate[] = [
  schemata,
  tablesAndViews,
  secrets,
  tableExists,
  functionsProbe,
];
