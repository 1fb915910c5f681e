/**
 * Counting, not guessing: every bucket call a reader makes goes through a CountingBucket, so tests,
 * benchmarks and the HTTP layer (cost headers, logs) read exact call counts and bytes instead of timing.
 */
import type {
  Bucket,
  BucketGetOptions,
  BucketListOptions,
  BucketListResult,
  BucketObject,
  BucketObjectBody,
  BucketPutOptions,
} from "../api.ts";
import { ReadCounters } from "../sst/counters.ts";

export type ReaderCallKind = "list" | "get" | "head" | "put" | "delete";

export interface ReaderCountsSnapshot {
  calls: Record<ReaderCallKind, number>;
  /** Body bytes returned by GETs (manifests, segments, descriptors, table metadata and blocks). */
  bytesRead: number;
  /** Whole immutable objects (manifests, segments, descriptors) found / not found in the object cache. */
  cacheHits: number;
  cacheMisses: number;
  /** Sorted-table blocks decoded, and the peak held at once by reads in progress. */
  blocksRead: number;
  maxBlocksResident: number;
  /** WAL batches' mutations replayed into cuts' memtables (a cut extending a remembered one replays only its new segments). */
  mutationsReplayed: number;
}

/** One instance may be shared by many readers (a Worker isolate, a benchmark) to aggregate cost. */
export class ReaderCounters {
  readonly calls: Record<ReaderCallKind, number> = { list: 0, get: 0, head: 0, put: 0, delete: 0 };
  bytesRead = 0;
  cacheHits = 0;
  cacheMisses = 0;
  mutationsReplayed = 0;
  /** Handed to the sorted-table readers beneath a cut (blocks read / resident). */
  readonly tables = new ReadCounters();

  reset(): void {
    for (const k of Object.keys(this.calls) as ReaderCallKind[]) this.calls[k] = 0;
    this.bytesRead = 0;
    this.cacheHits = 0;
    this.cacheMisses = 0;
    this.mutationsReplayed = 0;
    this.tables.reset();
  }

  snapshot(): ReaderCountsSnapshot {
    return {
      calls: { ...this.calls },
      bytesRead: this.bytesRead,
      cacheHits: this.cacheHits,
      cacheMisses: this.cacheMisses,
      blocksRead: this.tables.blocksRead,
      maxBlocksResident: this.tables.maxBlocksResident,
      mutationsReplayed: this.mutationsReplayed,
    };
  }
}

/** A pass-through bucket that counts calls (issued, whether or not they succeed) and body bytes read. */
export class CountingBucket implements Bucket {
  constructor(
    readonly inner: Bucket,
    readonly counters: ReaderCounters,
  ) {}

  put(
    key: string,
    value: ArrayBuffer | ArrayBufferView | string | ReadableStream | null,
    options?: BucketPutOptions,
  ): Promise<BucketObject | null> {
    this.counters.calls.put++;
    return this.inner.put(key, value, options);
  }

  async get(key: string, options?: BucketGetOptions): Promise<BucketObjectBody | null> {
    this.counters.calls.get++;
    const o = await this.inner.get(key, options);
    if (o === null) return null;
    const counters = this.counters;
    return {
      key: o.key,
      size: o.size,
      etag: o.etag,
      uploaded: o.uploaded,
      ...(o.customMetadata ? { customMetadata: o.customMetadata } : {}),
      async arrayBuffer(): Promise<ArrayBuffer> {
        const buf = await o.arrayBuffer();
        counters.bytesRead += buf.byteLength;
        return buf;
      },
    };
  }

  head(key: string): Promise<BucketObject | null> {
    this.counters.calls.head++;
    return this.inner.head(key);
  }

  list(options?: BucketListOptions): Promise<BucketListResult> {
    this.counters.calls.list++;
    return this.inner.list(options);
  }

  delete(keys: string | string[]): Promise<void> {
    this.counters.calls.delete++;
    return this.inner.delete(keys);
  }
}
