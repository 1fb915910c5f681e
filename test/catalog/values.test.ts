/**
 * catalog/values/ against stock DuckDB 1.5.5 (tools/inline-values.py writes the fixture; CI re-derives it
 * with `--check`). For every case in the documented grammar our accept/refuse decision and DuckDB's text
 * for the value must equal DuckDB's; outside the grammar we may only refuse or agree. The ALTER COLUMN
 * TYPE matrix of a stock DuckLake must equal `canPromote`.
 */
import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../catalog/errors.ts";
import {
  canPromote,
  parseValue,
  type StoredValue,
  type TypeNode,
  toText,
} from "../../catalog/values/index.ts";
import fixture from "../fixtures/inline-values.json";

interface Case {
  type: TypeNode;
  input: StoredValue;
  grammar: boolean;
  duckdb: string | null;
}

function ours(c: Case): { ok: true; text: string | null } | { ok: false; error: unknown } {
  try {
    return { ok: true, text: toText(c.type, parseValue(c.type, c.input, "rows[0].v")) };
  } catch (error) {
    return { ok: false, error };
  }
}

const typeName = (n: TypeNode): string =>
  n.children.length === 0 ? n.type : `${n.type}(${n.children.map(typeName).join(",")})`;

describe("inlined values match stock DuckDB", () => {
  const cases = fixture.cases as Case[];

  it("has cases for every inlinable type", () => {
    const seen = new Set(cases.map((c) => c.type.type.replace(/\(.*/, "")));
    for (const t of [
      "int8",
      "uint128",
      "float32",
      "decimal",
      "boolean",
      "varchar",
      "json",
      "blob",
      "uuid",
      "date",
      "time",
      "time_ns",
      "timetz",
      "timestamp",
      "timestamp_ms",
      "timestamp_ns",
      "timestamp_s",
      "timestamptz",
      "interval",
      "list",
      "struct",
      "map",
    ]) {
      expect(seen.has(t), t).toBe(true);
    }
  });

  it("in the grammar: same decision, same text", () => {
    const wrong: string[] = [];
    for (const c of cases.filter((x) => x.grammar)) {
      const r = ours(c);
      const duck = c.duckdb;
      if (!r.ok && !(r.error instanceof InvalidRequest)) throw r.error;
      const mine = r.ok ? r.text : null;
      if (mine !== duck)
        wrong.push(
          `${typeName(c.type)} ${JSON.stringify(c.input)}: ours ${JSON.stringify(mine)}, duckdb ${JSON.stringify(duck)}`,
        );
    }
    expect(wrong).toEqual([]);
  });

  it("outside the grammar: refused, or exactly what DuckDB reads", () => {
    const wrong: string[] = [];
    for (const c of cases.filter((x) => !x.grammar)) {
      const r = ours(c);
      if (r.ok && r.text !== c.duckdb)
        wrong.push(
          `${typeName(c.type)} ${JSON.stringify(c.input)}: ours ${JSON.stringify(r.text)}, duckdb ${JSON.stringify(c.duckdb)}`,
        );
    }
    expect(wrong).toEqual([]);
  });

  it("refusals name the value's position and type", () => {
    const list: TypeNode = {
      name: "tags",
      type: "list",
      children: [{ name: "element", type: "int32", children: [] }],
    };
    expect(() => parseValue(list, [1, "x"], "rows[3].tags")).toThrow(
      /rows\[3\]\.tags\[1\]: "x" is not a valid int32 value/,
    );
    const int32: TypeNode = { name: "n", type: "int32", children: [] };
    expect(() => parseValue(int32, "notanint", "rows[0].n")).toThrow(InvalidRequest);
    expect(() => parseValue(int32, 2 ** 63, "rows[0].n")).toThrow(/rows\[0\]\.n/);
    expect(() => parseValue(int32, 1e308, "rows[0].n")).toThrow(/rows\[0\]\.n/);
    const dec: TypeNode = { name: "d", type: "decimal(4,2)", children: [] };
    expect(() => parseValue(dec, "99999.999", "rows[1].d")).toThrow(/rows\[1\]\.d.*decimal\(4,2\)/);
    const vc: TypeNode = { name: "s", type: "varchar", children: [] };
    expect(() => parseValue(vc, "a\ud800", "rows[0].s")).toThrow(/surrogate/);
  });

  it("ALTER COLUMN TYPE: canPromote is stock DuckLake's matrix", () => {
    const allowed = new Set(fixture.promotions.allowed.map(([a, b]) => `${a}>${b}`));
    const wrong: string[] = [];
    for (const a of fixture.promotions.types)
      for (const b of fixture.promotions.types) {
        if (a === b) continue;
        if (canPromote(a, b) !== allowed.has(`${a}>${b}`))
          wrong.push(`${a} -> ${b}: ours ${canPromote(a, b)}`);
      }
    expect(wrong).toEqual([]);
  });
});
