/**
 * A staged row's cells: typed reads of DuckDB literals (`int`, `str`, …) that refuse any other shape,
 * the rows of an INSERT as named cells, inlined values as `catalog/values/` takes them, and the
 * `InvalidRequest` every part throws for a malformed row.
 */
import { InvalidRequest } from "../../../errors.ts";
import type { InlineValue } from "../../../records.ts";
import type { Literal, RowOp } from "../parse.ts";

export type Cells = Record<string, Literal>;

export const INLINED_DATA = /^ducklake_inlined_data_(\d+)_(\d+)$/;

export const INLINED_DELETE = /^ducklake_inlined_delete_(\d+)$/;

export function bad(detail: string): InvalidRequest {
  return new InvalidRequest(`staged rows: ${detail}`);
}

export function int(l: Literal | undefined, what: string): number {
  if (l?.k !== "num" || !/^-?[0-9]+$/.test(l.text)) throw bad(`${what} must be an integer`);
  const n = Number(l.text);
  if (!Number.isSafeInteger(n)) throw bad(`${what} ${l.text} is out of range`);
  return n;
}

export function intOrNull(l: Literal | undefined, what: string): number | null {
  return l?.k === "null" ? null : int(l, what);
}

export function str(l: Literal | undefined, what: string): string {
  if (l?.k === "str") return l.v;
  throw bad(`${what} must be a string`);
}

export function strOrNull(l: Literal | undefined, what: string): string | null {
  return l?.k === "null" ? null : str(l, what);
}

export function bool(l: Literal | undefined, what: string): boolean {
  if (l?.k === "bool") return l.v;
  throw bad(`${what} must be true or false`);
}

export function boolOrNull(l: Literal | undefined, what: string): boolean | null {
  return l?.k === "null" ? null : bool(l, what);
}

/**
 * A DuckDB literal as the JSON value `catalog/values/` `parseValue` takes: numbers that round-trip exactly
 * as JS numbers, other numeric text (DECIMAL's `1.50`, HUGEINT) as its text, strings, booleans, NULL.
 */
export function inlineValue(l: Literal): InlineValue {
  switch (l.k) {
    case "null":
      return null;
    case "bool":
      return l.v;
    case "str":
      return l.v;
    case "num": {
      const n = Number(l.text);
      return Number.isFinite(n) && String(n) === l.text ? n : l.text;
    }
    // Nested values take the JSON forms parseValue checks per column type (docs/decisions/0244-quack-nested-literals.md).
    case "list":
      return l.items.map(inlineValue);
    case "struct": {
      const out: { [field: string]: InlineValue } = {};
      for (const f of l.fields) out[f.name] = inlineValue(f.v);
      return out;
    }
    case "map":
      return l.keys.map((k, i) => ({ key: inlineValue(k), value: inlineValue(l.values[i] as Literal) }));
    default:
      throw bad(`${l.k.toUpperCase()}() is not a value an inlined row can hold`);
  }
}

/** The rows of an INSERT as named cells, in the table's DuckLake column order. */
export function cellsOf(op: Extract<RowOp, { op: "insert" }>, columns: readonly string[]): Cells[] {
  const names = op.columns ?? columns;
  if (op.columns?.some((c) => !columns.includes(c))) {
    throw bad(`INSERT INTO ${op.table} names a column it does not have`);
  }
  return op.rows.map((row) => {
    if (row.length !== names.length) {
      throw bad(`INSERT INTO ${op.table} gives ${row.length} values for ${names.length} columns`);
    }
    const out: Cells = {};
    names.forEach((n, i) => {
      out[n] = row[i] as Literal;
    });
    return out;
  });
}
