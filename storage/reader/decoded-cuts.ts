/**
 * Decoded cuts kept across requests within one isolate: the built view of a published cut (its replayed
 * memtable and its sorted layers, whose tables keep their decoded metadata and blocks once opened), keyed by
 * the identity the WAL head listing names. A warm read whose head listing names a cut this isolate already
 * built reuses it: no manifest decode, no layer rebuild, no table metadata decoded again.
 *
 * Never stale, never another lake's: the entry is found only through the head that `openLatest` has just
 * listed (the revalidation stays the one list per open), and the key is that head's whole identity — lake,
 * writer epoch, manifest version, tail start and newest segment id —, which names immutable bytes (put-once
 * keys). A commit publishes a newer segment, so a newer head misses every entry. The one way the same key
 * could name other bytes is a deleted lake's name created again with the same positions: entries live at
 * most DECODED_CUT_LIFETIME_MS, far below the writer's deletion grace (24 h), like the object cache.
 *
 * Bounded by MAX_DECODED_CUTS entries (least recently used dropped first); each cut holds at most
 * READER_PREFETCH_BYTES_MAX of prefetched blocks for its whole life (storage/prefetch.ts) beside what its
 * tables opened. Per source bucket (a WeakMap, like tail-replays.ts), so two bindings never share a cut.
 * docs/decisions/0760-decoded-cut-cache.md.
 */
import type { Bucket } from "../api.ts";
import type { Cut } from "../read-view.ts";
import type { SegmentSummary } from "../segment.ts";
import type { ReaderCut } from "./lake-reader.ts";

/**
 * Built cuts one isolate keeps per store across every lake (least recently used dropped first): the newest
 * and the one before it (a reader racing a commit), or two lakes' newest. Each may hold up to
 * READER_PREFETCH_BYTES_MAX of prefetched blocks for its lifetime, so this bounds that retention to 16 MiB.
 */
export const MAX_DECODED_CUTS = 2;
/** Longest an entry is reused (a recreated lake's name can reuse the same positions after the 24 h grace). */
export const DECODED_CUT_LIFETIME_MS = 60_000;

export interface DecodedCut {
  cut: ReaderCut;
  view: Cut;
}

interface Entry extends DecodedCut {
  createdAt: number;
}

/**
 * What a bucket is for isolate-wide memory: a wrapper that times or counts calls on the same store (a
 * per-request proxy, say) answers its store's identity under this symbol, so the memory is shared.
 */
export const BUCKET_IDENTITY: unique symbol = Symbol.for("ducklake-edge.bucket-identity");

/** The object isolate-wide memory is keyed by for `bucket`. */
export function bucketIdentity(bucket: Bucket): object {
  const id = (bucket as unknown as { [BUCKET_IDENTITY]?: unknown })[BUCKET_IDENTITY];
  return typeof id === "object" && id !== null ? id : bucket;
}

/** The key of the cut a head names: every field that picks the bytes the cut is built from. */
export function decodedCutKey(lake: string, h: SegmentSummary): string {
  return `${lake}\u0000${h.epoch}\u0000${h.manifestVersion}\u0000${h.tailStart}\u0000${h.segmentId}`;
}

export class DecodedCuts {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxCuts: number = MAX_DECODED_CUTS,
    private readonly lifetimeMs: number = DECODED_CUT_LIFETIME_MS,
  ) {
    if (!Number.isInteger(maxCuts) || maxCuts < 1)
      throw new RangeError(`maxCuts must be ≥ 1, got ${maxCuts}`);
  }

  /** The cut kept under `key`, if it is still young enough (a hit becomes the most recently used). */
  get(key: string, now: number): DecodedCut | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    this.entries.delete(key);
    if (now - hit.createdAt >= this.lifetimeMs || now < hit.createdAt) return undefined;
    this.entries.set(key, hit);
    return hit;
  }

  put(key: string, cut: DecodedCut, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { ...cut, createdAt: now });
    while (this.entries.size > this.maxCuts) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

const byBucket = new WeakMap<object, DecodedCuts>();

/** This isolate's decoded cuts of the store whose identity (`bucketIdentity`) is `source`. */
export function decodedCutsOf(source: object): DecodedCuts {
  const id = source;
  let cuts = byBucket.get(id);
  if (cuts === undefined) {
    cuts = new DecodedCuts();
    byBucket.set(id, cuts);
  }
  return cuts;
}
