/**
 * VARIANT cells of inlined rows (docs/decisions/0700-variant-values.md, 0701-variant-wire.md): the literal
 * DuckLake writes is typed as DuckDB types it, stored tagged, and served in DuckDB's physical VARIANT form.
 * Every expected layout below is what a stock DuckDB 1.5.5 Quack server sends for
 * `INSERT INTO t VALUES (<literal>)` into a VARIANT column (captured through a proxy, decoded per row:
 * keys, children as [keys_index, values_index], values as [tag, byte_offset], data as hex).
 */
import { describe, expect, it } from "vitest";
import type { InlineValue } from "../../../catalog/records.ts";
import { sqlValueOf } from "../../../catalog/sql/files/inlined-values.ts";
import type { SqlValue } from "../../../catalog/sql/result.ts";
import { type Literal, parseTupleText } from "../../../catalog/sql/writes/parse.ts";
import { inlineValue } from "../../../catalog/sql/writes/translate.ts";
import { cellValue, variantOfLiteral } from "../../../catalog/sql/writes/variant-literal.ts";
import { toText } from "../../../catalog/values/index.ts";

interface Physical {
  keys: string[];
  children: { keys_index: number | null; values_index: number }[];
  values: { type_id: number; byte_offset: number }[];
  data: Uint8Array;
}

function stored(literal: string) {
  const [lit] = parseTupleText(`(${literal})`);
  if (!lit) throw new Error("no literal");
  return variantOfLiteral(lit);
}

function layout(literal: string) {
  const p = sqlValueOf({ id: "VARIANT" }, stored(literal) as InlineValue) as SqlValue as unknown as Physical;
  return {
    keys: p.keys,
    children: p.children.map((c) => [c.keys_index, c.values_index]),
    values: p.values.map((v) => [v.type_id, v.byte_offset]),
    data: Buffer.from(p.data).toString("hex"),
  };
}

const prim = (tag: number, data: string) => ({ keys: [], children: [], values: [[tag, 0]], data });

