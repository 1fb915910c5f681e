/**
 * The WAL tail read of a writer open, overlapped with its manifest read (docs/decisions/0161-overlapped-wake.md).
 *
 * An open used to run list manifests → get manifest → list WAL → get tail → put fence, one after another.
 * The newest segment's custom metadata names the tail start of the cut it publishes, and a newer manifest
 * can only move the replay point forward, so the segments from that tail start on are a superset of the
 * tail the newest manifest needs. So the WAL is listed at the same time as the manifests, and those
 * segments are fetched while the manifest is read; once it arrives the tail is cut to its replay point,
 * checked for gaps as before, and anything the speculation did not cover is read the ordinary way.
 * The ids come from the listing, not the segments, so the open puts its fence while the tail arrives.
 */
import type { Bucket } from "./api.ts";
import { Corruption } from "./errors.ts";
import { walPrefix } from "./keys.ts";
import {
  fetchSegments,
  listTail,
  RECOVERY_CONCURRENCY,
  readSegment,
  startSegmentFetches,
  walListingId,
} from "./recovery.ts";
import { type RetryPolicy, readWithRetry } from "./retry.ts";
import { parseSegmentSummary, type Segment, type SegmentSummary } from "./segment.ts";

/**
 * Tail GETs a writer open keeps in flight: the six connections less one, which the manifest GET holds
 * while the speculation starts and the fence PUT holds while the rest of the tail is read (open.ts puts
 * the fence as soon as the tail's ids are known, beside these GETs; docs/decisions/0174-wake-tail-overlap.md).
 */
export const WAKE_TAIL_GETS_IN_FLIGHT = RECOVERY_CONCURRENCY - 1;

export interface TailPrefetch {
  /** Ids on the first WAL page, newest first. */
  listed: number[];
  /** Whether the first page holds the whole WAL. */
  complete: boolean;
  /** Segments being fetched speculatively, by id (started, not awaited: a rejection is only observed). */
  fetched: Map<number, Promise<Segment>>;
  /**
   * Listed segments whose summary says they hold no batch (fence and publish segments), by id: not
   * fetched; `tailSegments` stands in for them once the manifest shows they build on it
   * (docs/decisions/0184-cold-round-packing.md).
   */
  empty: Map<number, SegmentSummary>;
}

function summaryOf(meta: Record<string, string> | undefined, key: string): SegmentSummary | undefined {
  try {
    return parseSegmentSummary(meta, key);
  } catch {
    return undefined;
  }
}

/** Whether a listed segment's summary says it holds no batch (both of its fields must agree). */
const holdsNothing = (s: SegmentSummary): boolean => s.batchCount === 0 && s.lastPosition === -1;

/** Resolves once every speculative GET has settled (a failed open waits, so no call stays in flight). */
export async function settled(pre: TailPrefetch | undefined): Promise<void> {
  await Promise.allSettled(pre?.fetched.values() ?? []);
}

/**
 * Lists the newest WAL page and starts fetching the segments from the newest segment's tail start on
 * (≤ WAKE_TAIL_GETS_IN_FLIGHT at a time); resolves once the listing is in, not the segments.
 */
export async function prefetchTail(bucket: Bucket, lake: string, policy: RetryPolicy): Promise<TailPrefetch> {
  const page = await readWithRetry(policy, `listing the WAL of lake ${lake}`, () =>
    bucket.list({ prefix: walPrefix(lake), include: ["customMetadata"] }),
  );
  const listed: number[] = [];
  const empty = new Map<number, SegmentSummary>();
  for (const o of page.objects) {
    const id = walListingId(lake, o.key);
    listed.push(id);
    // A summary that does not parse or names another id proves nothing: that segment is read as before.
    const summary = summaryOf(o.customMetadata, o.key);
    if (summary?.segmentId === id && holdsNothing(summary)) empty.set(id, summary);
  }
  const fetched = new Map<number, Promise<Segment>>();
  const newest = page.objects[0];
  if (newest !== undefined) {
    const tailStart = parseSegmentSummary(newest.customMetadata, newest.key).tailStart;
    // An empty segment is not fetched: its summary is all it holds (checked against the manifest later).
    const ids = listed.filter((id) => id >= tailStart && !empty.has(id)).reverse();
    const segs = startSegmentFetches(bucket, lake, ids, policy, WAKE_TAIL_GETS_IN_FLIGHT);
    for (let i = 0; i < ids.length; i++) fetched.set(ids[i] as number, segs[i] as Promise<Segment>);
  }
  return { listed, complete: !page.truncated, fetched, empty };
}

