/**
 * The WAL segment codec. One segment = one flush: a fixed header naming who wrote it and which published
 * cut it extends, then every batch of the flush with its position. Decoding is strict: truncation, trailing
 * bytes, a bad checksum, wrong magic or an unknown version is Corruption, never a silent skip.
 *
 * Layout (big-endian; u64 as two u32 halves, values must be safe integers):
 *   0  magic "DLWS"           4
 *   4  format version u16     (1)
 *   6  header length u16      (64 in version 1; room for later fields)
 *   8  writer epoch u64
 *  16  segment id u64
 *  24  manifest version u64   the manifest this segment builds on
 *  32  tail start u64         first segment of the tail after that manifest
 *  40  writer instance 8 bytes (random per open; makes two writers' bytes differ)
 *  48  batch count u32
 *  52  body length u32
 *  56  body crc32c u32
 *  60  header crc32c u32      over bytes [0, 60)
 *  64  body: per batch { position u64, mutation count u32, per mutation { kind u8 (1 put, 0 delete),
 *      key length u32, key, [value length u32, value] } }
 *
 * Format version 2 (docs/decisions/0164-compressed-wal.md) has the same header; its body is
 * { raw body length u32, the version-1 body compressed with raw DEFLATE }, and the body length and body
 * checksum cover those stored bytes. Catalog batches repeat their keys and JSON field names from row to
 * row, so a segment shrinks ~10×; the encoder writes version 1 when compression does not make the body
 * smaller (fence and publish segments, tiny batches). Both versions decode.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Bytes, Mutation } from "./api.ts";
import { fromHex, toHex } from "./bytes.ts";
import { Corruption } from "./errors.ts";
import { crc32c } from "./sst/crc32c.ts";

export const SEGMENT_MAGIC = 0x444c5753; // "DLWS"
/** The uncompressed body format. */
export const SEGMENT_FORMAT_VERSION = 1;
/** The body compressed with raw DEFLATE (the header is the same). */
export const SEGMENT_FORMAT_COMPRESSED = 2;
export const SEGMENT_HEADER_LENGTH = 64;
/** The R2 custom-metadata summary's own format, independent of the body's. */
export const SEGMENT_SUMMARY_FORMAT = 1;
/**
 * DEFLATE level 1: measured on catalog batches (single-row inserts), 27 KB compresses to 1.85 KB in
 * ~0.3 ms and inflates in ~0.2 ms; level 6 saves another 7% for 2.5× the CPU, paid inside the commit
 * chain (docs/decisions/0164-compressed-wal.md).
 */
export const SEGMENT_DEFLATE_LEVEL = 1;
/**
 * The largest body a compressed segment may inflate to. A writer's segment holds at most the batches
 * applied during one PUT, far below this; anything claiming more is not a segment this store wrote,
 * and inflating it could exhaust a 128 MB isolate.
 */
export const MAX_SEGMENT_BODY_BYTES = 64 * 1024 * 1024;
/**
 * Room above the claimed length given to the inflater's output bound: workerd's `node:zlib` refuses
 * ("Memory limit exceeded") as soon as its next output chunk would pass the bound, even when the data
 * ends exactly at it. The exact length is checked after inflating.
 */
const INFLATE_SLACK_BYTES = 64 * 1024;

export interface SegmentHeader {
  epoch: number;
  segmentId: number;
  manifestVersion: number;
  tailStart: number;
  /** 16 hex chars: the writer instance that produced the segment. */
  writer: string;
}

export interface WalBatch {
  position: number;
  mutations: readonly Mutation[];
}

export interface Segment {
  header: SegmentHeader;
  batches: WalBatch[];
}

const HI = 0x1_0000_0000;

function putU64(v: DataView, at: number, n: number): void {
  v.setUint32(at, Math.floor(n / HI));
  v.setUint32(at + 4, n >>> 0);
}

function getU64(v: DataView, at: number, what: string): number {
  const hi = v.getUint32(at);
  if (hi >= 0x20_0000)
    throw new Corruption(`segment ${what} exceeds 2^53; the segment is not one this store wrote`);
  return hi * HI + v.getUint32(at + 4);
}

export function encodedSegmentSize(batches: readonly WalBatch[]): number {
  let n = SEGMENT_HEADER_LENGTH;
  for (const b of batches) {
    n += 12;
    for (const m of b.mutations) n += 5 + m.key.length + (m.value === undefined ? 0 : 4 + m.value.length);
  }
  return n;
}

/**
 * Encodes a segment: version 2 (compressed body) when that is smaller, else version 1. The result is
 * deterministic for the same segment, so a retried PUT carries identical bytes (put-once.ts compares).
 */
