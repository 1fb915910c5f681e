/**
 * Job 5's catalog half: which scheduled files (`ducklake_files_scheduled_for_deletion`) may be deleted,
 * the fence that keeps a deleted path from being registered again, and forgetting a deleted file.
 * Decision docs/decisions/0329-maintenance-delete-files.md holds the argument; in short:
 *  - a path gets a **fence** (subspace `0x09 03 <hash53(path)>`) no later than the batch that schedules it
 *    (expiry writes both together; job 5 fences a schedule written by a DuckLake client first);
 *  - `register_data_file` / `register_delete_file` refuse a fenced path at apply time (`checkPathNotFenced`),
 *    so from the fence on no commit can come to reference the path;
 *  - the job deletes only after the grace, and re-checks, in the writer's submission slot, that no data
 *    or delete file version (live or history, i.e. seen by any retained snapshot) references the path;
 *  - the fence outlives the object by `FENCE_HOLD_MS`, longer than any commit's flight (its existence
 *    check at the edge to its apply), then goes.
 * A path is compared as DuckLake schedules it: relative to `data_path` when it lies under it.
 */
import type { ReadView, Store, Transaction } from "../../storage/api.ts";
import { MAX_CATALOG_BATCH_ATTEMPTS, retryOnConflict } from "../batch-retry.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { CodedError } from "../errors.ts";
import { type FenceEntry, type FenceRecord, fenceKey, fencePrefix, readFence } from "../fences.ts";
import { joinPath } from "../file-paths.ts";
import { Kind, key, keys, Subspace } from "../keys.ts";
import type { DataFileRecord, DeleteFileRecord, GcFileRecord } from "../records.ts";
import { dataPathOf, tableDirOf } from "./paths.ts";

/** Scheduled files one step deletes. */
export const MAX_FILES_DELETED_PER_STEP = 100;
/** File versions one reference check reads before it gives up (typed error, nothing deleted). */
export const MAX_FILE_VERSIONS_CHECKED = 1_000_000;
/**
 * How long a fence outlives its object: far above a commit's flight (the edge's existence check to the
 * writer's apply is bounded by the submission slot's 5 minutes), so a commit that checked the object
 * before it went is refused at apply time.
 */
export const FENCE_HOLD_MS = 60 * 60_000;

/** The reference check read more file versions than `MAX_FILE_VERSIONS_CHECKED`. */
export class TooManyFileVersions extends CodedError {
  readonly code = "Constraint";
}

/**
 * Fences `path` in `tx` (idempotent). A schedule's fence (`orphan` unset) takes over an orphan sweep's
 * fence of the same path, so the sweep never lifts it.
 */
export async function fencePath(
  tx: Transaction,
  path: string,
  nowMs: number,
  by: "schedule" | "orphan" = "schedule",
): Promise<void> {
  const f = await readFence(tx, path);
  const had = f.paths.find((p) => p.path === path);
  if (had && (by === "orphan" || had.orphan === undefined)) return;
  const entry: FenceEntry = { path, fenced_at: had?.fenced_at ?? nowMs, deleted_at: had?.deleted_at ?? null };
  if (by === "orphan") entry.orphan = true;
  writeFence(tx, path, [...f.paths.filter((p) => p.path !== path), entry]);
}

function writeFence(tx: Transaction, path: string, paths: FenceEntry[]): void {
  if (paths.length === 0) tx.delete(fenceKey(path));
  else tx.put(fenceKey(path), encodeValue(ValueKind.maintenanceFence, { paths } satisfies FenceRecord));
}

/** Lifts the orphan sweep's fence of `path` (a path that proved referenced); a schedule's fence stays. */
export async function liftOrphanFence(tx: Transaction, path: string): Promise<void> {
  const f = await readFence(tx, path);
  if (!f.paths.some((p) => p.path === path && p.orphan === true)) return;
  writeFence(
    tx,
    path,
    f.paths.filter((p) => !(p.path === path && p.orphan === true)),
  );
}

/** Stamps the fence of `path` deleted at `nowMs` (its object is gone; the fence is purged after the hold). */
export async function stampFenceDeleted(tx: Transaction, path: string, nowMs: number): Promise<void> {
  const fence = await readFence(tx, path);
  writeFence(
    tx,
    path,
    fence.paths.map((p) => (p.path === path ? { ...p, deleted_at: p.deleted_at ?? nowMs } : p)),
  );
}

/**
 * Every path a schedule fenced (scheduled, or deleted within the hold); bounded by the fences held. The
 * orphan sweep's own fences are left out: a path it fenced stays its candidate until deleted or lifted.
 */
export async function scheduleFencedPaths(view: Pick<ReadView, "scan">): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const kv of view.scan({ prefix: fencePrefix() }))
    for (const p of decodeValue<FenceRecord>(ValueKind.maintenanceFence, kv.value, "fence").paths)
      if (p.orphan !== true) out.add(p.path);
  return out;
}

/** Every path `ducklake_files_scheduled_for_deletion` holds. */
export async function scheduledPaths(view: Pick<ReadView, "scan">): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const kv of view.scan({ prefix: keys.current(Kind.gcFile) }))
    out.add(decodeValue<GcFileRecord>(ValueKind.gcFile, kv.value, "scheduled file").path);
  return out;
}

