/**
 * Reading a lake's durable state: the newest manifest (one list + one get), the WAL tail after its replay
 * point (list pages, newest first thanks to inverted ids), and the tail segments themselves, fetched at
 * most six at a time (a Durable Object's outgoing-connection limit) and replayed in id order.
 */
import type { Bucket } from "./api.ts";
import { Corruption, LakeDeleted } from "./errors.ts";
import {
  deletedMarkerKey,
  manifestKey,
  manifestPrefix,
  parseManifestKey,
  parseWalKey,
  walKey,
  walPrefix,
} from "./keys.ts";
import { decodeManifest, type Manifest } from "./manifest.ts";
import { type MemTree, newMemTree } from "./memtable.ts";
import { type RetryPolicy, readWithRetry } from "./retry.ts";
import { decodeSegment, parseSegmentSummary, type Segment, type SegmentSummary } from "./segment.ts";

/** At most this many segment GETs in flight during recovery. */
export const RECOVERY_CONCURRENCY = 6;

export async function newestManifest(
  bucket: Bucket,
  lake: string,
  policy: RetryPolicy,
): Promise<Manifest | undefined> {
  const res = await readWithRetry(policy, `listing manifests of lake ${lake}`, () =>
    bucket.list({ prefix: manifestPrefix(lake), limit: 1 }),
  );
  const head = res.objects[0];
  if (head === undefined) return undefined;
  const version = parseManifestKey(lake, head.key);
  if (version === undefined)
    throw new Corruption(`unexpected object ${head.key} among the manifests of lake ${lake}`);
  return readManifest(bucket, lake, version, policy);
}

export async function readManifest(
  bucket: Bucket,
  lake: string,
  version: number,
  policy: RetryPolicy,
): Promise<Manifest> {
  const key = manifestKey(lake, version);
  const body = await readWithRetry(policy, `reading ${key}`, async () => {
    const o = await bucket.get(key);
    return o === null ? null : new Uint8Array(await o.arrayBuffer());
  });
  if (body === null) throw new Corruption(`manifest ${key} was listed but cannot be read`);
  const m = decodeManifest(body, key);
  if (m.version !== version || m.lake !== lake) {
    throw new Corruption(`manifest ${key} claims version ${m.version} of lake ${m.lake}`);
  }
  return m;
}

/**
 * What one object of a WAL listing is, the one rule for every listing of the WAL: a segment (its id), the
 * deletion marker (the lake was deleted: `LakeDeleted`), or anything else (`Corruption`).
 */
export function walListingId(lake: string, key: string): number {
  const id = parseWalKey(lake, key);
  if (id !== undefined) return id;
  if (key === deletedMarkerKey(lake)) throw new LakeDeleted(`lake ${lake} was deleted; it cannot be opened`);
  throw new Corruption(`unexpected object ${key} in the WAL of lake ${lake}`);
}

/** Ids of every WAL segment after `replayAfter`, ascending; Corruption on a gap. */
export async function listTail(
  bucket: Bucket,
  lake: string,
  replayAfter: number,
  policy: RetryPolicy,
): Promise<number[]> {
  const desc: number[] = [];
  let cursor: string | undefined;
  outer: for (;;) {
    const page = await readWithRetry(policy, `listing the WAL of lake ${lake}`, () =>
      bucket.list({ prefix: walPrefix(lake), ...(cursor ? { cursor } : {}) }),
    );
    for (const o of page.objects) {
      const id = walListingId(lake, o.key);
      if (id <= replayAfter) break outer;
      desc.push(id);
    }
    if (!page.truncated || page.cursor === undefined) break;
    cursor = page.cursor;
  }
  const ids = desc.reverse();
  for (let i = 0; i < ids.length; i++) {
    if (ids[i] !== replayAfter + 1 + i) {
      throw new Corruption(
        `the WAL of lake ${lake} has a gap: expected segment ${replayAfter + 1 + i} but found ${ids[i]}; a segment after the replay point is missing`,
      );
    }
  }
  return ids;
}

