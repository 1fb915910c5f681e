/**
 * Job 4's catalog half: expire snapshots older than a cutoff, with what stock DuckLake 1.5.5's
 * `ducklake_expire_snapshots` writes (captured with the pinned wheels; decision
 * docs/decisions/0328-maintenance-expire.md):
 *  - the snapshot rows (and their `ducklake_snapshot_changes`) go; the head snapshot never does;
 *  - a data or delete file version that no remaining snapshot sees (none in [begin, end)) is removed,
 *    its stats with it, and its path is put in `ducklake_files_scheduled_for_deletion`;
 *  - a table none of whose versions a remaining snapshot sees (dropped before every remaining snapshot)
 *    loses every row: table, columns, stats, partition/sort, inlined tables and rows, schema versions.
 * Snapshots a caller names as pinned (live checkpoints' heads) are kept whatever their age.
 * One bounded step per call, a head-preserving batch (no snapshot minted, the head's batch count
 * advanced so a racing commit re-runs), atomic: a crash leaves all of a step or none. The next step plans
 * from the catalog again, so a run cut short is resumed by running again.
 */
import type { ReadView, ScanRange, Store, Transaction } from "../../storage/api.ts";
import { MAX_CATALOG_BATCH_ATTEMPTS, retryOnConflict } from "../batch-retry.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { CodedError } from "../errors.ts";
import { readHead } from "../head.ts";
import { inlineRowRange, readInlineFloor } from "../inline-floor.ts";
import { InlineKind, Kind, key, keyIds, keys, Subspace } from "../keys.ts";
import type {
  DataFileRecord,
  DeleteFileRecord,
  GcFileRecord,
  SnapshotRecord,
  TableRecord,
  Versioned,
} from "../records.ts";
import { fencePath } from "./cleanup.ts";
import { dataPathOf, scheduledPath } from "./paths.ts";

/*
 * A step runs in the writer's submission slot, so no appender's commit runs until it ends: these bounds
 * are what one step holds the appenders up for (decision docs/decisions/0325-paced-maintenance.md; the
 * run takes more steps, MAX_EXPIRE_STEPS_PER_RUN in maintenance/expire.ts, with commits between them).
 */
/** Snapshots one step expires (oldest first); a longer backlog takes further steps. */
export const MAX_EXPIRED_SNAPSHOTS_PER_STEP = 256;
/** File versions one step removes and schedules. */
export const MAX_FILES_SCHEDULED_PER_STEP = 256;
/** History entries one step examines before it stops (and reports more to do). */
export const MAX_HISTORY_EXAMINED_PER_STEP = 4096;
/** Conflict retries of one step (the writer is single; only a racing batch conflicts). */

/** Per-table kinds whose rows go with a wholly expired table (files are scheduled, not dropped here). */
const TABLE_KINDS: readonly Kind[] = [
  Kind.table,
  Kind.column,
  Kind.partition,
  Kind.sort,
  Kind.tableStats,
  Kind.tableColumnStats,
  Kind.columnTag,
  Kind.inlinedTable,
  Kind.schemaVersion,
  Kind.mapping,
  Kind.tableMeta,
];

export interface ExpireOptions {
  /** Wall clock, ms. */
  now: number;
  /** Snapshots whose time is before `now - olderThanMs` are expired. */
  olderThanMs: number;
  /** Snapshots kept whatever their age (live checkpoints' head snapshots). */
  pinned: readonly number[];
  /** Expire exactly these (DuckLake's `versions =>`), whatever their age; the head and pins stay. */
  versions?: readonly number[];
  /**
   * Start after this snapshot id: an earlier step of the same run expired or kept every snapshot up to
   * it, with the same pins (`ExpireStep.through`). Without it, each step would walk the tombstones of
   * every snapshot the run already expired, so a step's cost would grow with the run (decision 0325).
   */
  after?: number;
}

