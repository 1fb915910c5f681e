/**
 * Job 5's orphan half, catalog side: which objects under the lake's data prefix no catalog state
 * references, when one was first seen so, and the batches that mark, fence and forget them. The runner
 * (`maintenance/orphans.ts`) lists R2 and deletes; this file never calls R2. Decision
 * docs/decisions/0330-maintenance-orphans.md holds the argument; in short:
 *  - an object is a **candidate** when no data or delete file version (live or history: every retained
 *    snapshot), no deletion schedule and no schedule's fence names its path (the sweep's own fence keeps
 *    a path its candidate, so a pass cut short after fencing finishes next time);
 *  - a candidate gets a **mark** with the writer's clock the first pass it is seen (subspace `0x09 04`);
 *    the grace (`delete_older_than`) counts from the mark, never from an earlier moment;
 *  - a due mark is fenced (the same fence as decision 0329, flagged as the sweep's), then references are
 *    re-checked on the latest state: a commit applied before the fence is seen and the path kept (its fence
 *    lifted); a commit after the fence is refused at apply time.
 * Paths are relative to `data_path`, as DuckLake schedules them.
 */
import type { ReadView, Store, Transaction } from "../../storage/api.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { hash53, key, Subspace } from "../keys.ts";
import {
  fencePath,
  inBatch,
  liftOrphanFence,
  purgeExpiredFences,
  referencedPaths,
  scheduledPaths,
  scheduleFencedPaths,
  stampFenceDeleted,
} from "./cleanup.ts";

/** Objects one pass lists under the data prefix (the listing resumes after them next pass). */
export const MAX_OBJECTS_LISTED_PER_PASS = 10_000;
/** New marks one pass writes (the rest are marked by later passes). */
export const MAX_ORPHANS_MARKED_PER_PASS = 1_000;
/** Due orphans one pass fences, re-checks and deletes. */
export const MAX_ORPHANS_DELETED_PER_PASS = 100;

const MARK = 0x04;
const CURSOR = 0x05;
const markKey = (path: string) => key([Subspace.maintenance, MARK], hash53(path));
const markPrefix = () => key([Subspace.maintenance, MARK]);
const cursorKey = () => key([Subspace.maintenance, CURSOR]);

/** One object as the listing saw it. */
export interface ListedObject {
  /** Relative to the data path. */
  path: string;
  etag: string;
}

interface MarkEntry {
  path: string;
  /** When the writer first saw the object unreferenced (its clock, ms). */
  first_seen: number;
  /** The object's etag then: a different object at the same path starts its grace again. */
  etag: string;
}
interface MarkRecord {
  /** Every marked path with this hash (collisions keep them all). */
  paths: MarkEntry[];
}
interface CursorRecord {
  /** The last path the previous pass listed ("" = start from the beginning). */
  after: string;
}

/** A marked orphan whose grace has passed. */
export interface DueOrphan {
  path: string;
  etag: string;
  firstSeen: number;
}

/** Where the next listing starts (after this path; "" = the beginning). */
export async function orphanCursor(view: Pick<ReadView, "get">): Promise<string> {
  const raw = await view.get(cursorKey());
  return raw === undefined
    ? ""
    : decodeValue<CursorRecord>(ValueKind.maintenanceOrphanCursor, raw, "orphan cursor").after;
}

/** The listed objects no file version, schedule or fence names: the candidates to mark. */
export async function unreferencedObjects(
  view: ReadView,
  listed: readonly ListedObject[],
): Promise<ListedObject[]> {
  if (listed.length === 0) return [];
  const referenced = await referencedPaths(
    view,
    listed.map((o) => o.path),
  );
  const scheduled = await scheduledPaths(view);
  const fenced = await scheduleFencedPaths(view);
  return listed.filter((o) => !referenced.has(o.path) && !scheduled.has(o.path) && !fenced.has(o.path));
}

async function readMark(view: Pick<ReadView, "get">, path: string): Promise<MarkRecord> {
  const raw = await view.get(markKey(path));
  return raw === undefined
    ? { paths: [] }
    : decodeValue<MarkRecord>(ValueKind.maintenanceOrphan, raw, "orphan mark");
}

function writeMark(tx: Transaction, path: string, paths: MarkEntry[]): void {
  if (paths.length === 0) tx.delete(markKey(path));
  else tx.put(markKey(path), encodeValue(ValueKind.maintenanceOrphan, { paths } satisfies MarkRecord));
}

/**
 * One head-preserving batch: marks every candidate not marked yet (at most `MAX_ORPHANS_MARKED_PER_PASS`;
 * an existing mark of the same object keeps its first sighting), drops the marks of listed objects that
 * are no candidates any more (referenced, scheduled, fenced) or changed, and moves the listing cursor.
 * Answers how many marks it wrote.
 */
