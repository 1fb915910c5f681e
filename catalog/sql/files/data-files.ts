/**
 * A table's data-file listing with its delete files at a snapshot: what DuckLake sends to scan a table
 * (`scan`) and to find the files a DELETE/UPDATE touches (`delete scan`), each optionally narrowed by
 * filter pushdown over file column stats: `WITH col_N_stats AS MATERIALIZED (…)` CTEs and, per CTE, an
 * `AND (data.data_file_id NOT IN (SELECT … FROM col_N_stats) OR data.data_file_id IN (SELECT … WHERE
 * <predicate>))` clause. The CTEs and clauses are taken apart structurally; what remains must be exactly
 * one of the two base shapes.
 */

import { InvalidRequest } from "../../errors.ts";
import { shownRowIdStart } from "../../reads/ducklake-tables.ts";
import type { DataFileRecord, DeleteFileRecord, FileColumnStats } from "../../records.ts";
import { literalsOf, type Statement, shapeOf, type Token } from "../lexer.ts";
import type { ReadTemplate, SqlReadContext } from "../reads.ts";
import { type SqlColumn, type SqlResult, type SqlValue, T } from "../result.ts";
import { at, big, col, filesOf, shapeOfSql, visibleWhere } from "./common.ts";
import { type StatsPredicate, statsPredicate } from "./stats-filter.ts";

const SCAN_SQL = `SELECT data.data_file_id, data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, data.row_id_start, data.begin_snapshot, data.partial_max, data.mapping_id, del.path AS del_path, del.path_is_relative AS del_path_is_relative, del.file_size_bytes AS del_file_size_bytes, del.footer_size AS del_footer_size, del.format AS del_format
FROM "main".ducklake_data_file data
LEFT JOIN (
    SELECT *
    FROM "main".ducklake_delete_file
    WHERE table_id=1  AND 2 >= begin_snapshot
          AND (2 < end_snapshot OR end_snapshot IS NULL)
    ) del ON del.data_file_id = data.data_file_id
WHERE data.table_id=1 AND 2 >= data.begin_snapshot AND (2 < data.end_snapshot OR data.end_snapshot IS NULL)`;

const DELETE_SCAN_SQL = `SELECT data.data_file_id, del.delete_file_id, data.record_count, data.path AS data_path, data.path_is_relative AS data_path_is_relative, data.file_size_bytes AS data_file_size_bytes, data.footer_size AS data_footer_size, data.row_id_start, data.mapping_id, del.path AS del_path, del.path_is_relative AS del_path_is_relative, del.file_size_bytes AS del_file_size_bytes, del.footer_size AS del_footer_size, del.format AS del_format, del.begin_snapshot
FROM "main".ducklake_data_file data
LEFT JOIN (
    SELECT *
    FROM "main".ducklake_delete_file
    WHERE table_id=1  AND 2 >= begin_snapshot
          AND (2 < end_snapshot OR end_snapshot IS NULL)
    ) del USING (data_file_id)
WHERE data.table_id=1 AND 2 >= data.begin_snapshot AND (2 < data.end_snapshot OR data.end_snapshot IS NULL)`;

/** Every listing reads `FROM "main".ducklake_data_file data`: a cheap test before parsing. */
const FROM_DATA_FILE = shapeOfSql(`FROM "main".ducklake_data_file data`);
const STATS_CTE_TAIL = shapeOfSql(
  `FROM "main".ducklake_file_column_stats WHERE column_id = 1 AND table_id = 1`,
);
const STAT_COLUMNS = new Set(["value_count", "null_count", "min_value", "max_value", "contains_nan"]);

type Row = { f: DataFileRecord; d: DeleteFileRecord | null };

interface Listing {
  name: string;
  shape: string;
  columns: SqlColumn[];
  cells(r: Row): SqlValue[];
}

const fileCells = (f: DataFileRecord): SqlValue[] => [
  f.path,
  f.path_is_relative,
  big(f.file_size_bytes),
  big(f.footer_size),
];
const delCells = (d: DeleteFileRecord | null): SqlValue[] =>
  d
    ? [d.path, d.path_is_relative, big(d.file_size_bytes), big(d.footer_size), d.format]
    : [null, null, null, null, null];
