/**
 * Reads of a table's inlined rows (`ducklake_inlined_data_<table>_<schema_version>`): DuckLake selects a
 * varying column list `<column> AS colK, …` (user columns and row_id/begin_snapshot/end_snapshot, in the
 * order the scan needs), matched structurally, under one of four snapshot conditions; and row counts.
 * Columns answer with their DuckDB types, values through `inlined-values.ts`.
 */
import { InvalidRequest } from "../../errors.ts";
import type { InlinedTable, InlinedRow as Row } from "../../reads/inlined-tables.ts";

import { literalsOf, type Statement, shapeOf, type Token } from "../lexer.ts";
import type { ReadTemplate } from "../reads.ts";
import { type SqlColumn, type SqlValue, T } from "../result.ts";
import {
  at,
  col,
  inlinedColumnType,
  inlinedNameIn,
  intLiterals,
  requireInlined,
  shapeOfSql,
  visibleWhere,
} from "./common.ts";
import { storedSqlValue } from "./inlined-values.ts";

type Cond = (r: Row, lits: readonly number[]) => boolean;

const n = (v: Row[string] | undefined): number | null => (typeof v === "number" ? v : null);
const begin = (r: Row): number => n(r.begin_snapshot) ?? 0;
const end = (r: Row): number | null => n(r.end_snapshot);

interface Tail {
  name: string;
  shape: string;
  cond: Cond;
  /** Sort keys: row_id, then begin_snapshot when asked. */
  order: "row_id" | "row_id,begin_snapshot" | null;
}

const FROM = `FROM "main".ducklake_inlined_data_1_1 inlined_data WHERE`;
const TAILS: Tail[] = [
  {
    name: "inlined.rows_at",
    shape: shapeOfSql(
      `${FROM} 2 >= begin_snapshot AND (2 < end_snapshot OR end_snapshot IS NULL) ORDER BY row_id`,
    ),
    cond: (r, l) => visibleWhere(at(l, 0), at(l, 1))({ begin_snapshot: begin(r), end_snapshot: end(r) }),
    order: "row_id",
  },
  {
    name: "inlined.rows_ended_between",
    shape: shapeOfSql(`${FROM} inlined_data.end_snapshot >= 1 AND inlined_data.end_snapshot <= 2`),
    cond: (r, l) => end(r) !== null && (end(r) as number) >= at(l, 0) && (end(r) as number) <= at(l, 1),
    order: null,
  },
  {
    name: "inlined.rows_begun_between",
    shape: shapeOfSql(`${FROM} inlined_data.begin_snapshot >= 1 AND inlined_data.begin_snapshot <= 2`),
    cond: (r, l) => begin(r) >= at(l, 0) && begin(r) <= at(l, 1),
    order: null,
  },
  {
    name: "inlined.rows_through",
    shape: shapeOfSql(`${FROM} 2 >= begin_snapshot ORDER BY row_id, begin_snapshot`),
    cond: (r, l) => at(l, 0) >= begin(r),
    order: "row_id,begin_snapshot",
  },
];

interface Projection {
  columns: string[];
  tail: Tail;
  /** Tokens after the column list. */
  rest: Token[];
}

/** `SELECT c1 AS col1, c2 AS col2, … FROM …`: the selected columns and the tail template. */
function project(stmt: Statement): Projection | null {
  const t = stmt.tokens;
  if (!(t[0]?.kind === "word" && t[0].value.toUpperCase() === "SELECT")) return null;
  const columns: string[] = [];
  let i = 1;
  for (;;) {
    const c = t[i];
    const as = t[i + 1];
    const alias = t[i + 2];
    if (!c || (c.kind !== "word" && c.kind !== "quoted") || as?.value.toUpperCase() !== "AS") return null;
    if (alias?.kind !== "word" || alias.value !== `col${columns.length + 1}`) return null;
    columns.push(c.value);
    i += 3;
    if (t[i]?.kind === "op" && t[i]?.text === ",") {
      i++;
      continue;
    }
    break;
  }
  const rest = t.slice(i);
  const shape = shapeOf(rest);
  const tail = TAILS.find((x) => x.shape === shape);
  return tail ? { columns, tail, rest } : null;
}

function cellsOf(table: InlinedTable, columns: string[]): { cols: SqlColumn[]; get: (r: Row) => SqlValue[] } {
  const types = columns.map((c) => {
    const type = inlinedColumnType(table, c);
    if (!type) throw new InvalidRequest(`the inlined table has no column ${JSON.stringify(c)}`);
    return type;
  });
  const nodes = columns.map((c) => table.types[table.columns.findIndex(([name]) => name === c)]);
  return {
    cols: columns.map((_c, k) => col(`col${k + 1}`, types[k] ?? T.SQLNULL)),
    get: (r) => columns.map((c, k) => storedSqlValue(types[k] ?? T.SQLNULL, nodes[k], r[c] ?? null)),
  };
}

