/**
 * The file listing of `ducklake_delete_orphaned_files`: the full path of every data and delete file the
 * catalog names (joined to every version of its table and schema row, as stock's SQL joins them) and of
 * every file scheduled for deletion. DuckDB lists the data directory itself and removes what is not named.
 * Decision record `docs/decisions/0242-quack-cleanup-and-orphans.md`.
 */
import { InvalidRequest } from "../../errors.ts";
import { ducklakeTable, type Row } from "../../reads/ducklake-tables.ts";
import { literalsOf } from "../lexer.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import { col, shapeOfSql } from "./common.ts";

const ORPHAN_LISTING = shapeOfSql(
  `SELECT REPLACE( CASE WHEN NOT file_relative THEN file_path ELSE CASE WHEN NOT table_relative THEN table_path || file_path ELSE CASE WHEN NOT schema_relative THEN schema_path || table_path || file_path ELSE '/data/' || schema_path || table_path || file_path END END END, '/', '/' ) AS full_path FROM (SELECT s.path AS schema_path, t.path AS table_path, file_path, s.path_is_relative AS schema_relative, t.path_is_relative AS table_relative, file_relative FROM ( SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_data_file f UNION ALL SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_delete_file f ) AS f JOIN "main".ducklake_table t ON f.table_id = t.table_id JOIN "main".ducklake_schema s ON t.schema_id = s.schema_id) AS r UNION ALL SELECT REPLACE( CASE WHEN NOT f.path_is_relative THEN f.path ELSE '/data/' || f.path END , '/', '/' ) AS full_path FROM "main".ducklake_files_scheduled_for_deletion f`,
);

/** DuckDB's `REPLACE(s, from, to)`: every occurrence, left to right (an empty `from` changes nothing). */
function replaceAll(s: string, from: string, to: string): string {
  return from === "" ? s : s.split(from).join(to);
}

/** The three string literals of one `REPLACE(CASE … ELSE '<data path>' || … END, '<from>', '<to>')`. */
function replaceParts(values: readonly string[], at: number): [string, string, string] {
  const [dataPath, from, to] = values.slice(at, at + 3);
  if (dataPath === undefined || from === undefined || to === undefined)
    throw new InvalidRequest("the orphaned-files listing carries fewer than six string literals");
  return [dataPath, from, to];
}

const text = (r: Row, k: string): string => String(r[k] ?? "");
/** `WHEN NOT <flag>` holds only for false: a NULL flag falls through to the ELSE branch, as in SQL. */
const absolute = (r: Row, k: string): boolean => r[k] === false;

const orphanListing: ReadTemplate = {
  name: "maintenance.orphan_listing",
  matches: (s) => s === ORPHAN_LISTING,
  answer: async (ctx, stmt) => {
    const strings = literalsOf(stmt.tokens).map((t) => t.value);
    const [dataPath, from, to] = replaceParts(strings, 0);
    const [dataPath2, from2, to2] = replaceParts(strings, 3);
    const columns = [col("full_path", T.VARCHAR)];
    const view = ctx.view;
    if (!view) return { columns, rows: [] };
    const [dataFiles, deleteFiles, tables, schemas, scheduled] = await Promise.all([
      ducklakeTable(view, "ducklake_data_file"),
      ducklakeTable(view, "ducklake_delete_file"),
      ducklakeTable(view, "ducklake_table"),
      ducklakeTable(view, "ducklake_schema"),
      ducklakeTable(view, "ducklake_files_scheduled_for_deletion"),
    ]);
    const rows: SqlValue[][] = [];
    // Every version of the table and schema rows joins (stock's JOINs have no snapshot condition).
    for (const f of [...dataFiles, ...deleteFiles]) {
      for (const t of tables.filter((t) => t.table_id === f.table_id)) {
        for (const s of schemas.filter((s) => s.schema_id === t.schema_id)) {
          const full = absolute(f, "path_is_relative")
            ? text(f, "path")
            : absolute(t, "path_is_relative")
              ? text(t, "path") + text(f, "path")
              : absolute(s, "path_is_relative")
                ? text(s, "path") + text(t, "path") + text(f, "path")
                : dataPath + text(s, "path") + text(t, "path") + text(f, "path");
          rows.push([replaceAll(full, from, to)]);
        }
      }
    }
    for (const f of scheduled) {
      const full = absolute(f, "path_is_relative") ? text(f, "path") : dataPath2 + text(f, "path");
      rows.push([replaceAll(full, from2, to2)]);
    }
    return { columns, rows };
  },
};

export const CLEANUP_READS: readonly ReadTemplate[] = [orphanListing];
