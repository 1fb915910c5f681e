/**
 * The file listing of `ducklake_delete_orphaned_files` (and of `CHECKPOINT`, which calls it): the full path
 * of every data and delete file the catalog names (joined to every version of its table and schema row, as
 * stock's SQL joins them) and of every file scheduled for deletion. DuckDB globs the data path itself and
 * deletes every `.parquet` object the listing does not name that is older than its own cutoff (none under
 * `cleanup_all`). Decision records `docs/decisions/0242-quack-cleanup-and-orphans.md` (the stock answer) and
 * `docs/decisions/0630-quack-orphan-listing-grace.md` (what is added for a lake on its own prefix).
 *
 * For a lake whose data path is its own R2 prefix, every write reaches R2 through this Worker (its S3
 * endpoint, the writer's jobs, the upload routes), so an upload whose commit is still in flight is an object
 * no catalog row names yet. The listing therefore also names every object of the prefix uploaded less than
 * the lake's `delete_older_than` grace ago (the same grace as job 5, decision 0330): the client never deletes
 * a path the listing names, whatever `older_than` or `cleanup_all` it was given. A lake whose data path is
 * external (decision 0502) gets exactly stock's answer: DuckDB alone holds those files, as on a stock server.
 */
import { Unsupported } from "../../errors.ts";
import { maintenanceSettings } from "../../maintenance/settings.ts";
import { ducklakeTable, type Row } from "../../reads/ducklake-tables.ts";
import { literalsOf } from "../lexer.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import { col, shapeOfSql } from "./common.ts";

const ORPHAN_LISTING = shapeOfSql(
  `SELECT REPLACE( CASE WHEN NOT file_relative THEN file_path ELSE CASE WHEN NOT table_relative THEN table_path || file_path ELSE CASE WHEN NOT schema_relative THEN schema_path || table_path || file_path ELSE '/data/' || schema_path || table_path || file_path END END END, '/', '/' ) AS full_path FROM (SELECT s.path AS schema_path, t.path AS table_path, file_path, s.path_is_relative AS schema_relative, t.path_is_relative AS table_relative, file_relative FROM ( SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_data_file f UNION ALL SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_delete_file f ) AS f JOIN "main".ducklake_table t ON f.table_id = t.table_id JOIN "main".ducklake_schema s ON t.schema_id = s.schema_id) AS r UNION ALL SELECT REPLACE( CASE WHEN NOT f.path_is_relative THEN f.path ELSE '/data/' || f.path END , '/', '/' ) AS full_path FROM "main".ducklake_files_scheduled_for_deletion f`,
);

/** Said when no one can tell which objects of the lake's prefix are uploads in flight (decision 0630). */
export const ORPHAN_LISTING_UNPROTECTED =
  "ducklake_delete_orphaned_files cannot be answered here: the objects of the lake's data prefix (their " +
  "upload times) were not listed, so an upload whose commit is in flight could be offered for deletion";

/** DuckDB's `REPLACE(s, from, to)`: every occurrence, left to right (an empty `from` changes nothing). */
function replaceAll(s: string, from: string, to: string): string {
  return from === "" ? s : s.split(from).join(to);
}

/** The three string literals of one `REPLACE(CASE … ELSE '<data path>' || … END, '<from>', '<to>')`. */
function replaceParts(values: readonly string[], at: number): [string, string, string] {
  const [dataPath, from, to] = values.slice(at, at + 3);
  if (dataPath === undefined || from === undefined || to === undefined)
    throw new Unsupported("the orphaned-files listing carries fewer than six string literals");
  return [dataPath, from, to];
}

const text = (r: Row, k: string): string => String(r[k] ?? "");
/** `WHEN NOT <flag>` holds only for false: a NULL flag falls through to the ELSE branch, as in SQL. */
const absolute = (r: Row, k: string): boolean => r[k] === false;

/** An upload still within the grace: named, so the client keeps it (decision 0630). */
export function protectedUpload(uploadedMs: number, nowMs: number, graceMs: number): boolean {
  return uploadedMs > nowMs - graceMs;
}

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
    // An object this listing finds that the cut does not name and that is past the grace was uploaded
    // more than the grace before now: its commit, if one ever comes, meets the S3 endpoint's fenced DELETE (0630).
    if (!ctx.dataObjects) throw new Unsupported(ORPHAN_LISTING_UNPROTECTED);
    const uploads = await ctx.dataObjects();
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
    if (uploads) {
      const graceMs = (await maintenanceSettings(view)).deleteOlderThanMs;
      for (const o of uploads.objects) {
        if (protectedUpload(o.uploadedMs, uploads.nowMs, graceMs))
          rows.push([replaceAll(dataPath + o.path, from, to)]);
      }
    }
    return { columns, rows };
  },
};

export const ORPHAN_LISTING_READS: readonly ReadTemplate[] = [orphanListing];