function sortRows(rows: Row[], order: Tail["order"]): Row[] {
  if (!order) return [...rows].sort((a, b) => (n(a.row_id) ?? 0) - (n(b.row_id) ?? 0));
  return [...rows].sort((a, b) => (n(a.row_id) ?? 0) - (n(b.row_id) ?? 0) || begin(a) - begin(b));
}

function rowsTemplate(tail: Tail): ReadTemplate {
  return {
    name: tail.name,
    matches: (shape, stmt) =>
      shape.startsWith("SELECT ") &&
      shape.includes("ducklake_inlined_data_N_N") &&
      project(stmt)?.tail === tail,
    answer: async (ctx, stmt) => {
      const p = project(stmt);
      if (!p) throw new InvalidRequest(`statement is not ${tail.name}`);
      const table = await requireInlined(ctx, inlinedNameIn(stmt, "data"));
      const lits = literalsOf(p.rest).map((x) => Number(x.value));
      const { cols, get } = cellsOf(table, p.columns);
      const rows = sortRows(
        table.rows.filter((r) => tail.cond(r, lits)),
        tail.order,
      );
      return { columns: cols, rows: rows.map(get) };
    },
  };
}

const COUNT_ALL = shapeOfSql(`SELECT COUNT(*) FROM "main".ducklake_inlined_data_1_1`);
const COUNT_AT = shapeOfSql(
  `SELECT COUNT(*) FROM "main".ducklake_inlined_data_1_1 WHERE 2 >= begin_snapshot AND (2 < end_snapshot OR end_snapshot IS NULL)`,
);

const countTemplate = (name: string, shape: string, cond: Cond): ReadTemplate => ({
  name,
  matches: (s) => s === shape,
  answer: async (ctx, stmt) => {
    const table = await requireInlined(ctx, inlinedNameIn(stmt, "data"));
    const lits = intLiterals(stmt);
    return {
      columns: [col("count_star()", T.BIGINT)],
      rows: [[BigInt(table.rows.filter((r) => cond(r, lits)).length)]],
    };
  },
});

/**
 * `WITH all_rows AS (SELECT end_snapshot, ROW_NUMBER() OVER (ORDER BY row_id, begin_snapshot) - ? AS
 * output_position … WHERE ? >= begin_snapshot) SELECT … WHERE end_snapshot IS NOT NULL AND
 * output_position >= ? AND output_position < ?`: which flushed rows were deleted, by output position.
 */
const ENDED_POSITIONS = shapeOfSql(`WITH all_rows AS (
  SELECT end_snapshot, ROW_NUMBER() OVER (ORDER BY row_id ASC NULLS LAST, begin_snapshot ASC NULLS LAST) - 1 AS output_position
  FROM "main".ducklake_inlined_data_1_1
  WHERE 2 >= begin_snapshot
) SELECT end_snapshot, output_position FROM all_rows WHERE end_snapshot IS NOT NULL AND output_position >= 0 AND output_position < 10`);

const endedPositions: ReadTemplate = {
  name: "inlined.ended_positions",
  matches: (s) => s === ENDED_POSITIONS,
  answer: async (ctx, stmt) => {
    const table = await requireInlined(ctx, inlinedNameIn(stmt, "data"));
    const [minus, s, lo, hi] = [0, 1, 2, 3].map((k) => at(intLiterals(stmt), k)) as [
      number,
      number,
      number,
      number,
    ];
    const rows = sortRows(
      table.rows.filter((r) => s >= begin(r)),
      "row_id,begin_snapshot",
    );
    const out: SqlValue[][] = [];
    rows.forEach((r, k) => {
      const pos = k + 1 - minus;
      if (end(r) !== null && pos >= lo && pos < hi) out.push([BigInt(end(r) as number), BigInt(pos)]);
    });
    return { columns: [col("end_snapshot", T.BIGINT), col("output_position", T.BIGINT)], rows: out };
  },
};

export const INLINED_DATA_READS: readonly ReadTemplate[] = [
  ...TAILS.map(rowsTemplate),
  countTemplate("inlined.count", COUNT_ALL, () => true),
  countTemplate("inlined.count_at", COUNT_AT, (r, l) =>
    visibleWhere(at(l, 0), at(l, 1))({ begin_snapshot: begin(r), end_snapshot: end(r) }),
  ),
  endedPositions,
];
