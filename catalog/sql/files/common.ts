/**
 * What the file and row read templates share: the statement's literals, the catalog loads they answer
 * from (memoised per request in `SqlReadContext.memo`, so the statements of one request load a table's
 * files once), and the inlined table a statement names (stock's missing-table error when it does not exist).
 */
import { InvalidRequest, MissingRelation } from "../../errors.ts";
import { type InlinedTable, inlinedTableNamed } from "../../reads/inlined-tables.ts";
import { type TableFileRows, tableFileRows } from "../../reads/table-files.ts";
import { visibleIn } from "../../reads/versions.ts";
import { literalsOf, type Statement, shapeOf, tokenize } from "../lexer.ts";
import type { SqlReadContext } from "../reads.ts";
import type { SqlColumn, SqlType, SqlValue } from "../result.ts";
import { sqlTypeOf } from "./inlined-values.ts";

/** The shape of a template's SQL text (written in code with example literals). */
export function shapeOfSql(sql: string): string {
  return shapeOf(tokenize(sql));
}

/** The statement's literals as integers (ids and snapshot ids), in order. */
export function intLiterals(stmt: Statement): number[] {
  return literalsOf(stmt.tokens).map((t) => {
    const n = Number(t.value);
    if (t.kind !== "number" || !Number.isSafeInteger(n)) {
      throw new InvalidRequest(`expected an integer literal, found ${t.text}`);
    }
    return n;
  });
}

/**
 * The statement's integer literals where some are open bounds (DuckLake writes INT64's maximum for "no
 * end"): integers beyond 2^53 become the nearest double, still above every snapshot id.
 */
export function boundLiterals(stmt: Statement): number[] {
  return literalsOf(stmt.tokens).map((t) => {
    if (t.kind !== "number" || !/^\d+$/.test(t.value)) {
      throw new InvalidRequest(`expected an integer literal, found ${t.text}`);
    }
    return Number(t.value);
  });
}

/** The literal at `i`, or a typed error naming the template when the statement has fewer. */
export function at(values: readonly number[], i: number): number {
  const v = values[i];
  if (v === undefined) throw new InvalidRequest(`statement has ${values.length} literals, expected more`);
  return v;
}

async function memo<T>(ctx: SqlReadContext, key: string, load: () => Promise<T>): Promise<T> {
  if (ctx.memo.has(key)) return ctx.memo.get(key) as T;
  const value = await load();
  ctx.memo.set(key, value);
  return value;
}

/** One table's data and delete file rows at the cut's head (empty before the lake exists). */
export function filesOf(ctx: SqlReadContext, tableId: number): Promise<TableFileRows> {
  const view = ctx.view;
  // A transaction-local id (DuckLake numbers a table created in the open transaction from 2^63) names no
  // committed table: stock's catalog holds no row for it (decision 0732).
  if (!view || !Number.isSafeInteger(tableId))
    return Promise.resolve({ snapshot_id: 0, data_files: [], delete_files: [] });
  return memo(ctx, `files:table:${tableId}`, () => tableFileRows(view, tableId));
}

/** An inlined-data or inlined-delete table at the cut's head, or null when it does not exist. */
function inlinedOf(ctx: SqlReadContext, name: string): Promise<InlinedTable | null> {
  const view = ctx.view;
  if (!view) return Promise.resolve(null);
  return memo(ctx, `files:inlined:${name}`, async () => {
    const table = await inlinedTableNamed(view, name);
    const upTo = ctx.flushHidden ? (await ctx.flushHidden()).get(name) : undefined;
    if (table === null || upTo === undefined) return table;
    // This connection flushed these rows in a transaction not committed yet (decision 0440).
    return {
      ...table,
      rows: table.rows.filter((r) => !(typeof r.begin_snapshot === "number" && r.begin_snapshot <= upTo)),
    };
  });
}

/** The inlined table a statement names, or stock's missing-table error. */
export async function requireInlined(ctx: SqlReadContext, name: string): Promise<InlinedTable> {
  const table = await inlinedOf(ctx, name);
  if (!table) throw new MissingRelation(name);
  return table;
}

/** The name of the first inlined table a statement mentions. */
export function inlinedNameIn(stmt: Statement, kind: "data" | "delete"): string {
  const re = kind === "data" ? /^ducklake_inlined_data_\d+_\d+$/i : /^ducklake_inlined_delete_\d+$/i;
  const tok = stmt.tokens.find((t) => (t.kind === "word" || t.kind === "quoted") && re.test(t.value));
  if (!tok) throw new InvalidRequest(`statement names no ducklake_inlined_${kind} table`);
  return tok.value.toLowerCase();
}

/** The table id in `ducklake_inlined_delete_<id>` / `ducklake_inlined_data_<id>_<sv>`. */
export function tableIdOfInlined(name: string): number {
  return Number(/_(\d+)(?:_\d+)?$/.exec(name)?.[1] ?? Number.NaN);
}

/** An inlined table's column by name: its SqlType. */
export function inlinedColumnType(table: InlinedTable, column: string): SqlType | undefined {
  const c = table.columns.find(([n]) => n === column);
  return c ? sqlTypeOf(c[1]) : undefined;
}

export const col = (name: string, type: SqlType): SqlColumn => ({ name, type });

/** A BIGINT cell from a catalog number (ids, counts, snapshot ids), NULL kept. */
export function big(n: number | null | undefined): SqlValue {
  return n === null || n === undefined ? null : BigInt(n);
}

/**
 * DuckLake's visibility rule (`catalog/reads/versions.ts` `visibleIn`, its one home) as a filter, with
 * each literal of `S >= begin_snapshot AND (S2 < end_snapshot OR end_snapshot IS NULL)` from its own slot.
 */
export function visibleWhere(s: number, s2: number = s) {
  return (rec: { begin_snapshot: number; end_snapshot: number | null }): boolean => visibleIn(rec, s, s2);
}
