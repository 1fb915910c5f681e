/**
 * What the lake writer hands every maintenance job, in one place: the jobs that PUT files and commit a
 * catalog plan (`inline-flush.ts`, `compaction.ts`) take exactly this plus their options, and the registry's
 * `JobContext` adds what the other jobs need (the exclusive slot, pins, settings).
 */
import type { CommitRequest, Pause } from "../catalog/index.ts";
import type { Bucket, ReadView } from "../storage/api.ts";
import { CodedError } from "../storage/errors.ts";
import type { JobName, JobRun } from "./history.ts";

export interface JobDeps {
  lake: string;
  bucket: Bucket;
  /**
   * The bucket's name (`BUCKET_NAME`; default `DEFAULT_BUCKET_NAME`): with the lake it says whether the
   * lake's data path is the writer's to write (`catalog/data-path.ts` `externalDataPathReason`, decision 0502).
   */
  bucketName?: string;
  /** The latest durable state the plan is made from. */
  view: () => ReadView;
  /** Commits through the writer (coalescer → group commit → durable); answers the minted snapshot. */
  commit: (request: CommitRequest) => Promise<{ snapshotId: number | null }>;
  now: () => number;
  /**
   * The yield a job awaits between its bounded stretches (default: a macrotask turn of the event loop, so
   * the appenders' commits run between them; decisions docs/decisions/0325-paced-maintenance.md and
   * 0326-maintenance-yields-to-commits.md: the writer's also waits for the commits in flight).
   */
  pause?: Pause;
}

/** A job run's recorded error: the code and message of our errors, the text of anything else. */
export function errorText(e: unknown): string {
  return e instanceof CodedError ? `${e.code}: ${e.message}` : String(e);
}

/** A run that did no work: a refusal, an unsupported job, a job with nothing to do (its counts are zero). */
export function emptyRun(job: JobName, startedAt: number, error: string | null, tableId?: number): JobRun {
  return {
    job,
    ...(tableId !== undefined ? { tableId } : {}),
    startedAt,
    durationMs: 0,
    filesIn: 0,
    filesOut: 0,
    rowsIn: 0,
    rowsOut: 0,
    snapshotId: null,
    error,
  };
}
