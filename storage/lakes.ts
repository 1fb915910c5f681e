/**
 * Which lakes exist in a bucket, and the two-phase removal of one. A lake exists once its first WAL
 * segment is written (the genesis open); it is deleted by an immutable marker object, after which every
 * read and write refuses it, and its objects are removed once a grace period has passed. The marker is
 * removed last, so a half-finished removal is resumed rather than forgotten, and only then is the name
 * free again.
 *
 * The marker lives in the WAL prefix under the all-zero inverted id, which sorts before every real
 * segment: the single `list({prefix: wal, limit: 1})` that finds a lake's newest segment finds the
 * marker instead once the lake is deleted, so no read path pays an extra request to learn it.
 */
import type { Bucket, BucketObject, BucketObjectBody } from "./api.ts";
import { CodedError, Corruption, StoreUnavailable } from "./errors.ts";
import { checkLakeName, deletedMarkerKey, lakePrefix, walPrefix } from "./keys.ts";

export type LakeState = { state: "absent" } | { state: "live" } | { state: "deleted"; deletedAt: number };

export { deletedMarkerKey };

/** Reads the lake state off the first entry of a WAL listing (the caller's list, no extra request). */
export function lakeStateFromListing(lake: string, first: BucketObject | undefined): LakeState {
  if (!first) return { state: "absent" };
  if (first.key !== deletedMarkerKey(lake)) return { state: "live" };
  const at = Number(first.customMetadata?.deletedAt);
  return { state: "deleted", deletedAt: Number.isFinite(at) ? at : first.uploaded.getTime() };
}

/**
 * Runs one raw bucket call; a failure that is not already typed becomes StoreUnavailable naming what was
 * being done, so callers (the writer's delete and its background removal) can tell a bucket that is
 * briefly away from a bug (docs/decisions/0111-background-retry-and-alarm.md). `outcome` says what the caller can assume about a failed write.
 */
async function bucketCall<T>(what: string, outcome: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof CodedError) throw e;
    throw new StoreUnavailable(`${what} failed (${e instanceof Error ? e.message : String(e)}); ${outcome}`, {
      cause: e,
    });
  }
}

const RESUMABLE = "what was removed stays removed; the next removal pass resumes";
const READ_FAILED = "nothing was changed; retry when the bucket is reachable";

interface DeletedMarker {
  format: 1;
  lake: string;
  deletedAt: number;
}

async function bodyText(body: BucketObjectBody): Promise<string> {
  return new TextDecoder().decode(await body.arrayBuffer());
}

function parseMarker(lake: string, text: string): DeletedMarker {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Corruption(`deleted-lake marker ${deletedMarkerKey(lake)} is not JSON`);
  }
  const m = parsed as Partial<DeletedMarker>;
  if (m.format !== 1 || m.lake !== lake || typeof m.deletedAt !== "number") {
    throw new Corruption(`deleted-lake marker ${deletedMarkerKey(lake)} is malformed`);
  }
  return m as DeletedMarker;
}

/** One single-key list. */
export async function lakeState(bucket: Bucket, lake: string): Promise<LakeState> {
  checkLakeName(lake);
  const wal = await bucketCall(`listing the WAL head of lake ${lake}`, READ_FAILED, () =>
    bucket.list({ prefix: walPrefix(lake), limit: 1, include: ["customMetadata"] }),
  );
  return lakeStateFromListing(lake, wal.objects[0]);
}

/**
 * Marks a lake deleted. Idempotent: a second call keeps the first deletion time. Returns that time.
 * The caller must already have stopped the lake's writer. A failure is StoreUnavailable and the marker
 * may or may not have landed: the caller learns which with `lakeState`.
 */
