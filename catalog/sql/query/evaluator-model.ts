/**
 * The shapes the metadata-query evaluator passes between its parts (decision 0420): relations, scopes,
 * row environments, compiled expressions, and its bound and errors.
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import type { SqlType, SqlValue } from "../result.ts";
import type { Expr, FromItem } from "./ast.ts";
import type { VType } from "./values.ts";

/** Most rows any intermediate relation (a join's output, a scan) may hold. */
export const MAX_QUERY_ROWS = 2_000_000;

export interface Col {
  qual?: string;
  name: string;
  type: VType;
}

export interface Rel {
  cols: Col[];
  rows: SqlValue[][];
}

/** Where a table name's rows come from: loaded beforehand by `relations.ts`, keyed by the FROM item. */
export type TableSource = (item: FromItem & { k: "table" }) => Rel;

export interface Scope {
  cols: Col[];
  outer?: Scope;
}

export interface Env {
  row: SqlValue[];
  outer?: Env;
  group?: SqlValue[][];
  win?: Map<Expr, SqlValue>;
}

export interface Compiled {
  t: VType;
  name: string;
  ev: (env: Env) => SqlValue;
}

export type Mode = "row" | "agg";

export function refuse(what: string): Unsupported {
  return new Unsupported(`metadata query: ${what}`);
}

export function tooMany(n: number): InvalidRequest {
  return new InvalidRequest(
    `metadata query: more than ${MAX_QUERY_ROWS} rows in one step (${n}); narrow the query`,
  );
}

export function truthy(v: SqlValue): boolean {
  return v === true;
}

export interface OrderKey {
  t: SqlType;
  ev: (env: Env, row: SqlValue[]) => SqlValue;
}
