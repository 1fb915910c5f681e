/**
 * catalog/sql/: what DuckLake's SQL over the `ducklake_*` tables means. The Quack front door
 * (`worker/quack/`) splits a request into statements with `splitStatements`, answers reads with
 * `answerRead` from a published cut, and forwards writes to the lake's writer, which commits them
 * through `catalog/sql/writes/` as one atomic staged-row member. Results are `SqlResult`s.
 */
export * from "./kind.ts";
export * from "./lexer.ts";
export {
  answerRead,
  type DataObjects,
  findReadTemplate,
  READ_TEMPLATES,
  type ReadTemplate,
  type SqlReadContext,
} from "./reads.ts";
export * from "./result.ts";
export type { SqlWriteAnswer, SqlWriteRequest } from "./writes/contract.ts";
export { planSqlWrite, type SqlWritePlan } from "./writes/plan.ts";