export async function markLakeDeleted(bucket: Bucket, lake: string, now: number): Promise<number> {
  checkLakeName(lake);
  const key = deletedMarkerKey(lake);
  const body: DeletedMarker = { format: 1, lake, deletedAt: now };
  const unknown = "the marker may or may not have landed; read the lake state to learn which";
  const put = await bucketCall(`writing the deleted-lake marker ${key}`, unknown, () =>
    bucket.put(key, JSON.stringify(body), {
      onlyIf: { etagDoesNotMatch: "*" },
      customMetadata: { deletedAt: String(now) },
    }),
  );
  if (put) return now;
  // The marker exists (an earlier delete, or this one's lost acknowledgement): keep its time.
  const existing = await bucketCall(`reading the deleted-lake marker ${key}`, READ_FAILED, async () => {
    const o = await bucket.get(key);
    return o === null ? null : bodyText(o);
  });
  if (existing === null) return markLakeDeleted(bucket, lake, now);
  return parseMarker(lake, existing).deletedAt;
}

export interface LakePage {
  lakes: string[];
  cursor?: string;
}

/**
 * Lake names with any object in the bucket (live or being removed), a page at a time, in name order;
 * with `namePrefix`, only the names that begin with it.
 */
export async function listLakeNames(
  bucket: Bucket,
  options: { cursor?: string; limit?: number; namePrefix?: string } = {},
): Promise<LakePage> {
  const page = await bucketCall("listing the lakes", READ_FAILED, () =>
    bucket.list({
      prefix: `lakes/${options.namePrefix ?? ""}`,
      delimiter: "/",
      limit: Math.min(Math.max(options.limit ?? 100, 1), 1000),
      ...(options.cursor ? { cursor: options.cursor } : {}),
    }),
  );
  const lakes = (page.delimitedPrefixes ?? [])
    .map((p) => p.slice("lakes/".length, -1))
    .filter((name) => name.length > 0);
  return page.truncated && page.cursor ? { lakes, cursor: page.cursor } : { lakes };
}

export interface RemovalProgress {
  deletedObjects: number;
  /** True once every object, the marker last, is gone and the name is free (with `keepMarker`: all but the marker). */
  done: boolean;
}

/**
 * Removes up to `maxObjects` of a deleted lake's objects (the marker only when nothing else remains).
 * Refuses unless the lake is marked deleted and the grace period has passed. Safe to run repeatedly and
 * concurrently: deletes are idempotent. A bucket failure is StoreUnavailable; whatever was removed before
 * it stays removed and the next call resumes.
 */
export async function removeDeletedLake(
  bucket: Bucket,
  lake: string,
  options: { now: number; graceMs: number; maxObjects?: number; keepMarker?: boolean },
): Promise<RemovalProgress> {
  const state = await lakeState(bucket, lake);
  if (state.state !== "deleted") return { deletedObjects: 0, done: state.state === "absent" };
  if (options.now < state.deletedAt + options.graceMs) return { deletedObjects: 0, done: false };
  const marker = deletedMarkerKey(lake);
  let budget = options.maxObjects ?? 5000;
  let deleted = 0;
  let cursor: string | undefined;
  while (budget > 0) {
    const page = await bucketCall(`listing the objects of deleted lake ${lake}`, READ_FAILED, () =>
      bucket.list({
        prefix: lakePrefix(lake),
        limit: Math.min(1000, budget + 1),
        ...(cursor ? { cursor } : {}),
      }),
    );
    const keys = page.objects.map((o) => o.key).filter((k) => k !== marker);
    const batch = keys.slice(0, budget);
    if (batch.length > 0) {
      await bucketCall(`removing ${batch.length} objects of deleted lake ${lake}`, RESUMABLE, () =>
        bucket.delete(batch),
      );
      deleted += batch.length;
      budget -= batch.length;
    }
    if (!page.truncated) {
      if (batch.length === keys.length) {
        // Kept: every object but the marker is gone; the name stays taken until a later pass.
        if (options.keepMarker) return { deletedObjects: deleted, done: true };
        await bucketCall(`removing the deleted-lake marker ${marker}`, RESUMABLE, () =>
          bucket.delete(marker),
        );
        return { deletedObjects: deleted, done: true };
      }
      break;
    }
    cursor = page.cursor;
  }
  return { deletedObjects: deleted, done: false };
}
