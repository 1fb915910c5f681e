/**
 * Stored inlined values as DuckDB values (catalog/sql/files/inlined-values.ts). Expectations are what
 * stock DuckDB 1.5.5 gives for the same text (e.g. `CAST('1.505' AS DECIMAL(10,2))` is 1.51,
 * `epoch_us(TIMESTAMPTZ '2026-01-02 03:04:05.25+01')` is 1767319445250000).
 */
import { describe, expect, it } from "vitest";
import { sqlTypeOf, sqlValueOf, storedSqlValue } from "../../../catalog/sql/files/inlined-values.ts";
import type { TypeNode } from "../../../catalog/values/index.ts";

const node = (type: string, children: TypeNode[] = []): TypeNode => ({ name: "c", type, children });

describe("inlined values become SqlValues of their DuckDB type", () => {
  it("parses the DuckDB type names inlined tables declare", () => {
    expect(sqlTypeOf("DECIMAL(10,2)")).toEqual({ id: "DECIMAL", width: 10, scale: 2 });
    expect(sqlTypeOf("VARCHAR[]")).toEqual({ id: "LIST", child: { id: "VARCHAR" } });
    expect(sqlTypeOf("MAP(VARCHAR, INTEGER)")).toEqual({
      id: "MAP",
      key: { id: "VARCHAR" },
      value: { id: "INTEGER" },
    });
    expect(sqlTypeOf('STRUCT(a INTEGER, "b c" VARCHAR[])')).toEqual({
      id: "STRUCT",
      fields: [
        { name: "a", type: { id: "INTEGER" } },
        { name: "b c", type: { id: "LIST", child: { id: "VARCHAR" } } },
      ],
    });
    expect(sqlTypeOf("TIMESTAMP WITH TIME ZONE")).toEqual({ id: "TIMESTAMP WITH TIME ZONE" });
    expect(() => sqlTypeOf("GEOMETRY")).toThrow(/cannot be served/);
  });

  it("maps scalars as DuckDB casts their text", () => {
    const dec = sqlTypeOf("DECIMAL(10,2)");
    expect(sqlValueOf(dec, "1.505")).toBe(151n);
    expect(sqlValueOf(dec, "-1.505")).toBe(-151n);
    expect(sqlValueOf(dec, "2e1")).toBe(2000n);
    expect(sqlValueOf(dec, 1.5)).toBe(150n);
    expect(sqlValueOf(sqlTypeOf("BIGINT"), "10000000000")).toBe(10_000_000_000n);
    expect(sqlValueOf(sqlTypeOf("HUGEINT"), 123)).toBe(123n);
    expect(sqlValueOf(sqlTypeOf("INTEGER"), "7")).toBe(7);
    expect(sqlValueOf(sqlTypeOf("DOUBLE"), "inf")).toBe(Number.POSITIVE_INFINITY);
    expect(sqlValueOf(sqlTypeOf("BOOLEAN"), "true")).toBe(true);
    expect(sqlValueOf(sqlTypeOf("DATE"), "1969-12-31")).toBe(-1);
    expect(sqlValueOf(sqlTypeOf("TIMESTAMP"), "1969-12-31 23:59:59.5")).toBe(-500_000n);
    expect(sqlValueOf(sqlTypeOf("TIMESTAMP WITH TIME ZONE"), "2026-01-02 03:04:05.25+01")).toBe(
      1_767_319_445_250_000n,
    );
    expect(sqlValueOf(sqlTypeOf("TIME"), "01:02:03.5")).toBe(3_723_500_000n);
    expect(sqlValueOf(sqlTypeOf("INTERVAL"), "1 year 2 months 3 days 04:05:06")).toEqual({
      months: 14,
      days: 3,
      micros: 14_706_000_000n,
    });
    expect(sqlValueOf(sqlTypeOf("BLOB"), "\\x01a")).toEqual(new Uint8Array([1, 0x61]));
    expect(sqlValueOf(sqlTypeOf("UUID"), "0000000A-0000-0000-0000-000000000001")).toBe(
      "0000000a-0000-0000-0000-000000000001",
    );
    expect(sqlValueOf(sqlTypeOf("VARCHAR"), null)).toBeNull();
  });

  it("refuses a value that does not fit its type", () => {
    expect(() => sqlValueOf(sqlTypeOf("INTEGER"), "x")).toThrow(/not a valid INTEGER/);
    expect(() => sqlValueOf(sqlTypeOf("DATE"), "yesterday")).toThrow(/not a valid DATE/);
    expect(() => sqlValueOf(sqlTypeOf("DECIMAL(4,1)"), "1.2.3")).toThrow(/not a valid DECIMAL/);
  });

  it("maps nested values given as JSON", () => {
    expect(sqlValueOf(sqlTypeOf("INTEGER[]"), "[1, null, 3]")).toEqual([1, null, 3]);
    expect(sqlValueOf(sqlTypeOf("STRUCT(a INTEGER, b VARCHAR)"), '{"a": 1}')).toEqual({ a: 1, b: null });
    expect(sqlValueOf(sqlTypeOf("MAP(VARCHAR, BIGINT)"), '{"k": 2}')).toEqual([{ key: "k", value: 2n }]);
  });

  it("reads the stored form of catalog/values/ (decision 0120) and rows stored before it", () => {
    const dec = sqlTypeOf("DECIMAL(10,2)");
    // New writes: DuckDB's text with exactly `scale` digits; older rows: a JSON number.
    expect(storedSqlValue(dec, node("decimal(10,2)"), "1.50")).toBe(150n);
    expect(storedSqlValue(dec, node("decimal(10,2)"), 1.5)).toBe(150n);
    const tz = sqlTypeOf("TIMESTAMP WITH TIME ZONE");
    expect(storedSqlValue(tz, node("timestamptz"), "2026-01-02 02:04:05.25+00")).toBe(1_767_319_445_250_000n);
    expect(storedSqlValue(sqlTypeOf("DOUBLE"), node("float64"), "NaN")).toBeNaN();
    expect(storedSqlValue(sqlTypeOf("DOUBLE"), node("float64"), "-Infinity")).toBe(Number.NEGATIVE_INFINITY);
    // Nested values are stored as JSON arrays/objects, maps as [{key, value}].
    const list = node("list", [node("int32")]);
    expect(storedSqlValue(sqlTypeOf("INTEGER[]"), list, [1, null, 3])).toEqual([1, null, 3]);
    const map = node("map", [node("varchar"), node("int64")]);
    expect(storedSqlValue(sqlTypeOf("MAP(VARCHAR, BIGINT)"), map, [{ key: "k", value: 2 }])).toEqual([
      { key: "k", value: 2n },
    ]);
    // An old-form row the value rules refuse (nested text) is read as stored, as before.
    expect(storedSqlValue(sqlTypeOf("INTEGER[]"), list, "[1, 2]")).toEqual([1, 2]);
    expect(storedSqlValue(dec, node("decimal(10,2)"), null)).toBeNull();
  });
});
