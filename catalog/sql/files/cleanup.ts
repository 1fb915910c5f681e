/**
 * Lake-wide file listings of maintenance. The file listing of `ducklake_delete_orphaned_files` (the full
 * path of every data and delete file the catalog names, and of every file scheduled for deletion; DuckDB
 * lists the data directory itself and deletes what is not named) is recognised and refused: a client
 * deleting by it would delete outside the writer's fences, an in-flight commit's upload included; the
 * lake's job 5 collects orphans instead (decision docs/decisions/0332-quack-orphan-listing-refused.md,
 * replacing the listing of docs/decisions/0242-quack-cleanup-and-orphans.md).
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { ducklakeTable, type Row } from "../../reads/ducklake-tables.ts";
import { type Statement, shapeOf } from "../lexer.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import { big, col, shapeOfSql } from "./common.ts";

const ORPHAN_LISTING = shapeOfSql(
  `SELECT REPLACE( CASE WHEN NOT file_relative THEN file_path ELSE CASE WHEN NOT table_relative THEN table_path || file_path ELSE CASE WHEN NOT schema_relative THEN schema_path || table_path || file_path ELSE '/data/' || schema_path || table_path || file_path END END END, '/', '/' ) AS full_path FROM (SELECT s.path AS schema_path, t.path AS table_path, file_path, s.path_is_relative AS schema_relative, t.path_is_relative AS table_relative, file_relative FROM ( SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_data_file f UNION ALL SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_delete_file f ) AS f JOIN "main".ducklake_table t ON f.table_id = t.table_id JOIN "main".ducklake_schema s ON t.schema_id = s.schema_id) AS r UNION ALL SELECT REPLACE( CASE WHEN NOT f.path_is_relative THEN f.path ELSE '/data/' || f.path END , '/', '/' ) AS full_path FROM "main".ducklake_files_scheduled_for_deletion f`,
);

/**
 * Why the listing is refused (decision 0332): whatever it names, DuckDB deletes every object under the data
 * path it does not name, with only its own cutoff (none under `cleanup_all`), and the catalog cannot name
 * an object no commit has registered yet — so a file whose commit is in flight would be offered.
 */
export const ORPHAN_LISTING_REFUSED =
  "ducklake_delete_orphaned_files is not run by clients on this lake: DuckDB would delete every object " +
  "the catalog does not name yet, including a file whose commit is in flight. The lake collects orphans " +
  "itself with maintenance job delete_files (job 5), after the delete_older_than grace and behind the " +
  "writer's fences; run it now with POST /v1/lakes/{lake}/maintenance " +
  '{"jobs":["delete_files"]} and see its runs with GET /v1/lakes/{lake}/maintenance';

const orphanListing: ReadTemplate = {
  name: "maintenance.orphan_listing",
  matches: (s) => s === ORPHAN_LISTING,
  answer: async () => {
    throw new Unsupported(ORPHAN_LISTING_REFUSED);
  },
};

/**
 * expire_snapshots' listing of the files to schedule for deletion when it also drops whole tables: the
 * files of those tables (`table_id IN (…)`), for delete files also those of the data files it removes
 * (`data_file_id IN (…)`), and the ended files no remaining snapshot sees (decision
 * `docs/decisions/0241-quack-expire-snapshots.md`). IN lists are folded to one `?` before matching.
 */
const UNSEEN =
  '(end_snapshot IS NOT NULL AND NOT EXISTS( SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_id >= begin_snapshot AND snapshot_id < end_snapshot ))';
const text = (r: Row, k: string): string => String(r[k] ?? "");
const foldIn = (shape: string): string => shape.replace(/IN \( \?(?: , \?)* \)/g, "IN ( ? )");
const EXPIRED_FILE_FORMS = (["ducklake_data_file", "ducklake_delete_file"] as const).flatMap((table) => {
  const id = table === "ducklake_data_file" ? "data_file_id" : "delete_file_id";
  const prefixes =
    table === "ducklake_data_file"
      ? ["table_id IN (3) OR"]
      : ["table_id IN (3) OR", "data_file_id IN (4) OR", "table_id IN (3) OR data_file_id IN (4) OR"];
  return prefixes.map((p) => ({
    table,
    id,
    shape: foldIn(
      shapeOfSql(`SELECT ${id}, table_id, path, path_is_relative FROM "main".${table} WHERE ${p} ${UNSEEN}`),
    ),
  }));
});

/** The integers of the `<column> IN (…)` list of a statement, or none when it has no such list. */
function inList(stmt: Statement, column: string): Set<number> {
  const t = stmt.tokens;
  const out = new Set<number>();
  for (let i = 0; i + 2 < t.length; i++) {
    if (t[i]?.value.toLowerCase() !== column || t[i + 1]?.text.toUpperCase() !== "IN") continue;
    for (let j = i + 3; j < t.length && t[j]?.text !== ")"; j++) {
      const tok = t[j];
      if (tok?.kind === "number") out.add(Number(tok.value));
    }
  }
  return out;
}

const expiredFiles: ReadTemplate = {
  name: "maintenance.expired_table_files",
  matches: (s) => EXPIRED_FILE_FORMS.some((f) => f.shape === foldIn(s)),
  answer: async (ctx, stmt) => {
    const form = EXPIRED_FILE_FORMS.find((f) => f.shape === foldIn(shapeOf(stmt.tokens)));
    if (!form) throw new InvalidRequest("not an expired-files listing");
    const columns = [
      col(form.id, T.BIGINT),
      col("table_id", T.BIGINT),
      col("path", T.VARCHAR),
      col("path_is_relative", T.BOOLEAN),
    ];
    const view = ctx.view;
    if (!view) return { columns, rows: [] };
    const tables = inList(stmt, "table_id");
    const dataFiles = inList(stmt, "data_file_id");
    const snapshots = (await ducklakeTable(view, "ducklake_snapshot")).map((r) => Number(r.snapshot_id));
    const rows: SqlValue[][] = (await ducklakeTable(view, form.table))
      .filter((r) => {
        if (tables.has(Number(r.table_id))) return true;
        if (form.table === "ducklake_delete_file" && dataFiles.has(Number(r.data_file_id))) return true;
        if (r.end_snapshot === null) return false;
        const [b, e] = [Number(r.begin_snapshot), Number(r.end_snapshot)];
        return !snapshots.some((id) => id >= b && id < e);
      })
      .map((r) => [
        big(Number(r[form.id])),
        big(Number(r.table_id)),
        text(r, "path"),
        r.path_is_relative as boolean,
      ]);
    return { columns, rows };
  },
};

export const CLEANUP_READS: readonly ReadTemplate[] = [orphanListing, expiredFiles];