/** Purges fences whose object went longer than `FENCE_HOLD_MS` ago. */
export async function purgeExpiredFences(tx: Transaction, nowMs: number): Promise<void> {
  for await (const kv of tx.scan({ prefix: fencePrefix() })) {
    const f = decodeValue<FenceRecord>(ValueKind.maintenanceFence, kv.value, "fence");
    const kept = f.paths.filter((p) => p.deleted_at === null || p.deleted_at + FENCE_HOLD_MS > nowMs);
    if (kept.length === f.paths.length) continue;
    if (kept.length === 0) tx.delete(kv.key);
    else tx.put(kv.key, encodeValue(ValueKind.maintenanceFence, { paths: kept } satisfies FenceRecord));
  }
}

/** A scheduled file whose grace has passed. */
export interface DueFile {
  dataFileId: number;
  path: string;
  pathIsRelative: boolean;
}

/** Scheduled files due for deletion (scheduled at least `graceMs` ago), at most `limit`. */
export async function dueFiles(
  view: ReadView,
  o: { nowMs: number; graceMs: number; limit?: number },
): Promise<DueFile[]> {
  const out: DueFile[] = [];
  const limit = o.limit ?? MAX_FILES_DELETED_PER_STEP;
  for await (const kv of view.scan({ prefix: keys.current(Kind.gcFile) })) {
    const g = decodeValue<GcFileRecord>(ValueKind.gcFile, kv.value, "scheduled file");
    if (g.schedule_start / 1000 + o.graceMs > o.nowMs) continue;
    out.push({ dataFileId: g.data_file_id, path: g.path, pathIsRelative: g.path_is_relative });
    if (out.length >= limit) break;
  }
  return out;
}

/** Fences every due file not fenced yet (a schedule DuckLake wrote); one head-preserving batch. */
export async function fenceDue(
  store: Store,
  files: readonly DueFile[],
  nowMs: number,
): Promise<{ durable: Promise<void> }> {
  return inBatch(store, async (tx) => {
    for (const f of files) await fencePath(tx, f.path, nowMs);
    return true;
  });
}

/** The paths among `paths` some data or delete file version (live or history) still references. */
export async function referencedPaths(view: ReadView, paths: readonly string[]): Promise<Set<string>> {
  const want = new Set(paths);
  const found = new Set<string>();
  const dataPath = await dataPathOf(view);
  const dirs = new Map<number, { dir: string; relative: boolean }>();
  let read = 0;
  for (const sub of [Subspace.current, Subspace.history]) {
    for (const [kind, vk] of [
      [Kind.dataFile, ValueKind.dataFile],
      [Kind.deleteFile, ValueKind.deleteFile],
    ] as const) {
      for await (const kv of view.scan({ prefix: key([sub, kind]) })) {
        if (++read > MAX_FILE_VERSIONS_CHECKED)
          throw new TooManyFileVersions(
            `the lake holds more than ${MAX_FILE_VERSIONS_CHECKED} file versions; cleanup cannot check references`,
          );
        const rec = decodeValue<DataFileRecord | DeleteFileRecord>(vk, kv.value, "file version");
        let path: string;
        if (rec.path_is_relative) {
          let dir = dirs.get(rec.table_id);
          if (!dir) {
            dir = await tableDirOf(view, rec.table_id, dataPath);
            dirs.set(rec.table_id, dir);
          }
          path = joinPath(dir.dir, rec.path);
        } else
          path =
            dataPath !== "" && rec.path.startsWith(dataPath) ? rec.path.slice(dataPath.length) : rec.path;
        if (want.has(path)) found.add(path);
      }
    }
  }
  return found;
}

/**
 * After the objects are gone: forget their schedule rows and stamp their fences deleted (one batch);
 * fences deleted longer than `FENCE_HOLD_MS` ago are purged in the same batch.
 */
export async function forgetDeleted(
  store: Store,
  deleted: readonly DueFile[],
  nowMs: number,
): Promise<{ durable: Promise<void> }> {
  return inBatch(store, async (tx) => {
    for (const f of deleted) {
      tx.delete(keys.current(Kind.gcFile, f.dataFileId));
      await stampFenceDeleted(tx, f.path, nowMs);
    }
    await purgeExpiredFences(tx, nowMs);
    return deleted.length > 0;
  });
}

/** Runs `fn` as one head-preserving batch (retried on a racing batch); `fn` answers whether it wrote. */
export async function inBatch(
  store: Store,
  fn: (tx: Transaction) => Promise<boolean>,
): Promise<{ durable: Promise<void> }> {
  return retryOnConflict(
    store,
    MAX_CATALOG_BATCH_ATTEMPTS,
    (bound) => new CleanupBusy(`file cleanup lost ${bound} races in a row; the next pass retries`),
    async (tx) => {
      const wrote = await fn(tx);
      const handle = tx.commit();
      return { durable: wrote ? handle.durable : Promise.resolve() };
    },
  );
}

/** A cleanup batch lost every attempt to racing batches (the writer is single: never expected). */
export class CleanupBusy extends CodedError {
  readonly code = "Unavailable";
}
