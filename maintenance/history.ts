/**
 * What one run of a maintenance job did, as `GET /v1/lakes/{lake}/maintenance` will show it: the job, when
 * it started, how long it took, files and rows in and out, the snapshot it minted, or its error.
 */
export type JobName =
  | "flush_inlined"
  | "merge_adjacent"
  | "rewrite_deletes"
  | "expire_snapshots"
  | "delete_files";

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
  /** The snapshot the run's commit minted, or null when it committed nothing. */
  snapshotId: number | null;
  /** `code: message` of the error that stopped the run, or null. */
  error: string | null;
}