export function encodeSegment(seg: Segment): Uint8Array {
  const raw = encodeRaw(seg);
  if (seg.batches.length === 0) return raw;
  const body = raw.subarray(SEGMENT_HEADER_LENGTH);
  const packed = deflateRawSync(body, { level: SEGMENT_DEFLATE_LEVEL });
  if (4 + packed.length >= body.length) return raw;
  const out = new Uint8Array(SEGMENT_HEADER_LENGTH + 4 + packed.length);
  out.set(raw.subarray(0, SEGMENT_HEADER_LENGTH));
  const v = new DataView(out.buffer);
  v.setUint32(SEGMENT_HEADER_LENGTH, body.length);
  out.set(packed, SEGMENT_HEADER_LENGTH + 4);
  sealHeader(out, SEGMENT_FORMAT_COMPRESSED);
  return out;
}

/** Writes version, body length and both checksums over `out` (its body already in place). */
function sealHeader(out: Uint8Array, version: number): void {
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  v.setUint16(4, version);
  v.setUint32(52, out.length - SEGMENT_HEADER_LENGTH);
  v.setUint32(56, crc32c(out, SEGMENT_HEADER_LENGTH));
  v.setUint32(60, crc32c(out, 0, 60));
}

function encodeRaw(seg: Segment): Uint8Array {
  const h = seg.header;
  const out = new Uint8Array(encodedSegmentSize(seg.batches));
  const v = new DataView(out.buffer);
  let at = SEGMENT_HEADER_LENGTH;
  for (const b of seg.batches) {
    putU64(v, at, b.position);
    v.setUint32(at + 8, b.mutations.length);
    at += 12;
    for (const m of b.mutations) {
      v.setUint8(at, m.value === undefined ? 0 : 1);
      v.setUint32(at + 1, m.key.length);
      out.set(m.key, at + 5);
      at += 5 + m.key.length;
      if (m.value !== undefined) {
        v.setUint32(at, m.value.length);
        out.set(m.value, at + 4);
        at += 4 + m.value.length;
      }
    }
  }
  const writer = fromHex(h.writer);
  if (writer === undefined || writer.length !== 8)
    throw new TypeError("segment writer id must be 16 hex chars");
  v.setUint32(0, SEGMENT_MAGIC);
  v.setUint16(6, SEGMENT_HEADER_LENGTH);
  putU64(v, 8, h.epoch);
  putU64(v, 16, h.segmentId);
  putU64(v, 24, h.manifestVersion);
  putU64(v, 32, h.tailStart);
  out.set(writer, 40);
  v.setUint32(48, seg.batches.length);
  sealHeader(out, SEGMENT_FORMAT_VERSION);
  return out;
}

/** Decodes and verifies a whole segment. `where` names the object in error messages. */
export function decodeSegment(bytes: Uint8Array, where = "segment"): Segment {
  const bad = (what: string): Corruption =>
    new Corruption(
      `${where} is corrupt: ${what}. The WAL cannot be replayed past it; restore the object or investigate before reopening`,
    );
  if (bytes.length < SEGMENT_HEADER_LENGTH) throw bad(`${bytes.length} bytes is shorter than a header`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0) !== SEGMENT_MAGIC) throw bad("wrong magic");
  const version = v.getUint16(4);
  if (version !== SEGMENT_FORMAT_VERSION && version !== SEGMENT_FORMAT_COMPRESSED)
    throw bad(`unknown format version ${version}`);
  if (v.getUint16(6) !== SEGMENT_HEADER_LENGTH) throw bad("unexpected header length");
  if (v.getUint32(60) !== crc32c(bytes, 0, 60)) throw bad("header checksum mismatch");
  const bodyLength = v.getUint32(52);
  if (bytes.length !== SEGMENT_HEADER_LENGTH + bodyLength) {
    throw bad(
      `length ${bytes.length} does not match the header's ${SEGMENT_HEADER_LENGTH + bodyLength} (torn)`,
    );
  }
  if (v.getUint32(56) !== crc32c(bytes, SEGMENT_HEADER_LENGTH)) throw bad("body checksum mismatch");
  const header: SegmentHeader = {
    epoch: getU64(v, 8, "epoch"),
    segmentId: getU64(v, 16, "id"),
    manifestVersion: getU64(v, 24, "manifest version"),
    tailStart: getU64(v, 32, "tail start"),
    writer: toHex(bytes.subarray(40, 48)),
  };
  const count = v.getUint32(48);
  const batches =
    version === SEGMENT_FORMAT_COMPRESSED
      ? decodeBody(inflateBody(bytes, bad), 0, count, bad)
      : decodeBody(bytes, SEGMENT_HEADER_LENGTH, count, bad);
  return { header, batches };
}