export interface ExpireStep {
  expired: number[];
  /** The highest snapshot id this step decided (expired or kept): the next step's `after`. */
  through: number | null;
  filesScheduled: number;
  tablesRemoved: number;
  /** True when a bound stopped the step: run another. */
  more: boolean;
  durable: Promise<void>;
}

/** True when some snapshot in [begin, end) exists and is not being expired. */
async function seenByRemaining(
  view: ReadView,
  v: Versioned,
  expiring: ReadonlySet<number>,
  budget: { left: number },
): Promise<boolean> {
  if (v.end_snapshot === null) return true;
  for await (const kv of view.scan({
    start: keys.snapshot(v.begin_snapshot),
    end: keys.snapshot(v.end_snapshot),
  })) {
    budget.left--;
    const [id = -1] = keyIds(kv.key, 2);
    if (!expiring.has(id)) return true;
    if (budget.left <= 0) return true; // out of budget: keep it for a later step (never remove unsure)
  }
  return false;
}

async function deletePrefix(tx: Transaction, prefix: Uint8Array): Promise<void> {
  await deleteRange(tx, { prefix });
}

async function deleteRange(tx: Transaction, range: ScanRange): Promise<void> {
  const doomed: Uint8Array[] = [];
  for await (const kv of tx.scan(range)) doomed.push(kv.key);
  for (const k of doomed) tx.delete(k);
}

async function stepOnce(
  tx: Transaction,
  o: ExpireOptions,
): Promise<Omit<ExpireStep, "durable"> & { wrote: boolean }> {
  const head = await readHead(tx);
  const cutoffMicros = (o.now - o.olderThanMs) * 1000;
  const pinned = new Set(o.pinned);
  const only = o.versions === undefined ? undefined : new Set(o.versions);
  const expiring = new Set<number>();
  let more = false;
  let through: number | null = null;
  const range =
    o.after === undefined
      ? { prefix: keys.snapshotPrefix() }
      : { start: keys.snapshot(o.after + 1), end: keys.snapshot(head.snapshot_id) };
  for await (const kv of tx.scan(range)) {
    const s = decodeValue<SnapshotRecord>(ValueKind.snapshot, kv.value, "snapshot");
    if (s.snapshot_id >= head.snapshot_id) break;
    if (only === undefined && s.snapshot_time >= cutoffMicros) break;
    if (pinned.has(s.snapshot_id) || (only !== undefined && !only.has(s.snapshot_id))) {
      through = s.snapshot_id;
      continue;
    }
    if (expiring.size >= MAX_EXPIRED_SNAPSHOTS_PER_STEP) {
      more = true;
      break;
    }
    expiring.add(s.snapshot_id);
    through = s.snapshot_id;
  }
  for (const id of expiring) tx.delete(keys.snapshot(id));

  // Files no remaining snapshot sees: remove the version, schedule the path (DuckLake's order of work).
  const dataPath = await dataPathOf(tx);
  const budget = { left: MAX_HISTORY_EXAMINED_PER_STEP };
  let filesScheduled = 0;
  const schedule: GcFileRecord[] = [];
  const removeKeys: Uint8Array[] = [];
  const scheduleStart = Math.floor(o.now * 1000);
  for (const [kind, vk] of [
    [Kind.dataFile, ValueKind.dataFile],
    [Kind.deleteFile, ValueKind.deleteFile],
  ] as const) {
    if (more) break;
    for await (const kv of tx.scan({ prefix: keys.historyPrefix(kind) })) {
      if (--budget.left <= 0 || filesScheduled >= MAX_FILES_SCHEDULED_PER_STEP) {
        more = true;
        break;
      }
      const rec = decodeValue<DataFileRecord | DeleteFileRecord>(vk, kv.value, "file version");
      if (await seenByRemaining(tx, rec, expiring, budget)) continue;
      const id =
        kind === Kind.dataFile
          ? (rec as DataFileRecord).data_file_id
          : (rec as DeleteFileRecord).delete_file_id;
      const where = await scheduledPath(tx, rec, dataPath);
      removeKeys.push(kv.key);
      schedule.push({
        data_file_id: id,
        path: where.path,
        path_is_relative: where.relative,
        schedule_start: scheduleStart,
      });
      filesScheduled++;
    }
  }
  for (const k of removeKeys) tx.delete(k);
  for (const g of schedule) {
    tx.put(keys.current(Kind.gcFile, g.data_file_id), encodeValue(ValueKind.gcFile, g));
    // From this batch on no commit may register the path again (decision 0329).
    await fencePath(tx, g.path, o.now);
  }

  // Tables dropped before every remaining snapshot, once no file of theirs waits in history.
  let tablesRemoved = 0;
  if (!more) {
    const versions = new Map<number, TableRecord[]>();
    for await (const kv of tx.scan({ prefix: keys.historyPrefix(Kind.table) })) {
      if (--budget.left <= 0) {
        more = true;
        break;
      }
      const rec = decodeValue<TableRecord>(ValueKind.table, kv.value, "table");
      versions.set(rec.table_id, [...(versions.get(rec.table_id) ?? []), rec]);
    }
    for (const [tableId, recs] of more ? [] : versions) {
      if ((await tx.get(keys.current(Kind.table, tableId))) !== undefined) continue;
      let seen = false;
      for (const r of recs) if (await seenByRemaining(tx, r, expiring, budget)) seen = true;
      if (seen) continue;
      if (await hasFileHistory(tx, tableId, removeKeys)) continue;
      // Its inlined rows start at the row-id floor its meta record holds (decision 0182), read before that
      // record goes with the table's other kinds: the tombstones below it need no second walk.
      const rows = inlineRowRange(tableId, await readInlineFloor(tx, tableId));
      // The table record itself is read above for scheduled paths: remove it last.
      for (const kind of TABLE_KINDS) {
        await deletePrefix(tx, keys.current(kind, tableId));
        await deletePrefix(tx, keys.historyPrefix(kind, tableId));
      }
      await deleteRange(tx, rows);
      await deletePrefix(tx, key([Subspace.inline, InlineKind.fileDelete], tableId));
      tablesRemoved++;
    }
  }
  if (budget.left <= 0) more = true;
  const wrote = expiring.size > 0 || filesScheduled > 0 || tablesRemoved > 0;
  if (wrote) tx.put(keys.head(), encodeValue(ValueKind.head, { ...head, batch_count: head.batch_count + 1 }));
  return { expired: [...expiring], through, filesScheduled, tablesRemoved, more, wrote };
}

