/**
 * catalog/sql/query/: the evaluator of the SQL subset DuckLake's metadata manager and DuckDB's Quack
 * catalog send (decision record `docs/decisions/0420-metadata-query-evaluator.md`). `answerQuery`
 * parses a read statement, loads the relations it names from the cut, and evaluates it with DuckDB's
 * semantics; a construct outside the subset is refused with `Unsupported` naming it.
 */
import type { Statement } from "../lexer.ts";
import type { SqlReadContext } from "../reads.ts";
import type { SqlResult } from "../result.ts";
import { parseQuery } from "./parse.ts";
import { loadRelations } from "./relations.ts";
import { Evaluator } from "./run.ts";

export async function answerQuery(ctx: SqlReadContext, stmt: Statement): Promise<SqlResult> {
  const query = parseQuery(stmt.tokens);
  const tables = await loadRelations(ctx, query);
  return new Evaluator(tables).run(query);
}
