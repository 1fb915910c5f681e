/**
 * The fixed-size footer at the very end of every sorted table. A reader fetches the object's tail,
 * checks the magic, version and footer checksum, and learns from it where the index, bloom filter and
 * properties live and what checksum each must have. Layout (little-endian, 92 bytes):
 *
 *   0  u64 indexOffset   8 u32 indexLength  12 u32 indexCrc32c
 *  16  u64 bloomOffset  24 u32 bloomLength  28 u32 bloomCrc32c
 *  32  u64 propsOffset  40 u32 propsLength  44 u32 propsCrc32c
 *  48  u64 entries      56 u64 tombstones   64 u64 objectSize
 *  72  u32 blockCount   76 u16 formatVersion 78 u16 flags (0)
 *  80  u32 crc32c of bytes [0, 80)
 *  84  8 bytes magic "DLE_SST\n"
 *
 * The sections are contiguous: blocks [0, indexOffset), index, bloom, props, footer; decode checks that,
 * and that objectSize equals the size R2 reports, so truncation anywhere is caught at open.
 */
import { ByteReader, ByteWriter } from "./byte-io.ts";
import { crc32c } from "./crc32c.ts";

export const FORMAT_VERSION = 1;
export const FOOTER_BYTES = 92;
export const MAGIC = new Uint8Array([0x44, 0x4c, 0x45, 0x5f, 0x53, 0x53, 0x54, 0x0a]); // "DLE_SST\n"

export interface Section {
  offset: number;
  length: number;
  crc: number;
}

export interface Footer {
  index: Section;
  bloom: Section;
  props: Section;
  entries: number;
  tombstones: number;
  objectSize: number;
  blockCount: number;
  formatVersion: number;
}

export function encodeFooter(f: Footer): Uint8Array {
  const w = new ByteWriter(FOOTER_BYTES);
  for (const s of [f.index, f.bloom, f.props]) {
    w.u64(s.offset);
    w.u32(s.length);
    w.u32(s.crc);
  }
  w.u64(f.entries);
  w.u64(f.tombstones);
  w.u64(f.objectSize);
  w.u32(f.blockCount);
  w.u16(f.formatVersion);
  w.u16(0);
  const body = w.finish();
  w.u32(crc32c(body, 0, 80));
  w.bytes(MAGIC);
  return w.finish().slice();
}

/**
 * Decodes and validates the footer held in the last FOOTER_BYTES of `tail`. `objectSize` is the size R2
 * reports for the whole object. Throws Corruption (via ByteReader.fail) on any mismatch.
 */
export function decodeFooter(tail: Uint8Array, objectSize: number, what: string): Footer {
  const start = tail.length - FOOTER_BYTES;
  const r = new ByteReader(tail, `${what} footer`, Math.max(0, start));
  if (start < 0) r.fail(`object is ${objectSize} bytes, shorter than the ${FOOTER_BYTES}-byte footer`);
  for (let i = 0; i < MAGIC.length; i++) {
    if (tail[start + 84 + i] !== MAGIC[i]) r.fail("bad magic (not a sorted table, or truncated)");
  }
  const section = (): Section => ({ offset: r.u64(), length: r.u32(), crc: r.u32() });
  const index = section();
  const bloom = section();
  const props = section();
  const entries = r.u64();
  const tombstones = r.u64();
  const size = r.u64();
  const blockCount = r.u32();
  const formatVersion = r.u16();
  const flags = r.u16();
  const crc = r.u32();
  if (crc !== crc32c(tail, start, start + 80)) r.fail("footer checksum mismatch");
  if (formatVersion !== FORMAT_VERSION) {
    r.fail(`unsupported format version ${formatVersion} (this build reads ${FORMAT_VERSION})`);
  }
  if (flags !== 0) r.fail(`unknown flags ${flags}`);
  if (size !== objectSize) r.fail(`footer says ${size} bytes but the object is ${objectSize} (truncated?)`);
  const contiguous =
    index.offset + index.length === bloom.offset &&
    bloom.offset + bloom.length === props.offset &&
    props.offset + props.length === objectSize - FOOTER_BYTES;
  if (!contiguous) r.fail("section offsets are inconsistent");
  if (tombstones > entries || blockCount > entries || (entries > 0 && blockCount === 0)) {
    r.fail("entry/block counts are inconsistent");
  }
  return { index, bloom, props, entries, tombstones, objectSize, blockCount, formatVersion };
}
