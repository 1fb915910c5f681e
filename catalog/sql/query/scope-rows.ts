/**
 * Column resolution and row helpers of the metadata-query evaluator (decision 0420): a column by
 * (qualifier, name) with DuckDB's ambiguity rules, USING columns, NULL outer rows, DISTINCT.
 */
import type { SqlValue } from "../result.ts";
import type { Expr } from "./ast.ts";
import { type Col, type Env, refuse, type Scope } from "./evaluator-model.ts";
import { keyOf } from "./values.ts";

/** A column's index in `cols` by (qualifier, name), case-insensitively; ambiguity is refused. */
export function resolve(cols: Col[], e: Expr & { k: "col" }): number | undefined {
  const name = e.name.toLowerCase();
  const qual = e.qual?.toLowerCase();
  let found: number | undefined;
  let hiddenFound: number | undefined;
  cols.forEach((c, i) => {
    if (c.name.toLowerCase() !== name) return;
    if (qual !== undefined && c.qual?.toLowerCase() !== qual) return;
    if (qual === undefined && (c as Col & { usingHidden?: boolean }).usingHidden) {
      hiddenFound = i;
      return;
    }
    if (found !== undefined) throw refuse(`ambiguous column ${e.qual ? `${e.qual}.` : ""}${e.name}`);
    found = i;
  });
  return found ?? (qual === undefined ? undefined : hiddenFound);
}

export function findUnique(cols: Col[], name: string): number {
  const hits = cols.flatMap((c, i) =>
    c.name.toLowerCase() === name.toLowerCase() && !(c as Col & { usingHidden?: boolean }).usingHidden
      ? [i]
      : [],
  );
  if (hits.length > 1) throw refuse(`ambiguous USING column ${name}`);
  return hits[0] ?? -1;
}

export function nullEnv(scope: Scope | undefined): Env | undefined {
  if (!scope) return undefined;
  return { row: scope.cols.map(() => null), outer: nullEnv(scope.outer) };
}

export function distinctRows(rows: SqlValue[][]): SqlValue[][] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = r.map(keyOf).join("\u0000");
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
