/**
 * Block fences: a few sparse `[first key of a block, its byte offset]` pairs chosen by the builder, so a
 * reader that knows them (the manifest lists them with the table) can turn a key range into a byte
 * window of the table's data region before it has the table's metadata, and fetch that window in the
 * same round as the metadata (docs/decisions/0175-block-fences.md). Nothing here trusts a fence: the
 * blocks a window held are adopted only by the real index's offsets and checksums (reader.ts).
 *
 * A fence carries the block's whole first key, not a shorter separator: with the first key, "a fence
 * below `hi`" means the block holds a key below `hi`, which is what a `last` range (the newest record of
 * a kind) needs to find its block; a separator would leave the block before it ambiguous.
 */
import type { Bytes, PrefetchRange } from "../api.ts";
import { compareBytes, rangeBounds } from "../bytes.ts";
import type { BlockHandle } from "./block-index.ts";

/**
 * Most fences one table carries: every fence costs its key (hex) and offset in every manifest version,
 * and 8 cut a 2 MiB run partition into windows of ~230 KiB (about 0.5 KB of manifest per table).
 */
export const FENCES_PER_TABLE_MAX = 8;
/** Longest first key a fence may carry; a block with a longer one is not a fence (its neighbour is). */
export const FENCE_KEY_BYTES_MAX = 64;
/** Fences are at least this far apart: a table of a few blocks is one window, and needs none. */
export const FENCE_SPACING_MIN_BYTES = 32 * 1024;

export interface Fence {
  /** The first key of the block that starts at `offset`. */
  key: Bytes;
  offset: number;
}

/**
 * The fences of a table whose blocks are `blocks` (in order, tiling [0, dataEnd)): at most
 * FENCES_PER_TABLE_MAX, at block starts roughly dataEnd / (max + 1) apart (≥ FENCE_SPACING_MIN_BYTES),
 * never at block 0 (offset 0 and the table's min key are known without one).
 */
export function chooseFences(blocks: readonly BlockHandle[], dataEnd: number): Fence[] {
  const spacing = Math.max(FENCE_SPACING_MIN_BYTES, Math.ceil(dataEnd / (FENCES_PER_TABLE_MAX + 1)));
  const out: Fence[] = [];
  let last = 0;
  for (let i = 1; i < blocks.length && out.length < FENCES_PER_TABLE_MAX; i++) {
    const b = blocks[i]!;
    if (b.offset - last < spacing || b.firstKey.length > FENCE_KEY_BYTES_MAX) continue;
    // The last window must not be a sliver: a fence this close to the end buys nothing.
    if (dataEnd - b.offset < spacing / 2) break;
    out.push({ key: b.firstKey, offset: b.offset });
    last = b.offset;
  }
  return out;
}

/** A byte range of a table's data region. */
export interface ByteWindow {
  offset: number;
  length: number;
}

/**
 * Whether `fences` could describe a data region ending at `dataEnd`: keys and offsets strictly
 * increasing, every offset inside (0, dataEnd). Anything else yields no window (the ordinary path).
 */
export function fencesWellFormed(fences: readonly Fence[], dataEnd: number): boolean {
  for (let i = 0; i < fences.length; i++) {
    const f = fences[i]!;
    if (!Number.isInteger(f.offset) || f.offset <= 0 || f.offset >= dataEnd) return false;
    const prev = fences[i - 1];
    if (prev !== undefined && (prev.offset >= f.offset || compareBytes(prev.key, f.key) >= 0)) return false;
  }
  return true;
}

/**
 * The bytes of the data region [0, dataEnd) that hold every block a read of `range` touches (for
 * `last`, the block of the range's last key), as the fences tell it, cut to at most `maxBytes` from its
 * start (at a fence when one lies inside, so the cut wastes no partial block); undefined when the range
 * holds nothing here or the fences are not well formed. `range.start` may be raised by the caller
 * (a table's `mergedBelow`).
 */
export function fenceWindow(
  fences: readonly Fence[],
  dataEnd: number,
  range: PrefetchRange,
  maxBytes: number,
): ByteWindow | undefined {
  if (dataEnd <= 0 || maxBytes <= 0 || !fencesWellFormed(fences, dataEnd)) return undefined;
  const { lo, hi } = rangeBounds(range);
  let start = 0;
  let end = dataEnd;
  for (const f of fences) {
    // Every block before a fence whose first key is ≤ lo holds only keys below lo.
    if (lo !== undefined && compareBytes(f.key, lo) <= 0) start = f.offset;
    // A block whose first key is ≥ hi, and every block after it, holds only keys at or past hi.
    if (hi !== undefined && compareBytes(f.key, hi) >= 0) {
      end = f.offset;
      break;
    }
    // The block at a fence below hi holds a key below hi: the range's last key is there or later.
    if (range.last === true && (hi === undefined || compareBytes(f.key, hi) < 0)) {
      start = Math.max(start, f.offset);
    }
  }
  if (start >= end) return undefined;
  if (end - start > maxBytes) {
    let cut = start + maxBytes;
    for (const f of fences) if (f.offset > start && f.offset <= start + maxBytes) cut = f.offset;
    end = cut;
  }
  return { offset: start, length: end - start };
}
