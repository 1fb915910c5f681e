import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatFixed6, mergeExtraStats, variantFileStats } from "../../catalog/extra-stats.ts";
import { assertProperty } from "../support/property.ts";

// Texts as DuckLake 1.5.5 writes them (DuckLake's suite, geo/ducklake_geometry.test and
// stats/variant_stats_special_chars.test; the merged forms measured on a stock server, decision 0620).
const POINT =
  '{"bbox": {"xmin": 1.000000, "xmax": 1.000000, "ymin": 2.000000, "ymax": 2.000000, "zmin": null, "zmax": null, "mmin": null, "mmax": null}, "types": ["point"]}';
const LINE_Z =
  '{"bbox": {"xmin": 5.000000, "xmax": 10.000000, "ymin": 5.000000, "ymax": 10.000000, "zmin": 5.000000, "zmax": 10.000000, "mmin": null, "mmax": null}, "types": ["linestring_z"]}';
const MERGED =
  '{"bbox": {"xmin": 1.000000, "xmax": 10.000000, "ymin": 2.000000, "ymax": 10.000000, "zmin": 5.000000, "zmax": 10.000000, "mmin": null, "mmax": null}, "types": ["linestring_z", "point"]}';
const HELLO =
  '[{"field_name":"\\"text\\"","shredded_type":"varchar","null_count":0,"min":"hello","max":"hello","num_values":1,"column_size_bytes":34,"any_valid":true}]';
const FINE =
  '[{"field_name":"\\"text\\"","shredded_type":"varchar","null_count":0,"min":"it\'s fine","max":"it\'s fine","num_values":1,"column_size_bytes":38,"any_valid":true}]';

describe("extra_stats as DuckLake writes and merges them", () => {
  it("GEOMETRY: the bounding box widens and the types unite, in set order", () => {
    expect(mergeExtraStats(POINT, LINE_Z)).toBe(MERGED);
    expect(mergeExtraStats(LINE_Z, POINT)).toBe(MERGED);
  });

  it("VARIANT: a field in both with one shredded type is merged (counts added, min/max widened)", () => {
    expect(mergeExtraStats(HELLO, FINE)).toBe(
      '[{"field_name":"\\"text\\"","shredded_type":"varchar","null_count":0,"min":"hello","max":"it\'s fine","num_values":2,"column_size_bytes":72,"any_valid":true}]',
    );
  });

  it("VARIANT: a field whose shredded type differs is dropped, and no fields is NULL", () => {
    const int32 =
      '[{"field_name":"root","shredded_type":"int32","null_count":0,"min":"42","max":"42","num_values":1,"column_size_bytes":29,"any_valid":true}]';
    const text =
      '[{"field_name":"root","shredded_type":"varchar","null_count":0,"min":"hello","max":"hello","num_values":1,"column_size_bytes":34,"any_valid":true}]';
    expect(mergeExtraStats(int32, text)).toBeNull();
  });

  it("VARIANT file stats: one row per field, value_count the non-NULL count", () => {
    expect(variantFileStats(3, FINE)).toEqual([
      {
        column_id: 3,
        variant_path: '"text"',
        shredded_type: "varchar",
        column_size_bytes: 38,
        value_count: 1,
        null_count: 0,
        min_value: "it's fine",
        max_value: "it's fine",
        contains_nan: null,
        extra_stats: null,
      },
    ]);
    expect(variantFileStats(3, POINT)).toEqual([]);
    expect(variantFileStats(3, null)).toEqual([]);
  });

  it("refuses a bound DuckLake would read as 0 (an integer literal) rather than guess", () => {
    expect(() => mergeExtraStats(POINT, POINT.replace("5.000000", "5"))).not.toThrow();
    expect(() => mergeExtraStats(POINT, POINT.replace("1.000000", "1"))).toThrow(/integer bound/);
  });

  it("%f: exact binary value, ties to even, the sign of a negative zero kept", () => {
    expect(formatFixed6(-0.0078125)).toBe("-0.007812"); // measured on stock (test/quack geometry-stats-merge)
    expect(formatFixed6(0.0234375)).toBe("0.023438");
    expect(formatFixed6(1e12)).toBe("1000000000000.000000");
    expect(formatFixed6(-0)).toBe("-0.000000");
    expect(formatFixed6(1e-7)).toBe("0.000000");
    expect(formatFixed6(0.1)).toBe("0.100000");
  });

  it("%f: the printed value is the double rounded to six decimals", () => {
    assertProperty(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), (x) => {
        const s = formatFixed6(x);
        expect(s).toMatch(/^-?\d+\.\d{6}$/);
        expect(Math.abs(Number(s) - x)).toBeLessThanOrEqual(5e-7 + Math.abs(x) * 2 ** -52);
      }),
    );
  });
});
