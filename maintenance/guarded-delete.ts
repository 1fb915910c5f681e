/**
 * A client's DELETE of objects in a lake's data prefix (the S3 endpoint's DeleteObject(s): DuckDB's
 * `ducklake_delete_orphaned_files`, `ducklake_cleanup_old_files`, a rolled-back transaction's own
 * uploads), run by the lake writer behind job 5's fence so that no commit can register an object this
 * deletes (decision docs/decisions/0630-quack-orphan-listing-grace.md). Order, as the orphan sweep's
 * (decision 0330): fence (one batch, in the submission slot) → re-check every file version on the latest
 * state → DELETE the unreferenced → forget (stamp their fences deleted; lift the fence of the referenced).
 * A commit naming one of the paths was applied before the fence (and the re-check keeps its object) or is
 * refused at apply time (`FileScheduledForDeletion`). Files scheduled for deletion are not references:
 * deleting them is what `ducklake_cleanup_old_files` is for, and a schedule's fence already holds them.
 */
import {
  fenceOrphans,
  forgetOrphans,
  InvalidRequest,
  lakeDataPathExternal,
  referencedPaths,
} from "../catalog/index.ts";
import type { Store } from "../storage/api.ts";
import { dataObjectKey } from "../storage/keys.ts";
import type { JobDeps } from "./job-deps.ts";

/** The most paths one guarded delete takes (S3's DeleteObjects takes at most 1,000 keys). */
export const MAX_GUARDED_DELETE_PATHS = 1_000;

export interface GuardedDeleteDeps extends Pick<JobDeps, "lake" | "bucket" | "bucketName" | "view" | "now"> {
  /** A head-preserving batch in the writer's submission slot, awaited durable. */
  exclusive: <T>(fn: (store: Store) => Promise<{ value: T; durable: Promise<void> }>) => Promise<T>;
}

export interface GuardedDeleteAnswer {
  /** Paths (relative to the data prefix) whose objects are gone. */
  deleted: string[];
  /** Paths a data or delete file version names: their objects were kept. */
  referenced: string[];
}

export async function deleteUnreferenced(
  d: GuardedDeleteDeps,
  requested: readonly string[],
): Promise<GuardedDeleteAnswer> {
  if (requested.length > MAX_GUARDED_DELETE_PATHS)
    throw new InvalidRequest(
      `a delete names ${requested.length} objects; at most ${MAX_GUARDED_DELETE_PATHS} are deleted at once`,
    );
  const paths = [...new Set(requested)];
  // An external data path (decision 0502): the catalog names no object of this prefix, nothing to guard.
  if ((await lakeDataPathExternal(d.view(), d.bucketName, d.lake)) !== null) {
    if (paths.length > 0) await d.bucket.delete(paths.map((p) => dataObjectKey(d.lake, p)));
    return { deleted: paths, referenced: [] };
  }
  const nowMs = d.now();
  await d.exclusive(async (store) => ({
    value: null,
    durable: (
      await fenceOrphans(
        store,
        paths.map((path) => ({ path })),
        nowMs,
      )
    ).durable,
  }));
  const named = await referencedPaths(d.view(), paths);
  const deleted = paths.filter((p) => !named.has(p));
  if (deleted.length > 0) await d.bucket.delete(deleted.map((p) => dataObjectKey(d.lake, p)));
  const referenced = paths.filter((p) => named.has(p));
  await d.exclusive(async (store) => ({
    value: null,
    durable: (await forgetOrphans(store, { deleted, kept: referenced, nowMs: d.now() })).durable,
  }));
  return { deleted, referenced };
}
