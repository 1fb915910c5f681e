/**
 * The aggregates the metadata-query evaluator evaluates over a group (decision 0420): count, sum, min,
 * max, list/array_agg, string_agg, bool_or/bool_and, avg, any_value/first, with DuckDB's types.
 */
import type { SqlValue } from "../result.ts";
import type { Expr, OrderItem } from "./ast.ts";
import { type Compiled, type Env, refuse } from "./evaluator-model.ts";
import { compareNullable, compareValues, isFloat, isInt, keyOf, typeText } from "./values.ts";

export function aggregate(e: Expr & { k: "fn" }, compileRow: (e: Expr) => Compiled): Compiled {
  if (e.name === "count" && e.star) {
    return {
      t: { t: { id: "BIGINT" } },
      name: "count_star()",
      ev: (env) => BigInt(env.group?.length ?? 0),
    };
  }
  if (
    e.args.length !== (e.name === "string_agg" ? 2 : 1) &&
    !(e.name === "string_agg" && e.args.length === 1)
  ) {
    throw refuse(`${e.name} with ${e.args.length} arguments`);
  }
  const arg = compileRow(e.args[0] as Expr);
  const sep = e.name === "string_agg" && e.args[1] ? compileRow(e.args[1]) : undefined;
  if (sep && !(sep.t.literal === "str")) throw refuse("string_agg with a non-literal separator");
  const orders = (e.orderBy ?? []).map((o) => ({ o, c: compileRow(o.expr) }));
  if (e.distinct && e.name !== "count") throw refuse(`${e.name}(DISTINCT …)`);
  const at = arg.t.literal === "str" ? { id: "VARCHAR" as const } : arg.t.t;
  const name = `${e.name}(${e.distinct ? "DISTINCT " : ""}${arg.name})`;
  const values = (env: Env): SqlValue[] => {
    let rows = env.group ?? [];
    if (orders.length > 0) {
      const keyed = rows.map((row) => ({
        row,
        keys: orders.map(({ c }) => c.ev({ row, outer: env.outer })),
      }));
      keyed.sort((a, b) => {
        for (let i = 0; i < orders.length; i++) {
          const { o, c } = orders[i] as { o: OrderItem; c: Compiled };
          const r = compareNullable(
            a.keys[i] ?? null,
            b.keys[i] ?? null,
            c.t.t,
            o.desc,
            o.nullsFirst ?? false,
          );
          if (r !== 0) return r;
        }
        return 0;
      });
      rows = keyed.map((k) => k.row);
    }
    return rows.map((row) => arg.ev({ row, outer: env.outer }));
  };
  switch (e.name) {
    case "count":
      return {
        t: { t: { id: "BIGINT" } },
        name,
        ev: (env) => {
          const vs = values(env).filter((v) => v !== null);
          return BigInt(e.distinct ? new Set(vs.map(keyOf)).size : vs.length);
        },
      };
    case "sum": {
      if (!isInt(at) && !isFloat(at)) throw refuse(`sum of ${typeText(at)}`);
      const float = isFloat(at);
      return {
        t: { t: float ? { id: "DOUBLE" } : { id: "HUGEINT" } },
        name,
        ev: (env) => {
          const vs = values(env).filter((v) => v !== null);
          if (vs.length === 0) return null;
          if (float) return vs.reduce<number>((s, v) => s + (v as number), 0);
          return vs.reduce<bigint>((s, v) => s + (v as bigint), 0n);
        },
      };
    }
    case "min":
    case "max": {
      const sign = e.name === "min" ? -1 : 1;
      return {
        t: { t: at },
        name,
        ev: (env) => {
          let best: SqlValue = null;
          for (const v of values(env)) {
            if (v === null) continue;
            if (best === null || compareValues(v, best, at) * sign > 0) best = v;
          }
          return best;
        },
      };
    }
    case "list":
    case "array_agg":
      return {
        t: { t: { id: "LIST", child: at } },
        name,
        ev: (env) => {
          if ((env.group ?? []).length === 0) return null;
          return values(env);
        },
      };
    case "string_agg": {
      if (at.id !== "VARCHAR") throw refuse("string_agg of non-text");
      const sepText = sep ? (sep.ev({ row: [] }) as string) : ",";
      return {
        t: { t: { id: "VARCHAR" } },
        name,
        ev: (env) => {
          const vs = values(env).filter((v) => v !== null) as string[];
          return vs.length === 0 ? null : vs.join(sepText);
        },
      };
    }
    case "bool_or":
    case "bool_and": {
      if (at.id !== "BOOLEAN") throw refuse(`${e.name} of non-boolean`);
      const or = e.name === "bool_or";
      return {
        t: { t: { id: "BOOLEAN" } },
        name,
        ev: (env) => {
          const vs = values(env).filter((v) => v !== null);
          if (vs.length === 0) return null;
          return or ? vs.some((v) => v === true) : vs.every((v) => v === true);
        },
      };
    }
    default:
      throw refuse(`the aggregate ${e.name}`);
  }
}
