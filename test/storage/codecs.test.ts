import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Corruption } from "../../storage/errors.ts";
import { decodeManifest, encodeManifest, type Manifest } from "../../storage/manifest.ts";
import {
  decodeSegment,
  encodeSegment,
  parseSegmentSummary,
  type Segment,
  segmentSummary,
} from "../../storage/segment.ts";

const nat = fc.maxSafeNat();
const bytes = fc.uint8Array({ maxLength: 40 });
const hex16 = fc
  .uint8Array({ minLength: 8, maxLength: 8 })
  .map((a) => [...a].map((x) => x.toString(16).padStart(2, "0")).join(""));

const segmentArb: fc.Arbitrary<Segment> = fc
  .record({
    epoch: nat,
    segmentId: nat,
    manifestVersion: nat,
    tailStart: nat,
    writer: hex16,
    start: fc.nat({ max: 1_000_000 }),
    batches: fc.array(
      fc.array(fc.record({ key: bytes, value: fc.option(bytes, { nil: undefined }) }), { maxLength: 5 }),
      { maxLength: 6 },
    ),
  })
  .map(({ start, batches, ...header }) => ({
    header,
    batches: batches.map((mutations, i) => ({ position: start + 1 + i * 3, mutations })),
  }));

const manifestArb: fc.Arbitrary<Manifest> = fc.record({
  formatVersion: fc.constant(1 as const),
  version: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  lake: fc.string(),
  writer: fc.record({ epoch: fc.integer({ min: 1, max: 1e12 }), identity: fc.string(), instance: hex16 }),
  wal: fc.record({ replayAfter: nat, lastPosition: nat }),
  logStore: fc.option(fc.string(), { nil: null }),
  sortedTables: fc.array(
    fc.record({
      key: fc.string(),
      level: fc.nat(9),
      size: nat,
      firstKey: fc.string(),
      lastKey: fc.string(),
      maxPosition: nat,
    }),
    { maxLength: 3 },
  ),
  checkpoints: fc.array(
    fc.record({ id: fc.string(), manifestVersion: nat, walFrom: nat, walTo: nat, expiresAt: nat }),
    { maxLength: 2 },
  ),
  unreferenced: fc.array(fc.record({ key: fc.string(), since: nat }), { maxLength: 3 }),
  writtenAt: nat,
});

/** Every way to damage a byte string that a torn or bit-rotted object can show. */
const damage = (len: number) =>
  fc.oneof(
    fc.record({ kind: fc.constant("truncate" as const), at: fc.nat({ max: Math.max(0, len - 1) }) }),
    fc.record({
      kind: fc.constant("flip" as const),
      at: fc.nat({ max: Math.max(0, len - 1) }),
      bit: fc.integer({ min: 0, max: 7 }),
    }),
    fc.record({ kind: fc.constant("append" as const), extra: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  );

function applyDamage(
  src: Uint8Array,
  d: { kind: string; at?: number; bit?: number; extra?: Uint8Array },
): Uint8Array {
  if (d.kind === "truncate") return src.slice(0, d.at);
  if (d.kind === "append") {
    const out = new Uint8Array(src.length + d.extra!.length);
    out.set(src);
    out.set(d.extra!, src.length);
    return out;
  }
  const out = src.slice();
  out[d.at!] = out[d.at!]! ^ (1 << d.bit!);
  return out;
}

describe("WAL segment codec", () => {
  it("round-trips, and its summary names the header in well under 2 KB", () => {
    fc.assert(
      fc.property(segmentArb, (seg) => {
        const enc = encodeSegment(seg);
        const dec = decodeSegment(enc);
        expect(dec.header).toEqual(seg.header);
        expect(
          dec.batches.map((b) => ({
            position: b.position,
            mutations: b.mutations.map((m) => ({ key: [...m.key], value: m.value && [...m.value] })),
          })),
        ).toEqual(
          seg.batches.map((b) => ({
            position: b.position,
            mutations: b.mutations.map((m) => ({ key: [...m.key], value: m.value && [...m.value] })),
          })),
        );
        const meta = segmentSummary(seg);
        expect(JSON.stringify(meta).length).toBeLessThan(2048);
        const sum = parseSegmentSummary(meta, "s");
        expect({ ...sum, batchCount: undefined, lastPosition: undefined }).toEqual({
          ...seg.header,
          batchCount: undefined,
          lastPosition: undefined,
        });
        expect(sum.batchCount).toBe(seg.batches.length);
      }),
      { numRuns: 200 },
    );
  });

  it("rejects every truncation, flipped bit and trailing byte as Corruption", () => {
    fc.assert(
      fc.property(
        segmentArb.chain((seg) => {
          const enc = encodeSegment(seg);
          return fc.tuple(fc.constant(enc), damage(enc.length));
        }),
        ([enc, d]) => {
          expect(() => decodeSegment(applyDamage(enc, d))).toThrow(Corruption);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("rejects wrong magic and unknown versions with a clear reason", () => {
    const enc = encodeSegment({
      header: { epoch: 1, segmentId: 1, manifestVersion: 1, tailStart: 1, writer: "00".repeat(8) },
      batches: [],
    });
    const badMagic = enc.slice();
    badMagic[0] = 0;
    expect(() => decodeSegment(badMagic)).toThrow(/wrong magic/);
    const badVersion = enc.slice();
    badVersion[5] = 9;
    expect(() => decodeSegment(badVersion)).toThrow(/unknown format version 9/);
    expect(() => decodeSegment(new Uint8Array(10))).toThrow(Corruption);
  });
});

describe("manifest codec", () => {
  it("round-trips", () => {
    fc.assert(
      fc.property(manifestArb, (m) => {
        expect(decodeManifest(encodeManifest(m))).toEqual(m);
      }),
      { numRuns: 200 },
    );
  });

  it("rejects every truncation, flipped bit and trailing byte as Corruption", () => {
    fc.assert(
      fc.property(
        manifestArb.chain((m) => {
          const enc = encodeManifest(m);
          return fc.tuple(fc.constant(enc), damage(enc.length));
        }),
        ([enc, d]) => {
          expect(() => decodeManifest(applyDamage(enc, d))).toThrow(Corruption);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("rejects an unknown format version even with a valid checksum", () => {
    const m = fc.sample(manifestArb, 1)[0]!;
    const forged = encodeManifest({ ...m, formatVersion: 2 as unknown as 1 });
    expect(() => decodeManifest(forged)).toThrow(/unknown format version 2/);
  });
});
