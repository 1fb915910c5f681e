/**
 * Reading the immutable objects a cut is made of — manifests, WAL segments, checkpoint descriptors —
 * through the pluggable object cache. Every key read here names bytes that never change, so a cached copy
 * never goes stale; bytes are cached only after they decoded and verified. The head lookup (the one
 * mutable answer) is in open-latest.ts and never touches the cache.
 */
import type { Bucket } from "../api.ts";
import type { ObjectCache } from "../cache.ts";
import { Corruption } from "../errors.ts";
import { checkLakeName, manifestKey, walKey } from "../keys.ts";
import { decodeManifest, type Manifest } from "../manifest.ts";
import { RECOVERY_CONCURRENCY } from "../recovery.ts";
import { type RetryOptions, type RetryPolicy, readWithRetry, retryPolicy } from "../retry.ts";
import { decodeSegment, type Segment } from "../segment.ts";
import { CountingBucket, ReaderCounters } from "./counters.ts";
import { bucketIdentity } from "./store-identity.ts";

/** Options every reader takes. */
export interface ReaderOptions {
  /** Immutable-object cache (manifests, segments, descriptors, table metadata and blocks), by key. */
  cache?: ObjectCache;
  /** Where calls and bytes are counted; pass one instance to many readers to aggregate. */
  counters?: ReaderCounters;
  /** Bound on retries of a failing read (default 5 attempts, 100 ms doubling to 2 s). */
  retry?: RetryOptions;
  /**
   * A reader that will read across the whole keyspace (a scan plan walks names, tables, files): open
   * every sorted table's metadata at once as the reader opens, instead of one round per table a read
   * first reaches. Only when the cut names at most PREFETCH_TABLES_MAX tables (lake-reader.ts).
   */
  prefetchTables?: boolean;
}

/** What every read of one reader shares: the counting bucket, the cache, the retry bound. */
export interface ReadContext {
  /** A CountingBucket over the caller's bucket. */
  bucket: Bucket;
  /** The caller's store's identity: what isolate-wide memory (tail-replays.ts) is keyed by. */
  source: object;
  lake: string;
  cache: ObjectCache | undefined;
  counters: ReaderCounters;
  policy: RetryPolicy;
  /** Objects already decoded by this open: a re-list re-reads nothing it has, cache or not. */
  memo: Map<string, unknown>;
  /** ReaderOptions.prefetchTables. */
  prefetchTables: boolean;
}

export function readContext(bucket: Bucket, lake: string, options: ReaderOptions): ReadContext {
  checkLakeName(lake);
  const counters = options.counters ?? new ReaderCounters();
  return {
    bucket: new CountingBucket(bucket, counters),
    source: bucketIdentity(bucket),
    lake,
    cache: options.cache,
    counters,
    policy: retryPolicy(options.retry),
    memo: new Map(),
    prefetchTables: options.prefetchTables === true,
  };
}

/**
 * The bytes of an immutable object, from the cache or one GET (retried within the bound), or null when the
 * object does not exist. `decode` runs before the bytes are cached, so damaged bytes are never cached.
 */
export async function readImmutable<T>(
  ctx: ReadContext,
  key: string,
  decode: (bytes: Uint8Array) => T,
): Promise<T | null> {
  if (ctx.memo.has(key)) return ctx.memo.get(key) as T;
  const value = await readUncached(ctx, key, decode);
  if (value !== null) ctx.memo.set(key, value);
  return value;
}

async function readUncached<T>(
  ctx: ReadContext,
  key: string,
  decode: (bytes: Uint8Array) => T,
): Promise<T | null> {
  if (ctx.cache) {
    const hit = await ctx.cache.get(key);
    if (hit !== undefined) {
      ctx.counters.cacheHits++;
      return decode(hit);
    }
    ctx.counters.cacheMisses++;
  }
  const bytes = await readWithRetry(ctx.policy, `reading ${key}`, async () => {
    const o = await ctx.bucket.get(key);
    return o === null ? null : new Uint8Array(await o.arrayBuffer());
  });
  if (bytes === null) return null;
  const value = decode(bytes);
  if (ctx.cache) await ctx.cache.put(key, bytes);
  return value;
}

/** Manifest `version`; a missing one is Corruption (something named it: a segment or a checkpoint). */
export async function readCutManifest(ctx: ReadContext, version: number, namedBy: string): Promise<Manifest> {
  const key = manifestKey(ctx.lake, version);
  const m = await readImmutable(ctx, key, (bytes) => {
    const d = decodeManifest(bytes, key);
    if (d.version !== version || d.lake !== ctx.lake)
      throw new Corruption(`manifest ${key} claims version ${d.version} of lake ${d.lake}`);
    return d;
  });
  if (m === null)
    throw new Corruption(
      `manifest ${key}, named by ${namedBy}, is missing; the cut cannot be read (was it collected early?)`,
    );
  return m;
}

/** Segments `from..to` inclusive, at most RECOVERY_CONCURRENCY GETs in flight, in id order. */
export async function readCutSegments(
  ctx: ReadContext,
  from: number,
  to: number,
  namedBy: string,
  /** GETs in flight (≤ RECOVERY_CONCURRENCY, the six-connection limit). */
  concurrency: number = RECOVERY_CONCURRENCY,
): Promise<Segment[]> {
  const n = Math.max(0, to - from + 1);
  const out = new Array<Segment>(n);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const id = from + i;
      const key = walKey(ctx.lake, id);
      const seg = await readImmutable(ctx, key, (bytes) => {
        const s = decodeSegment(bytes, key);
        if (s.header.segmentId !== id)
          throw new Corruption(`WAL segment ${key} claims id ${s.header.segmentId}`);
        return s;
      });
      if (seg === null)
        throw new Corruption(
          `WAL segment ${key}, named by ${namedBy}, is missing; the cut cannot be read (was it collected early?)`,
        );
      out[i] = seg;
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(RECOVERY_CONCURRENCY, Math.max(1, concurrency), n) }, worker),
  );
  return out;
}