/** The version-1 body a compressed segment holds, checked against the length its body names. */
function inflateBody(bytes: Uint8Array, bad: (what: string) => Corruption): Uint8Array {
  if (bytes.length < SEGMENT_HEADER_LENGTH + 4) throw bad("a compressed body shorter than its length field");
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rawLength = v.getUint32(SEGMENT_HEADER_LENGTH);
  if (rawLength > MAX_SEGMENT_BODY_BYTES)
    throw bad(`a compressed body claims ${rawLength} bytes, over the ${MAX_SEGMENT_BODY_BYTES}-byte limit`);
  let inflated: Uint8Array;
  try {
    inflated = inflateRawSync(bytes.subarray(SEGMENT_HEADER_LENGTH + 4), {
      maxOutputLength: rawLength + INFLATE_SLACK_BYTES,
    });
  } catch (e) {
    throw bad(`the compressed body does not inflate (${(e as Error).message})`);
  }
  if (inflated.length !== rawLength)
    throw bad(`the body inflates to ${inflated.length} bytes, not the ${rawLength} its header names`);
  return inflated;
}

/** The batches of a version-1 body starting at `start` and running to the end of `bytes`. */
function decodeBody(
  bytes: Uint8Array,
  start: number,
  count: number,
  bad: (what: string) => Corruption,
): WalBatch[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const batches: WalBatch[] = [];
  let at = start;
  const need = (n: number): void => {
    if (at + n > bytes.length) throw bad("a batch runs past the end of the body");
  };
  let last = -1;
  for (let i = 0; i < count; i++) {
    need(12);
    const position = getU64(v, at, "position");
    if (position <= last) throw bad("batch positions are not increasing");
    last = position;
    const n = v.getUint32(at + 8);
    at += 12;
    const mutations: Mutation[] = [];
    for (let j = 0; j < n; j++) {
      need(5);
      const kind = v.getUint8(at);
      if (kind > 1) throw bad(`unknown mutation kind ${kind}`);
      const kl = v.getUint32(at + 1);
      at += 5;
      need(kl);
      const key = bytes.subarray(at, at + kl);
      at += kl;
      let value: Bytes | undefined;
      if (kind === 1) {
        need(4);
        const vl = v.getUint32(at);
        at += 4;
        need(vl);
        value = bytes.subarray(at, at + vl);
        at += vl;
      }
      mutations.push({ key, value });
    }
    batches.push({ position, mutations });
  }
  if (at !== bytes.length) throw bad("trailing bytes after the last batch");
  return batches;
}

/**
 * The R2 custom-metadata summary written with every segment (well under 2 KB): enough for a reader to
 * learn the published cut from one `list` call without reading the body.
 */
export interface SegmentSummary extends SegmentHeader {
  batchCount: number;
  /** Position of the last batch, or -1 for an empty (fence/publish) segment. */
  lastPosition: number;
}

export function segmentSummary(seg: Segment): Record<string, string> {
  const last = seg.batches[seg.batches.length - 1];
  return {
    fmt: String(SEGMENT_SUMMARY_FORMAT),
    epoch: String(seg.header.epoch),
    seg: String(seg.header.segmentId),
    manifest: String(seg.header.manifestVersion),
    tail: String(seg.header.tailStart),
    writer: seg.header.writer,
    batches: String(seg.batches.length),
    last: String(last === undefined ? -1 : last.position),
  };
}

export function parseSegmentSummary(meta: Record<string, string> | undefined, where: string): SegmentSummary {
  const num = (k: string, min = 0): number => {
    const s = meta?.[k];
    const n = s === undefined ? Number.NaN : Number(s);
    if (!Number.isSafeInteger(n) || n < min) {
      throw new Corruption(
        `${where} has no valid "${k}" in its custom metadata; it was not written by this store`,
      );
    }
    return n;
  };
  if (meta?.fmt !== String(SEGMENT_SUMMARY_FORMAT)) {
    throw new Corruption(`${where} has unknown summary format ${JSON.stringify(meta?.fmt)}`);
  }
  return {
    epoch: num("epoch"),
    segmentId: num("seg"),
    manifestVersion: num("manifest"),
    tailStart: num("tail"),
    writer: meta.writer ?? "",
    batchCount: num("batches"),
    lastPosition: num("last", -1),
  };
}
