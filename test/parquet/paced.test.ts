import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  PACED_ROWS_PER_ROW_GROUP,
  type ParquetField,
  ParquetInvalid,
  type ParquetRow,
  type ParquetType,
  type ParquetValue,
  readParquet,
  writeParquet,
  writeParquetPaced,
} from "../../parquet/index.ts";
import { assertProperty } from "../support/property.ts";

const LEAVES: [ParquetType, fc.Arbitrary<ParquetValue>][] = [
  [{ kind: "boolean" }, fc.boolean()],
  [{ kind: "int", bits: 32, signed: true }, fc.integer()],
  [{ kind: "int", bits: 64, signed: true }, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })],
  [{ kind: "double" }, fc.double({ noNaN: true })],
  [{ kind: "string" }, fc.string({ unit: "grapheme" })],
  [{ kind: "blob" }, fc.uint8Array({ maxLength: 20 })],
  [
    { kind: "decimal", precision: 18, scale: 3 },
    fc.bigInt({ min: -(10n ** 18n) + 1n, max: 10n ** 18n - 1n }),
  ],
];

/** A pause that yields nothing: the tests count pauses and rows between them, not time. */
const noWait = (): Promise<void> => Promise.resolve();

/**
 * Counts what the writer touches between two pauses: `rows` is wrapped so every row read is recorded
 * in the current stretch; `pause` closes the stretch. Answers the widest stretch (distinct rows).
 */
function stretchProbe(rows: readonly ParquetRow[]) {
  let current = new Set<number>();
  let widest = 0;
  let pauses = 0;
  const watched = new Proxy(rows, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && /^\d+$/.test(prop)) {
        current.add(Number(prop));
        widest = Math.max(widest, current.size);
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return {
    rows: watched as readonly ParquetRow[],
    pause: async () => {
      pauses++;
      current = new Set();
      await noWait();
    },
    widest: () => widest,
    pauses: () => pauses,
  };
}

const fieldsOf = (picks: number[]): ParquetField[] =>
  picks.map((p, i) => ({ name: `c${i}`, type: LEAVES[p]![0], nullable: true, fieldId: i + 1 }));

const rowsArb = (picks: number[], max: number) =>
  fc.array(
    fc.record(
      Object.fromEntries(picks.map((p, i) => [`c${i}`, fc.option(LEAVES[p]![1], { nil: null, freq: 4 })])),
    ) as fc.Arbitrary<ParquetRow>,
    { maxLength: max },
  );

describe("paced Parquet write and read (decision 0325)", () => {
  it("writes the same bytes and stats as writeParquet, pausing after every row group and reading no more than one row group between pauses", async () => {
    await assertProperty(
      fc.asyncProperty(
        fc
          .uniqueArray(fc.integer({ min: 0, max: LEAVES.length - 1 }), { minLength: 1, maxLength: 4 })
          .chain((picks) =>
            fc.tuple(fc.constant(picks), rowsArb(picks, 60), fc.integer({ min: 1, max: 17 })),
          ),
        async ([picks, rows, group]) => {
          const fields = fieldsOf(picks);
          const probe = stretchProbe(rows);
          const paced = await writeParquetPaced(fields, probe.rows, {
            rowGroupSize: group,
            pause: probe.pause,
          });
          const sync = writeParquet(fields, rows, { rowGroupSize: group });
          expect(paced.bytes).toEqual(sync.bytes);
          expect(paced.footerSize).toBe(sync.footerSize);
          expect(paced.leaves).toEqual(sync.leaves);
          expect(probe.pauses()).toBe(Math.ceil(rows.length / group));
          expect(probe.widest()).toBeLessThanOrEqual(group);

          let readPauses = 0;
          const back = await readParquet(paced.bytes, {
            pause: async () => {
              readPauses++;
              await noWait();
            },
          });
          expect(readPauses).toBe(Math.ceil(rows.length / group));
          expect(back.rows).toEqual((await readParquet(paced.bytes)).rows);
          expect(back.rowCount).toBe(rows.length);
        },
      ),
      { numRuns: 40 },
    );
  });

  it(`encodes at most PACED_ROWS_PER_ROW_GROUP (${PACED_ROWS_PER_ROW_GROUP}) rows between pauses by default`, async () => {
    const n = 2 * PACED_ROWS_PER_ROW_GROUP + 5;
    const fields: ParquetField[] = [
      { name: "id", fieldId: 1, type: { kind: "int", bits: 64, signed: true }, nullable: true },
      { name: "s", fieldId: 2, type: { kind: "string" }, nullable: true },
    ];
    const rows: ParquetRow[] = Array.from({ length: n }, (_, i) => ({ id: BigInt(i), s: `row-${i}` }));
    const probe = stretchProbe(rows);
    const file = await writeParquetPaced(fields, probe.rows, { pause: probe.pause });
    expect(probe.pauses()).toBe(3);
    expect(probe.widest()).toBe(PACED_ROWS_PER_ROW_GROUP);
    let readPauses = 0;
    const back = await readParquet(file.bytes, {
      pause: async () => {
        readPauses++;
      },
    });
    expect(readPauses).toBe(3);
    expect(back.rows).toEqual(rows);
  });

  it("refuses what writeParquet refuses, by the same error", async () => {
    const fields: ParquetField[] = [
      { name: "x", type: { kind: "int", bits: 8, signed: true }, nullable: false },
    ];
    await expect(writeParquetPaced(fields, [{ x: 1 }, { x: null }], { pause: noWait })).rejects.toThrow(
      ParquetInvalid,
    );
    await expect(writeParquetPaced([], [], { pause: noWait })).rejects.toThrow(ParquetInvalid);
    await expect(writeParquetPaced(fields, [{ x: 1 }], { pause: noWait, rowGroupSize: 0 })).rejects.toThrow(
      ParquetInvalid,
    );
  });
});
