/**
 * `export`: a lake at a snapshot written as a DuckLake metadata file (SQLite) that stock DuckDB attaches
 * with `ATTACH 'ducklake:sqlite:<file>' (READ_ONLY)`. The 28 catalog tables come from `…/ducklake/{table}`
 * at that snapshot (which holds the full history up to it, so every earlier snapshot time-travels too)
 * and the inlined tables from `…/inlined`. With a data directory, every data and delete file is downloaded
 * into it and `data_path` points there, so the copy works offline. SQLite is written with sql.js (wasm):
 * Node 20 has no built-in SQLite and a native addon would need a build step (decision 0341-cli.md).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import initSqlJs, { type Database, type SqlValue } from "sql.js";
import { type CountedFile, planRowCount } from "../catalog/reads/plan-count.ts";
import { type LakeClient, type paths, unwrap } from "../client/index.ts";
import { CliError } from "./errors.ts";
import { DUCKLAKE_FORMAT_VERSION, DUCKLAKE_SQLITE_DDL } from "./export-ddl.ts";
import { Progress } from "./progress.ts";
import type { Api } from "./upload.ts";

/** Columns DuckLake stores as timestamps with time zone (text in SQLite); the API gives µs since epoch. */
const TIMESTAMP_COLUMNS = new Set(["snapshot_time", "schedule_start"]);

/** DuckLake's SQLite text form of a timestamptz: `2026-12-01 09:30:31.336246+00`. */
export function sqliteTimestamp(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString(); // 2026-12-01T09:30:31.336Z
  const micros = String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, "0");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${micros}+00`;
}

function sqlValue(column: string, v: unknown): SqlValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return TIMESTAMP_COLUMNS.has(column) ? sqliteTimestamp(v) : v;
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/** How an inlined column's DuckDB type is declared in SQLite, as stock DuckLake declares it. */
export function sqliteDeclType(duckdbType: string): string {
  const t = duckdbType.toUpperCase();
  if (/^(U?(TINYINT|SMALLINT|INTEGER|BIGINT)|BOOLEAN)$/.test(t)) return "BIGINT";
  if (t === "FLOAT" || t === "DOUBLE") return "DOUBLE";
  return "VARCHAR";
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

function insertRows(db: Database, table: string, columns: string[], rows: Record<string, unknown>[]): void {
  if (rows.length === 0) return;
  const stmt = db.prepare(
    `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
  );
  try {
    for (const row of rows) stmt.run(columns.map((c) => sqlValue(c, row[c])));
  } finally {
    stmt.free();
  }
}

export interface ExportOptions {
  lake: string;
  out: string;
  snapshot?: number;
  /** Download data and delete files here and point data_path at it. */
  dataDir?: string;
}

export interface ExportResult {
  snapshotId: number;
  /** DuckLake metadata tables written (every `ducklake_*` table). */
  tables: number;
  /** Rows of those metadata tables and of the inlined-data tables: the SQLite file's size in rows. */
  metadataRows: number;
  /**
   * The lake's own rows at the snapshot, as `SELECT count(*)` answers per table (`schema.table`), or null for
   * a table whose count needs a file's bytes (decision 0653-export-user-rows.md).
   */
  tableRows: Record<string, number | null>;
  /** Their sum, or null when any table's count is null. */
  userRows: number | null;
  inlinedTables: number;
  filesDownloaded: number;
}

/** Plan files per page the row count asks for (the plan route's own page bound). */
const PLAN_PAGE = 1000;

/**
 * Plan pages one table's row count reads at most (10 million files at `PLAN_PAGE`): past it the count is
 * refused by name rather than paged on without end.
 */
export const MAX_EXPORT_PLAN_PAGES = 10_000;

/** Each live table's row count at `snapshot`, from its scan plan's records (no file is read). */
async function tableRowCounts(
  api: LakeClient,
  lake: string,
  snapshot: number,
): Promise<Record<string, number | null>> {
  const cat = await unwrap(
    api.GET("/v1/lakes/{lake}/catalog", {
      params: { path: { lake }, query: { snapshot: String(snapshot) } },
    }),
  );
  const tables = ((cat.catalog as { tables?: Row[] }).tables ?? []).map((t) => ({
    schema: String(t.schema_name),
    table: String(t.table_name),
  }));
  const out: Record<string, number | null> = {};
  for (const { schema, table } of tables) {
    // Counted page by page (the count is a sum; null once any file's count is unknown): no file list is kept.
    let count: number | null = 0;
    let after: number | null = null;
    let pages = 0;
    do {
      if (++pages > MAX_EXPORT_PLAN_PAGES) {
        throw new CliError(
          "LimitExceeded",
          `table ${schema}.${table} has more than ${MAX_EXPORT_PLAN_PAGES * PLAN_PAGE} data files, the most the export summary counts (MAX_EXPORT_PLAN_PAGES)`,
        );
      }
      const page: { files: unknown[]; inlined_rows: unknown[]; next_after_file: number | null } =
        await unwrap(
          api.GET("/v1/lakes/{lake}/tables/{schema}/{table}/plan", {
            params: {
              path: { lake, schema, table },
              query: {
                snapshot: String(snapshot),
                limit: String(PLAN_PAGE),
                ...(after !== null ? { after_file: String(after) } : {}),
              },
            },
          }),
        );
      // Inlined rows come whole with every page: counted once.
      const part = planRowCount(page.files as CountedFile[], after === null ? page.inlined_rows.length : 0);
      count = count === null || part === null ? null : count + part;
      after = page.next_after_file;
    } while (after !== null && count !== null);
    out[`${schema}.${table}`] = count;
  }
  return out;
}

