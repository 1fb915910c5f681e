/**
 * The lake's maintenance history, durable in the lake's own store (subspace `0x09`), so any Worker answers
 * `GET /v1/lakes/{lake}/maintenance` from a published cut without calling the writer, and the history
 * survives a writer restart. Records are keyed by an inverted sequence number, so a forward scan is newest
 * first; at most `MAX_JOB_RUNS_KEPT` are kept, the oldest trimmed in the same batch that appends.
 * Appending mints no snapshot and leaves the catalog head alone: the history is not DuckLake state.
 */
import type { ReadView, Store } from "../../storage/api.ts";
import { MAX_CATALOG_BATCH_ATTEMPTS, retryOnConflict } from "../batch-retry.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { CodedError, corruption, InvalidRequest } from "../errors.ts";
import { key, keyIds, Subspace } from "../keys.ts";

export type JobName =
  | "flush_inlined"
  | "merge_adjacent"
  | "rewrite_deletes"
  | "expire_snapshots"
  | "delete_files";

export const JOB_NAMES: readonly JobName[] = [
  "flush_inlined",
  "merge_adjacent",
  "rewrite_deletes",
  "expire_snapshots",
  "delete_files",
];

/** What one run of a maintenance job did. */
export interface JobRun {
  job: JobName;
  /** The table the run worked on, when it works per table. */
  tableId?: number;
  startedAt: number;
  durationMs: number;
  filesIn: number;
  filesOut: number;
  rowsIn: number;
  rowsOut: number;
  /** Bytes of the files the run read and wrote (compaction jobs: write amplification is out / live bytes in). */
  bytesIn?: number;
  bytesOut?: number;
  /** Job 4: snapshots it expired (its `filesOut` counts the files it scheduled for deletion). */
  snapshotsExpired?: number;
  /**
   * Job 5: objects under the data prefix first seen unreferenced this run (their grace starts) and orphans
   * deleted (decision 0330; its `filesIn`/`filesOut` count scheduled files).
   */
  orphansMarked?: number;
  orphansDeleted?: number;
  /** The snapshot the run's commit minted, or null when it committed nothing. */
  snapshotId: number | null;
  /** `code: message` of the error that stopped the run, or null. */
  error: string | null;
}

/** A stored run: its sequence number (the paging cursor) and the run. */
export interface StoredJobRun extends JobRun {
  seq: number;
}

/** Runs the history keeps; an append past it trims the oldest in the same batch. */
export const MAX_JOB_RUNS_KEPT = 1000;
/** Runs one append may hold (a pass over many tables records more runs in several appends). */
export const MAX_JOB_RUNS_PER_APPEND = 256;
/** Largest page of `readJobRuns`. */
export const MAX_JOB_RUNS_PAGE = 200;

const HEAD = 0x01;
const RECORD = 0x02;
const INVERT = Number.MAX_SAFE_INTEGER;

const headKey = () => key([Subspace.maintenance, HEAD]);
const recordKey = (seq: number) => key([Subspace.maintenance, RECORD], INVERT - seq);
const recordPrefix = () => key([Subspace.maintenance, RECORD]);

interface HistoryHead {
  next_seq: number;
}

/** The runs could not be recorded after `MAX_CATALOG_BATCH_ATTEMPTS` conflicting attempts. */
export class JobHistoryBusy extends CodedError {
  readonly code = "Unavailable";
}

async function readHistoryHead(view: ReadView): Promise<HistoryHead> {
  const raw = await view.get(headKey());
  return raw === undefined
    ? { next_seq: 1 }
    : decodeValue<HistoryHead>(ValueKind.maintenanceHead, raw, "maintenance history head");
}

/**
 * Appends runs (in the order given; the last is the newest) and trims the oldest beyond
 * `MAX_JOB_RUNS_KEPT`. Answers the stored runs and the batch's durability promise.
 */
export async function appendJobRuns(
  store: Store,
  runs: readonly JobRun[],
): Promise<{ stored: StoredJobRun[]; durable: Promise<void> }> {
  if (runs.length > MAX_JOB_RUNS_PER_APPEND)
    throw new InvalidRequest(`at most ${MAX_JOB_RUNS_PER_APPEND} runs are recorded per append`);
  if (runs.length === 0) return { stored: [], durable: Promise.resolve() };
  return retryOnConflict(
    store,
    MAX_CATALOG_BATCH_ATTEMPTS,
    (bound) =>
      new JobHistoryBusy(
        `the maintenance history could not be appended: ${bound} conflicting batches in a row; the next pass records again`,
      ),
    async (tx) => {
      const head = await readHistoryHead(tx);
      const stored = runs.map((r, i) => ({ ...r, seq: head.next_seq + i }));
      for (const r of stored) tx.put(recordKey(r.seq), encodeValue(ValueKind.maintenanceRun, r));
      const next = head.next_seq + runs.length;
      // Records [next - MAX, next) stay; the ones the previous append kept below that go.
      const keepFrom = next - MAX_JOB_RUNS_KEPT;
      for (let seq = Math.max(1, head.next_seq - MAX_JOB_RUNS_KEPT); seq < keepFrom; seq++)
        tx.delete(recordKey(seq));
      tx.put(headKey(), encodeValue(ValueKind.maintenanceHead, { next_seq: next } satisfies HistoryHead));
      return { stored, durable: tx.commit().durable };
    },
  );
}

export interface JobRunsPage {
  runs: StoredJobRun[];
  /** The cursor of the next (older) page, or null at the end. */
  next: number | null;
}

/** Newest first; `before`: only runs with a smaller sequence number (the previous page's `next`). */
export async function readJobRuns(
  view: ReadView,
  options: { before?: number; limit?: number } = {},
): Promise<JobRunsPage> {
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_JOB_RUNS_PAGE)
    throw new InvalidRequest(`limit must be within 1..${MAX_JOB_RUNS_PAGE}`);
  const before = options.before;
  if (before !== undefined && (!Number.isSafeInteger(before) || before < 1))
    throw new InvalidRequest("before must be a positive integer (a page's next cursor)");
  const runs: StoredJobRun[] = [];
  const range = {
    prefix: recordPrefix(),
    ...(before !== undefined ? { start: recordKey(before - 1) } : {}),
    limit: limit + 1,
  };
  for await (const kv of view.scan(range)) {
    const [inv = 0] = keyIds(kv.key, 2);
    const run = decodeValue<StoredJobRun>(ValueKind.maintenanceRun, kv.value, "maintenance run");
    if (run.seq !== INVERT - inv)
      throw corruption(`maintenance run ${run.seq} stored under sequence ${INVERT - inv}`);
    runs.push(run);
  }
  const more = runs.length > limit;
  const page = runs.slice(0, limit);
  return { runs: page, next: more ? (page.at(-1)?.seq ?? null) : null };
}
