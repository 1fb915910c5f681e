/**
 * A Quack write request, planned: its statements parsed into row operations on the `ducklake_*` tables
 * (`parse.ts`), then either a new lake's initialization batch (`init.ts`) or one staged-row member of
 * the commit core (`member.ts`). Planning reads nothing: a statement shape not translated is refused by
 * name before the request joins the coalescer (docs/decisions/0230-sql-write-translation.md).
 */
import type { SelfStagedMember, StagedResult } from "../../commit/member.ts";
import { InvalidRequest } from "../../errors.ts";
import { splitStatements } from "../lexer.ts";
import type { SqlResult } from "../result.ts";
import { initBatchDataPath } from "./init.ts";
import { LAST_COUNT, StagedRowsMember } from "./member.ts";
import { parseWrite, type RowOp, resultOf } from "./parse.ts";

export type SqlWritePlan =
  | { kind: "commit"; member: SelfStagedMember; answer: (r: StagedResult) => SqlResult }
  | { kind: "create-lake"; dataPath: string; result: SqlResult };

/**
 * True when the request removes snapshots (ducklake_expire_snapshots): the writer then supplies the
 * snapshots live checkpoints pin (docs/decisions/0241-quack-expire-snapshots.md).
 */
export function expiresSnapshots(sql: string): boolean {
  return splitStatements(sql)
    .map(parseWrite)
    .some((op) => op.op === "expire_snapshots");
}

export function planSqlWrite(
  sql: string,
  idempotencyKey?: string,
  pinned: ReadonlyMap<number, string> = new Map(),
): SqlWritePlan {
  const ops = splitStatements(sql).map(parseWrite);
  const last = ops[ops.length - 1];
  if (last === undefined) throw new InvalidRequest("the SQL write holds no statement");
  const dataPath = initBatchDataPath(ops);
  if (dataPath !== undefined)
    return {
      kind: "create-lake",
      dataPath,
      result: resultOf(last, last.op === "insert" ? last.rows.length : 0),
    };
  return {
    kind: "commit",
    member: new StagedRowsMember(ops, sql, idempotencyKey, pinned),
    answer: (r) => resultOf(last, Number(r.assigned[0]?.[LAST_COUNT] ?? 0)),
  };
}

export type { RowOp };