type Row = Record<string, unknown>;
type DucklakeTableName = paths["/v1/lakes/{lake}/ducklake/{table}"]["get"]["parameters"]["path"]["table"];

async function ducklakeRows(api: LakeClient, lake: string, table: string, snapshot: number): Promise<Row[]> {
  const res = await unwrap(
    api.GET("/v1/lakes/{lake}/ducklake/{table}", {
      params: {
        path: { lake, table: table as DucklakeTableName },
        query: { snapshot: String(snapshot), format: "json" },
      },
    }),
  );
  return (res as { rows: Row[] }).rows;
}

/** Data-route path of a catalog file: data_path-relative through its schema and table, or null. */
function relativeFilePath(file: Row, tables: Map<number, Row>, schemas: Map<number, Row>): string | null {
  if (file.path_is_relative !== true) return null;
  const table = tables.get(Number(file.table_id));
  const schema = table ? schemas.get(Number(table.schema_id)) : undefined;
  if (!table || !schema || table.path_is_relative !== true || schema.path_is_relative !== true) return null;
  return `${String(schema.path ?? "")}${String(table.path ?? "")}${String(file.path)}`;
}

export async function exportLake(api: Api, opts: ExportOptions): Promise<ExportResult> {
  const { lake } = opts;
  const summary = await unwrap(
    api.client.GET("/v1/lakes/{lake}", {
      params: {
        path: { lake },
        query: opts.snapshot !== undefined ? { snapshot: String(opts.snapshot) } : {},
      },
    }),
  );
  const snapshotId = summary.snapshotId;
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  let total = 0;
  const fetched = new Map<string, Row[]>();
  const names = Object.keys(DUCKLAKE_SQLITE_DDL);
  const progress = new Progress(`export ${lake}@${snapshotId}`, names.length + 1);
  let step = 0;
  for (const table of names) {
    db.run(DUCKLAKE_SQLITE_DDL[table] as string);
    const rows = await ducklakeRows(api.client, lake, table, snapshotId);
    fetched.set(table, rows);
    progress.update(++step);
  }
  const inlined = await unwrap(
    api.client.GET("/v1/lakes/{lake}/inlined", {
      params: { path: { lake }, query: { snapshot: String(snapshotId) } },
    }),
  );
  progress.finish();

  let dataPath: string | null = null;
  let downloaded = 0;
  if (opts.dataDir) {
    dataPath = `${resolve(opts.dataDir)}/`;
    const schemas = new Map((fetched.get("ducklake_schema") ?? []).map((r) => [Number(r.schema_id), r]));
    const tables = new Map((fetched.get("ducklake_table") ?? []).map((r) => [Number(r.table_id), r]));
    const files = [
      ...(fetched.get("ducklake_data_file") ?? []),
      ...(fetched.get("ducklake_delete_file") ?? []),
    ];
    const bar = new Progress("download", files.length);
    for (const f of files) {
      const rel = relativeFilePath(f, tables, schemas);
      if (rel === null) {
        throw new CliError(
          "Unsupported",
          `file ${String(f.path)} has an absolute path; export it without --data-dir`,
        );
      }
      const bytes = await api.download(lake, rel);
      const target = join(dataPath, rel);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, bytes);
      bar.update(++downloaded);
    }
    bar.finish();
  }

  for (const [table, rows] of fetched) {
    const columns = (DUCKLAKE_SQLITE_DDL[table] ?? "")
      .slice((DUCKLAKE_SQLITE_DDL[table] ?? "").indexOf("(") + 1, -1)
      .split(", ")
      .map((c) => (c.split(" ")[0] ?? "").replaceAll('"', ""));
    let out = rows;
    if (table === "ducklake_metadata") {
      if (!rows.some((r) => r.key === "version" && r.scope === null)) {
        throw new CliError("Internal", `lake '${lake}' has no DuckLake version in ducklake_metadata`);
      }
      out = rows.map((r) =>
        dataPath !== null && r.key === "data_path" && (r.scope ?? null) === null
          ? { ...r, value: dataPath }
          : r,
      );
      const version = out.find((r) => r.key === "version" && r.scope === null);
      if (version?.value !== DUCKLAKE_FORMAT_VERSION) {
        throw new CliError(
          "Unsupported",
          `DuckLake format ${String(version?.value)} is not ${DUCKLAKE_FORMAT_VERSION}`,
        );
      }
    }
    insertRows(db, table, columns, out);
    total += out.length;
  }
  const inlinedTables = Object.entries(inlined.tables);
  for (const [name, t] of inlinedTables) {
    if (!/^ducklake_inlined_(data|delete)_\d+(_\d+)?$/.test(name)) {
      throw new CliError("Internal", `unexpected inlined table name '${name}'`);
    }
    const pairs = t.columns.map(([n, type]) => [String(n), String(type)] as const);
    const cols = pairs.map(([n, type]) => `${quote(n)} ${sqliteDeclType(type)}`);
    db.run(`CREATE TABLE ${name}(${cols.join(", ")})`);
    insertRows(
      db,
      name,
      pairs.map(([n]) => n),
      t.rows,
    );
    total += t.rows.length;
  }
  const tableRows = await tableRowCounts(api.client, lake, snapshotId);
  const counts = Object.values(tableRows);
  mkdirSync(dirname(resolve(opts.out)), { recursive: true });
  writeFileSync(opts.out, db.export());
  db.close();
  return {
    snapshotId,
    tables: names.length,
    metadataRows: total,
    tableRows,
    userRows: counts.includes(null) ? null : counts.reduce<number>((a, n) => a + (n ?? 0), 0),
    inlinedTables: inlinedTables.length,
    filesDownloaded: downloaded,
  };
}
