/**
 * What one run of a maintenance job did, as `GET /v1/lakes/{lake}/maintenance` shows it: the job, when
 * it started, how long it took, files and rows in and out, the snapshot it minted, or its error. The
 * records are durable in the lake's store; their home is `catalog/maintenance/runs.ts`.
 */
export {
  JOB_NAMES,
  type JobName,
  type JobRun,
  MAX_JOB_RUNS_KEPT,
  type StoredJobRun,
} from "../catalog/index.ts";