describe("VARIANT values are laid out byte for byte as stock DuckDB lays them out", () => {
  it.each([
    ["42", prim(0x05, "2a000000")],
    ["2147483648", prim(0x06, "0000008000000000")],
    ["-2147483649", prim(0x06, "ffffff7fffffffff")],
    ["9223372036854775808", prim(0x07, "00000000000000800000000000000000")],
    ["170141183460469231731687303715884105728", prim(0x0c, "00000000000000000000000000000080")],
    ["1.5", prim(0x0f, "02010f00")],
    ["-0.50", prim(0x0f, "0302ceff")],
    ["12345678901234567890.123456789012345678", prim(0x0f, "26124ef338de509049c4133302f0f6b04909")],
    ["1e+20", prim(0x0e, "408cb5781daf1544")],
    ["true", prim(0x01, "")],
    ["false", prim(0x02, "")],
    ["CAST('nan' AS FLOAT)", prim(0x0d, "0000c07f")],
    ["CAST('-0.0' AS DOUBLE)", prim(0x0e, "0000000000000080")],
    ["'hello world'", prim(0x10, "0b68656c6c6f20776f726c64")],
    ["''", prim(0x10, "00")],
    ["CAST('2000-01-01' AS DATE)", prim(0x13, "cd2a0000")],
    ["CAST('infinity' AS DATE)", prim(0x13, "ffffff7f")],
    ["CAST('12:00:00.5' AS TIME)", prim(0x14, "2051f30e0a000000")],
    ["CAST('12:00:00' AS TIME_NS)", prim(0x15, "0080a7484a270000")],
    ["CAST('2000-01-01 01:02:03' AS TIMESTAMP)", prim(0x18, "c0582019025d0300")],
    ["CAST('infinity' AS TIMESTAMP)", prim(0x18, "ffffffffffffff7f")],
    ["CAST('2000-01-01 01:02:03+00' AS TIMESTAMP WITH TIME ZONE)", prim(0x1b, "c0582019025d0300")],
    ["CAST('2000-01-01 01:02:03' AS TIMESTAMP_NS)", prim(0x19, "00ae5a263250230d")],
    ["CAST('2000-01-01 01:02:03' AS TIMESTAMP_MS)", prim(0x17, "f87a086bdc000000")],
    ["CAST('2000-01-01 01:02:03' AS TIMESTAMP_S)", prim(0x16, "0b526d3800000000")],
    ["CAST('\\x00ab' AS BLOB)", prim(0x11, "03006162")],
    ["CAST('1 months 2 days 3 microseconds' AS INTERVAL)", prim(0x1c, "01000000020000000300000000000000")],
    ["CAST('12:00:00+01' AS TIME WITH TIME ZONE)", prim(0x1a, "efd20000b0eb0e0a")],
    ["CAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS UUID)", prim(0x12, "110a38bdb96b6dbbf84e0b9c99bcee20")],
    ["[]", { keys: [], children: [], values: [[0x1e, 0]], data: "0000" }],
    [
      "{'a': 42, 'b': NULL, 'c': 84}",
      {
        keys: ["a", "b", "c"],
        children: [
          [0, 1],
          [1, 2],
          [2, 3],
        ],
        values: [
          [0x1d, 0],
          [0x05, 2],
          [0x00, 6],
          [0x05, 6],
        ],
        data: "03002a00000054000000",
      },
    ],
    [
      "{'c': 1, 'a': 2}",
      {
        keys: ["c", "a"],
        children: [
          [0, 1],
          [1, 2],
        ],
        values: [
          [0x1d, 0],
          [5, 2],
          [5, 6],
        ],
        data: "02000100000002000000",
      },
    ],
    [
      "[{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}]",
      {
        keys: ["a", "b", "a", "b"],
        children: [
          [null, 1],
          [null, 2],
          [0, 3],
          [1, 5],
          [2, 4],
          [3, 6],
        ],
        values: [
          [0x1e, 0],
          [0x1d, 2],
          [0x1d, 4],
          [5, 6],
          [5, 10],
          [0x10, 14],
          [0x10, 16],
        ],
        data: "020002020204010000000200000001780179",
      },
    ],
    [
      "{'x': [{'y': 'z'}, {'y': 'q'}], 'w': 3}",
      {
        keys: ["x", "w", "y", "y"],
        children: [
          [0, 1],
          [1, 6],
          [null, 2],
          [null, 3],
          [2, 4],
          [3, 5],
        ],
        values: [
          [0x1d, 0],
          [0x1e, 2],
          [0x1d, 4],
          [0x1d, 6],
          [0x10, 8],
          [0x10, 10],
          [5, 12],
        ],
        data: "0200020201040105017a017103000000",
      },
    ],
    [
      "[[1],[2,3]]",
      {
        keys: [],
        children: [
          [null, 1],
          [null, 2],
          [null, 3],
          [null, 4],
          [null, 5],
        ],
        values: [
          [0x1e, 0],
          [0x1e, 2],
          [0x1e, 4],
          [5, 6],
          [5, 10],
          [5, 14],
        ],
        data: "020001020203010000000200000003000000",
      },
    ],
    [
      "{'b': {'a': 1}, 'a': 2}",
      {
        keys: ["b", "a", "a"],
        children: [
          [0, 1],
          [1, 3],
          [2, 2],
        ],
        values: [
          [0x1d, 0],
          [0x1d, 2],
          [5, 4],
          [5, 8],
        ],
        data: "020001020100000002000000",
      },
    ],
    [
      "[{'a': NULL}, NULL]",
      {
        keys: ["a"],
        children: [
          [null, 1],
          [null, 2],
          [0, 3],
        ],
        values: [
          [0x1e, 0],
          [0x1d, 2],
          [0, 4],
          [0, 4],
        ],
        data: "02000102",
      },
    ],
    [
      "{'a': []}",
      {
        keys: ["a"],
        children: [[0, 1]],
        values: [
          [0x1d, 0],
          [0x1e, 2],
        ],
        data: "01000000",
      },
    ],
  ])("%s", (literal, want) => {
    expect(layout(literal)).toEqual(want);
  });

  it("serves a top-level NULL as SQL NULL (the vector's validity), not a VARIANT_NULL value", () => {
    expect(stored("NULL")).toBeNull();
    expect(sqlValueOf({ id: "VARIANT" }, null)).toBeNull();
  });
});

