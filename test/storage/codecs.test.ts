import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Corruption } from "../../storage/errors.ts";
import { decodeManifest, encodeManifest, type Manifest } from "../../storage/manifest.ts";
import {
  decodeSegment,
  encodedSegmentSize,
  encodeSegment,
  MAX_SEGMENT_BODY_BYTES,
  parseSegmentSummary,
  SEGMENT_FORMAT_COMPRESSED,
  SEGMENT_FORMAT_VERSION,
  type Segment,
  segmentSummary,
} from "../../storage/segment.ts";
import { crc32c } from "../../storage/sst/crc32c.ts";
import { assertProperty } from "../support/property.ts";

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

/** Catalog-like batches: the same keys and JSON field names again and again, so DEFLATE pays off. */
const text = new TextEncoder();
const repetitiveArb: fc.Arbitrary<Segment> = fc
  .record({
    header: fc.record({ epoch: nat, segmentId: nat, manifestVersion: nat, tailStart: nat, writer: hex16 }),
    start: fc.nat({ max: 1_000_000 }),
    rows: fc.array(fc.array(fc.nat({ max: 5_000 }), { minLength: 1, maxLength: 8 }), {
      minLength: 1,
      maxLength: 12,
    }),
  })
  .map(({ header, start, rows }) => ({
    header,
    batches: rows.map((ids, i) => ({
      position: start + 1 + i,
      mutations: ids.map((id) => ({
        key: text.encode(`table/1/column/2/stats/${id}`),
        value:
          id % 7 === 0
            ? undefined
            : text.encode(
                JSON.stringify({ table_id: 1, column_id: 2, begin_snapshot: id, max_value: `row ${id}` }),
              ),
      })),
    })),
  }));

const plain = (seg: Segment) =>
  seg.batches.map((b) => ({
    position: b.position,
    mutations: b.mutations.map((m) => ({ key: [...m.key], value: m.value && [...m.value] })),
  }));

const formatOf = (enc: Uint8Array): number => new DataView(enc.buffer, enc.byteOffset).getUint16(4);

/** Rewrites both checksums, so a test can reach the checks behind them. */
function reseal(enc: Uint8Array): Uint8Array {
  const v = new DataView(enc.buffer, enc.byteOffset, enc.byteLength);
  v.setUint32(56, crc32c(enc, 64));
  v.setUint32(60, crc32c(enc, 0, 60));
  return enc;
}

