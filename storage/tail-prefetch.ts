/**
 * The WAL tail read of a writer open, overlapped with its manifest read (docs/decisions/0161-overlapped-wake.md).
 *
 * An open used to run list manifests → get manifest → list WAL → get tail → put fence, one after another.
 * The newest segment's custom metadata names the tail start of the cut it publishes, and a newer manifest
 * can only move the replay point forward, so the segments from that tail start on are a superset of the
 * tail the newest manifest needs. So the WAL is listed at the same time as the manifests, and those
 * segments are fetched while the manifest is read; once it arrives the tail is cut to its replay point,
 * checked for gaps as before, and anything the speculation did not cover is read the ordinary way.
 */
import type { Bucket } from "./api.ts";
import { Corruption, LakeDeleted } from "./errors.ts";
import { deletedMarkerKey, parseWalKey, walPrefix } from "./keys.ts";
import { fetchSegments, listTail } from "./recovery.ts";
import { type RetryPolicy, readWithRetry } from "./retry.ts";
import { parseSegmentSummary, type Segment } from "./segment.ts";

export interface TailPrefetch {
  /** Ids on the first WAL page, newest first. */
  listed: number[];
  /** Whether the first page holds the whole WAL. */
  complete: boolean;
  /** Segments fetched speculatively, by id. */
  fetched: Map<number, Segment>;
}

/** Lists the newest WAL page and fetches the segments from the newest segment's tail start on. */
export async function prefetchTail(
  bucket: Bucket,
  lake: string,
  policy: RetryPolicy,
  concurrency: number,
): Promise<TailPrefetch> {
  const page = await readWithRetry(policy, `listing the WAL of lake ${lake}`, () =>
    bucket.list({ prefix: walPrefix(lake), include: ["customMetadata"] }),
  );
  const listed: number[] = [];
  for (const o of page.objects) {
    const id = parseWalKey(lake, o.key);
    if (id === undefined) {
      if (o.key === deletedMarkerKey(lake))
        throw new LakeDeleted(`lake ${lake} was deleted; it cannot be opened`);
      throw new Corruption(`unexpected object ${o.key} in the WAL of lake ${lake}`);
    }
    listed.push(id);
  }
  const fetched = new Map<number, Segment>();
  const newest = page.objects[0];
  if (newest !== undefined) {
    const tailStart = parseSegmentSummary(newest.customMetadata, newest.key).tailStart;
    const ids = listed.filter((id) => id >= tailStart).reverse();
    const segs = await fetchSegments(bucket, lake, ids, policy, concurrency);
    for (let i = 0; i < ids.length; i++) fetched.set(ids[i] as number, segs[i] as Segment);
  }
  return { listed, complete: !page.truncated, fetched };
}

/**
 * The tail after `replayAfter` (ascending ids and their segments), from the prefetch where it covers it,
 * else listed and fetched as before. Corruption on a gap, exactly as `listTail`.
 */
export async function tailAfter(
  bucket: Bucket,
  lake: string,
  replayAfter: number,
  policy: RetryPolicy,
  pre: TailPrefetch | undefined,
): Promise<{ ids: number[]; segments: Segment[] }> {
  const covered =
    pre !== undefined && (pre.complete || pre.listed.some((id) => id <= replayAfter)) ? pre : undefined;
  let ids: number[];
  if (covered !== undefined) {
    ids = covered.listed.filter((id) => id > replayAfter).reverse();
    ids.forEach((id, i) => {
      if (id !== replayAfter + 1 + i) {
        throw new Corruption(
          `the WAL of lake ${lake} has a gap: expected segment ${replayAfter + 1 + i} but found ${id}; a segment after the replay point is missing`,
        );
      }
    });
  } else ids = await listTail(bucket, lake, replayAfter, policy);
  const missing = ids.filter((id) => !pre?.fetched.has(id));
  const read = await fetchSegments(bucket, lake, missing, policy);
  const got = new Map(pre?.fetched ?? []);
  for (let i = 0; i < missing.length; i++) got.set(missing[i] as number, read[i] as Segment);
  return { ids, segments: ids.map((id) => got.get(id) as Segment) };
}
