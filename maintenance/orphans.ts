/**
 * Job 5's orphan sweep, run by the lake writer: find objects under the lake's data prefix that no
 * retained snapshot, deletion schedule or fence names (files a writer PUT whose commit never happened: a
 * crash between PUT and commit, a stale flush plan, a refused or poisoned batch), and delete them once
 * they have stayed unreferenced for the grace. Order (decision docs/decisions/0330-maintenance-orphans.md):
 * list a bounded window → mark the unreferenced (one batch) → for due marks: HEAD (same object, old
 * enough) → fence (one batch) → re-check on the latest state → DELETE → forget (one batch). Every step
 * may crash; the next pass finds the marks and fences and does the same again.
 */
import {
  type DueOrphan,
  dueOrphans,
  fenceOrphans,
  forgetOrphans,
  type ListedObject,
  MAX_OBJECTS_LISTED_PER_PASS,
  markOrphans,
  orphanCursor,
  stillOrphaned,
  unreferencedObjects,
} from "../catalog/index.ts";
import { dataObjectKey } from "../storage/keys.ts";
import type { JobContext } from "./registry.ts";

/** R2 answers at most this many keys per list call. */
const LIST_PAGE = 1_000;

export interface OrphanSweep {
  /** Objects first seen unreferenced this pass (their grace starts now). */
  marked: number;
  /** Marked objects whose grace had passed. */
  due: number;
  deleted: number;
}

export async function sweepOrphans(ctx: JobContext, nowMs: number): Promise<OrphanSweep> {
  const out: OrphanSweep = { marked: 0, due: 0, deleted: 0 };
  // An object's path below the prefix is the catalog's path relative to data_path: every registered file
  // lies inside data_path (decision 0105) and every writer stores it at dataObjectKey(lake, relative).
  const prefix = dataObjectKey(ctx.lake, "");

  // 1. A bounded window of the prefix, resuming where the previous pass stopped.
  const after = await orphanCursor(ctx.view());
  const listed: ListedObject[] = [];
  let cursor: string | undefined;
  let ended = false;
  while (listed.length < MAX_OBJECTS_LISTED_PER_PASS) {
    const page = await ctx.bucket.list({
      prefix,
      limit: Math.min(LIST_PAGE, MAX_OBJECTS_LISTED_PER_PASS - listed.length),
      ...(cursor !== undefined ? { cursor } : after !== "" ? { startAfter: prefix + after } : {}),
    });
    for (const o of page.objects) {
      const path = o.key.slice(prefix.length);
      if (path !== "" && !path.endsWith("/")) listed.push({ path, etag: o.etag });
    }
    if (!page.truncated || page.cursor === undefined) {
      ended = true;
      break;
    }
    cursor = page.cursor;
  }
  const nextCursor = ended ? "" : (listed[listed.length - 1]?.path ?? "");

  // 2. Mark what nothing references (the grace counts from here).
  const candidates = await unreferencedObjects(ctx.view(), listed);
  out.marked = await ctx.exclusive(async (store) => {
    const r = await markOrphans(store, { listed, candidates, nextCursor, nowMs });
    return { value: r.marked, durable: r.durable };
  });

  // 3. Due marks: the same object, older than the grace by R2's clock too.
  const due = await dueOrphans(ctx.view(), { nowMs, graceMs: ctx.settings.deleteOlderThanMs });
  out.due = due.length;
  if (due.length === 0) return out;
  const ready: DueOrphan[] = [];
  const kept: string[] = [];
  for (const d of due) {
    const head = await ctx.bucket.head(dataObjectKey(ctx.lake, d.path));
    const settled =
      head !== null &&
      head.etag === d.etag &&
      head.uploaded.getTime() + ctx.settings.deleteOlderThanMs <= nowMs;
    if (settled) ready.push(d);
    // Gone (nothing to delete) or replaced (a new object: it is marked afresh by a later listing).
    else if (head === null || head.etag !== d.etag) kept.push(d.path);
  }

  // 4. Fence, then re-check on the latest state: every commit naming a path is in this view or refused.
  await ctx.exclusive(async (store) => ({
    value: null,
    durable: (await fenceOrphans(store, ready, nowMs)).durable,
  }));
  const orphaned = await stillOrphaned(ctx.view(), ready);
  const deleted: string[] = [];
  for (const d of ready) {
    if (!orphaned.has(d.path)) {
      kept.push(d.path);
      continue;
    }
    await ctx.bucket.delete(dataObjectKey(ctx.lake, d.path));
    deleted.push(d.path);
  }
  await ctx.exclusive(async (store) => ({
    value: null,
    durable: (await forgetOrphans(store, { deleted, kept, nowMs: ctx.now() })).durable,
  }));
  out.deleted = deleted.length;
  return out;
}