const FILE_COLUMNS = [
  col("data_path", T.VARCHAR),
  col("data_path_is_relative", T.BOOLEAN),
  col("data_file_size_bytes", T.BIGINT),
  col("data_footer_size", T.BIGINT),
];
const DEL_COLUMNS = [
  col("del_path", T.VARCHAR),
  col("del_path_is_relative", T.BOOLEAN),
  col("del_file_size_bytes", T.BIGINT),
  col("del_footer_size", T.BIGINT),
  col("del_format", T.VARCHAR),
];

const LISTINGS: Listing[] = [
  {
    name: "files.scan",
    shape: shapeOfSql(SCAN_SQL),
    columns: [
      col("data_file_id", T.BIGINT),
      ...FILE_COLUMNS,
      col("row_id_start", T.BIGINT),
      col("begin_snapshot", T.BIGINT),
      col("partial_max", T.BIGINT),
      col("mapping_id", T.BIGINT),
      ...DEL_COLUMNS,
    ],
    cells: ({ f, d }) => [
      big(f.data_file_id),
      ...fileCells(f),
      big(shownRowIdStart(f)),
      big(f.begin_snapshot),
      big(f.partial_max),
      big(f.mapping_id),
      ...delCells(d),
    ],
  },
  {
    name: "files.delete_scan",
    shape: shapeOfSql(DELETE_SCAN_SQL),
    columns: [
      col("data_file_id", T.BIGINT),
      col("delete_file_id", T.BIGINT),
      col("record_count", T.BIGINT),
      ...FILE_COLUMNS,
      col("row_id_start", T.BIGINT),
      col("mapping_id", T.BIGINT),
      ...DEL_COLUMNS,
      col("begin_snapshot", T.BIGINT),
    ],
    cells: ({ f, d }) => [
      big(f.data_file_id),
      big(d?.delete_file_id),
      big(f.record_count),
      ...fileCells(f),
      big(shownRowIdStart(f)),
      big(f.mapping_id),
      ...delCells(d),
      big(d?.begin_snapshot),
    ],
  },
];

interface StatsFilter {
  cte: string;
  columnId: number;
  tableId: number;
  predicate: StatsPredicate;
}

interface Parsed {
  listing: Listing;
  /** The base statement's literals: delete table id, snapshot, snapshot, data table id, snapshot, snapshot. */
  literals: number[];
  filters: StatsFilter[];
}

const isOp = (t: Token | undefined, op: string): boolean => t?.kind === "op" && t.text === op;
const isWord = (t: Token | undefined, w: string): boolean =>
  (t?.kind === "word" || t?.kind === "quoted") && t.value.toLowerCase() === w.toLowerCase();

/** Index of the `)` closing the `(` at `open`, or -1. */
function closing(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isOp(tokens[i], "(")) depth++;
    else if (isOp(tokens[i], ")")) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function intOf(t: Token | undefined): number {
  const n = Number(t?.value);
  if (t?.kind !== "number" || !Number.isSafeInteger(n))
    throw new InvalidRequest("expected an integer literal");
  return n;
}

/** `col_N_stats AS MATERIALIZED ( SELECT data_file_id, <stats columns> FROM … WHERE column_id = ? AND table_id = ? )`. */
function parseCtes(
  tokens: readonly Token[],
): { ctes: Map<string, { columnId: number; tableId: number }>; rest: number } | null {
  const ctes = new Map<string, { columnId: number; tableId: number }>();
  if (!isWord(tokens[0], "WITH")) return { ctes, rest: 0 };
  let i = 1;
  for (;;) {
    const name = tokens[i];
    if (name?.kind !== "word" || !isWord(tokens[i + 1], "AS") || !isWord(tokens[i + 2], "MATERIALIZED"))
      return null;
    const open = i + 3;
    if (!isOp(tokens[open], "(")) return null;
    const close = closing(tokens, open);
    if (close < 0) return null;
    const body = tokens.slice(open + 1, close);
    if (!isWord(body[0], "SELECT") || !isWord(body[1], "data_file_id")) return null;
    let j = 2;
    while (isOp(body[j], ",") && body[j + 1] && STAT_COLUMNS.has((body[j + 1] as Token).value.toLowerCase()))
      j += 2;
    if (shapeOf(body.slice(j)) !== STATS_CTE_TAIL) return null;
    const lits = literalsOf(body.slice(j));
    ctes.set(name.value.toLowerCase(), { columnId: intOf(lits[0]), tableId: intOf(lits[1]) });
    i = close + 1;
    if (isOp(tokens[i], ",")) {
      i++;
      continue;
    }
    return { ctes, rest: i };
  }
}

