/**
 * The newest cut's replayed WAL tail, remembered per lake within an isolate, so that opening a newer cut
 * on the same manifest replays only the segments published since instead of the whole tail. Without it
 * every request re-decodes and re-applies every tail segment, a cost that grows with what the tail holds
 * (at 10k tables created since the last memtable flush, about a second per request).
 *
 * Safe because every input is immutable: a WAL segment id names fixed bytes (put-once), a manifest
 * version names fixed bytes, so replaying segments `tailStart..upTo` over manifest `v` always yields the
 * same memtable. The remembered memtable is never written: a newer cut starts from its O(1) copy-on-write
 * `clone()` (storage/memtable.ts) and replays its new segments onto that.
 */
import type { Position } from "../api.ts";
import type { MemTree } from "../memtable.ts";

/**
 * Lakes whose newest tail one isolate remembers (least recently opened forgotten first). Small: each
 * holds a memtable as large as the writer's unflushed tail (tens of MiB at 10k tables created since the
 * last flush), inside an isolate's 128 MiB.
 */
export const MAX_REMEMBERED_TAILS = 4;

export interface RememberedTail {
  manifestVersion: number;
  tailStart: number;
  /** The last segment replayed (inclusive). */
  upTo: number;
  position: Position;
  /** Frozen: only ever cloned. */
  mem: MemTree;
}

/** Keyed by the store's identity (`bucketIdentity`, store-identity.ts): a per-request wrapper shares it. */
const byBucket = new WeakMap<object, Map<string, RememberedTail>>();

/** The remembered tail a cut of (manifestVersion, tailStart..segmentId) can extend, if any. */
export function tailToExtend(
  bucket: object,
  lake: string,
  manifestVersion: number,
  tailStart: number,
  segmentId: number,
): RememberedTail | undefined {
  const t = byBucket.get(bucket)?.get(lake);
  if (!t || t.manifestVersion !== manifestVersion || t.tailStart !== tailStart || t.upTo > segmentId)
    return undefined;
  return t;
}

export function rememberTail(bucket: object, lake: string, tail: RememberedTail): void {
  let lakes = byBucket.get(bucket);
  if (!lakes) {
    lakes = new Map();
    byBucket.set(bucket, lakes);
  }
  const old = lakes.get(lake);
  // Keep the newer of two tails on the same manifest (reads at an older cut may finish later).
  if (
    old &&
    old.manifestVersion === tail.manifestVersion &&
    old.tailStart === tail.tailStart &&
    old.upTo > tail.upTo
  )
    return;
  lakes.delete(lake);
  lakes.set(lake, tail);
  while (lakes.size > MAX_REMEMBERED_TAILS) {
    const oldest = lakes.keys().next().value;
    if (oldest === undefined) break;
    lakes.delete(oldest);
  }
}
