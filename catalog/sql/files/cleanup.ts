/**
 * Lake-wide file listings of maintenance: expire_snapshots' listing of the files to schedule for deletion.
 * The orphan listing of `ducklake_delete_orphaned_files` is `orphan-listing.ts`.
 */
import { InvalidRequest } from "../../errors.ts";
import { ducklakeTable, type Row } from "../../reads/ducklake-tables.ts";
import { type Statement, shapeOf } from "../lexer.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import { big, col, shapeOfSql } from "./common.ts";

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

export const CLEANUP_READS: readonly ReadTemplate[] = [expiredFiles];
