/**
 * Compaction reads its inputs whole: one GET per table instead of one per 16 KiB block. A sequential
 * block-by-block scan pays R2's per-request latency (tens of ms) for every block, which would cap
 * compaction at well under 1 MB/s; inputs are bounded (L0 tables by the flush threshold, partitions by
 * the target size), so holding them in memory for one step is cheap.
 */
import type { Bucket, BucketGetOptions, BucketObjectBody } from "../api.ts";
import { Corruption } from "../errors.ts";
import type { MaintenanceContext } from "../maintenance.ts";
import { readWithRetry } from "../retry.ts";
import { SstNotFound } from "../sst/errors.ts";
import { SstReader } from "../sst/reader.ts";
import type { TableRef } from "../table-record.ts";

/** A read-only bucket holding one object's bytes: range GETs are served from memory. */
function oneObjectBucket(key: string, bytes: Uint8Array, etag: string, uploaded: Date): Bucket {
  const refuse = (): never => {
    throw new Error("the in-memory view of a compaction input is read-only");
  };
  const body = (slice: Uint8Array): BucketObjectBody => ({
    key,
    size: bytes.length,
    etag,
    uploaded,
    arrayBuffer: async () => slice.slice().buffer,
  });
  return {
    put: async () => refuse(),
    delete: async () => refuse(),
    list: async () => refuse(),
    head: async (k) => (k === key ? body(bytes) : null),
    get: async (k: string, options?: BucketGetOptions) => {
      if (k !== key) return null;
      const r = options?.range;
      if (r === undefined) return body(bytes);
      if ("suffix" in r) return body(bytes.subarray(Math.max(0, bytes.length - r.suffix)));
      const start = r.offset ?? 0;
      const end = r.length === undefined ? bytes.length : start + r.length;
      return body(bytes.subarray(start, Math.min(end, bytes.length)));
    },
  };
}

/** Fetches the whole table with one GET and opens a reader that never goes back to the bucket. */
export async function loadWholeTable(ctx: MaintenanceContext, t: TableRef): Promise<SstReader> {
  const key = t.record.key;
  const obj = await readWithRetry(ctx.retry, `reading sorted table ${key} for compaction`, async () => {
    ctx.reads.r2Gets++;
    const o = await ctx.bucket.get(key);
    if (o === null) return null;
    return { bytes: new Uint8Array(await o.arrayBuffer()), etag: o.etag, uploaded: o.uploaded };
  });
  if (obj === null) {
    throw new SstNotFound(
      `sorted table ${key} named by the current manifest is missing; the lake needs repair`,
    );
  }
  ctx.reads.bytesRead += obj.bytes.length;
  if (obj.bytes.length !== t.record.size) {
    throw new Corruption(
      `sorted table ${key}: manifest says ${t.record.size} bytes, the object has ${obj.bytes.length}`,
    );
  }
  return SstReader.open(oneObjectBucket(key, obj.bytes, obj.etag, obj.uploaded), key, {
    size: t.record.size,
    metaOffset: t.record.metaOffset,
    readahead: 0,
  });
}
