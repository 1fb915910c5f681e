/**
 * The metadata-query evaluator (catalog/sql/query/, decision 0420) against stock DuckDB 1.5.5's answers
 * (test/fixtures/quack/query-eval.json, written by tools/query-eval-golden.py): the shapes DuckLake and
 * DuckDB's Quack catalog send and a seeded random sample of the subset, over relations with NULLs, ties
 * and duplicates. Every case is either answered exactly as stock answers it (names, types, rows, and
 * their order where the query orders them) or refused with Unsupported; nearly all must be answered.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UnknownFunction, Unsupported } from "../../../catalog/errors.ts";
import { sqlTypeOf } from "../../../catalog/sql/files/inlined-values.ts";
import { tokenize } from "../../../catalog/sql/lexer.ts";
import { parseQuery } from "../../../catalog/sql/query/parse.ts";
import { Evaluator, type Rel } from "../../../catalog/sql/query/run.ts";
import { typeText } from "../../../catalog/sql/query/values.ts";
import type { SqlResult, SqlValue } from "../../../catalog/sql/result.ts";
import fixture from "../../fixtures/quack/query-eval.json";
import { assertProperty } from "../../support/property.ts";

type Enc =
  | null
  | boolean
  | string
  | { int: string }
  | { float: string }
  | { struct: Record<string, Enc> }
  | Enc[];

interface Case {
  sql: string;
  ok: boolean;
  columns?: [string, string][];
  rows?: Enc[][];
  error?: string;
}

const relations = new Map<string, Rel>(
  Object.entries(fixture.relations).map(([name, r]) => {
    const types = r.cols.map(([, t]) => sqlTypeOf(t as string));
    return [
      name,
      {
        cols: r.cols.map(([n], i) => ({
          name: n as string,
          type: { t: types[i] as ReturnType<typeof sqlTypeOf> },
        })),
        rows: (r.rows as (number | string | boolean | null)[][]).map((row) =>
          row.map((v): SqlValue => (typeof v === "number" ? BigInt(v) : v)),
        ),
      },
    ];
  }),
);

function run(sql: string): SqlResult {
  return new Evaluator((item) => {
    const rel = relations.get(item.name.toLowerCase());
    if (!rel) throw new Unsupported(`no relation ${item.name}`);
    return rel;
  }).run(parseQuery(tokenize(sql)));
}

/** A value in the fixture's encoding, for comparison. */
function enc(v: SqlValue): Enc {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") return { int: v.toString() };
  if (typeof v === "number") return Number.isInteger(v) ? { int: String(v) } : { float: String(v) };
  if (Array.isArray(v)) return v.map(enc);
  if (typeof v === "object" && !(v instanceof Uint8Array)) {
    return {
      struct: Object.fromEntries(Object.entries(v as Record<string, SqlValue>).map(([k, x]) => [k, enc(x)])),
    };
  }
  throw new Error(`unexpected value ${String(v)}`);
}

function normFloat(e: Enc): Enc {
  if (e && typeof e === "object" && "float" in e) return { float: String(Number(e.float)) };
  if (Array.isArray(e)) return e.map(normFloat);
  return e;
}

const hasTopLevelOrder = (sql: string): boolean =>
  /\bORDER BY\b[^()]*$/.test(
    sql
      .replace(/\([^()]*\)/g, "()")
      .replace(/\([^()]*\)/g, "()")
      .replace(/\([^()]*\)/g, "()"),
  );

describe("metadata-query evaluator against stock DuckDB", () => {
  it("answers each case as stock does, or refuses it by name", () => {
    let answered = 0;
    const refusedWith: string[] = [];
    for (const c of fixture.cases as Case[]) {
      let got: SqlResult;
      try {
        got = run(c.sql);
      } catch (err) {
        if (err instanceof Unsupported) {
          refusedWith.push(`${c.sql}\n  -> ${err.message}`);
          continue;
        }
        // Stock failed too (e.g. a conversion error): an error is the right answer.
        if (!c.ok) continue;
        throw new Error(`${c.sql}\nthrew ${String(err)}`);
      }
      expect(c.ok, `${c.sql}: stock failed with ${c.error} but the evaluator answered`).toBe(true);
      answered++;
      expect(
        got.columns.map((col) => typeText(col.type)),
        c.sql,
      ).toEqual((c.columns ?? []).map(([, t]) => t));
      const names = got.columns.map((col) => col.name);
      const expectedNames = (c.columns ?? []).map(([n]) => n);
      // Names of unaliased expressions are DuckDB's rendering of the expression; compare column refs,
      // aliases and positional references (what a client reads), not renderings of complex expressions.
      names.forEach((n, i) => {
        const e = expectedNames[i] as string;
        if (!/[()' ]/.test(e)) expect(n, c.sql).toBe(e);
      });
      const rows = got.rows.map((r) => r.map((v) => normFloat(enc(v))));
      const want = (c.rows ?? []).map((r) => r.map(normFloat));
      if (hasTopLevelOrder(c.sql)) expect(rows, c.sql).toEqual(want);
      else {
        const key = (r: Enc[]): string => JSON.stringify(r);
        expect(rows.map(key).sort(), c.sql).toEqual(want.map(key).sort());
      }
    }
    // The sample is of the subset: refusals are the rare constructs, not the bulk.
    expect(refusedWith.length, refusedWith.join("\n")).toBeLessThanOrEqual(
      Math.floor(fixture.cases.length / 20),
    );
    expect(answered).toBeGreaterThan(0);
  });

  it("refuses a construct outside the subset, naming it", () => {
    for (const [sql, words] of fixture.refused as [string, string][]) {
      let err: unknown;
      try {
        run(sql);
      } catch (e) {
        err = e;
      }
      expect(err, sql).toBeInstanceOf(Unsupported);
      expect((err as Error).message, sql).toContain(words);
    }
  });
});

/** Random small relations: ids unique, `a` an integer or NULL, `s` from a few strings or NULL. */
const relationArb = fc.array(
  fc.record({
    a: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null }),
    s: fc.option(fc.constantFrom("x", "y", "", "é"), { nil: null }),
  }),
  { maxLength: 12 },
);

