/**
 * DuckLake's filter pushdown over file column stats: the WHERE of
 * `data.data_file_id IN (SELECT data_file_id FROM col_N_stats WHERE <predicate>)`, e.g.
 * `(value_count IS NULL OR value_count > 0) AND (max_value IS NULL OR min_value IS NULL OR
 * (2 BETWEEN TRY_CAST(min_value AS INTEGER) AND TRY_CAST(max_value AS INTEGER)))`, evaluated per stats
 * row with SQL's three-valued logic. Stats text is compared with the catalog's type-aware comparison
 * (`catalog/stat-order.ts` `compareStat`, the one home of stats order): numerically when cast to a numeric type, as text otherwise.
 * Anything outside this small expression language is refused by name (decision record 0200).
 *
 * Scan-plan pruning (`catalog/reads/prune.ts`) orders stats with the same `stat-order.ts`.
 */
import { Unsupported } from "../../errors.ts";
import type { FileColumnStats } from "../../records.ts";
import { compareStat } from "../../stat-order.ts";
import type { Token } from "../lexer.ts";

type Value =
  | null
  | { k: "num"; v: number }
  | { k: "text"; v: string; type: string }
  | { k: "bool"; v: boolean };

export type StatsPredicate = (row: FileColumnStats) => boolean;

/** Longest predicate accepted (tokens); DuckLake's are a few dozen. */
export const MAX_PREDICATE_TOKENS = 4096;

const NUMERIC_CASTS: Record<string, string> = {
  TINYINT: "int8",
  SMALLINT: "int16",
  INTEGER: "int32",
  BIGINT: "int64",
  HUGEINT: "int128",
  UTINYINT: "uint8",
  USMALLINT: "uint16",
  UINTEGER: "uint32",
  UBIGINT: "uint64",
  UHUGEINT: "uint128",
  FLOAT: "float32",
  DOUBLE: "float64",
};

type Node = (row: FileColumnStats) => Value;

/** The texts DuckDB 1.5.5 casts to BOOLEAN (case-insensitive, no surrounding spaces); others fail. */
const BOOLEAN_TRUE = new Set(["t", "true", "y", "yes", "1"]);
const BOOLEAN_FALSE = new Set(["f", "false", "n", "no", "0"]);

const STAT_COLUMNS = new Set(["value_count", "null_count", "min_value", "max_value", "contains_nan"]);

function statColumn(row: FileColumnStats, name: string): Value {
  switch (name) {
    case "value_count":
      return row.value_count === null ? null : { k: "num", v: row.value_count };
    case "null_count":
      return row.null_count === null ? null : { k: "num", v: row.null_count };
    case "min_value":
      return row.min_value === null ? null : { k: "text", v: row.min_value, type: "varchar" };
    case "max_value":
      return row.max_value === null ? null : { k: "text", v: row.max_value, type: "varchar" };
    default:
      return row.contains_nan === null ? null : { k: "bool", v: row.contains_nan };
  }
}

function cast(v: Value, typeName: string, tryCast: boolean): Value {
  if (v === null) return null;
  const upper = typeName.toUpperCase();
  const numeric =
    NUMERIC_CASTS[upper] ?? (/^DECIMAL\(\d+,\d+\)$/.test(upper) ? upper.toLowerCase() : undefined);
  if (numeric) {
    if (v.k === "num") return v;
    const n = v.k === "bool" ? Number(v.v) : Number(v.v.trim());
    if (v.k === "text" && (v.v.trim() === "" || Number.isNaN(n))) {
      if (tryCast) return null;
      throw new Unsupported(`cannot cast ${JSON.stringify(v.v)} to ${upper} in a stats filter`);
    }
    return { k: "num", v: n };
  }
  if (upper === "BOOLEAN") {
    if (v.k === "bool") return v;
    if (v.k === "num") return { k: "bool", v: v.v !== 0 };
    // DuckDB's text → BOOLEAN cast: DuckLake records a BOOLEAN column's Parquet stats as '0'/'1', so
    // `TRY_CAST(min_value AS BOOLEAN)` must read them as stock does (else every file of `b = false` is
    // pruned: a wrong count, docs/decisions/0412-suite-wrong-answers.md).
    const t = v.v.toLowerCase();
    if (BOOLEAN_TRUE.has(t)) return { k: "bool", v: true };
    if (BOOLEAN_FALSE.has(t)) return { k: "bool", v: false };
    if (tryCast) return null;
    throw new Unsupported(`cannot cast ${JSON.stringify(v.v)} to BOOLEAN in a stats filter`);
  }
  const text = v.k === "text" ? v.v : String(v.v);
  return { k: "text", v: text, type: upper === "VARCHAR" ? "varchar" : upper.toLowerCase() };
}

