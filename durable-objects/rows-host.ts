/**
 * The row log's host: a `lake` write above the inlining limit (its Parquet first, decisions 0316, 0319),
 * the flush of the log into DuckLake (decisions 0313, 0314: the loop and its bounds are `maintenance/rows-flush.ts`'s),
 * and when the alarm flushes (`rowFlushDueAt` in the shared record: armed after an acknowledged append,
 * `flushIntervalMs` later; 0 = on demand only).
 */
import {
  type CommitRequest,
  type CommitResult,
  readIngestHead,
  readIngestSettings,
} from "../catalog/index.ts";
import { commitLakeWrite } from "../maintenance/lake-write.ts";
import { drainRowLog } from "../maintenance/rows-flush.ts";
import { dataObjectReader } from "../storage/data-objects.ts";
import { type FlushAnswer, type FrontDeps, fileDeps, type Origin, type Session } from "./types.ts";

/** The commit message of flush snapshots (lakes with `require_commit_message` accept them). */
const FLUSH_MESSAGE = "ducklake-edge: flush row log";

/** What the row host needs from the front (it never calls another part). */
export interface RowsHostDeps extends FrontDeps {
  /** A commit through the whole front door (a flush batch may itself be a planned `lake` write). */
  commit(request: CommitRequest, origin: Origin): Promise<CommitResult>;
  /** One request straight onto the commit path. */
  commitOne(request: CommitRequest, alone: boolean, origin: Origin): Promise<CommitResult>;
  /** The yield between stretches of Parquet encoding (the maintenance jobs' pause). */
  pause(): Promise<void>;
}

export class RowsHost {
  constructor(private readonly d: RowsHostDeps) {}

  /** A request of row writes only, through the lake-write plan (decisions 0316, 0319). */
  async commitPlanned(
    request: CommitRequest,
    alone: boolean,
    origin: Origin = "caller",
  ): Promise<CommitResult> {
    const { host } = this.d;
    const s = await this.d.ready();
    return commitLakeWrite(
      { ...fileDeps(host), now: host.now, view: () => s.store.snapshot() },
      request,
      (r) => this.d.commitOne(r, alone, origin),
    );
  }

  /**
   * Drains the row log into DuckLake now: flush batches (one DuckLake commit each, through the ordinary
   * commit path, so writes keep flowing between them) until the log is empty or MAX_FLUSH_BATCHES_PER_CALL.
   */
  async flushRows(origin: Origin = "caller"): Promise<FlushAnswer> {
    const { host, shared } = this.d;
    const s = await this.d.ready();
    const d = await drainRowLog({
      ...fileDeps(host),
      view: () => s.store.snapshot(),
      commit: (request) => this.d.commit(request, origin),
      now: host.now,
      message: FLUSH_MESSAGE,
      files: dataObjectReader(host.bucket, host.lake),
      // Its Parquet encode yields to commits in flight as maintenance jobs do
      // (docs/decisions/0326-maintenance-yields-to-commits.md, 0325's ingestion section).
      pause: () => this.d.pause(),
    });
    if (d.deadLettered.length > 0) {
      host.log("warn", { msg: "dead-lettered row log records", lake: host.lake, seqs: d.deadLettered });
    }
    const head = await readIngestHead(s.store.snapshot());
    const pending = head.next_seq - 1 - head.drained;
    shared.rowFlushDueAt = undefined;
    if (pending > 0) this.armFlush();
    return {
      drained: Math.max(0, head.drained),
      records: d.records,
      batches: d.batches,
      snapshots: [...d.snapshots],
      pending,
      deadLettered: d.deadLettered,
    };
  }

  /** After an acknowledged append: the flusher runs `flushIntervalMs` later, on the object's alarm. */
  armFlush(): void {
    const { host, shared } = this.d;
    const s = this.d.current();
    if (shared.rowFlushDueAt !== undefined || s === undefined) return;
    shared.rowFlushDueAt = Number.POSITIVE_INFINITY;
    void readIngestSettings(s.store.snapshot())
      .then((settings) => {
        if (settings.flush_interval_ms === 0) {
          shared.rowFlushDueAt = undefined;
          return;
        }
        shared.rowFlushDueAt = host.now() + settings.flush_interval_ms;
        host.scheduleBackground(settings.flush_interval_ms);
      })
      .catch(() => {
        shared.rowFlushDueAt = undefined;
      });
  }

  /** The alarm's flush: due (or unknown after a restart) and the log has records. */
  async backgroundFlush(s: Session): Promise<void> {
    const { host, shared } = this.d;
    const view = s.store.snapshot();
    const head = await readIngestHead(view);
    if (head.next_seq - 1 === head.drained) return;
    const settings = await readIngestSettings(view);
    if (settings.flush_interval_ms === 0) return;
    // Unknown (after a restart) or still being armed (its settings read in flight): due now, which at
    // worst flushes earlier than the interval, never later.
    const armed = shared.rowFlushDueAt;
    const due = armed === undefined || !Number.isFinite(armed) ? host.now() : armed;
    if (due > host.now()) {
      if (Number.isFinite(due)) host.scheduleBackground(due - host.now());
      return;
    }
    const r = await this.flushRows("background");
    host.log("info", { msg: "flushed rows", lake: host.lake, ...r });
    if (r.pending > 0) {
      shared.rowFlushDueAt = host.now();
      host.scheduleBackground(host.tunables.backgroundSliceDelayMs);
    }
  }
}
