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
import type { MetadataAppend } from "./contract.ts";
import { withFlushMarks } from "./flush-marks.ts";
import { initBatch } from "./init.ts";
import { LAST_COUNT, StagedRowsMember } from "./member.ts";
import { appendResult, appendRows, MetadataAppendMember } from "./metadata-append.ts";
import { parseWrite, type RowOp, resultOf } from "./parse.ts";
import { commitAnswer, StagedCommitMember } from "./staged-member.ts";
import { isStagedStatement, parseStagedBatch } from "./staged-parse.ts";

export type SqlWritePlan =
  | {
      kind: "commit";
      member: SelfStagedMember;
      answer: (r: StagedResult) => SqlResult;
      /**
       * A client-side batch minting a snapshot (DDL, anything not data-only): its rows are stamped
       * against the head DuckLake read and the rebase cannot move them, so it commits as a batch of one,
       * its id checked (docs/decisions/0261-commit-yield.md).
       */
      alone: boolean;
    }
  | { kind: "create-lake"; dataPath: string; encrypted: boolean; result: SqlResult };

/**
 * True when the request removes snapshots (ducklake_expire_snapshots): the writer then supplies the
 * snapshots live checkpoints pin (docs/decisions/0241-quack-expire-snapshots.md).
 */
export function expiresSnapshots(sql: string): boolean {
  const statements = splitStatements(sql);
  if (statements.some(isStagedStatement)) return false;
  return statements.map(parseWrite).some((op) => op.op === "expire_snapshots");
}

export function planSqlWrite(
  sql: string,
  idempotencyKey?: string,
  pinned: ReadonlyMap<number, string> = new Map(),
  /** The hashed Quack connection id the request came on: its flush marks (`flush-marks.ts`). */
  connection?: string,
): SqlWritePlan {
  const own = (m: SelfStagedMember, ops: readonly RowOp[] | null): SelfStagedMember =>
    connection === undefined ? m : withFlushMarks(m, ops, connection);
  const statements = splitStatements(sql);
  // DuckLake's server-side commit: the whole staged batch is this one request (docs/decisions/0260-staged-commit.md).
  if (statements.some(isStagedStatement)) {
    const member = new StagedCommitMember(parseStagedBatch(statements), idempotencyKey);
    return {
      kind: "commit",
      member: own(member, null),
      answer: (r) => commitAnswer(r.snapshotId, r.schemaVersion, member.hadFlushes),
      alone: false,
    };
  }
  const ops = statements.map(parseWrite);
  const last = ops[ops.length - 1];
  if (last === undefined) throw new InvalidRequest("the SQL write holds no statement");
  const init = initBatch(ops);
  if (init !== undefined)
    return {
      kind: "create-lake",
      ...init,
      result: resultOf(last, last.op === "insert" ? last.rows.length : 0),
    };
  return {
    kind: "commit",
    member: own(new StagedRowsMember(ops, sql, idempotencyKey, pinned), ops),
    answer: (r) => resultOf(last, Number(r.assigned[0]?.[LAST_COUNT] ?? 0)),
    alone: ops.some((op) => op.op === "insert" && op.table === "ducklake_snapshot"),
  };
}

/**
 * A client's rows appended to a `ducklake_*` table (Quack APPEND_REQUEST): checked and named before the
 * request joins the coalescer, then one member that mints no snapshot (docs/decisions/0710-metadata-appends.md).
 */
export function planMetadataAppend(append: MetadataAppend, admin: boolean): SqlWritePlan {
  const rows = appendRows(append, admin);
  return {
    kind: "commit",
    member: new MetadataAppendMember(append.table, rows),
    answer: () => appendResult(rows.length),
    alone: false,
  };
}

export type { RowOp };
