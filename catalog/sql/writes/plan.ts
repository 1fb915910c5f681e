/**
 * A Quack write request, planned: its statements parsed into row operations on the `ducklake_*` tables,
 * then either a new lake's initialization batch or one staged-row member of the commit core (decision
 * 0230). Planning reads nothing: a statement shape not translated is refused by name before anything is
 * staged.
 */
import type { SelfStagedMember } from "../../commit/member.ts";
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { shapeOf, splitStatements } from "../lexer.ts";
import type { SqlResult } from "../result.ts";

export type SqlWritePlan =
  | { kind: "commit"; member: SelfStagedMember; result: SqlResult }
  | { kind: "create-lake"; dataPath: string; result: SqlResult };

export function planSqlWrite(sql: string, _idempotencyKey?: string): SqlWritePlan {
  const statements = splitStatements(sql);
  const first = statements[0];
  if (first === undefined) throw new InvalidRequest("the SQL write holds no statement");
  throw new Unsupported(`write statement not translated yet: ${shapeOf(first.tokens).slice(0, 500)}`);
}
