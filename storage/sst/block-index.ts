/**
 * The block index: one record per data block, in key order, so a reader can find the single block that
 * may hold a key (binary search on last keys) and skip a key that falls between two blocks without any
 * GET (first keys). Serialized form:
 *
 *   varint blockCount, then per block:
 *     varint offset, varint length, varint entries,
 *     varint firstKeyLength, firstKey, varint shared(firstKey, lastKey), varint lastSuffixLength, lastSuffix
 *
 * Offsets and lengths are checked against the data region on decode, so a reader never issues a range
 * GET outside the blocks.
 */

import type { Bytes } from "../api.ts";
import { compareBytes } from "../bytes.ts";
import { BLOCK_TRAILER_BYTES } from "./block.ts";
import { ByteReader, ByteWriter, sharedPrefix } from "./byte-io.ts";

export interface BlockHandle {
  offset: number;
  length: number;
  entries: number;
  firstKey: Bytes;
  lastKey: Bytes;
}

export function encodeIndex(blocks: readonly BlockHandle[]): Uint8Array {
  const w = new ByteWriter(64 + blocks.length * 48);
  w.varint(blocks.length);
  for (const b of blocks) {
    w.varint(b.offset);
    w.varint(b.length);
    w.varint(b.entries);
    w.varint(b.firstKey.length);
    w.bytes(b.firstKey);
    const shared = sharedPrefix(b.firstKey, b.lastKey);
    w.varint(shared);
    w.varint(b.lastKey.length - shared);
    w.bytes(b.lastKey, shared);
  }
  return w.finish().slice();
}

/** A decoded index; keys are copies, independent of the buffer they came from. */
export class BlockIndex {
  constructor(readonly blocks: readonly BlockHandle[]) {}

  get length(): number {
    return this.blocks.length;
  }

  /** Position of the first block whose last key is >= key (== length if none). */
  firstEndingAtOrAfter(key: Bytes): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(this.blocks[mid]!.lastKey, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The block that may hold `key`, or -1 if the key sorts outside every block. */
  blockFor(key: Bytes): number {
    const i = this.firstEndingAtOrAfter(key);
    const b = this.blocks[i];
    if (b === undefined || compareBytes(b.firstKey, key) > 0) return -1;
    return i;
  }
}

/**
 * Decodes `bytes` (whose checksum the caller verified) and checks that blocks tile [0, dataEnd) in
 * order with ordered keys and `expectedBlocks` / `expectedEntries` totals.
 */
export function decodeIndex(
  bytes: Uint8Array,
  dataEnd: number,
  expectedBlocks: number,
  expectedEntries: number,
  what: string,
): BlockIndex {
  const r = new ByteReader(bytes, `${what} block index`);
  const count = r.varint();
  if (count !== expectedBlocks) r.fail(`index lists ${count} blocks, footer says ${expectedBlocks}`);
  const blocks: BlockHandle[] = [];
  let next = 0;
  let entries = 0;
  let prevLast: Bytes | undefined;
  for (let i = 0; i < count; i++) {
    const offset = r.varint();
    const length = r.varint();
    const n = r.varint();
    const firstKey = r.bytes(r.varint()).slice();
    const shared = r.varint();
    if (shared > firstKey.length) r.fail("last key shares more than the first key holds");
    const suffix = r.bytes(r.varint());
    const lastKey = new Uint8Array(shared + suffix.length);
    lastKey.set(firstKey.subarray(0, shared));
    lastKey.set(suffix, shared);
    if (offset !== next || length < BLOCK_TRAILER_BYTES || n === 0) r.fail(`block ${i} is misplaced`);
    if (compareBytes(firstKey, lastKey) > 0) r.fail(`block ${i} keys are out of order`);
    if (prevLast !== undefined && compareBytes(prevLast, firstKey) >= 0)
      r.fail(`block ${i} overlaps block ${i - 1}`);
    blocks.push({ offset, length, entries: n, firstKey, lastKey });
    next = offset + length;
    entries += n;
    prevLast = lastKey;
  }
  if (!r.done) r.fail("bytes after the last index record");
  if (next !== dataEnd) r.fail(`blocks end at ${next}, data region ends at ${dataEnd}`);
  if (entries !== expectedEntries) r.fail(`blocks hold ${entries} entries, footer says ${expectedEntries}`);
  return new BlockIndex(blocks);
}
