/**
 * The jobs this build can run, by name. A job is an entry here or it is absent: a name with no runner is
 * answered with an `Unsupported` run record, never a stand-in. Each runner adapts the shared context to
 * its own job's dependencies (`runFlushJob`'s `FlushDeps`, …), so adding a job is one line here.
 */
import type { MaintenanceSettings } from "../catalog/index.ts";
import type { Store } from "../storage/api.ts";
import { runMergeJob, runRewriteJob } from "./compaction.ts";
import { runDeleteFilesJob } from "./delete-files.ts";
import { runExpireJob } from "./expire.ts";
import type { JobName, JobRun } from "./history.ts";
import { runFlushJob } from "./inline-flush.ts";
import type { JobDeps } from "./job-deps.ts";

/** What the lake writer hands every job. */
export interface JobContext extends JobDeps {
  /**
   * Runs `fn` in the writer's submission slot (no commit interleaves) on the store, then waits for the
   * batch it wrote to be durable. For head-preserving batches that are not DuckLake commits.
   */
  exclusive: <T>(fn: (store: Store) => Promise<{ value: T; durable: Promise<void> }>) => Promise<T>;
  /** Catalog snapshots live checkpoints pin (their cut's head snapshot). */
  pinnedSnapshots: () => Promise<number[]>;
  settings: MaintenanceSettings;
  /** Only this table, when the run was asked for one. */
  tableId?: number;
  /** True when the writer's alarm runs the pass; absent or false for `POST …/maintenance` (a user's `CALL`). */
  scheduled?: boolean;
}

/**
 * Files a merge step takes at least when the alarm runs job 2 (a user's run merges any two, as DuckLake's
 * `merge_adjacent_files` does). Under a stream of small writes the alarm flushes one small file per pass;
 * merging each into the table's growing file would rewrite the table on every pass. Waiting for 16 keeps
 * a table's plan at most ~16 files (~15 KB of plan, far under the 1 MB goal) and divides the bytes
 * rewritten by 16 (decision docs/decisions/0323-maintenance-defaults.md).
 */
export const SCHEDULED_MERGE_MIN_FILES = 16;

/**
 * When the alarm runs job 2, a merge step's rows are at least this many times its largest input's (size
 * tiers, `catalog/maintenance/merge-tiers.ts`): every rewrite of a row grows its file fourfold, so a row is
 * rewritten a bounded number of times however long the table's history (decision
 * docs/decisions/0333-merge-size-tiers.md). A user's run keeps DuckLake's greedy choice.
 */
export const SCHEDULED_MERGE_GROWTH = 4;

export type JobRunner = (ctx: JobContext) => Promise<JobRun[]>;

/** What jobs 1-3 take from the shared context: the writer's store, commit path, clock and pause. */
function writerDeps(c: JobContext) {
  return {
    lake: c.lake,
    bucket: c.bucket,
    view: c.view,
    commit: c.commit,
    now: c.now,
    ...(c.pause !== undefined ? { pause: c.pause } : {}),
  };
}

export const JOB_RUNNERS: Partial<Record<JobName, JobRunner>> = {
  flush_inlined: (c) =>
    runFlushJob({ ...writerDeps(c), ...(c.tableId !== undefined ? { tableId: c.tableId } : {}) }),
  // Jobs 2-3 plan every table (their thresholds are the tables' own DuckLake options); a table selection
  // does not narrow them yet.
  merge_adjacent: (c) =>
    runMergeJob({
      ...writerDeps(c),
      ...(c.scheduled === true
        ? { minInputs: SCHEDULED_MERGE_MIN_FILES, growth: SCHEDULED_MERGE_GROWTH }
        : {}),
    }),
  rewrite_deletes: (c) => runRewriteJob(writerDeps(c)),
  expire_snapshots: runExpireJob,
  delete_files: runDeleteFilesJob,
};
