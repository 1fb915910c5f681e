import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeValue, encodeValue, ValueKind } from "../../catalog/codec.ts";
import {
  compareBytes,
  foldName,
  hash53,
  Kind,
  keyFromString,
  keyIds,
  keyString,
  keys,
  NameSpace,
  prefixEnd,
} from "../../catalog/keys.ts";
import { assertProperty } from "../support/property.ts";

const hex = (b: Uint8Array): string => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
const u64 = (n: number): string => n.toString(16).padStart(16, "0");

describe("catalog keyspace golden vectors", () => {
  it("pins the system, snapshot and inline keys", () => {
    expect(hex(keys.format())).toBe("0101");
    expect(hex(keys.head())).toBe("0102");
    expect(hex(keys.snapshot(7))).toBe(`0201${u64(7)}`);
    expect(hex(keys.inlineRow(3, 9))).toBe(`0501${u64(3)}${u64(9)}`);
    expect(hex(keys.inlineFileDelete(3, 4, 5))).toBe(`0502${u64(3)}${u64(4)}${u64(5)}`);
    expect(hex(keys.name(NameSpace.relation, 0, 0x1234))).toBe(`0602${u64(0)}${u64(0x1234)}`);
    expect(hex(keys.idempotency(1, 2))).toBe(`0701${u64(1)}${u64(2)}`);
    expect(hex(keys.idempotencyExpiry(1000, 1, 2))).toBe(`0702${u64(1000)}${u64(1)}${u64(2)}`);
  });

  it("pins every entity kind's current and history key", () => {
    const expected: Record<keyof typeof Kind, number> = {
      schema: 0x01,
      table: 0x02,
      view: 0x03,
      column: 0x04,
      dataFile: 0x05,
      deleteFile: 0x06,
      partition: 0x07,
      sort: 0x08,
      macro: 0x09,
      tableStats: 0x0a,
      tableColumnStats: 0x0b,
      tag: 0x0c,
      columnTag: 0x0d,
      option: 0x0e,
      inlinedTable: 0x0f,
      schemaVersion: 0x10,
      mapping: 0x11,
      gcFile: 0x12,
      tableMeta: 0x13,
    };
    for (const [name, byte] of Object.entries(expected)) {
      const kind = Kind[name as keyof typeof Kind];
      expect(kind).toBe(byte);
      const b = byte.toString(16).padStart(2, "0");
      expect(hex(keys.current(kind, 5, 6))).toBe(`03${b}${u64(5)}${u64(6)}`);
      expect(hex(keys.history(kind, [5, 6], 9))).toBe(`04${b}${u64(5)}${u64(6)}${u64(9)}`);
    }
    expect(hex(keys.current(Kind.table, 2 ** 53 - 1))).toBe(`0302${u64(2 ** 53 - 1)}`);
  });

  it("refuses ids that are not u64-safe", () => {
    expect(() => keys.snapshot(-1)).toThrow();
    expect(() => keys.snapshot(1.5)).toThrow();
    expect(() => keys.snapshot(2 ** 53)).toThrow();
  });

  it("names hash case-insensitively and stably", () => {
    expect(hash53(foldName("Orders"))).toBe(hash53(foldName("orders")));
    expect(hash53("orders")).toBe(hash53("orders"));
    expect(Number.isSafeInteger(hash53("x"))).toBe(true);
  });
});

describe("catalog keyspace properties", () => {
  const id = fc.nat({ max: Number.MAX_SAFE_INTEGER });
  it("byte order equals numeric order, component-wise", () => {
    assertProperty(
      fc.property(id, id, id, id, (a1, a2, b1, b2) => {
        const ka = keys.current(Kind.dataFile, a1, a2);
        const kb = keys.current(Kind.dataFile, b1, b2);
        const numeric = a1 !== b1 ? Math.sign(a1 - b1) : Math.sign(a2 - b2);
        expect(Math.sign(compareBytes(ka, kb))).toBe(numeric);
        // Code-unit order (what a string-keyed sort uses), not localeCompare: collation ignores control
        // characters, so it calls "\u0000" and "\u0001" equal (fast-check found [0, 0, 0, 1]).
        const sa = keyString(ka);
        const sb = keyString(kb);
        expect(sa < sb ? -1 : sa > sb ? 1 : 0).toBe(numeric);
      }),
      { numRuns: 300, examples: [[0, 0, 0, 1]] },
    );
  });

  it("ids round-trip and a table's keys sit inside its prefix range", () => {
    assertProperty(
      fc.property(id, id, id, (t, f, end) => {
        const k = keys.history(Kind.dataFile, [t, f], end);
        expect(keyIds(k, 2)).toEqual([t, f, end]);
        expect(keyFromString(keyString(k))).toEqual(k);
        const prefix = keys.historyPrefix(Kind.dataFile, t);
        const upper = prefixEnd(prefix);
        expect(compareBytes(prefix, k)).toBeLessThan(0);
        if (upper) expect(compareBytes(k, upper)).toBeLessThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe("value framing", () => {
  it("round-trips records and refuses the wrong kind, magic or version", () => {
    assertProperty(
      fc.property(fc.jsonValue(), (value) => {
        const bytes = encodeValue(ValueKind.table, value);
        expect(decodeValue(ValueKind.table, bytes, "t")).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 200 },
    );
    const bytes = encodeValue(ValueKind.table, { a: 1 });
    expect(() => decodeValue(ValueKind.view, bytes, "t")).toThrow(/kind/);
    const badMagic = bytes.slice();
    badMagic[0] = 0;
    expect(() => decodeValue(ValueKind.table, badMagic, "t")).toThrow(/magic/);
    const badVersion = bytes.slice();
    badVersion[4] = 9;
    try {
      decodeValue(ValueKind.table, badVersion, "t");
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe("Corruption");
      expect(String(e)).toMatch(/version 9/);
    }
    expect(() => decodeValue(ValueKind.table, bytes.subarray(0, 3), "t")).toThrow(/magic/);
  });
});
