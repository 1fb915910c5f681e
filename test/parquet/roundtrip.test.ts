import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareCodePoints,
  MAX_ROWS_PER_FILE,
  type ParquetField,
  ParquetInvalid,
  type ParquetRow,
  type ParquetType,
  type ParquetValue,
  readParquet,
  writeParquet,
} from "../../parquet/index.ts";
import { assertProperty } from "../support/property.ts";

/** Leaf types with a generator of valid values for each. */
const LEAVES: [ParquetType, fc.Arbitrary<ParquetValue>][] = [
  [{ kind: "boolean" }, fc.boolean()],
  [{ kind: "int", bits: 8, signed: true }, fc.integer({ min: -128, max: 127 })],
  [{ kind: "int", bits: 16, signed: false }, fc.integer({ min: 0, max: 65535 })],
  [{ kind: "int", bits: 32, signed: true }, fc.integer()],
  [{ kind: "int", bits: 32, signed: false }, fc.integer({ min: 0, max: 4294967295 })],
  [{ kind: "int", bits: 64, signed: true }, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })],
  [{ kind: "int", bits: 64, signed: false }, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })],
  [{ kind: "double" }, fc.double({ noNaN: true })],
  [{ kind: "decimal", precision: 9, scale: 2 }, fc.bigInt({ min: -(10n ** 9n) + 1n, max: 10n ** 9n - 1n })],
  [
    { kind: "decimal", precision: 38, scale: 5 },
    fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }),
  ],
  [{ kind: "string" }, fc.string({ unit: "grapheme" })],
  [{ kind: "blob" }, fc.uint8Array({ maxLength: 20 })],
  [{ kind: "date" }, fc.integer({ min: -100000, max: 100000 })],
  [{ kind: "timestamp", unit: "us", utc: true }, fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n })],
  [{ kind: "uuid" }, fc.uuid({ version: [4, 7] })],
];

const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 4 });

describe("parquet leaf", () => {
  it("reads back exactly what it wrote, with stats equal to a simple model, for random schemas", async () => {
    await assertProperty(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: LEAVES.length - 1 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        async (picks, n, listWrap) => {
          const fields: ParquetField[] = picks.map((p, i) => {
            const leaf = LEAVES[p]![0];
            const type: ParquetType =
              listWrap && i === 0
                ? { kind: "list", element: { name: "element", type: leaf, nullable: true, fieldId: 100 + i } }
                : leaf;
            return { name: `c${i}`, type, nullable: true, fieldId: i + 1 };
          });
          const rowArb = fc.record(
            Object.fromEntries(
              picks.map((p, i) => {
                const gen = LEAVES[p]![1];
                return [
                  `c${i}`,
                  listWrap && i === 0 ? nullable(fc.array(nullable(gen), { maxLength: 4 })) : nullable(gen),
                ];
              }),
            ),
          ) as fc.Arbitrary<ParquetRow>;
          const rows = fc.sample(rowArb, { numRuns: n, seed: n * 31 + picks.length });
          const file = writeParquet(fields, rows);
          const back = await readParquet(file.bytes);
          expect(back.rowCount).toBe(rows.length);
          expect(back.rows).toEqual(rows);
          // The model: flatten each leaf's values, count nulls, min/max by the type's order.
          fields.forEach((f, i) => {
            const values: ParquetValue[] =
              f.type.kind === "list"
                ? rows.flatMap((r) => {
                    const v = r[f.name] as ParquetValue[] | null;
                    return v && v.length > 0 ? v : [null];
                  })
                : rows.map((r) => r[f.name] ?? null);
            const present = values.filter((v) => v !== null);
            const leaf = file.leaves[i]!;
            expect(leaf.valueCount).toBe(values.length);
            expect(leaf.nullCount).toBe(values.length - present.length);
            const sorted = [...present].sort(order);
            expect(leaf.min).toEqual(sorted[0] ?? null);
            expect(leaf.max).toEqual(sorted[sorted.length - 1] ?? null);
          });
        },
      ),
      { numRuns: 60, seed: 20261201 },
    );
  });

  it("refuses values that do not fit their type, naming the row and column, and writes nothing", () => {
    const f = (type: ParquetType, nullableCol = true): ParquetField[] => [
      { name: "c", type, nullable: nullableCol },
    ];
    const cases: [ParquetField[], ParquetValue, RegExp][] = [
      [f({ kind: "int", bits: 8, signed: true }), 128, /row 1, column c: 128 is outside int8/],
      [f({ kind: "int", bits: 32, signed: false }), -1, /outside uint32/],
      [f({ kind: "int", bits: 64, signed: true }), 2n ** 63n, /outside int64/],
      [f({ kind: "int", bits: 32, signed: true }), 1.5, /expected an integer/],
      [f({ kind: "decimal", precision: 4, scale: 2 }), 10000n, /more than 4 digits/],
      [f({ kind: "string" }), "\ud800", /well-formed/],
      [f({ kind: "json" }), "{nope", /not valid JSON/],
      [f({ kind: "uuid" }), "not-a-uuid", /uuid/],
      [f({ kind: "boolean" }, false), null, /NULL in a column that does not allow NULL/],
    ];
    for (const [fields, bad, message] of cases) {
      const rows: ParquetRow[] = fields[0]?.nullable ? [{ c: null }, { c: bad }] : [{ c: bad }];
      expect(() => writeParquet(fields, rows)).toThrow(ParquetInvalid);
      expect(() => writeParquet(fields, rows)).toThrow(message);
    }
  });

  it("bounds the rows of one file", () => {
    const rows = { length: MAX_ROWS_PER_FILE + 1 } as unknown as ParquetRow[];
    expect(() => writeParquet([{ name: "c", type: { kind: "boolean" }, nullable: true }], rows)).toThrow(
      /exceed the 1000000 rows/,
    );
  });

  it("orders text by code point, as DuckDB orders VARCHAR (UTF-8 bytes), not by UTF-16 units", () => {
    expect(compareCodePoints("\u{1F986}", "\uFF61")).toBe(1);
    expect("\u{1F986}" < "\uFF61").toBe(true);
  });
});

function order(a: ParquetValue, b: ParquetValue): number {
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  }
  return a! < b! ? -1 : a! > b! ? 1 : 0;
}
