import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgument } from "../../storage/errors.ts";
import {
  checkLakeName,
  invert20,
  manifestKey,
  parseManifestKey,
  parseWalKey,
  uninvert20,
  walKey,
} from "../../storage/keys.ts";
import { assertProperty } from "../support/property.ts";

describe("inverted ids and object keys", () => {
  it("golden vectors", () => {
    expect(invert20(0)).toBe("99999999999999999999");
    expect(invert20(1)).toBe("99999999999999999998");
    expect(invert20(10)).toBe("99999999999999999989");
    expect(invert20(123456789)).toBe("99999999999876543210");
    // Above 2^53 the constant itself is not representable as a number: BigInt keeps it exact.
    expect(invert20(Number.MAX_SAFE_INTEGER)).toBe("99990992800745259008");
    expect(walKey("sales", 1)).toBe("lakes/sales/wal/99999999999999999998.wal");
    expect(manifestKey("sales", 42)).toBe("lakes/sales/manifest/99999999999999999957.json");
  });

  it("round-trips and orders newest first", () => {
    assertProperty(
      fc.property(fc.maxSafeNat(), fc.maxSafeNat(), (a, b) => {
        expect(uninvert20(invert20(a))).toBe(a);
        expect(parseWalKey("l", walKey("l", a))).toBe(a);
        expect(parseManifestKey("l", manifestKey("l", a))).toBe(a);
        const ka = walKey("l", a);
        const kb = walKey("l", b);
        // R2 lists ascending: a larger id must sort first.
        const order = ka < kb ? -1 : ka > kb ? 1 : 0;
        expect(order).toBe(a > b ? -1 : a < b ? 1 : 0);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects what is not an id or a usable lake name", () => {
    expect(uninvert20("9999999999999999999")).toBeUndefined();
    expect(uninvert20("00000000000000000000")).toBeUndefined();
    expect(parseWalKey("l", "lakes/l/wal/99999999999999999998.json")).toBeUndefined();
    expect(parseWalKey("l", "lakes/m/wal/99999999999999999998.wal")).toBeUndefined();
    expect(() => invert20(-1)).toThrow(InvalidArgument);
    expect(() => invert20(1.5)).toThrow(InvalidArgument);
    for (const bad of ["", "a/b", "../x", " a", "a".repeat(129)])
      expect(() => checkLakeName(bad)).toThrow(InvalidArgument);
    checkLakeName("sales_2026.eu-1");
  });
});
