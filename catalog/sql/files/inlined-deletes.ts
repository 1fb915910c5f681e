/**
 * Reads of `ducklake_inlined_delete_<table>` (positions deleted from Parquet files without a delete
 * file): DuckLake's existence probe (which must fail as stock fails when the table does not exist), the
 * positions visible at a snapshot, the files among a list that have any, and a table's live row count.
 */
import { InvalidRequest } from "../../errors.ts";
import type { InlinedRow as Row } from "../../reads/inlined-tables.ts";
import type { ReadTemplate, SqlReadContext } from "../reads.ts";
import { type SqlValue, T } from "../result.ts";
import {
  at,
  col,
  filesOf,
  inlinedNameIn,
  intLiterals,
  requireInlined,
  shapeOfSql,
  visibleWhere,
} from "./common.ts";

const num = (v: Row[string] | undefined): number => (typeof v === "number" ? v : Number.NaN);

/** Most rows the probe's LIMIT may ask for (DuckLake asks for 1). */
export const MAX_PROBE_ROWS = 10_000;

const PROBE = shapeOfSql(`SELECT NULL FROM "main".ducklake_inlined_delete_1 LIMIT 1`);
const probe: ReadTemplate = {
  name: "inlined_delete.probe",
  matches: (s) => s === PROBE,
  answer: async (ctx, stmt) => {
    const table = await requireInlined(ctx, inlinedNameIn(stmt, "delete"));
    const limit = at(intLiterals(stmt), 0);
    if (limit > MAX_PROBE_ROWS)
      throw new InvalidRequest(`LIMIT ${limit} exceeds ${MAX_PROBE_ROWS} for the probe`);
    const rows: SqlValue[][] = table.rows.slice(0, limit).map(() => [null]);
    return { columns: [col("NULL", T.INTEGER)], rows };
  },
};

const POSITIONS = shapeOfSql(
  `SELECT file_id, row_id FROM "main".ducklake_inlined_delete_1 WHERE begin_snapshot <= 2`,
);
const positions: ReadTemplate = {
  name: "inlined_delete.positions",
  matches: (s) => s === POSITIONS,
  answer: async (ctx, stmt) => {
    const table = await requireInlined(ctx, inlinedNameIn(stmt, "delete"));
    const s = at(intLiterals(stmt), 0);
    const rows = table.rows
      .filter((r) => num(r.begin_snapshot) <= s)
      .sort((a, b) => num(a.file_id) - num(b.file_id) || num(a.row_id) - num(b.row_id))
      .map((r) => [BigInt(num(r.file_id)), BigInt(num(r.row_id))]);
    return { columns: [col("file_id", T.BIGINT), col("row_id", T.BIGINT)], rows };
  },
};

/** `… WHERE file_id IN (?, …) AND begin_snapshot <= ?`: the list's length varies, so match its frame. */
const FILES_WITH_DELETES_HEAD = shapeOfSql(
  `SELECT DISTINCT file_id FROM "main".ducklake_inlined_delete_1 WHERE file_id IN (`,
);
const FILES_WITH_DELETES_TAIL = shapeOfSql(`) AND begin_snapshot <= 2`);
function inList(shape: string): boolean {
  if (!shape.startsWith(`${FILES_WITH_DELETES_HEAD} `) || !shape.endsWith(` ${FILES_WITH_DELETES_TAIL}`))
    return false;
  const list = shape
    .slice(FILES_WITH_DELETES_HEAD.length, shape.length - FILES_WITH_DELETES_TAIL.length)
    .trim();
  return /^\?( , \?)*$/.test(list);
}
const filesWithDeletes: ReadTemplate = {
  name: "inlined_delete.files_with_deletes",
  matches: inList,
  answer: async (ctx, stmt) => {
    const table = await requireInlined(ctx, inlinedNameIn(stmt, "delete"));
    const lits = intLiterals(stmt);
    const s = at(lits, lits.length - 1);
    const ids = new Set(lits.slice(0, -1));
    const found = [
      ...new Set(
        table.rows
          .filter((r) => ids.has(num(r.file_id)) && num(r.begin_snapshot) <= s)
          .map((r) => num(r.file_id)),
      ),
    ].sort((a, b) => a - b);
    return { columns: [col("file_id", T.BIGINT)], rows: found.map((id) => [BigInt(id)]) };
  },
};

/**
 * The table's row count at a snapshot: data files' records minus delete files' deletes minus inlined
 * file deletes (on visible files); the last term is the literal 0 while no inlined-delete table exists.
 * Stock names the column by DuckDB's rendering of the expression, reproduced here from the literals.
 */
