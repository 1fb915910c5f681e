import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pruneFiles, type ScanPlan } from "../../catalog/index.ts";
import type { ColumnRecord } from "../../catalog/records.ts";
import { compareStat, compareStatValues } from "../../catalog/stat-order.ts";
import { assertProperty } from "../support/property.ts";

const sign = (n: number | undefined): number | undefined => (n === undefined ? undefined : Math.sign(n));

describe("stats order in the column's DuckLake type", () => {
  it("varchar compares as text: '10' < '5' < '9'", () => {
    expect(sign(compareStatValues("varchar", "10", "5"))).toBe(-1);
    expect(sign(compareStatValues("varchar", "9", "5"))).toBe(1);
  });

  it("text order is code-point (UTF-8 byte) order, not UTF-16 unit order", () => {
    // U+FF61 is one unit above the surrogates; U+1F600 is a surrogate pair. UTF-8 puts U+FF61 first.
    expect(sign(compareStatValues("varchar", "\uff61", "😀"))).toBe(-1);
  });

  it("int64 and wider compare exactly beyond 2^53", () => {
    expect(sign(compareStatValues("int64", "9007199254740993", "9007199254740992"))).toBe(1);
    expect(
      sign(
        compareStatValues(
          "int128",
          "-170141183460469231731687303715884105728",
          "-170141183460469231731687303715884105727",
        ),
      ),
    ).toBe(-1);
    expect(sign(compareStatValues("uint64", "18446744073709551615", "18446744073709551614"))).toBe(1);
  });

  it("decimals compare exactly, whatever the spelling", () => {
    expect(
      sign(compareStatValues("decimal(38,10)", "12345678901234567890.0000000001", "12345678901234567890")),
    ).toBe(1);
    expect(compareStatValues("decimal(4,2)", "1.50", "1.5")).toBe(0);
    expect(compareStatValues("decimal(4,2)", "-0.00", "0")).toBe(0);
    expect(sign(compareStatValues("decimal(4,2)", "-1.5", "-1.25"))).toBe(-1);
    expect(sign(compareStatValues("int32", "1e3", "999"))).toBe(1);
  });

  it("floats compare as doubles, with DuckDB's inf spellings; NaN has no order", () => {
    expect(sign(compareStatValues("float64", "inf", "1e308"))).toBe(1);
    expect(sign(compareStatValues("float64", "-inf", "-1e308"))).toBe(-1);
    expect(compareStatValues("float64", "nan", "1")).toBeUndefined();
  });

  it("a number column's non-number text has no order (never prunes)", () => {
    expect(compareStatValues("int32", "abc", "1")).toBeUndefined();
  });

  it("integers agree with BigInt order; decimals with scaled BigInt order (property)", () => {
    assertProperty(
      fc.property(
        fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n }),
        fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n }),
        (a, b) => {
          const want = a < b ? -1 : a > b ? 1 : 0;
          expect(sign(compareStatValues("int128", String(a), String(b)))).toBe(want);
        },
      ),
    );
    const dec = (n: bigint, scale: number): string => {
      const neg = n < 0n;
      const digits = (neg ? -n : n).toString().padStart(scale + 1, "0");
      return `${neg ? "-" : ""}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
    };
    assertProperty(
      fc.property(
        fc.bigInt({ min: -(10n ** 38n), max: 10n ** 38n }),
        fc.bigInt({ min: -(10n ** 38n), max: 10n ** 38n }),
        fc.nat({ max: 12 }),
        fc.nat({ max: 12 }),
        (a, b, sa, sb) => {
          // a / 10^sa vs b / 10^sb, compared exactly on a common scale.
          const x = a * 10n ** BigInt(sb);
          const y = b * 10n ** BigInt(sa);
          const want = x < y ? -1 : x > y ? 1 : 0;
          expect(sign(compareStatValues("decimal(38,12)", dec(a, sa), dec(b, sb)))).toBe(want);
        },
      ),
    );
  });

  it("compareStat (stats merging) keeps text order for texts of no number", () => {
    expect(sign(compareStat("int32", "abc", "abd"))).toBe(-1);
  });
});

function column(id: number, name: string, type: string): ColumnRecord {
  return { column_id: id, column_name: name, column_type: type, parent_column: null } as ColumnRecord;
}

function planOf(
  columns: ColumnRecord[],
  stats: { column_id: number; min: string | null; max: string | null }[][],
) {
  return {
    columns,
    files: stats.map((s, i) => ({
      data_file_id: i,
      x_column_stats: s.map((c) => ({
        column_id: c.column_id,
        min_value: c.min,
        max_value: c.max,
        column_size_bytes: null,
        value_count: null,
        null_count: null,
        contains_nan: null,
        extra_stats: null,
      })),
    })),
  } as unknown as Pick<ScanPlan, "columns" | "files">;
}

describe("pruneFiles", () => {
  const cols = [
    column(1, "code", "varchar"),
    column(2, "big", "int64"),
    column(3, "Amount", "decimal(10,2)"),
  ];

  it("a BOOLEAN file's Parquet stats 0..1 may hold true: kept (decision 0730)", () => {
    const plan = planOf([column(4, "flag", "boolean")], [[{ column_id: 4, min: "0", max: "1" }]]);
    expect(pruneFiles(plan, [{ column: "flag", op: "eq", value: "true" }]).pruned).toBe(0);
    expect(pruneFiles(plan, [{ column: "flag", op: "gt", value: "true" }]).pruned).toBe(1);
    expect(compareStatValues("boolean", "1", "true")).toBe(0);
    expect(sign(compareStatValues("boolean", "false", "1"))).toBe(-1);
  });

  it("varchar stats min '10' max '9' may hold '5': kept", () => {
    const plan = planOf(cols, [[{ column_id: 1, min: "10", max: "9" }]]);
    expect(pruneFiles(plan, [{ column: "code", op: "eq", value: "5" }]).pruned).toBe(0);
    expect(pruneFiles(plan, [{ column: "code", op: "eq", value: "95" }]).pruned).toBe(1);
  });

  it("big > 2^53 keeps a file whose max is 2^53 + 1, and prunes one whose max is 2^53", () => {
    const plan = planOf(cols, [
      [{ column_id: 2, min: "0", max: "9007199254740993" }],
      [{ column_id: 2, min: "0", max: "9007199254740992" }],
    ]);
    const out = pruneFiles(plan, [{ column: "big", op: "gt", value: "9007199254740992" }]);
    expect(out.files.map((f) => f.data_file_id)).toEqual([0]);
    expect(out.pruned).toBe(1);
  });

  it("filter column names fold like catalog names", () => {
    const plan = planOf(cols, [[{ column_id: 1, min: "a", max: "b" }]]);
    expect(pruneFiles(plan, [{ column: "CODE", op: "eq", value: "z" }]).pruned).toBe(1);
    expect(pruneFiles(plan, [{ column: "amount", op: "lt", value: "1.00" }]).pruned).toBe(0);
  });

  it("missing stats or bounds never prune; every op is honoured", () => {
    const plan = planOf(cols, [
      [],
      [{ column_id: 2, min: null, max: "5" }],
      [{ column_id: 2, min: "3", max: "5" }],
    ]);
    const kept = (op: "eq" | "lt" | "lte" | "gt" | "gte", value: string) =>
      pruneFiles(plan, [{ column: "big", op, value }]).files.map((f) => f.data_file_id);
    expect(kept("gt", "5")).toEqual([0]);
    expect(kept("gte", "5")).toEqual([0, 1, 2]);
    expect(kept("lt", "3")).toEqual([0, 1]);
    expect(kept("lte", "3")).toEqual([0, 1, 2]);
    expect(kept("eq", "4")).toEqual([0, 1, 2]);
    expect(kept("eq", "6")).toEqual([0]);
  });

  it("an unknown column or a value not of the column's type is InvalidRequest", () => {
    const plan = planOf(cols, []);
    expect(() => pruneFiles(plan, [{ column: "nope", op: "eq", value: "1" }])).toThrow(
      expect.objectContaining({ code: "InvalidRequest" }),
    );
    expect(() => pruneFiles(plan, [{ column: "big", op: "eq", value: "abc" }])).toThrow(
      expect.objectContaining({ code: "InvalidRequest" }),
    );
  });
});
