/**
 * The jobs this build can run, by name. A job is an entry here or it is absent: a name with no runner is
 * answered with an `Unsupported` run record, never a stand-in. Each runner adapts the shared context to
 * its own job's dependencies (`runFlushJob`'s `FlushDeps`, …), so adding a job is one line here.
 */
import type { MaintenanceSettings } from "../catalog/maintenance/settings.ts";
import type { CommitRequest } from "../catalog/verbs/schema.ts";
import type { Bucket, ReadView, Store } from "../storage/api.ts";
import { runFlushJob } from "./flush.ts";
import type { JobName, JobRun } from "./history.ts";

/** What the lake writer hands every job. */
export interface JobContext {
  lake: string;
  bucket: Bucket;
  /** The latest durable state. */
  view: () => ReadView;
  /** Commits through the writer (coalescer → group commit → durable); answers the minted snapshot. */
  commit: (request: CommitRequest) => Promise<{ snapshotId: number | null }>;
  /**
   * Runs `fn` in the writer's submission slot (no commit interleaves) on the store, then waits for the
   * batch it wrote to be durable. For head-preserving batches that are not DuckLake commits.
   */
  exclusive: <T>(fn: (store: Store) => Promise<{ value: T; durable: Promise<void> }>) => Promise<T>;
  /** Catalog snapshots live checkpoints pin (their cut's head snapshot). */
  pinnedSnapshots: () => Promise<number[]>;
  now: () => number;
  settings: MaintenanceSettings;
  /** Only this table, when the run was asked for one. */
  tableId?: number;
}

export type JobRunner = (ctx: JobContext) => Promise<JobRun[]>;

export const JOB_RUNNERS: Partial<Record<JobName, JobRunner>> = {
  flush_inlined: (c) =>
    runFlushJob({
      lake: c.lake,
      bucket: c.bucket,
      view: c.view,
      commit: c.commit,
      now: c.now,
      ...(c.tableId !== undefined ? { tableId: c.tableId } : {}),
    }),
};