export async function readSegment(
  bucket: Bucket,
  lake: string,
  id: number,
  policy: RetryPolicy,
): Promise<Segment> {
  const key = walKey(lake, id);
  const body = await readWithRetry(policy, `reading ${key}`, async () => {
    const o = await bucket.get(key);
    return o === null ? null : new Uint8Array(await o.arrayBuffer());
  });
  if (body === null) throw new Corruption(`WAL segment ${key} was listed but is missing`);
  const seg = decodeSegment(body, key);
  if (seg.header.segmentId !== id)
    throw new Corruption(`WAL segment ${key} claims id ${seg.header.segmentId}`);
  return seg;
}

/**
 * Starts fetching segments with at most `concurrency` GETs in flight and returns one promise per id, so
 * a caller can go on (a writer open puts its fence meanwhile) and await each where it needs it. Every
 * promise is observed here: one that is never awaited cannot become an unhandled rejection.
 */
export function startSegmentFetches(
  bucket: Bucket,
  lake: string,
  ids: readonly number[],
  policy: RetryPolicy,
  concurrency = RECOVERY_CONCURRENCY,
): Promise<Segment>[] {
  const settle: { resolve(s: Segment): void; reject(e: unknown): void }[] = [];
  const out = ids.map(
    () =>
      new Promise<Segment>((resolve, reject) => {
        settle.push({ resolve, reject });
      }),
  );
  for (const p of out) p.catch(() => {});
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length) {
      const i = next++;
      const s = settle[i]!;
      await readSegment(bucket, lake, ids[i]!, policy).then(s.resolve, s.reject);
    }
  };
  for (let w = 0; w < Math.min(concurrency, ids.length); w++) void worker();
  return out;
}

/** Fetches segments with bounded parallelism, returning them in the order of `ids`. */
export async function fetchSegments(
  bucket: Bucket,
  lake: string,
  ids: readonly number[],
  policy: RetryPolicy,
  concurrency = RECOVERY_CONCURRENCY,
): Promise<Segment[]> {
  const out = new Array<Segment>(ids.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length) {
      const i = next++;
      out[i] = await readSegment(bucket, lake, ids[i]!, policy);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
  return out;
}

/** State rebuilt from a tail: the memtable and the newest position. */
export interface Replayed {
  mem: MemTree;
  position: number;
}

export function startReplay(manifest: Manifest): Replayed {
  return { mem: newMemTree(), position: manifest.wal.lastPosition };
}

/** Applies one segment's batches in order; positions must keep increasing across the tail. */
export function replaySegment(state: Replayed, seg: Segment, where: string): void {
  for (const b of seg.batches) {
    if (b.position <= state.position) {
      throw new Corruption(
        `${where} holds position ${b.position}, not after ${state.position}; the WAL does not form one history`,
      );
    }
    for (const m of b.mutations) state.mem.set(m.key.slice(), m.value === undefined ? null : m.value.slice());
    state.position = b.position;
  }
}

/**
 * The published head from one `list` call: the newest segment's custom-metadata summary names the manifest
 * version it builds on and the first segment of the tail, which together are the newest published cut.
 */
export async function publishedHead(
  bucket: Bucket,
  lake: string,
  policy: RetryPolicy,
): Promise<SegmentSummary | undefined> {
  const res = await readWithRetry(policy, `listing the WAL head of lake ${lake}`, () =>
    bucket.list({ prefix: walPrefix(lake), limit: 1, include: ["customMetadata"] }),
  );
  const head = res.objects[0];
  if (head === undefined) return undefined;
  if (head.key === deletedMarkerKey(lake)) throw new LakeDeleted(`lake ${lake} was deleted`);
  const id = parseWalKey(lake, head.key);
  const summary = parseSegmentSummary(head.customMetadata, head.key);
  if (id !== summary.segmentId)
    throw new Corruption(`WAL segment ${head.key} summarises segment ${summary.segmentId}`);
  return summary;
}
