/**
 * The syntax tree of the SQL subset DuckLake's metadata manager generates (decision record
 * `docs/decisions/0420-metadata-query-evaluator.md`): what `parse.ts` produces and `run.ts` evaluates.
 * Anything the parser cannot place in one of these nodes is refused with its shape, never approximated.
 */
import type { SqlType } from "../result.ts";

export type BinaryOp =
  | "AND"
  | "OR"
  | "="
  | "<>"
  | "<"
  | "<="
  | ">"
  | ">="
  | "+"
  | "-"
  | "*"
  | "/"
  | "%"
  | "||";

export interface OrderItem {
  expr: Expr;
  desc: boolean;
  /** Explicit NULLS FIRST / LAST; undefined is DuckDB's default (NULLS LAST in both directions). */
  nullsFirst?: boolean;
}

export interface WindowSpec {
  partitionBy: Expr[];
  orderBy: OrderItem[];
}

export type Expr =
  /** A literal; `text` is its source spelling (DuckDB names an unaliased literal column after it). */
  | { k: "lit"; lit: "int" | "dec" | "str" | "null" | "bool"; text: string; value: string | boolean | null }
  | { k: "col"; qual?: string; name: string }
  | { k: "pos"; n: number }
  | { k: "star"; qual?: string }
  | { k: "not"; e: Expr }
  | { k: "neg"; e: Expr }
  | { k: "bin"; op: BinaryOp; l: Expr; r: Expr }
  | { k: "isnull"; e: Expr; not: boolean }
  | { k: "between"; e: Expr; lo: Expr; hi: Expr; not: boolean }
  | { k: "in"; e: Expr; list?: Expr[]; sub?: Query; not: boolean }
  | { k: "exists"; sub: Query; not: boolean }
  | { k: "subq"; sub: Query }
  | { k: "case"; operand?: Expr; whens: [Expr, Expr][]; otherwise?: Expr }
  | { k: "cast"; e: Expr; to: SqlType; toText: string; try: boolean }
  | {
      k: "fn";
      name: string;
      args: Expr[];
      /** `name := expr` arguments, in order (DuckDB's named parameters). */
      named?: [string, Expr][];
      distinct: boolean;
      star: boolean;
      orderBy?: OrderItem[];
      over?: WindowSpec;
    }
  | { k: "struct"; fields: [string, Expr][] }
  | { k: "like"; e: Expr; pattern: Expr; not: boolean };

export interface SelectItem {
  expr: Expr;
  alias?: string;
}

export type FromItem =
  | { k: "table"; name: string; alias?: string }
  | { k: "sub"; query: Query; alias?: string; columns?: string[]; lateral: boolean }
  | {
      k: "join";
      type: "inner" | "left" | "cross";
      l: FromItem;
      r: FromItem;
      on?: Expr;
      using?: string[];
    };

export interface Select {
  k: "select";
  distinct: boolean;
  distinctOn?: Expr[];
  items: SelectItem[];
  from?: FromItem;
  where?: Expr;
  groupBy: Expr[];
  having?: Expr;
}

export interface Values {
  k: "values";
  rows: Expr[][];
}

export type SetExpr = Select | Values | { k: "union"; all: boolean; l: SetExpr; r: SetExpr };

export interface Cte {
  name: string;
  columns?: string[];
  query: Query;
}

export interface Query {
  with: Cte[];
  body: SetExpr;
  orderBy: OrderItem[];
  limit?: Expr;
  offset?: Expr;
}