describe("VARIANT literals DuckDB would retype are refused by name, never stored changed", () => {
  it.each([
    ["[1, 1.5]", /different types/],
    ["[1, 2147483648]", /different types/],
    ["[{'a': 1}, {'b': 2}]", /different types/],
    ["[1, 'a']", /different types/],
    ["MAP([1], [2])", /MAP literal/],
    ["340282366920938463463374607431768211456", /integer/],
    ["CAST('POINT (1 2)' AS GEOMETRY)", /GEOMETRY/],
  ])("%s", (literal, why) => {
    expect(() => stored(literal)).toThrow(why);
  });

  it("keeps lists whose elements agree, NULLs included", () => {
    expect(() => stored("[{'a': NULL}, {'a': 1}, NULL]")).not.toThrow();
    expect(() => stored("[[], [1], NULL]")).not.toThrow();
  });
});

describe("a VARIANT value's text is DuckDB's VARCHAR cast of it (the stats DuckLake keeps)", () => {
  const node = { name: "v", type: "variant", children: [] };
  it.each([
    [
      "{'a': 'hello', 'b': [1, 2], 'c': NULL, 'd': 'x y', 'e': ''}",
      "{'a': hello, 'b': [1, 2], 'c': NULL, 'd': x y, 'e': ''}",
    ],
    ["['a', 'b c', NULL]", "[a, b c, NULL]"],
    ["{'a': CAST('2000-01-01' AS DATE), 'b': 1.5, 'c': true}", "{'a': 2000-01-01, 'b': 1.5, 'c': true}"],
    ["CAST('nan' AS DOUBLE)", "nan"],
    ["1e+20", "1e+20"],
    ["'it''s'", "it's"],
    ["{'k''': 1}", "{'k\\'': 1}"],
    ["42", "42"],
  ])("%s", (literal, text) => {
    expect(toText(node, stored(literal))).toBe(text);
  });
});

describe("a VARIANT inside a LIST, STRUCT or MAP column is typed from its literal too", () => {
  it("types the VARIANT fields and leaves the rest as plain values", () => {
    const [lit] = parseTupleText("({'a': 42, 'b': [CAST('2000-01-01' AS DATE), NULL], 'c': 'x'})");
    const variant = { name: "a", type: "variant", children: [] };
    const node = {
      name: "s",
      type: "struct",
      children: [
        variant,
        { name: "b", type: "list", children: [{ ...variant, name: "e" }] },
        { name: "c", type: "varchar", children: [] },
      ],
    };
    expect(cellValue(node, lit as Literal, inlineValue)).toEqual({
      a: { t: "int32", v: 42 },
      b: [{ t: "date", v: "2000-01-01" }, null],
      c: "x",
    });
  });
});

describe("VARIANT elements of a LIST or MAP column are one list literal: DuckDB unifies them first", () => {
  const variant = { name: "e", type: "variant", children: [] };
  const cell = (text: string, node: { name: string; type: string; children: unknown[] }) => {
    const [lit] = parseTupleText(`(${text})`);
    return cellValue(node as never, lit as Literal, inlineValue);
  };
  it("keeps elements of one type and refuses the rest by shape", () => {
    const list = { name: "l", type: "list", children: [variant] };
    expect(cell("[42, NULL, 7]", list)).toEqual([{ t: "int32", v: 42 }, null, { t: "int32", v: 7 }]);
    expect(() => cell("[42, 1.5]", list)).toThrow(/different types/);
    const nested = {
      name: "l",
      type: "list",
      children: [{ name: "s", type: "struct", children: [{ ...variant, name: "a" }] }],
    };
    expect(() => cell("[{'a': 42}, {'a': 'x'}]", nested)).toThrow(/STRUCT values holding VARIANT/);
    expect(cell("[{'a': 42}, NULL]", nested)).toEqual([{ a: { t: "int32", v: 42 } }, null]);
  });
});

describe("numeric literals take the type stock DuckDB 1.5.5 gives them in a VARIANT", () => {
  it.each([
    ["0.05", "decimal(3,2)"],
    ["100.0", "decimal(4,1)"],
    ["-0.001", "decimal(4,3)"],
    ["123456789012345678.5", "decimal(19,1)"],
    ["1234567890123456789012345678901234567.8", "decimal(38,1)"],
    ["12345678901234567890123456789012345678.9", "float64"],
    ["-2147483648", "int64"],
    ["1e-05", "float64"],
  ])("%s is %s", (literal, t) => {
    expect((stored(literal) as { t: string }).t).toBe(t);
  });
});