/** A data or delete file version of the table still in history (not removed by this step). */
async function hasFileHistory(
  view: ReadView,
  tableId: number,
  removed: readonly Uint8Array[],
): Promise<boolean> {
  const gone = new Set(removed.map((k) => k.join(",")));
  for (const kind of [Kind.dataFile, Kind.deleteFile]) {
    for await (const kv of view.scan({ prefix: keys.historyPrefix(kind, tableId) })) {
      if (!gone.has(kv.key.join(","))) return true;
    }
  }
  return false;
}

/** One bounded expiry step (see the file comment). */
export async function expireSnapshotsStep(store: Store, options: ExpireOptions): Promise<ExpireStep> {
  return retryOnConflict(
    store,
    MAX_CATALOG_BATCH_ATTEMPTS,
    (bound) => new ExpireBusy(`snapshot expiry lost ${bound} races in a row; the next pass retries`),
    async (tx) => {
      const r = await stepOnce(tx, options);
      const handle = tx.commit();
      return {
        expired: r.expired,
        through: r.through,
        filesScheduled: r.filesScheduled,
        tablesRemoved: r.tablesRemoved,
        more: r.more,
        durable: r.wrote ? handle.durable : Promise.resolve(),
      };
    },
  );
}

/** The step lost every attempt to racing batches (the writer is single: never expected). */
export class ExpireBusy extends CodedError {
  readonly code = "Unavailable";
}
