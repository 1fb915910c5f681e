/**
 * A lexer for the DuckDB SQL that DuckLake sends over Quack: tokens, statement splitting, and the
 * *shape* of a statement (its text with every literal replaced by `?` and every per-table inlined
 * table name by `_N`), which is how `catalog/sql/` recognises which of DuckLake's templates a
 * statement is. Recognition is exact on shape; a statement whose shape is unknown is refused by name,
 * never guessed (decision record `docs/decisions/0200-quack-sql-recognition.md`).
 */
import { InvalidRequest } from "../errors.ts";

export type TokenKind = "word" | "quoted" | "string" | "number" | "op";

export interface Token {
  kind: TokenKind;
  /** Source text of the token. */
  text: string;
  /** Decoded value: identifier/word text (quotes and escapes removed) or string/number literal text. */
  value: string;
  /** Offset of the token in the statement text. */
  at: number;
}

export interface Statement {
  /** The statement's own text, trimmed, without its terminating `;`. */
  text: string;
  tokens: Token[];
}

/** Longest SQL text accepted in one request (DuckLake's largest batches are well under this). */
export const MAX_SQL_BYTES = 8 * 1024 * 1024;
/**
 * The fewest bytes a statement DuckLake sends takes (`INSERT INTO ducklake_staged_commit VALUES (1);` is
 * 46): the statement bound follows from the text bound, so the catalog's own per-commit limits (rows
 * inlined, deletes), which name what to change, answer first (docs/decisions/0405-inlining-limit-and-statement-bound.md).
 */
const MIN_STATEMENT_BYTES = 40;
/** Most statements accepted in one request. */
export const MAX_STATEMENTS = Math.floor(MAX_SQL_BYTES / MIN_STATEMENT_BYTES);

/**
 * Most tokens accepted in one request, counted before each is made: at 66–102 bytes of heap per token
 * (measured in Node), this keeps one request's tokens near 100 MB, where an 8 MiB text of one-character
 * tokens would need over 500 MB. It admits DuckLake's largest commits within the catalog's own limits
 * (10,000 inlined rows of ~45 columns on the client-side path; any width on the staged path, one literal
 * per row); docs/decisions/0661-sql-token-limit.md.
 */
export const MAX_SQL_TOKENS = 1_048_576;

const OPS = ["::", ":=", ">=", "<=", "<>", "!=", "||", "->", "=>", "**"];
const SINGLE = "=<>+-*/%(),;.[]{}:?!|&^~@#";

function isWordStart(c: string): boolean {
  return /[A-Za-z_\u0080-\uffff]/.test(c);
}
function isWordPart(c: string): boolean {
  return /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
}

/** Splits SQL into tokens; comments and whitespace are dropped. Unterminated quotes are refused. */
export function tokenize(sql: string): Token[] {
  if (sql.length > MAX_SQL_BYTES) {
    throw new InvalidRequest(`SQL text of ${sql.length} characters exceeds the limit of ${MAX_SQL_BYTES}`);
  }
  const out: Token[] = [];
  const room = (): void => {
    if (out.length >= MAX_SQL_TOKENS) throw tooManyTokens(sql.length);
  };
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql.charAt(i);
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (c === "-" && sql.charAt(i + 1) === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === "/" && sql.charAt(i + 1) === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end < 0) throw new InvalidRequest(`unterminated comment at offset ${i}`);
      i = end + 2;
      continue;
    }
    if (c === "'" || c === '"') {
      const start = i;
      let value = "";
      i++;
      for (;;) {
        if (i >= n)
          throw new InvalidRequest(`unterminated ${c === "'" ? "string" : "identifier"} at offset ${start}`);
        const d = sql.charAt(i);
        if (d === c) {
          if (sql.charAt(i + 1) === c) {
            value += c;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += d;
        i++;
      }
      room();
      out.push({ kind: c === "'" ? "string" : "quoted", text: sql.slice(start, i), value, at: start });
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql.charAt(i + 1)))) {
      const m = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(sql.slice(i, i + 400));
      const text = m ? m[0] : c;
      room();
      out.push({ kind: "number", text, value: text, at: i });
      i += text.length;
      continue;
    }
    if (isWordStart(c)) {
      const start = i;
      while (i < n && isWordPart(sql.charAt(i))) i++;
      const text = sql.slice(start, i);
      room();
      out.push({ kind: "word", text, value: text, at: start });
      continue;
    }
    const two = sql.slice(i, i + 2);
    if (OPS.includes(two)) {
      room();
      out.push({ kind: "op", text: two, value: two, at: i });
      i += 2;
      continue;
    }
    if (SINGLE.includes(c)) {
      room();
      out.push({ kind: "op", text: c, value: c, at: i });
      i++;
      continue;
    }
    throw new InvalidRequest(`unexpected character ${JSON.stringify(c)} at offset ${i}`);
  }
  return out;
}

