/**
 * Streaming table builder: entries arrive in strictly increasing key order and are cut into blocks of
 * at most `blockBytes` (a single larger entry gets a block of its own). Working memory is one block plus
 * 4 bytes per key for the bloom filter and one index record per block; finished blocks are appended to
 * the output, which is assembled once at `finish()` because an R2 PUT needs the length up front.
 *
 * Default block size 16 KiB: on R2 a GET costs tens of milliseconds whether it returns 4 or 16 KiB
 * (transfer is well under a millisecond either way), while a 4x larger block means a 4x smaller index
 * to fetch at open and 4x fewer GETs per range scan. Catalog values are small, so a block still holds
 * a few hundred entries and a point read still moves only 16 KiB.
 */

import type { Bytes, SortedEntry } from "../api.ts";
import { compareBytes } from "../bytes.ts";
import { BlockBuilder } from "./block.ts";
import { type BlockHandle, encodeIndex } from "./block-index.ts";
import { buildBloom, DEFAULT_BLOOM_BITS_PER_KEY, murmur3 } from "./bloom.ts";
import { crc32c } from "./crc32c.ts";
import { SstInvalidInput } from "./errors.ts";
import { chooseFences, type Fence } from "./fences.ts";
import { encodeFooter, FOOTER_BYTES, FORMAT_VERSION } from "./footer.ts";
import { encodeProps } from "./props.ts";

export const DEFAULT_BLOCK_BYTES = 16 * 1024;

export interface SstBuildOptions {
  /** Target encoded block size in bytes (default 16 KiB). */
  blockBytes?: number;
  /** Bloom filter bits per key (default 10, ~0.8% false positives). */
  bloomBitsPerKey?: number;
}

/** What the builder learned about the table: enough for a manifest to list it without reading it. */
export interface SstSummary {
  size: number;
  /** Where the metadata (index, bloom, properties, footer) starts: open can fetch [metaOffset, size). */
  metaOffset: number;
  minKey: Bytes;
  maxKey: Bytes;
  entries: number;
  tombstones: number;
  blocks: number;
  /**
   * A few blocks' first keys and offsets (fences.ts), for the manifest: a reader turns a key range into a
   * byte window of the table before it has the index (docs/decisions/0175-block-fences.md).
   */
  fences: Fence[];
}

export interface BuiltSst {
  bytes: Uint8Array;
  summary: SstSummary;
}

export class SstBuilder {
  private readonly blockBytes: number;
  private readonly bitsPerKey: number;
  private readonly block = new BlockBuilder();
  private readonly chunks: Uint8Array[] = [];
  private readonly handles: BlockHandle[] = [];
  private hashes = new Uint32Array(1024);
  private offset = 0;
  private entries = 0;
  private tombstones = 0;
  private last: Bytes | undefined;
  private first: Bytes | undefined;
  private finished = false;

  constructor(options: SstBuildOptions = {}) {
    this.blockBytes = options.blockBytes ?? DEFAULT_BLOCK_BYTES;
    this.bitsPerKey = options.bloomBitsPerKey ?? DEFAULT_BLOOM_BITS_PER_KEY;
    if (!Number.isInteger(this.blockBytes) || this.blockBytes < 64) {
      throw new SstInvalidInput(`blockBytes must be an integer >= 64, got ${this.blockBytes}`);
    }
    if (!Number.isInteger(this.bitsPerKey) || this.bitsPerKey < 1 || this.bitsPerKey > 64) {
      throw new SstInvalidInput(`bloomBitsPerKey must be an integer in [1, 64], got ${this.bitsPerKey}`);
    }
  }

  add(entry: SortedEntry): void {
    if (this.finished) throw new SstInvalidInput("add() after finish(): start a new builder");
    if (this.last !== undefined && compareBytes(this.last, entry.key) >= 0) {
      throw new SstInvalidInput(
        "sorted table entries must arrive in strictly increasing key order (a duplicate or out-of-order key)",
      );
    }
    // The key is copied because the index and the next entry's prefix compression keep it; the value is
    // copied into the block at once.
    const key = entry.key.slice();
    const value = entry.value;
    const next = { key, value };
    if (!this.block.tryAdd(next, this.blockBytes)) {
      this.cutBlock();
      this.block.tryAdd(next, this.blockBytes);
    }
    if (this.entries === this.hashes.length) {
      const grown = new Uint32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[this.entries] = murmur3(key);
    this.entries++;
    if (value === undefined) this.tombstones++;
    this.first ??= key;
    this.last = key;
  }

  private cutBlock(): void {
    const { firstKey, lastKey, entries } = this.block;
    const bytes = this.block.finish();
    this.handles.push({ offset: this.offset, length: bytes.length, entries, firstKey, lastKey });
    this.chunks.push(bytes);
    this.offset += bytes.length;
  }

  finish(): BuiltSst {
    if (this.finished) throw new SstInvalidInput("finish() called twice");
    if (this.first === undefined || this.last === undefined) {
      throw new SstInvalidInput("a sorted table needs at least one entry; skip writing an empty table");
    }
    this.finished = true;
    this.cutBlock();
    const metaOffset = this.offset;
    const index = encodeIndex(this.handles);
    const bloom = buildBloom(this.hashes.subarray(0, this.entries), this.bitsPerKey);
    const props = encodeProps({
      minKey: this.first,
      maxKey: this.last,
      blockTargetBytes: this.blockBytes,
      bloomBitsPerKey: this.bitsPerKey,
    });
    const bloomOffset = metaOffset + index.length;
    const propsOffset = bloomOffset + bloom.length;
    const size = propsOffset + props.length + FOOTER_BYTES;
    const footer = encodeFooter({
      index: { offset: metaOffset, length: index.length, crc: crc32c(index) },
      bloom: { offset: bloomOffset, length: bloom.length, crc: crc32c(bloom) },
      props: { offset: propsOffset, length: props.length, crc: crc32c(props) },
      entries: this.entries,
      tombstones: this.tombstones,
      objectSize: size,
      blockCount: this.handles.length,
      formatVersion: FORMAT_VERSION,
    });
    const out = new Uint8Array(size);
    let at = 0;
    for (const part of [...this.chunks, index, bloom, props, footer]) {
      out.set(part, at);
      at += part.length;
    }
    this.chunks.length = 0;
    return {
      bytes: out,
      summary: {
        size,
        metaOffset,
        minKey: this.first,
        maxKey: this.last,
        entries: this.entries,
        tombstones: this.tombstones,
        blocks: this.handles.length,
        fences: chooseFences(this.handles, metaOffset),
      },
    };
  }
}

/** Builds a table from an ordered (async) iterable of entries. */
export async function buildSst(
  entries: Iterable<SortedEntry> | AsyncIterable<SortedEntry>,
  options?: SstBuildOptions,
): Promise<BuiltSst> {
  const b = new SstBuilder(options);
  // A sync source is drained without a microtask per entry.
  if (Symbol.iterator in entries) for (const e of entries) b.add(e);
  else for await (const e of entries) b.add(e);
  return b.finish();
}