/**
 * The ids of the tail after `replayAfter`, ascending, from the prefetch's listing where it reaches the
 * replay point, else listed as before. Corruption on a gap, exactly as `listTail`.
 */
export async function tailIds(
  bucket: Bucket,
  lake: string,
  replayAfter: number,
  policy: RetryPolicy,
  pre: TailPrefetch | undefined,
): Promise<number[]> {
  const covered = pre !== undefined && (pre.complete || pre.listed.some((id) => id <= replayAfter));
  if (!covered) return listTail(bucket, lake, replayAfter, policy);
  const ids = pre.listed.filter((id) => id > replayAfter).reverse();
  ids.forEach((id, i) => {
    if (id !== replayAfter + 1 + i) {
      throw new Corruption(
        `the WAL of lake ${lake} has a gap: expected segment ${replayAfter + 1 + i} but found ${id}; a segment after the replay point is missing`,
      );
    }
  });
  return ids;
}

/**
 * The segment an empty listed segment stands for, when its summary proves it holds nothing the open
 * needs: no batch (count 0 and last position −1, both from the PUT that wrote the segment: R2 stores
 * custom metadata with the body, atomically), built on the manifest the open replays from (its version and
 * tail start), so no position past the manifest's covered one can be in it. Otherwise undefined: read it.
 */
function standIn(
  summary: SegmentSummary | undefined,
  builtOn: { version: number; tailStart: number },
): Segment | undefined {
  if (summary === undefined || !holdsNothing(summary)) return undefined;
  if (summary.manifestVersion !== builtOn.version || summary.tailStart !== builtOn.tailStart)
    return undefined;
  const { batchCount: _, lastPosition: __, ...header } = summary;
  return { header, batches: [] };
}

/**
 * The tail's segments in the order of `ids`: the speculative GETs where they cover an id, an empty
 * segment built on `builtOn` (the manifest read: its version and tail start) from its listed summary
 * without a GET, else read the ordinary way (an id the speculation missed, or whose GET failed: a failed
 * speculation is not an error).
 */
export async function tailSegments(
  bucket: Bucket,
  lake: string,
  ids: readonly number[],
  policy: RetryPolicy,
  pre: TailPrefetch | undefined,
  builtOn: { version: number; tailStart: number },
): Promise<Segment[]> {
  const got = new Map<number, Segment>();
  for (const id of ids) {
    const s = pre?.fetched.has(id) === true ? undefined : standIn(pre?.empty.get(id), builtOn);
    if (s !== undefined) got.set(id, s);
  }
  const missing = ids.filter((id) => !pre?.fetched.has(id) && !got.has(id));
  const read = fetchSegments(bucket, lake, missing, policy, WAKE_TAIL_GETS_IN_FLIGHT);
  read.catch(() => {}); // awaited below; observed now so a failure while the others arrive is not unhandled
  for (const id of ids) {
    const p = pre?.fetched.get(id);
    if (p !== undefined) got.set(id, await p.catch(() => readSegment(bucket, lake, id, policy)));
  }
  const rest = await read;
  missing.forEach((id, i) => void got.set(id, rest[i] as Segment));
  return ids.map((id) => got.get(id) as Segment);
}