export async function markOrphans(
  store: Store,
  o: {
    listed: readonly ListedObject[];
    candidates: readonly ListedObject[];
    nextCursor: string;
    nowMs: number;
  },
): Promise<{ marked: number; durable: Promise<void> }> {
  let marked = 0;
  const handle = await inBatch(store, async (tx) => {
    marked = 0;
    let wrote = false;
    const candidate = new Map(o.candidates.map((c) => [c.path, c]));
    for (const obj of o.listed) {
      const m = await readMark(tx, obj.path);
      const had = m.paths.find((p) => p.path === obj.path);
      const c = candidate.get(obj.path);
      if (c !== undefined && had !== undefined && had.etag === c.etag) continue;
      if (c === undefined && had === undefined) continue;
      if (c !== undefined && had === undefined && marked >= MAX_ORPHANS_MARKED_PER_PASS) continue;
      const others = m.paths.filter((p) => p.path !== obj.path);
      if (c !== undefined) {
        writeMark(tx, obj.path, [...others, { path: c.path, first_seen: o.nowMs, etag: c.etag }]);
        marked++;
      } else writeMark(tx, obj.path, others);
      wrote = true;
    }
    if ((await orphanCursor(tx)) !== o.nextCursor) {
      tx.put(
        cursorKey(),
        encodeValue(ValueKind.maintenanceOrphanCursor, { after: o.nextCursor } satisfies CursorRecord),
      );
      wrote = true;
    }
    return wrote;
  });
  return { marked, durable: handle.durable };
}

/** Marked orphans whose grace (from their first sighting) has passed, at most `limit`. */
export async function dueOrphans(
  view: ReadView,
  o: { nowMs: number; graceMs: number; limit?: number },
): Promise<DueOrphan[]> {
  const limit = o.limit ?? MAX_ORPHANS_DELETED_PER_PASS;
  const out: DueOrphan[] = [];
  for await (const kv of view.scan({ prefix: markPrefix() })) {
    for (const m of decodeValue<MarkRecord>(ValueKind.maintenanceOrphan, kv.value, "orphan mark").paths) {
      if (m.first_seen + o.graceMs > o.nowMs) continue;
      out.push({ path: m.path, etag: m.etag, firstSeen: m.first_seen });
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/**
 * The earliest first sighting among the marks (writer's clock, ms), over at most `limit` mark records;
 * null when none is marked. Read by the alarm's due time (`due.ts`) so an idle lake wakes when a grace ends.
 */
export async function earliestOrphanMark(view: ReadView, limit: number): Promise<number | null> {
  let earliest: number | null = null;
  let seen = 0;
  for await (const kv of view.scan({ prefix: markPrefix() })) {
    for (const m of decodeValue<MarkRecord>(ValueKind.maintenanceOrphan, kv.value, "orphan mark").paths)
      if (earliest === null || m.first_seen < earliest) earliest = m.first_seen;
    if (++seen >= limit) break;
  }
  return earliest;
}

/** Fences the due orphans (one head-preserving batch): from here on no commit can register them. */
export async function fenceOrphans(
  store: Store,
  due: readonly Pick<DueOrphan, "path">[],
  nowMs: number,
): Promise<{ durable: Promise<void> }> {
  return inBatch(store, async (tx) => {
    for (const d of due) await fencePath(tx, d.path, nowMs, "orphan");
    return due.length > 0;
  });
}

/**
 * After the fence: the due paths still unreferenced on the latest state (no file version, no schedule).
 * Any commit that registers one of them was applied before the fence (and is seen here) or is refused.
 */
export async function stillOrphaned(view: ReadView, due: readonly DueOrphan[]): Promise<Set<string>> {
  const referenced = await referencedPaths(
    view,
    due.map((d) => d.path),
  );
  const scheduled = await scheduledPaths(view);
  return new Set(due.map((d) => d.path).filter((p) => !referenced.has(p) && !scheduled.has(p)));
}

/**
 * One head-preserving batch after the DELETEs: the deleted paths lose their marks and their fences are
 * stamped deleted (purged after the hold); the kept paths (referenced after all, or changed) lose their
 * marks and the sweep's fence.
 */
export async function forgetOrphans(
  store: Store,
  o: { deleted: readonly string[]; kept: readonly string[]; nowMs: number },
): Promise<{ durable: Promise<void> }> {
  return inBatch(store, async (tx) => {
    for (const path of [...o.deleted, ...o.kept]) {
      const m = await readMark(tx, path);
      writeMark(
        tx,
        path,
        m.paths.filter((p) => p.path !== path),
      );
    }
    for (const path of o.deleted) await stampFenceDeleted(tx, path, o.nowMs);
    for (const path of o.kept) await liftOrphanFence(tx, path);
    await purgeExpiredFences(tx, o.nowMs);
    return o.deleted.length + o.kept.length > 0;
  });
}