const COUNT_BASE = `SELECT COALESCE((SELECT SUM(record_count) FROM "main".ducklake_data_file WHERE table_id = 1 AND 2 >= begin_snapshot AND (2 < end_snapshot OR end_snapshot IS NULL)), 0) - COALESCE((SELECT SUM(del.delete_count) FROM "main".ducklake_delete_file del JOIN "main".ducklake_data_file data ON del.data_file_id = data.data_file_id WHERE del.table_id = 1 AND 2 >= del.begin_snapshot AND (2 < del.end_snapshot OR del.end_snapshot IS NULL) AND 2 >= data.begin_snapshot AND (2 < data.end_snapshot OR data.end_snapshot IS NULL)), 0) - `;
const COUNT_NO_INLINED = shapeOfSql(`${COUNT_BASE}0`);
const COUNT_INLINED = shapeOfSql(
  `${COUNT_BASE}COALESCE((SELECT COUNT(*) FROM "main".ducklake_inlined_delete_1 del JOIN "main".ducklake_data_file data ON del.file_id = data.data_file_id WHERE del.begin_snapshot <= 2 AND data.table_id = 1 AND 2 >= data.begin_snapshot AND (2 < data.end_snapshot OR data.end_snapshot IS NULL)), 0)`,
);

async function rowCount(
  ctx: SqlReadContext,
  lits: number[],
  inlinedName: string | null,
): Promise<{ value: bigint; name: string }> {
  const [t, s1, s2, c1, dt, d1, d2, d3, d4, d5, d6] = lits as number[];
  const files = await filesOf(ctx, t ?? -1);
  const records = files.data_files
    .filter((f) => f.table_id === t && visibleWhere(s1 ?? 0, s2 ?? 0)(f))
    .reduce((a, f) => a + BigInt(f.record_count), 0n);
  const delFiles = await filesOf(ctx, dt ?? -1);
  const dataById = new Map(delFiles.data_files.map((f) => [f.data_file_id, f]));
  const deleted = delFiles.delete_files
    .filter((d) => d.table_id === dt && visibleWhere(d1 ?? 0, d2 ?? 0)(d))
    .filter((d) => {
      const f = dataById.get(d.data_file_id);
      return f !== undefined && visibleWhere(d3 ?? 0, d4 ?? 0)(f);
    })
    .reduce((a, d) => a + BigInt(d.delete_count), 0n);
  const sum = `(COALESCE((SELECT sum(record_count) FROM main.ducklake_data_file WHERE ((table_id = ${t}) AND (${s1} >= begin_snapshot) AND ((${s2} < end_snapshot) OR (end_snapshot IS NULL)))), ${c1}) - COALESCE((SELECT sum(del.delete_count) FROM main.ducklake_delete_file AS del INNER JOIN main.ducklake_data_file AS "data" ON ((del.data_file_id = "data".data_file_id)) WHERE ((del.table_id = ${dt}) AND (${d1} >= del.begin_snapshot) AND ((${d2} < del.end_snapshot) OR (del.end_snapshot IS NULL)) AND (${d3} >= "data".begin_snapshot) AND ((${d4} < "data".end_snapshot) OR ("data".end_snapshot IS NULL)))), ${d5}))`;
  if (inlinedName === null) {
    return { value: records - deleted - BigInt(d6 ?? 0), name: `(${sum} - ${d6})` };
  }
  const [, , , , , , , , , , i1, it, i2, i3, i4] = lits as number[];
  const table = await requireInlined(ctx, inlinedName);
  const itFiles = await filesOf(ctx, it ?? -1);
  const itById = new Map(itFiles.data_files.map((f) => [f.data_file_id, f]));
  const inlinedDeleted = table.rows.filter((r) => {
    const f = itById.get(num(r.file_id));
    return (
      num(r.begin_snapshot) <= (i1 ?? 0) &&
      f !== undefined &&
      f.table_id === it &&
      visibleWhere(i2 ?? 0, i3 ?? 0)(f)
    );
  }).length;
  const name = `(${sum} - COALESCE((SELECT count_star() FROM main.${inlinedName} AS del INNER JOIN main.ducklake_data_file AS "data" ON ((del.file_id = "data".data_file_id)) WHERE ((del.begin_snapshot <= ${i1}) AND ("data".table_id = ${it}) AND (${i2} >= "data".begin_snapshot) AND ((${i3} < "data".end_snapshot) OR ("data".end_snapshot IS NULL)))), ${i4}))`;
  return { value: records - deleted - BigInt(inlinedDeleted), name };
}

const rowCountTemplate = (name: string, shape: string, inlined: boolean): ReadTemplate => ({
  name,
  matches: (s) => s === shape,
  answer: async (ctx, stmt) => {
    const { value, name: column } = await rowCount(
      ctx,
      intLiterals(stmt),
      inlined ? inlinedNameIn(stmt, "delete") : null,
    );
    return { columns: [col(column, { id: "HUGEINT" })], rows: [[value]] };
  },
});

export const INLINED_DELETE_READS: readonly ReadTemplate[] = [
  probe,
  positions,
  filesWithDeletes,
  rowCountTemplate("files.row_count", COUNT_NO_INLINED, false),
  rowCountTemplate("files.row_count_with_inlined_deletes", COUNT_INLINED, true),
];