describe("WAL segment codec", () => {
  it("compresses repetitive batches (format 2), round-trips them and refuses every damage", () => {
    assertProperty(
      fc.property(repetitiveArb, fc.nat(), fc.integer({ min: 0, max: 7 }), (seg, at, bit) => {
        const enc = encodeSegment(seg);
        const raw = encodedSegmentSize(seg.batches);
        if (formatOf(enc) === SEGMENT_FORMAT_COMPRESSED) expect(enc.length).toBeLessThan(raw);
        else expect(enc.length).toBe(raw);
        const dec = decodeSegment(enc);
        expect(dec.header).toEqual(seg.header);
        expect(plain(dec)).toEqual(plain(seg));
        expect(() => decodeSegment(applyDamage(enc, { kind: "flip", at: at % enc.length, bit }))).toThrow(
          Corruption,
        );
        expect(() => decodeSegment(enc.slice(0, at % enc.length))).toThrow(Corruption);
      }),
      { numRuns: 200 },
    );
    // A segment of a few dozen catalog rows shrinks several times over.
    const big = fc
      .sample(repetitiveArb, { numRuns: 50, seed: 7 })
      .reduce((a, b) => (encodedSegmentSize(b.batches) > encodedSegmentSize(a.batches) ? b : a));
    const enc = encodeSegment(big);
    expect(formatOf(enc)).toBe(SEGMENT_FORMAT_COMPRESSED);
    expect(enc.length * 3).toBeLessThan(encodedSegmentSize(big.batches));
  });

  it("inflates a large compressed body in workerd (its zlib refuses an output bound without slack)", () => {
    const header = { epoch: 1, segmentId: 9, manifestVersion: 1, tailStart: 1, writer: "00".repeat(8) };
    const batches = Array.from({ length: 64 }, (_, i) => ({
      position: i + 1,
      mutations: Array.from({ length: 12 }, (_, j) => ({
        key: text.encode(`table/1/column/${j}/stats/${i}`),
        value: text.encode(
          JSON.stringify({ table_id: 1, column_id: j, begin_snapshot: i, max_value: `row ${i}` }),
        ),
      })),
    }));
    const enc = encodeSegment({ header, batches });
    expect(formatOf(enc)).toBe(SEGMENT_FORMAT_COMPRESSED);
    // ~80 KB: inside a range where an exact output bound fails in workerd (41–121 KB measured).
    expect(encodedSegmentSize(batches)).toBeGreaterThan(60_000);
    expect(encodedSegmentSize(batches)).toBeLessThan(115_000);
    expect(plain(decodeSegment(enc))).toEqual(plain({ header, batches }));
  });

  it("writes empty and incompressible segments uncompressed (format 1)", () => {
    const header = { epoch: 1, segmentId: 2, manifestVersion: 1, tailStart: 1, writer: "00".repeat(8) };
    expect(formatOf(encodeSegment({ header, batches: [] }))).toBe(SEGMENT_FORMAT_VERSION);
    const one = {
      header,
      batches: [{ position: 1, mutations: [{ key: text.encode("k"), value: undefined }] }],
    };
    expect(formatOf(encodeSegment(one))).toBe(SEGMENT_FORMAT_VERSION);
  });

  it("decodes a format-1 segment written before compression (golden bytes)", () => {
    const hex =
      "444c5753000100400000000000000003000000000000002a000000000000000700000000000000280123456789abcdef000000020000004217809dcf0bbe13ae00000000000000640000000201000000026b3100000002763100000000026b3200000000000000650000000101000000026b330000000b76616c7565207468726565";
    const enc = new Uint8Array(hex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
    const dec = decodeSegment(enc);
    expect(dec.header).toEqual({
      epoch: 3,
      segmentId: 42,
      manifestVersion: 7,
      tailStart: 40,
      writer: "0123456789abcdef",
    });
    const t = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));
    expect(dec.batches.map((b) => [b.position, b.mutations.map((m) => [t(m.key), t(m.value)])])).toEqual([
      [
        100,
        [
          ["k1", "v1"],
          ["k2", undefined],
        ],
      ],
      [101, [["k3", "value three"]]],
    ]);
  });

  it("refuses a compressed body that claims more than the limit or inflates to another length", () => {
    const seg = fc.sample(repetitiveArb, { numRuns: 1, seed: 3 })[0]!;
    seg.batches = Array.from({ length: 20 }, (_, i) => ({ ...seg.batches[0]!, position: i + 1 }));
    const enc = encodeSegment(seg);
    expect(formatOf(enc)).toBe(SEGMENT_FORMAT_COMPRESSED);
    const v = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
    const huge = enc.slice();
    v(huge).setUint32(64, MAX_SEGMENT_BODY_BYTES + 1);
    expect(() => decodeSegment(reseal(huge))).toThrow(/over the 67108864-byte limit/);
    const short = enc.slice();
    v(short).setUint32(64, v(enc).getUint32(64) + 1);
    expect(() => decodeSegment(reseal(short))).toThrow(Corruption);
    const garbage = enc.slice();
    garbage.fill(0xff, 68);
    expect(() => decodeSegment(reseal(garbage))).toThrow(/does not inflate|inflates to/);
  });

  it("round-trips, and its summary names the header in well under 2 KB", () => {
    assertProperty(
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
    assertProperty(
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
    assertProperty(
      fc.property(manifestArb, (m) => {
        expect(decodeManifest(encodeManifest(m))).toEqual(m);
      }),
      { numRuns: 200 },
    );
  });

  it("rejects every truncation, flipped bit and trailing byte as Corruption", () => {
    assertProperty(
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