function relOf(rows: { a: number | null; s: string | null }[]): Rel {
  return {
    cols: [
      { name: "id", type: { t: { id: "BIGINT" } } },
      { name: "a", type: { t: { id: "BIGINT" } } },
      { name: "s", type: { t: { id: "VARCHAR" } } },
    ],
    rows: rows.map((r, i) => [BigInt(i), r.a === null ? null : BigInt(r.a), r.s]),
  };
}

function runOver(l: Rel, r: Rel, sql: string): SqlResult {
  return new Evaluator((item) => (item.name === "ducklake_l" ? l : r)).run(parseQuery(tokenize(sql)));
}

const predicateArb = fc.constantFrom(
  "a > 0",
  "a = 1 OR s = 'x'",
  "a IN (1, NULL)",
  "NOT (a BETWEEN -1 AND 1) AND s IS NOT NULL",
  "s < 'y'",
  "a NOT IN (SELECT a FROM ducklake_r)",
  "EXISTS (SELECT 1 FROM ducklake_r r WHERE r.a = ducklake_l.a)",
  "COALESCE(a, 0) * 2 >= 2",
);

describe("metadata-query evaluator properties", () => {
  it("WHERE p, WHERE NOT p and WHERE (p) IS NULL partition the rows (three-valued logic)", () => {
    assertProperty(
      fc.property(relationArb, relationArb, predicateArb, (lr, rr, p) => {
        const l = relOf(lr);
        const r = relOf(rr);
        const count = (where: string): number =>
          Number(runOver(l, r, `SELECT COUNT(*) FROM ducklake_l WHERE ${where}`).rows[0]?.[0]);
        expect(count(`${p}`) + count(`NOT (${p})`) + count(`(${p}) IS NULL`)).toBe(lr.length);
      }),
    );
  });

  it("a hash join answers as the same join evaluated row by row", () => {
    assertProperty(
      fc.property(relationArb, relationArb, fc.constantFrom("JOIN", "LEFT JOIN"), (lr, rr, kind) => {
        const l = relOf(lr);
        const r = relOf(rr);
        const order = "ORDER BY l.id, r.id NULLS FIRST";
        const hashed = runOver(
          l,
          r,
          `SELECT l.id, r.id FROM ducklake_l l ${kind} ducklake_r r ON l.a = r.a AND l.s = r.s ${order}`,
        );
        const looped = runOver(
          l,
          r,
          `SELECT l.id, r.id FROM ducklake_l l ${kind} ducklake_r r ON l.a + 0 = r.a + 0 AND l.s || '' = r.s || '' ${order}`,
        );
        expect(hashed.rows).toEqual(looped.rows);
      }),
    );
  });

  it("ORDER BY … LIMIT k OFFSET j is a slice of the full ordering", () => {
    assertProperty(
      fc.property(relationArb, fc.nat(6), fc.nat(3), fc.boolean(), (lr, k, j, desc) => {
        const l = relOf(lr);
        const order = `ORDER BY a ${desc ? "DESC" : ""}, s NULLS FIRST, id`;
        const all = runOver(l, l, `SELECT id FROM ducklake_l ${order}`).rows;
        const page = runOver(l, l, `SELECT id FROM ducklake_l ${order} LIMIT ${k} OFFSET ${j}`).rows;
        expect(page).toEqual(all.slice(j, j + k));
      }),
    );
  });
});

// DuckLake sends a sorted table's sort expression inside the flush read; a DuckLake macro there is a
// function the metadata server does not know, and stock answers with its binder error (DuckLake's suite:
// sorted_table/data_inlining_flush_sorted_macro_expression_transaction.test:76; decision 0621).
describe("calls of functions stock DuckDB does not know", () => {
  const window =
    "SELECT id, ROW_NUMBER() OVER (ORDER BY zip_varchar(s, s, num_chars := 3) ASC NULLS LAST, id) - 1 AS p FROM ducklake_t1";
  it("answers stock's binder error, named arguments or not", () => {
    for (const sql of [window, "SELECT no_such_fn(a) FROM ducklake_t1"]) {
      expect(() => run(sql), sql).toThrow(UnknownFunction);
    }
    expect(() => run(window)).toThrow("Scalar Function with name zip_varchar does not exist!");
  });

  it("refuses a known function it does not evaluate, and named arguments of a known one", () => {
    for (const sql of [
      "SELECT levenshtein(s, s) FROM ducklake_t1",
      "SELECT lower(s, num_chars := 3) FROM ducklake_t1",
    ]) {
      expect(() => run(sql), sql).toThrow(Unsupported);
    }
  });
});
