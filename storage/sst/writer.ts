/**
 * Writes a built table to the bucket under its key, put-if-absent: an existing object is never
 * overwritten (R2 throttles rewrites of a key, and tables are cached forever by key).
 */
import type { Bucket, Bytes, SortedEntry } from "../api.ts";
import { buildSst, type SstBuildOptions } from "./builder.ts";
import { SstExists } from "./errors.ts";
import type { Fence } from "./fences.ts";
import { sstKey } from "./key.ts";

/** A written table as a manifest lists it. */
export interface SstInfo {
  key: string;
  epoch: number;
  id: number;
  /** Object size in bytes. */
  size: number;
  /** Start of the metadata region; passing it (with size) to `SstReader.open` makes open one exact GET. */
  metaOffset: number;
  minKey: Bytes;
  maxKey: Bytes;
  entries: number;
  tombstones: number;
  blocks: number;
  /** The builder's block fences (fences.ts); absent in infos made before fences existed. */
  fences?: Fence[];
}

export interface SstTarget {
  lake: string;
  epoch: number;
  id: number;
}

/**
 * Builds the table from `entries` (strictly increasing keys) and PUTs it if absent. Throws SstExists if
 * any object is already at the key — the store core maps that to Fenced.
 */
export async function writeSst(
  bucket: Bucket,
  target: SstTarget,
  entries: Iterable<SortedEntry> | AsyncIterable<SortedEntry>,
  options?: SstBuildOptions,
): Promise<SstInfo> {
  const key = sstKey(target.lake, target.epoch, target.id);
  const { bytes, summary } = await buildSst(entries, options);
  const put = await bucket.put(key, bytes, { onlyIf: { etagDoesNotMatch: "*" } });
  if (put === null) {
    throw new SstExists(
      `sorted table ${key} already exists: another writer with epoch ${target.epoch} wrote it, so this writer is ` +
        "superseded; stop writing and reopen the lake",
    );
  }
  return { key, epoch: target.epoch, id: target.id, ...summary };
}