function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (a.k === "num" && b.k === "num") return a.v - b.v;
  if (a.k === "num" && b.k === "text") return compare(a, cast(b, "DOUBLE", true));
  if (a.k === "text" && b.k === "num") return compare(cast(a, "DOUBLE", true), b);
  if (a.k === "text" && b.k === "text") return compareStat(a.type !== "varchar" ? a.type : b.type, a.v, b.v);
  // A text constant against a BOOLEAN (DuckLake writes `'true' BETWEEN TRY_CAST(min_value AS BOOLEAN) ...`)
  // is cast to BOOLEAN, as DuckDB binds it; an uncastable text is no answer rather than a guess.
  if (a.k === "text" && b.k === "bool") return compare(cast(a, "BOOLEAN", true), b);
  if (a.k === "bool" && b.k === "text") return compare(a, cast(b, "BOOLEAN", true));
  return Number(a.k === "bool" && a.v) - Number(b.k === "bool" && b.v);
}

const truth = (v: Value): boolean | null =>
  v === null ? null : v.k === "bool" ? v.v : v.k === "num" ? v.v !== 0 : null;
const bool = (b: boolean | null): Value => (b === null ? null : { k: "bool", v: b });

class Parser {
  private i = 0;
  constructor(private readonly toks: readonly Token[]) {}

  private peek(offset = 0): Token | undefined {
    return this.toks[this.i + offset];
  }
  private isWord(w: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t?.kind === "word" && t.value.toUpperCase() === w;
  }
  private isOp(op: string): boolean {
    const t = this.peek();
    return t?.kind === "op" && t.text === op;
  }
  private fail(): never {
    const t = this.peek();
    throw new Unsupported(`stats filter not understood at ${t ? JSON.stringify(t.text) : "its end"}`);
  }
  private expectOp(op: string): void {
    if (!this.isOp(op)) this.fail();
    this.i++;
  }
  private expectWord(w: string): void {
    if (!this.isWord(w)) this.fail();
    this.i++;
  }

  parse(): Node {
    const n = this.or();
    if (this.i !== this.toks.length) this.fail();
    return n;
  }

  private or(): Node {
    let left = this.and();
    while (this.isWord("OR")) {
      this.i++;
      const l = left;
      const r = this.and();
      left = (row) => {
        const a = truth(l(row));
        if (a === true) return bool(true);
        const b = truth(r(row));
        return bool(b === true ? true : a === null || b === null ? null : false);
      };
    }
    return left;
  }

  private and(): Node {
    let left = this.not();
    while (this.isWord("AND")) {
      this.i++;
      const l = left;
      const r = this.not();
      left = (row) => {
        const a = truth(l(row));
        if (a === false) return bool(false);
        const b = truth(r(row));
        return bool(b === false ? false : a === null || b === null ? null : true);
      };
    }
    return left;
  }

  private not(): Node {
    if (this.isWord("NOT")) {
      this.i++;
      const inner = this.not();
      return (row) => {
        const v = truth(inner(row));
        return bool(v === null ? null : !v);
      };
    }
    return this.predicate();
  }

