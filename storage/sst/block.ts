/**
 * Data blocks. A block holds consecutive entries, each key prefix-compressed against the previous key
 * in the same block (the first key of a block is stored whole, so every block decodes on its own):
 *
 *   entry  := varint shared, varint unsharedLength, varint valueTag, unshared key bytes, value bytes
 *             valueTag 0 = tombstone, otherwise value length + 1
 *   block  := entry* , u32 entryCount, u32 crc32c(everything before it in the block)
 *
 * No restart points: blocks are small (16 KiB target), so a lookup decodes at most one block linearly,
 * which costs microseconds against the tens of milliseconds of the GET that fetched it.
 */

import type { Bytes, SortedEntry } from "../api.ts";
import { compareBytes } from "../bytes.ts";
import { ByteReader, ByteWriter, sharedPrefix, varintSize } from "./byte-io.ts";
import { crc32c } from "./crc32c.ts";

/** Bytes of trailer (count + checksum) at the end of every block. */
export const BLOCK_TRAILER_BYTES = 8;

/** Accumulates one block. Memory is bounded by the block size (plus one oversized entry at most). */
export class BlockBuilder {
  private w = new ByteWriter(1024);
  private prev: Bytes = new Uint8Array(0);
  private count = 0;
  firstKey: Bytes = new Uint8Array(0);
  lastKey: Bytes = new Uint8Array(0);

  get entries(): number {
    return this.count;
  }

  /**
   * Appends `entry` unless the block already has entries and would then exceed `limit` bytes (trailer
   * included); returns whether it was added. A first entry is always added, however large.
   */
  tryAdd(entry: SortedEntry, limit: number): boolean {
    const key = entry.key;
    const shared = this.count === 0 ? 0 : sharedPrefix(this.prev, key);
    const unshared = key.length - shared;
    const tag = entry.value === undefined ? 0 : entry.value.length + 1;
    if (this.count > 0) {
      const size =
        this.w.length +
        varintSize(shared) +
        varintSize(unshared) +
        varintSize(tag) +
        unshared +
        (tag > 0 ? tag - 1 : 0) +
        BLOCK_TRAILER_BYTES;
      if (size > limit) return false;
    }
    this.w.varint(shared);
    this.w.varint(unshared);
    this.w.varint(tag);
    this.w.bytes(key, shared);
    if (entry.value !== undefined) this.w.bytes(entry.value);
    if (this.count === 0) this.firstKey = key;
    this.lastKey = key;
    this.prev = key;
    this.count++;
    return true;
  }

  /** The finished block bytes (a fresh copy); the builder is then reset for the next block. */
  finish(): Uint8Array {
    this.w.u32(this.count);
    const body = this.w.finish();
    const out = new Uint8Array(body.length + 4);
    out.set(body);
    new DataView(out.buffer).setUint32(body.length, crc32c(body), true);
    this.w = new ByteWriter(1024);
    this.prev = new Uint8Array(0);
    this.count = 0;
    return out;
  }
}

/**
 * Walks the entries of one verified block. `key` is a view of a scratch buffer that the next `next()`
 * overwrites; `entry()` copies the current entry out so callers may keep it.
 */
export class BlockCursor {
  private readonly r: ByteReader;
  private scratch = new Uint8Array(64);
  private keyLen = 0;
  private valueStart = 0;
  private valueLen = -1;
  private remaining: number;

  /** `block` must already have passed `verifyBlock`. */
  constructor(
    readonly block: Uint8Array,
    what: string,
  ) {
    const end = block.length - BLOCK_TRAILER_BYTES;
    this.r = new ByteReader(block, what, 0, end);
    this.remaining = new DataView(block.buffer, block.byteOffset, block.byteLength).getUint32(end, true);
  }

  get key(): Bytes {
    return this.scratch.subarray(0, this.keyLen);
  }

  get isTombstone(): boolean {
    return this.valueLen < 0;
  }

  /** Advances to the next entry; false at the end of the block. */
  next(): boolean {
    if (this.remaining === 0) {
      if (!this.r.done) this.r.fail("bytes after the last entry");
      return false;
    }
    this.remaining--;
    const shared = this.r.varint();
    const unshared = this.r.varint();
    const tag = this.r.varint();
    if (shared > this.keyLen) this.r.fail("shared prefix longer than the previous key");
    const suffix = this.r.bytes(unshared);
    const len = shared + unshared;
    if (len > this.scratch.length) {
      const grown = new Uint8Array(Math.max(len, this.scratch.length * 2));
      grown.set(this.scratch.subarray(0, shared));
      this.scratch = grown;
    }
    this.scratch.set(suffix, shared);
    this.keyLen = len;
    this.valueLen = tag - 1;
    this.valueStart = this.r.pos;
    if (tag > 0) this.r.bytes(tag - 1);
    return true;
  }

  /** Advances to the first entry with key >= target; false if none in this block. */
  seek(target: Bytes): boolean {
    while (this.next()) if (compareBytes(this.key, target) >= 0) return true;
    return false;
  }

  /** A copy of the current entry, safe to hand to callers. */
  entry(): SortedEntry {
    return {
      key: this.scratch.slice(0, this.keyLen),
      value:
        this.valueLen < 0 ? undefined : this.block.slice(this.valueStart, this.valueStart + this.valueLen),
    };
  }
}

/** True if the block's checksum matches and its declared size is sane. */
export function verifyBlock(block: Uint8Array): boolean {
  if (block.length < BLOCK_TRAILER_BYTES) return false;
  const end = block.length - 4;
  const stored = new DataView(block.buffer, block.byteOffset, block.byteLength).getUint32(end, true);
  return stored === crc32c(block, 0, end);
}
