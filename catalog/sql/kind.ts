/**
 * Whether a statement reads or writes the `ducklake_*` tables. A request made only of reads is answered
 * at the edge from a published cut; any other request goes to the lake's writer as one atomic commit.
 */
import type { Statement } from "./lexer.ts";

export type StatementKind = "read" | "write" | "transaction";

const READ_STARTS = new Set(["SELECT", "FROM", "WITH", "SHOW", "DESCRIBE", "PRAGMA", "SUMMARIZE", "VALUES"]);
const WRITE_VERBS = new Set(["INSERT", "UPDATE", "DELETE"]);
const TRANSACTION = new Set(["BEGIN", "COMMIT", "ROLLBACK", "ABORT", "START", "END"]);

export function statementKind(stmt: Statement): StatementKind {
  const first = stmt.tokens[0];
  const head: string = first?.kind === "word" ? first.value.toUpperCase() : "";
  if (TRANSACTION.has(head)) return "transaction";
  if (head === "WITH") {
    // `WITH … AS (…) UPDATE|INSERT|DELETE …` is a write: look for a write verb at parenthesis depth 0.
    let depth = 0;
    for (const t of stmt.tokens) {
      if (t.kind === "op" && t.text === "(") depth++;
      else if (t.kind === "op" && t.text === ")") depth--;
      else if (depth === 0 && t.kind === "word" && WRITE_VERBS.has(t.value.toUpperCase())) return "write";
    }
    return "read";
  }
  return READ_STARTS.has(head) ? "read" : "write";
}
