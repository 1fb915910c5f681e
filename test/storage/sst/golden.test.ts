/**
 * Golden vectors: the object-key format, CRC32C, and the exact bytes of a tiny table (blocks, index,
 * bloom, properties and footer). A change here is a format change: bump FORMAT_VERSION and keep a reader
 * for the old one.
 */
import { describe, expect, it } from "vitest";
import { murmur3 } from "../../../storage/sst/bloom.ts";
import { buildSst } from "../../../storage/sst/builder.ts";
import { crc32c } from "../../../storage/sst/crc32c.ts";
import { SstInvalidInput } from "../../../storage/sst/errors.ts";
import { FOOTER_BYTES, FORMAT_VERSION } from "../../../storage/sst/footer.ts";
import { parseSstKey, sstKey, sstPrefix } from "../../../storage/sst/key.ts";
import { hex, te } from "./helpers.ts";

describe("sorted table golden vectors", () => {
  it("object keys are lakes/<lake>/sst/<epoch 20 digits>-<id 20 digits>.sst and parse back", () => {
    expect(sstKey("sales", 0, 0)).toBe("lakes/sales/sst/00000000000000000000-00000000000000000000.sst");
    expect(sstKey("sales", 3, 42)).toBe("lakes/sales/sst/00000000000000000003-00000000000000000042.sst");
    expect(sstKey("l", Number.MAX_SAFE_INTEGER, 1)).toBe(
      "lakes/l/sst/00009007199254740991-00000000000000000001.sst",
    );
    expect(sstPrefix("sales")).toBe("lakes/sales/sst/");
    expect(parseSstKey("lakes/sales/sst/00000000000000000003-00000000000000000042.sst")).toEqual({
      lake: "sales",
      epoch: 3,
      id: 42,
    });
    expect(parseSstKey("lakes/sales/sst/3-42.sst")).toBeUndefined();
    expect(parseSstKey("lakes/sales/wal/00000000000000000003-00000000000000000042.sst")).toBeUndefined();
  });

  it("key order equals (epoch, id) order", () => {
    const pairs: [number, number][] = [
      [1, 9],
      [1, 10],
      [2, 0],
      [10, 1],
      [10, 100],
    ];
    const keys = pairs.map(([e, i]) => sstKey("x", e, i));
    expect([...keys].sort()).toEqual(keys);
  });

  it("rejects keys that cannot be formed", () => {
    expect(() => sstKey("a/b", 1, 1)).toThrow(SstInvalidInput);
    expect(() => sstKey("", 1, 1)).toThrow(SstInvalidInput);
    expect(() => sstKey("a", -1, 1)).toThrow(SstInvalidInput);
    expect(() => sstKey("a", 1, 1.5)).toThrow(SstInvalidInput);
  });

  it("CRC32C matches the published check values", () => {
    expect(crc32c(te("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(new Uint8Array(32).map((_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it("the bloom hash is MurmurHash3 x86_32 (published vectors)", () => {
    expect(murmur3(new Uint8Array(0), 0)).toBe(0);
    expect(murmur3(new Uint8Array(0), 1)).toBe(0x514e28b7);
    expect(murmur3(te("hello"), 0)).toBe(0x248bfa47);
    expect(murmur3(te("The quick brown fox jumps over the lazy dog"), 0)).toBe(0x2e4ff723);
  });

  it("a three-entry table has exactly these bytes", async () => {
    const { bytes, summary } = await buildSst(
      [
        { key: te("a"), value: te("1") },
        { key: te("ab"), value: undefined },
        { key: te("b"), value: te("xyz") },
      ],
      { blockBytes: 64, bloomBitsPerKey: 10 },
    );
    const expected = [
      // block 0: (shared 0, len 1, tag 2, "a", "1") (shared 1, len 1, tombstone, "b") (0, 1, tag 4, "b", "xyz")
      "0001026131",
      "01010062",
      "0001046278797a",
      "03000000", // entry count
      "1b7a845d", // block crc32c
      // index: 1 block at 0, 24 bytes, 3 entries, first "a", last shares 0 then "b"
      "010018030161000162",
      // bloom: k = 7, 64 bits
      "0739a8428602d42500",
      // properties: min "a", max "b", block target 64, 10 bits/key
      "01610162400a",
      // footer: index @24 len 9 crc, bloom @33 len 9 crc, props @42 len 6 crc
      "1800000000000000090000005e8799a3",
      "210000000000000009000000cd9b5b6c",
      "2a000000000000000600000082ca0c8c",
      "0300000000000000", // entries
      "0100000000000000", // tombstones
      "8c00000000000000", // object size 140
      "01000000", // block count
      "0100", // format version
      "0000", // flags
      "fb70f905", // footer crc32c over the 80 bytes above
      "444c455f5353540a", // magic "DLE_SST\n"
    ].join("");
    expect(hex(bytes)).toBe(expected);
    expect(summary).toEqual({
      size: 140,
      metaOffset: 24,
      minKey: te("a"),
      maxKey: te("b"),
      entries: 3,
      tombstones: 1,
      blocks: 1,
      // One block: no fences (storage/sst/fences.ts); the object's bytes are unchanged by them.
      fences: [],
    });
  });

  it("the footer is the last 92 bytes at fixed offsets, read without the decoder", async () => {
    const { bytes, summary } = await buildSst(
      Array.from({ length: 500 }, (_, i) => ({
        key: te(`key-${String(i).padStart(5, "0")}`),
        value: i % 7 === 0 ? undefined : te(`v${i}`),
      })),
      { blockBytes: 256 },
    );
    const f = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - FOOTER_BYTES, FOOTER_BYTES);
    const u64 = (at: number): number => f.getUint32(at + 4, true) * 2 ** 32 + f.getUint32(at, true);
    expect(u64(0)).toBe(summary.metaOffset);
    expect(u64(16)).toBe(u64(0) + f.getUint32(8, true));
    expect(u64(32)).toBe(u64(16) + f.getUint32(24, true));
    expect(u64(32) + f.getUint32(40, true)).toBe(bytes.length - FOOTER_BYTES);
    expect(u64(48)).toBe(500);
    expect(u64(56)).toBe(summary.tombstones);
    expect(summary.tombstones).toBe(72);
    expect(u64(64)).toBe(bytes.length);
    expect(f.getUint32(72, true)).toBe(summary.blocks);
    expect(f.getUint16(76, true)).toBe(FORMAT_VERSION);
    expect(f.getUint32(80, true)).toBe(crc32c(bytes, bytes.length - FOOTER_BYTES, bytes.length - 12));
    expect(hex(bytes.subarray(bytes.length - 8))).toBe(hex(te("DLE_SST\n")));
    expect(f.getUint32(12, true)).toBe(crc32c(bytes, u64(0), u64(16)));
  });
});
