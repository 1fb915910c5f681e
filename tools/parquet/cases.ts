/**
 * Parquet files of every type the leaf writes, with the values and the DuckDB type each column must read
 * back as. `write-fixtures.ts` writes them; `check.py` has stock DuckDB read them and compare.
 */
import type { ParquetField, ParquetRow } from "../../parquet/index.ts";

export interface Case {
  name: string;
  fields: ParquetField[];
  rows: ParquetRow[];
  /** DuckDB's `typeof()` of each column, in field order. */
  duckdbTypes: string[];
  /** Each row as DuckDB prints it with `SELECT <col>::VARCHAR`, in field order (null = NULL). */
  text: (string | null)[][];
}

const f = (name: string, type: ParquetField["type"], fieldId: number, nullable = true): ParquetField => ({
  name,
  type,
  fieldId,
  nullable,
});

export const CASES: Case[] = [
  {
    name: "integers",
    fields: [
      f("i8", { kind: "int", bits: 8, signed: true }, 1),
      f("i16", { kind: "int", bits: 16, signed: true }, 2),
      f("i32", { kind: "int", bits: 32, signed: true }, 3),
      f("i64", { kind: "int", bits: 64, signed: true }, 4),
      f("u8", { kind: "int", bits: 8, signed: false }, 5),
      f("u16", { kind: "int", bits: 16, signed: false }, 6),
      f("u32", { kind: "int", bits: 32, signed: false }, 7),
      f("u64", { kind: "int", bits: 64, signed: false }, 8),
    ],
    rows: [
      { i8: -128, i16: -32768, i32: -2147483648, i64: -(2n ** 63n), u8: 0, u16: 0, u32: 0, u64: 0n },
      {
        i8: 127,
        i16: 32767,
        i32: 2147483647,
        i64: 2n ** 63n - 1n,
        u8: 255,
        u16: 65535,
        u32: 4294967295,
        u64: 2n ** 64n - 1n,
      },
      { i8: null, i16: null, i32: null, i64: null, u8: null, u16: null, u32: null, u64: null },
    ],
    duckdbTypes: ["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"],
    text: [
      ["-128", "-32768", "-2147483648", "-9223372036854775808", "0", "0", "0", "0"],
      [
        "127",
        "32767",
        "2147483647",
        "9223372036854775807",
        "255",
        "65535",
        "4294967295",
        "18446744073709551615",
      ],
      [null, null, null, null, null, null, null, null],
    ],
  },
  {
    name: "decimals-floats",
    fields: [
      f("d4", { kind: "decimal", precision: 4, scale: 2 }, 1),
      f("d18", { kind: "decimal", precision: 18, scale: 3 }, 2),
      f("d38", { kind: "decimal", precision: 38, scale: 10 }, 3),
      f("fl", { kind: "float" }, 4),
      f("db", { kind: "double" }, 5),
    ],
    rows: [
      { d4: 9999n, d18: -999999999999999999n, d38: 10n ** 37n + 7n, fl: 1.5, db: 0.1 },
      { d4: -1n, d18: 5n, d38: -(10n ** 38n - 1n), fl: Number.NaN, db: -1e300 },
      { d4: null, d18: null, d38: null, fl: null, db: null },
    ],
    duckdbTypes: ["DECIMAL(4,2)", "DECIMAL(18,3)", "DECIMAL(38,10)", "FLOAT", "DOUBLE"],
    text: [
      ["99.99", "-999999999999999.999", "1000000000000000000000000000.0000000007", "1.5", "0.1"],
      ["-0.01", "0.005", "-9999999999999999999999999999.9999999999", "nan", "-1e+300"],
      [null, null, null, null, null],
    ],
  },
  {
    name: "text-time",
    fields: [
      f("s", { kind: "string" }, 1),
      f("b", { kind: "blob" }, 2),
      f("j", { kind: "json" }, 3),
      f("u", { kind: "uuid" }, 4),
      f("bo", { kind: "boolean" }, 5),
      f("d", { kind: "date" }, 6),
      f("t", { kind: "time" }, 7),
      f("ts", { kind: "timestamp", unit: "us", utc: false }, 8),
      f("tz", { kind: "timestamp", unit: "us", utc: true }, 9),
      f("tms", { kind: "timestamp", unit: "ms", utc: false }, 10),
      f("tns", { kind: "timestamp", unit: "ns", utc: false }, 11),
    ],
    rows: [
      {
        s: "héllo 🦆",
        b: new Uint8Array([0, 255, 10]),
        j: '{"a":[1,2]}',
        u: "0190f3a1-7b2c-7def-8abc-0123456789ab",
        bo: true,
        d: 20423,
        t: 45296789012n,
        ts: 1764577838123456n,
        tz: 1764577838123456n,
        tms: 1764577838123n,
        tns: 1764577838123456789n,
      },
      {
        s: "",
        b: new Uint8Array(0),
        j: "[]",
        u: "00000000-0000-0000-0000-000000000000",
        bo: false,
        d: -1,
        t: 0n,
        ts: 0n,
        tz: 0n,
        tms: 0n,
        tns: 0n,
      },
      {
        s: null,
        b: null,
        j: null,
        u: null,
        bo: null,
        d: null,
        t: null,
        ts: null,
        tz: null,
        tms: null,
        tns: null,
      },
    ],
    duckdbTypes: [
      "VARCHAR",
      "BLOB",
      "JSON",
      "UUID",
      "BOOLEAN",
      "DATE",
      "TIME",
      "TIMESTAMP",
      "TIMESTAMP WITH TIME ZONE",
      // DuckDB reads millisecond timestamps as TIMESTAMP, also in files it wrote itself.
      "TIMESTAMP",
      "TIMESTAMP_NS",
    ],
    text: [
      [
        "héllo 🦆",
        "\\x00\\xFF\\x0A",
        '{"a":[1,2]}',
        "0190f3a1-7b2c-7def-8abc-0123456789ab",
        "true",
        "2025-12-01",
        "12:34:56.789012",
        "2025-12-01 08:30:38.123456",
        "2025-12-01 08:30:38.123456+00",
        "2025-12-01 08:30:38.123",
        "2025-12-01 08:30:38.123456789",
      ],
      [
        "",
        "",
        "[]",
        "00000000-0000-0000-0000-000000000000",
        "false",
        "1969-12-31",
        "00:00:00",
        "1970-01-01 00:00:00",
        "1970-01-01 00:00:00+00",
        "1970-01-01 00:00:00",
        "1970-01-01 00:00:00",
      ],
      [null, null, null, null, null, null, null, null, null, null, null],
    ],
  },
  {
    name: "nested",
    fields: [
      f("l", { kind: "list", element: f("element", { kind: "int", bits: 32, signed: true }, 2) }, 1),
      f(
        "st",
        {
          kind: "struct",
          fields: [f("a", { kind: "int", bits: 64, signed: true }, 4), f("b", { kind: "string" }, 5)],
        },
        3,
      ),
      f(
        "m",
        {
          kind: "map",
          key: f("key", { kind: "string" }, 7, false),
          value: f("value", { kind: "decimal", precision: 9, scale: 2 }, 8),
        },
        6,
      ),
      f(
        "ls",
        {
          kind: "list",
          element: f("element", { kind: "struct", fields: [f("x", { kind: "double" }, 11)] }, 10),
        },
        9,
      ),
    ],
    rows: [
      { l: [1, null, 3], st: { a: 5n, b: "x" }, m: [{ key: "k", value: 150n }], ls: [{ x: 1.5 }, null] },
      { l: [], st: { a: null, b: null }, m: [], ls: [] },
      { l: null, st: null, m: null, ls: null },
    ],
    duckdbTypes: [
      "INTEGER[]",
      "STRUCT(a BIGINT, b VARCHAR)",
      "MAP(VARCHAR, DECIMAL(9,2))",
      "STRUCT(x DOUBLE)[]",
    ],
    text: [
      ["[1, NULL, 3]", "{'a': 5, 'b': x}", "{k=1.50}", "[{'x': 1.5}, NULL]"],
      ["[]", "{'a': NULL, 'b': NULL}", "{}", "[]"],
      [null, null, null, null],
    ],
  },
];
