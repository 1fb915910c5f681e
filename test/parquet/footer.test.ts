import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { footerLength, ParquetInvalid, readParquetFooter, writeParquet } from "../../parquet/index.ts";

const orders = Uint8Array.from(atob(env.TEST_ORDERS_PARQUET_B64 ?? ""), (ch) => ch.charCodeAt(0));
interface Stats {
  recordCount: number;
  footerSize: number;
  columns: Record<string, { valueCount: number; nullCount: number; min: string; max: string }>;
}
const expected = JSON.parse(env.TEST_ORDERS_STATS ?? "{}") as Stats;

describe("footer-only reader", () => {
  it("gives DuckDB's facts for a file DuckDB wrote, from the footer bytes alone", () => {
    const tail = orders.subarray(orders.byteLength - footerLength(orders.subarray(orders.byteLength - 8)));
    expect(tail.byteLength).toBeLessThan(orders.byteLength);
    const facts = readParquetFooter(tail);
    expect(facts.rowCount).toBe(expected.recordCount);
    expect(facts.footerSize).toBe(expected.footerSize);
    for (const c of facts.columns) {
      const want = expected.columns[c.name];
      expect(want, c.name).toBeDefined();
      expect({ v: c.valueCount, n: c.nullCount, min: c.min, max: c.max }).toEqual({
        v: want?.valueCount,
        n: want?.nullCount,
        min: want?.min,
        max: want?.max,
      });
      expect(c.compressedBytes).toBeGreaterThan(0);
    }
    expect(facts.columns.map((c) => c.name)).toEqual(["id", "amount", "region"]);
  });

  it("agrees with the writer's own stats across row groups; leaves min/max null where inexact", () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({
      n: i % 7 === 0 ? null : 1000 - i,
      s: `k${String(i).padStart(3, "0")}`,
      d: i * 0.5,
    }));
    const file = writeParquet(
      [
        { name: "n", type: { kind: "int", bits: 64, signed: true }, nullable: true },
        { name: "s", type: { kind: "string" }, nullable: false },
        { name: "d", type: { kind: "double" }, nullable: false },
      ],
      rows.map((r) => ({ ...r, n: r.n === null ? null : BigInt(r.n) })),
      { rowGroupSize: 100 },
    );
    const facts = readParquetFooter(file.bytes);
    expect(facts.rowCount).toBe(300);
    const [n, s, d] = facts.columns;
    const nulls = rows.filter((r) => r.n === null).length;
    expect(n).toMatchObject({ name: "n", valueCount: 300, nullCount: nulls, min: "701", max: "999" });
    expect(s).toMatchObject({ name: "s", min: "k000", max: "k299", nullCount: 0 });
    expect(d).toMatchObject({ name: "d", min: null, max: null });
    const written = file.leaves.find((x) => x.path === "n");
    expect(n?.compressedBytes).toBe(written?.compressedBytes);
  });

  it("refuses what is not a Parquet footer with ParquetInvalid", () => {
    expect(() => readParquetFooter(new Uint8Array(20))).toThrow(ParquetInvalid);
    expect(() => readParquetFooter(orders.subarray(0, orders.byteLength - 1))).toThrow(ParquetInvalid);
  });
});
