/**
 * What every metadata read template shares: recognition by the shape of DuckLake's own statement text,
 * typed access to a statement's literals, and the `ducklake_*` rows of a request's cut, loaded once per
 * request (`ctx.memo`) from the catalog's row-faithful reader (`catalog/reads/ducklake-tables.ts`).
 * Templates then evaluate DuckLake's SQL over those rows exactly as DuckDB would (decision record
 * `docs/decisions/0210-quack-metadata-reads.md`).
 */
import type { ReadView } from "../../../storage/api.ts";
import { InvalidRequest, NotFound } from "../../errors.ts";
import { type Cell, ducklakeTable, type Row } from "../../reads/ducklake-tables.ts";
import { visibleAt } from "../../reads/versions.ts";
import { literalsOf, type Statement, shapeOf, tokenize } from "../lexer.ts";
import type { ReadTemplate, SqlReadContext } from "../reads.ts";
import type { SqlColumn, SqlResult, SqlValue } from "../result.ts";

/**
 * A template recognised by exact shape equality with one statement DuckLake 1.5.5 sends (the example
 * text, copied from the capture): literals are free, everything else must be identical.
 */
export function byShape(
  name: string,
  example: string,
  answer: (ctx: SqlReadContext, stmt: Statement) => Promise<SqlResult>,
): ReadTemplate {
  const shape = shapeOf(tokenize(example));
  return { name, matches: (s) => s === shape, answer };
}

/** The lake's cut, or NotFound when the lake does not exist yet (only catalog-load templates answer then). */
export function requireView(ctx: SqlReadContext): ReadView {
  if (ctx.view === null) throw new NotFound("this lake holds no catalog yet; only ATTACH's probes answer");
  return ctx.view;
}

/** The i-th literal of a statement as written (string literal decoded). */
export function literal(stmt: Statement, i: number): string {
  const t = literalsOf(stmt.tokens)[i];
  if (!t) throw new InvalidRequest(`statement has no literal number ${i + 1}`);
  return t.value;
}

/** The i-th literal as the integer DuckLake writes there (an id or a snapshot). */
export function intLiteral(stmt: Statement, i: number): number {
  const text = literal(stmt, i);
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n)) {
    throw new InvalidRequest(`literal ${JSON.stringify(text.slice(0, 40))} is not an integer id`);
  }
  return n;
}

/** The i-th literal's source text (what DuckDB names a literal select-list column after). */
export function literalText(stmt: Statement, i: number): string {
  const t = literalsOf(stmt.tokens)[i];
  if (!t) throw new InvalidRequest(`statement has no literal number ${i + 1}`);
  return t.text;
}

/**
 * What `load` reads from the cut, once per request and, with a cut memo, once per cut: a value loaded
 * by an earlier request at the same published cut is reused. Only settled values are shared between
 * requests, never a pending promise: a Worker must not await another request's I/O (if that request is
 * cancelled, its I/O is too). A failed load is not kept for later requests. Values are shared: callers
 * must treat them as read-only.
 */
export function memoised<T>(ctx: SqlReadContext, key: string, load: () => Promise<T>): Promise<T> {
  const own = ctx.memo.get(key) as Promise<T> | undefined;
  if (own) return own;
  const cutMemo = ctx.cutMemo;
  const shared = cutMemo?.get(key) as { value: T } | undefined;
  const loading = shared ? Promise.resolve(shared.value) : load();
  ctx.memo.set(key, loading);
  if (cutMemo && !shared) {
    loading.then(
      (value) => cutMemo.set(key, { value }),
      () => {},
    );
  }
  return loading;
}

/**
 * Rows of one `ducklake_*` table as the cut's head holds them (every version, ended ones with their
 * end_snapshot): one range scan per record kind, read once per cut (`memoised`). Frozen: shared.
 */
export function rowsOf(ctx: SqlReadContext, table: string): Promise<readonly Row[]> {
  const view = requireView(ctx);
  return memoised(ctx, `metadata-reads:${table}`, async () =>
    Object.freeze((await ducklakeTable(view, table)).map((r) => Object.freeze(r))),
  );
}

/**
 * DuckLake's visibility rule (`catalog/reads/versions.ts` `visibleAt`, its one home) for a `ducklake_*`
 * row, whose cells are untyped: a row without integer snapshot bounds is never visible.
 */
export function rowVisibleAt(row: Row, s: number): boolean {
  const begin = row.begin_snapshot;
  const end = row.end_snapshot;
  if (typeof begin !== "number" || (end !== null && typeof end !== "number")) return false;
  return visibleAt({ begin_snapshot: begin, end_snapshot: end }, s);
}

/** A BIGINT cell as its SqlValue. */
export function big(cell: Cell | undefined): SqlValue {
  if (cell === null || cell === undefined) return null;
  if (typeof cell !== "number") throw new InvalidRequest(`expected an integer, found ${typeof cell}`);
  return BigInt(cell);
}

/** A VARCHAR / BOOLEAN / UUID cell as its SqlValue (same JS representation). */
export function cell(c: Cell | undefined): SqlValue {
  return c === undefined ? null : c;
}

/** LIST(...) over zero rows is NULL in DuckDB, not an empty list. */
export function listOrNull(items: SqlValue[]): SqlValue {
  return items.length === 0 ? null : items;
}

export function result(columns: readonly SqlColumn[], rows: SqlValue[][]): SqlResult {
  return { columns, rows };
}

/** Numeric ascending with NULLS LAST (DuckDB's default ORDER BY), for ids. */
export function compareIds(a: Cell | undefined, b: Cell | undefined): number {
  const x = a ?? null;
  const y = b ?? null;
  if (x === y) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  return (x as number) - (y as number);
}

const TIMESTAMP_LITERAL =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A TIMESTAMPTZ literal (what DuckLake writes, e.g. `2026-12-01T07:05:43.705537+00`) as microseconds since
 * the epoch. No offset means UTC: the server's time zone (a Worker has no other).
 */
export function timestamptzMicros(text: string): bigint {
  const m = TIMESTAMP_LITERAL.exec(text.trim());
  if (!m) throw new InvalidRequest(`${JSON.stringify(text.slice(0, 60))} is not a timestamp DuckLake writes`);
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", zone = ""] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  let micros = BigInt(ms) * 1000n + BigInt(frac.padEnd(6, "0").slice(0, 6) || "0");
  const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (z) {
    const offset = (Number(z[2]) * 60 + Number(z[3] ?? "0")) * 60_000_000;
    micros -= BigInt(z[1] === "-" ? -offset : offset);
  }
  return micros;
}

/** The snapshot a catalog-load template reads at: its first number literal (`S >= begin_snapshot ...`). */
export function snapshotLiteral(stmt: Statement): number {
  const t = literalsOf(stmt.tokens).find((x) => x.kind === "number");
  if (!t) throw new InvalidRequest("statement names no snapshot");
  const n = Number(t.value);
  if (!Number.isSafeInteger(n)) throw new InvalidRequest(`snapshot ${t.value.slice(0, 40)} is not an id`);
  return n;
}

/** `{key, value}` tag structs of the tag rows visible at S, or NULL when there are none. */
export function tagList(rows: readonly Row[], s: number): SqlValue {
  return listOrNull(
    rows.filter((r) => rowVisibleAt(r, s)).map((r) => ({ key: cell(r.key), value: cell(r.value) })),
  );
}

/** Stored records as rows: their fields are DuckLake's column names (`catalog/records.ts`). */
export function asRows(records: readonly object[]): Row[] {
  return records as unknown as Row[];
}
