/**
 * The scalar functions the metadata-query evaluator evaluates (decision 0420), each with DuckDB's types
 * and NULL handling; a name it does not evaluate is refused, or answered with stock's binder error when
 * stock DuckDB does not know it either (decision 0621).
 */
import { UnknownFunction } from "../../errors.ts";
import { DUCKDB_FUNCTIONS } from "../duckdb-functions.ts";
import type { Expr } from "./ast.ts";
import { type Compiled, refuse } from "./evaluator-model.ts";
import { castValue, isFloat, typeText, unify, type VType } from "./values.ts";

export function scalarFunction(e: Expr & { k: "fn" }, args: Compiled[], name: string): Compiled {
  switch (e.name) {
    case "coalesce": {
      if (args.length === 0) throw refuse("COALESCE()");
      let t = args[0]?.t as VType;
      for (const a of args.slice(1)) t = unify(t, a.t, "COALESCE");
      const tt = t.literal === "str" ? { id: "VARCHAR" as const } : t.t;
      return {
        t: { t: tt },
        name: `COALESCE(${args.map((a) => a.name).join(", ")})`,
        ev: (env) => {
          for (const a of args) {
            const v = a.ev(env);
            if (v !== null) return castValue(v, a.t.t, tt, false);
          }
          return null;
        },
      };
    }
    case "replace": {
      if (args.length !== 3) throw refuse("replace() of other than three arguments");
      const [s, from, to] = args as [Compiled, Compiled, Compiled];
      for (const a of args)
        if (a.t.t.id !== "VARCHAR" && a.t.literal !== "null") throw refuse("replace() of non-text");
      return {
        t: { t: { id: "VARCHAR" } },
        name,
        ev: (env) => {
          const a = s.ev(env);
          const b = from.ev(env);
          const c = to.ev(env);
          if (a === null || b === null || c === null) return null;
          return b === "" ? a : (a as string).split(b as string).join(c as string);
        },
      };
    }
    case "lower":
    case "upper": {
      if (args.length !== 1 || (args[0] as Compiled).t.t.id !== "VARCHAR")
        throw refuse(`${e.name}() of non-text`);
      const a = args[0] as Compiled;
      const up = e.name === "upper";
      return {
        t: { t: { id: "VARCHAR" } },
        name,
        ev: (env) => {
          const v = a.ev(env) as string | null;
          if (v === null) return null;
          // DuckDB lowers ASCII and Unicode letters; refuse what JS might map differently.
          if (/[^ -~\t\n\r]/.test(v)) throw refuse(`${e.name}() of non-ASCII text`);
          return up ? v.toUpperCase() : v.toLowerCase();
        },
      };
    }
    case "isnan": {
      // DuckLake's rewrite commit asks it of an inlined FLOAT/DOUBLE column (decision 0730).
      const a = args[0];
      if (args.length !== 1 || !a || !isFloat(a.t.t)) throw refuse("isnan() of other than one float");
      return {
        t: { t: { id: "BOOLEAN" } },
        name,
        ev: (env) => {
          const v = a.ev(env);
          return v === null ? null : Number.isNaN(v as number);
        },
      };
    }
    case "year":
    case "month":
    case "day":
    case "hour":
      return datePart(e.name, args, name);
    default:
      if (!DUCKDB_FUNCTIONS.has(e.name)) throw new UnknownFunction(e.name);
      throw refuse(`the function ${e.name}`);
  }
}

/**
 * year/month/day/hour of a DATE, TIMESTAMP or TIMESTAMP WITH TIME ZONE (in UTC, the server's zone): the
 * partition transforms DuckLake writes into its flush filters. BIGINT, as DuckDB's date parts.
 */
function datePart(part: string, args: Compiled[], name: string): Compiled {
  const a = args[0];
  const id = a?.t.t.id;
  if (args.length !== 1 || !a || (id !== "DATE" && id !== "TIMESTAMP" && id !== "TIMESTAMP WITH TIME ZONE")) {
    throw refuse(`${part}() of ${a ? typeText(a.t.t) : "nothing"}`);
  }
  if (part === "hour" && id === "DATE") throw refuse("hour() of a DATE");
  return {
    t: { t: { id: "BIGINT" } },
    name,
    ev: (env) => {
      const v = a.ev(env);
      if (v === null) return null;
      const ms =
        id === "DATE"
          ? (v as number) * 86_400_000
          : Number((v as bigint) / 1000n) - ((v as bigint) % 1000n < 0n ? 1 : 0);
      const d = new Date(ms);
      if (Number.isNaN(d.getTime())) throw refuse(`${part}() of a value outside JavaScript's dates`);
      switch (part) {
        case "year":
          return BigInt(d.getUTCFullYear());
        case "month":
          return BigInt(d.getUTCMonth() + 1);
        case "day":
          return BigInt(d.getUTCDate());
        default:
          return BigInt(d.getUTCHours());
      }
    },
  };
}