/** The SQL text holds more than `MAX_SQL_TOKENS` tokens (refused before the next is made). */
function tooManyTokens(chars: number): InvalidRequest {
  return new InvalidRequest(
    `SQL text of ${chars} characters holds more than ${MAX_SQL_TOKENS} tokens (MAX_SQL_TOKENS); send the work in smaller commits (fewer rows per INSERT, or a lower data_inlining_row_limit so large inserts are written as Parquet)`,
  );
}

/** Splits a request's SQL into statements at top-level `;` (never inside quotes or comments). */
export function splitStatements(sql: string): Statement[] {
  const tokens = tokenize(sql);
  const out: Statement[] = [];
  let cur: Token[] = [];
  const flush = (endAt: number): void => {
    const first = cur[0];
    if (first) {
      const base = first.at;
      out.push({
        text: sql.slice(first.at, endAt).trim(),
        // The tokens are this call's own: re-based in place, so a request's tokens are held once.
        tokens: cur.map((t) => {
          t.at -= base;
          return t;
        }),
      });
      if (out.length > MAX_STATEMENTS) {
        throw new InvalidRequest(`more than ${MAX_STATEMENTS} statements in one request`);
      }
    }
    cur = [];
  };
  for (const t of tokens) {
    if (t.kind === "op" && t.text === ";") flush(t.at);
    else cur.push(t);
  }
  flush(sql.length);
  return out;
}

const INLINED_DATA = /^ducklake_inlined_data_\d+_\d+$/i;
const INLINED_DELETE = /^ducklake_inlined_delete_\d+$/i;

/**
 * The statement's shape: tokens joined by single spaces, string and number literals as `?`, words
 * upper-cased unless they are identifiers of DuckLake tables or columns (kept as written, lower case),
 * inlined table names as `ducklake_inlined_data_N_N` / `ducklake_inlined_delete_N`. Two statements
 * from the same DuckLake template with different literals have the same shape.
 */
export function shapeOf(tokens: readonly Token[]): string {
  const parts: string[] = [];
  for (const t of tokens) {
    if (t.kind === "string" || t.kind === "number") parts.push("?");
    else if (t.kind === "word" || t.kind === "quoted") {
      const q = t.kind === "quoted";
      if (INLINED_DATA.test(t.value))
        parts.push(q ? '"ducklake_inlined_data_N_N"' : "ducklake_inlined_data_N_N");
      else if (INLINED_DELETE.test(t.value))
        parts.push(q ? '"ducklake_inlined_delete_N"' : "ducklake_inlined_delete_N");
      else parts.push(t.text);
    } else parts.push(t.text);
  }
  return parts.join(" ");
}

/** The literal tokens of a statement, in order (what the `?` of its shape stand for). */
export function literalsOf(tokens: readonly Token[]): Token[] {
  return tokens.filter((t) => t.kind === "string" || t.kind === "number");
}
