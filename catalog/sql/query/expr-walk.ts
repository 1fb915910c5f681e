/**
 * Walks over parsed expressions the evaluator needs before compiling them (decision 0420): which hold
 * aggregates or windows, structural equality (GROUP BY matching), a literal's source text, AND-splitting.
 */
import type { Expr } from "./ast.ts";

export const AGGREGATES = new Set([
  "count",
  "sum",
  "min",
  "max",
  "list",
  "array_agg",
  "string_agg",
  "bool_or",
  "bool_and",
  "avg",
  "any_value",
  "first",
]);
export const WINDOW_ONLY = new Set(["row_number", "lead", "lag", "rank", "dense_rank"]);

export function hasAggregate(e: Expr): boolean {
  switch (e.k) {
    case "fn":
      if (e.over) return e.args.some(hasAggregate);
      if (AGGREGATES.has(e.name)) return true;
      return e.args.some(hasAggregate);
    case "not":
    case "neg":
    case "isnull":
    case "cast":
      return hasAggregate(e.e);
    case "bin":
      return hasAggregate(e.l) || hasAggregate(e.r);
    case "between":
      return hasAggregate(e.e) || hasAggregate(e.lo) || hasAggregate(e.hi);
    case "in":
      return hasAggregate(e.e) || (e.list ?? []).some(hasAggregate);
    case "case":
      return (
        (e.operand !== undefined && hasAggregate(e.operand)) ||
        e.whens.some(([a, b]) => hasAggregate(a) || hasAggregate(b)) ||
        (e.otherwise !== undefined && hasAggregate(e.otherwise))
      );
    case "struct":
      return e.fields.some(([, x]) => hasAggregate(x));
    case "like":
      return hasAggregate(e.e) || hasAggregate(e.pattern);
    default:
      return false;
  }
}

export function collectWindows(e: Expr, out: (Expr & { k: "fn" })[]): void {
  switch (e.k) {
    case "fn":
      if (e.over) out.push(e);
      else for (const a of e.args) collectWindows(a, out);
      return;
    case "not":
    case "neg":
    case "isnull":
    case "cast":
      collectWindows(e.e, out);
      return;
    case "bin":
      collectWindows(e.l, out);
      collectWindows(e.r, out);
      return;
    case "case":
      if (e.operand) collectWindows(e.operand, out);
      for (const [a, b] of e.whens) {
        collectWindows(a, out);
        collectWindows(b, out);
      }
      if (e.otherwise) collectWindows(e.otherwise, out);
      return;
    default:
      return;
  }
}

export function sameExpr(a: Expr, b: Expr): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function litText(e: Expr & { k: "lit" }): string {
  if (e.lit === "str") return `'${String(e.value).replace(/'/g, "''")}'`;
  if (e.lit === "bool") return `CAST('${e.value ? "t" : "f"}' AS BOOLEAN)`;
  return e.text;
}

export function splitAnd(e: Expr): Expr[] {
  return e.k === "bin" && e.op === "AND" ? [...splitAnd(e.l), ...splitAnd(e.r)] : [e];
}