const CLAUSE_HEAD = [
  "AND",
  "(",
  "data",
  ".",
  "data_file_id",
  "NOT",
  "IN",
  "(",
  "SELECT",
  "data_file_id",
  "FROM",
];
const CLAUSE_MID = [")", "OR", "data", ".", "data_file_id", "IN", "(", "SELECT", "data_file_id", "FROM"];

function matchesSeq(tokens: readonly Token[], i: number, seq: readonly string[]): boolean {
  return seq.every((s, k) => {
    const t = tokens[i + k];
    return /^\w+$/.test(s) ? isWord(t, s) : isOp(t, s);
  });
}

function parse(stmt: Statement): Parsed | null {
  const tokens = stmt.tokens;
  const head = parseCtes(tokens);
  if (!head) return null;
  const main: Token[] = [];
  const filters: StatsFilter[] = [];
  let i = head.rest;
  while (i < tokens.length) {
    if (head.ctes.size > 0 && matchesSeq(tokens, i, CLAUSE_HEAD)) {
      const open = i + 1;
      const close = closing(tokens, open);
      const cte = tokens[i + CLAUSE_HEAD.length];
      const mid = i + CLAUSE_HEAD.length + 1;
      const info = cte ? head.ctes.get(cte.value.toLowerCase()) : undefined;
      if (close < 0 || !cte || !info || !matchesSeq(tokens, mid, CLAUSE_MID)) return null;
      const cte2 = tokens[mid + CLAUSE_MID.length];
      if (!isWord(cte2, cte.value) || !isWord(tokens[mid + CLAUSE_MID.length + 1], "WHERE")) return null;
      const exprStart = mid + CLAUSE_MID.length + 2;
      // The IN subquery closes at close - 1, the clause at close.
      if (!isOp(tokens[close - 1], ")")) return null;
      filters.push({
        cte: cte.value.toLowerCase(),
        columnId: info.columnId,
        tableId: info.tableId,
        predicate: statsPredicate(tokens.slice(exprStart, close - 1)),
      });
      i = close + 1;
      continue;
    }
    main.push(tokens[i] as Token);
    i++;
  }
  if (filters.length !== head.ctes.size) return null;
  const shape = shapeOf(main);
  const listing = LISTINGS.find((l) => l.shape === shape);
  if (!listing) return null;
  return { listing, literals: literalsOf(main).map(intOf), filters };
}

function statsOf(f: DataFileRecord, columnId: number): FileColumnStats[] {
  return f.x_column_stats.filter((c) => c.column_id === columnId);
}

async function answer(ctx: SqlReadContext, p: Parsed): Promise<SqlResult> {
  const lits = p.literals;
  const delTable = at(lits, 0);
  const delS = at(lits, 1);
  const delS2 = at(lits, 2);
  const dataTable = at(lits, 3);
  const s = at(lits, 4);
  const s2 = at(lits, 5);
  const data = await filesOf(ctx, dataTable);
  const dels = (await filesOf(ctx, delTable)).delete_files.filter(
    (d) => d.table_id === delTable && visibleWhere(delS, delS2)(d),
  );
  const rows: SqlValue[][] = [];
  for (const f of data.data_files) {
    if (f.table_id !== dataTable || !visibleWhere(s, s2)(f)) continue;
    const pass = p.filters.every((flt) => {
      const stats = flt.tableId === f.table_id ? statsOf(f, flt.columnId) : [];
      return stats.length === 0 || stats.some(flt.predicate);
    });
    if (!pass) continue;
    const matched = dels.filter((d) => d.data_file_id === f.data_file_id);
    if (matched.length === 0) rows.push(p.listing.cells({ f, d: null }));
    for (const d of matched) rows.push(p.listing.cells({ f, d }));
  }
  return { columns: p.listing.columns, rows };
}

function template(listing: Listing): ReadTemplate {
  return {
    name: listing.name,
    matches: (shape, stmt) => shape.includes(FROM_DATA_FILE) && parse(stmt)?.listing === listing,
    answer: (ctx, stmt) => {
      const p = parse(stmt);
      if (!p) throw new InvalidRequest(`statement is not ${listing.name}`);
      return answer(ctx, p);
    },
  };
}

export const DATA_FILE_READS: readonly ReadTemplate[] = LISTINGS.map(template);