  private predicate(): Node {
    const left = this.primary();
    if (this.isWord("IS")) {
      this.i++;
      const negate = this.isWord("NOT");
      if (negate) this.i++;
      this.expectWord("NULL");
      return (row) => bool((left(row) === null) !== negate);
    }
    const negate = this.isWord("NOT") && (this.isWord("BETWEEN", 1) || this.isWord("IN", 1));
    if (negate) this.i++;
    if (this.isWord("BETWEEN")) {
      this.i++;
      const lo = this.primary();
      this.expectWord("AND");
      const hi = this.primary();
      return (row) => {
        const v = left(row);
        const a = compare(v, lo(row));
        const b = compare(v, hi(row));
        const ge = a === null ? null : a >= 0;
        const le = b === null ? null : b <= 0;
        const both = ge === false || le === false ? false : ge === null || le === null ? null : true;
        return bool(both === null ? null : both !== negate);
      };
    }
    if (this.isWord("IN")) {
      this.i++;
      this.expectOp("(");
      const items: Node[] = [this.primary()];
      while (this.isOp(",")) {
        this.i++;
        items.push(this.primary());
      }
      this.expectOp(")");
      return (row) => {
        const v = left(row);
        let sawNull = false;
        for (const item of items) {
          const c = compare(v, item(row));
          if (c === 0) return bool(!negate);
          if (c === null) sawNull = true;
        }
        return bool(sawNull ? null : negate);
      };
    }
    const t = this.peek();
    const ops = ["=", "<>", "!=", "<", "<=", ">", ">="];
    if (t?.kind === "op" && ops.includes(t.text)) {
      this.i++;
      const right = this.primary();
      const op = t.text;
      return (row) => {
        const c = compare(left(row), right(row));
        if (c === null) return null;
        const r =
          op === "="
            ? c === 0
            : op === "<>" || op === "!="
              ? c !== 0
              : op === "<"
                ? c < 0
                : op === "<="
                  ? c <= 0
                  : op === ">"
                    ? c > 0
                    : c >= 0;
        return bool(r);
      };
    }
    return left;
  }

  /** A type name up to the closing `)` of a cast: words, and a parenthesised width list. */
  private typeName(): string {
    const parts: string[] = [];
    while (this.peek()?.kind === "word") {
      parts.push((this.peek() as Token).value.toUpperCase());
      this.i++;
      if (this.isOp("(")) {
        const args: string[] = [];
        this.i++;
        while (!this.isOp(")")) {
          const a = this.peek();
          if (!a) this.fail();
          if (a.kind === "number") args.push(a.value);
          this.i++;
        }
        this.i++;
        parts[parts.length - 1] = `${parts[parts.length - 1]}(${args.join(",")})`;
      }
    }
    if (parts.length === 0) this.fail();
    return parts.join(" ");
  }

  private primary(): Node {
    let node = this.atom();
    while (this.isOp("::")) {
      this.i++;
      const type = this.typeName();
      const inner = node;
      node = (row) => cast(inner(row), type, false);
    }
    return node;
  }

  private atom(): Node {
    const t = this.peek();
    if (!t) this.fail();
    if (t.kind === "op" && t.text === "(") {
      this.i++;
      const inner = this.or();
      this.expectOp(")");
      return inner;
    }
    if (t.kind === "op" && t.text === "-" && this.peek(1)?.kind === "number") {
      this.i += 2;
      const v: Value = { k: "num", v: -Number((this.toks[this.i - 1] as Token).value) };
      return () => v;
    }
    if (t.kind === "number") {
      this.i++;
      const v: Value = { k: "num", v: Number(t.value) };
      return () => v;
    }
    if (t.kind === "string") {
      this.i++;
      const v: Value = { k: "text", v: t.value, type: "varchar" };
      return () => v;
    }
    const word = t.value.toUpperCase();
    if (t.kind === "word" && (word === "TRY_CAST" || word === "CAST") && this.peek(1)?.text === "(") {
      this.i += 2;
      const inner = this.or();
      this.expectWord("AS");
      const type = this.typeName();
      this.expectOp(")");
      return (row) => cast(inner(row), type, word === "TRY_CAST");
    }
    if (t.kind === "word" && word === "NULL") {
      this.i++;
      return () => null;
    }
    if (t.kind === "word" && (word === "TRUE" || word === "FALSE")) {
      this.i++;
      const v: Value = { k: "bool", v: word === "TRUE" };
      return () => v;
    }
    if ((t.kind === "word" || t.kind === "quoted") && STAT_COLUMNS.has(t.value.toLowerCase())) {
      this.i++;
      const name = t.value.toLowerCase();
      return (row) => statColumn(row, name);
    }
    return this.fail();
  }
}

/** The predicate of one `col_N_stats` filter, from its WHERE tokens. */
export function statsPredicate(tokens: readonly Token[]): StatsPredicate {
  if (tokens.length > MAX_PREDICATE_TOKENS) {
    throw new Unsupported(`a stats filter of ${tokens.length} tokens exceeds ${MAX_PREDICATE_TOKENS}`);
  }
  const node = new Parser(tokens).parse();
  return (row) => truth(node(row)) === true;
}
