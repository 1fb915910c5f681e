/**
 * The objects of a lake's own data prefix with R2's upload times, for the orphan listing of
 * `ducklake_delete_orphaned_files` (`catalog/sql/files/orphan-listing.ts` names those still within the
 * grace, so a stock client never deletes an upload whose commit is in flight; decision
 * docs/decisions/0630-quack-orphan-listing-grace.md). `catalog/` never lists R2: the Worker lists and the
 * catalog decides.
 */

import { type DataObjects, lakeDataPathExternal } from "../../catalog/index.ts";
import type { ReadView } from "../../storage/api.ts";
import { dataObjectKey } from "../../storage/keys.ts";
import type { Env } from "../env.ts";
import { QuackLimit } from "./errors.ts";

/**
 * The most objects one orphan listing lists (100 R2 list calls of 1,000): the client globs the same prefix
 * through the S3 endpoint anyway. Above it the listing is refused by name, never answered from a part.
 */
export const MAX_DATA_OBJECTS_LISTED = 100_000;
/** R2 answers at most this many keys per list call. */
const LIST_PAGE = 1_000;

/**
 * Lists `lakes/<lake>/data/` at `nowMs`, or answers null when the lake's data path is external (decision
 * 0502): DuckDB alone holds those files, and the listing is then stock's.
 */
export async function listDataObjects(
  env: Env,
  lake: string,
  view: ReadView,
  nowMs: number,
): Promise<DataObjects | null> {
  if ((await lakeDataPathExternal(view, env.BUCKET_NAME, lake)) !== null) return null;
  const prefix = dataObjectKey(lake, "");
  const objects: { path: string; uploadedMs: number }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await env.BUCKET.list({ prefix, limit: LIST_PAGE, ...(cursor ? { cursor } : {}) });
    if (objects.length + page.objects.length > MAX_DATA_OBJECTS_LISTED) {
      throw new QuackLimit(
        `ducklake_delete_orphaned_files: lake '${lake}' holds more than ${MAX_DATA_OBJECTS_LISTED} objects under its data prefix, the most this server lists to tell uploads in flight from orphans; the lake's own maintenance job delete_files collects orphans in bounded passes (POST /v1/lakes/${lake}/maintenance {"jobs":["delete_files"]})`,
      );
    }
    for (const o of page.objects)
      objects.push({ path: o.key.slice(prefix.length), uploadedMs: o.uploaded.getTime() });
    if (!page.truncated || page.cursor === undefined) return { nowMs, objects };
    cursor = page.cursor;
  }
}
