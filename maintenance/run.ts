/**
 * One maintenance pass: read the lake's settings, run the selected jobs in their order (1 → 5: flushing
 * and merging first, so expiry and cleanup see their ended versions), and append every run to the durable
 * history (`catalog/maintenance/runs.ts`). The alarm runs the jobs switched on; `POST …/maintenance` runs
 * the jobs it names, switched on or not (as a DuckLake user `CALL`s one).
 */
import {
  appendJobRuns,
  lakeDataPathExternal,
  MAX_JOB_RUNS_PER_APPEND,
  maintenanceSettings,
} from "../catalog/index.ts";
import { JOB_NAMES, type JobName, type JobRun, type StoredJobRun } from "./history.ts";
import { emptyRun, errorText } from "./job-deps.ts";
import { JOB_RUNNERS, type JobContext, type JobRunner } from "./registry.ts";

export type PassContext = Omit<JobContext, "settings" | "scheduled" | "tableId">;

/**
 * The jobs that PUT, read or delete files under the lake's data prefix: off for a lake whose data path the
 * writer cannot reach (decision docs/decisions/0502-external-data-paths.md). Job 5 is among them: it would
 * forget scheduled files it deleted in R2 but which lie in the external path (DuckDB's
 * `ducklake_cleanup_old_files` deletes those there). Job 4 (expiry of catalog rows) runs as for any lake.
 */
export const FILE_JOBS: ReadonlySet<JobName> = new Set<JobName>([
  "flush_inlined",
  "merge_adjacent",
  "rewrite_deletes",
  "delete_files",
]);

export interface PassSelection {
  /** The jobs to run; omitted = every job the lake's settings switch on. */
  jobs?: readonly JobName[];
  tableId?: number;
  /** The writer's alarm runs this pass (jobs may wait for more work than a user's run does). */
  scheduled?: boolean;
}

/** Runs the selected jobs and records them. Answers the recorded runs (oldest first). */
export async function runMaintenancePass(
  ctx: PassContext,
  selection: PassSelection = {},
  runners: Partial<Record<JobName, JobRunner>> = JOB_RUNNERS,
): Promise<StoredJobRun[]> {
  const settings = await maintenanceSettings(ctx.view());
  const chosen = new Set(selection.jobs ?? JOB_NAMES.filter((j) => settings.enabled[j]));
  const job: JobContext = {
    ...ctx,
    settings,
    scheduled: selection.scheduled === true,
    ...(selection.tableId !== undefined ? { tableId: selection.tableId } : {}),
  };
  const runs: JobRun[] = [];
  const external = await lakeDataPathExternal(ctx.view(), ctx.bucketName, ctx.lake);
  for (const name of JOB_NAMES) {
    if (!chosen.has(name)) continue;
    if (external !== null && FILE_JOBS.has(name)) {
      // Named by the caller: say why it is off. The alarm's pass skips it without a record per commit.
      if (selection.jobs !== undefined)
        runs.push(emptyRun(name, ctx.now(), `Unsupported: ${external}`, selection.tableId));
      continue;
    }
    const runner = runners[name];
    if (runner === undefined) {
      // Named by the caller: say it is absent. Switched on but not built here: simply not run.
      if (selection.jobs !== undefined)
        runs.push(
          emptyRun(name, ctx.now(), `Unsupported: job ${name} is not part of this build`, selection.tableId),
        );
      continue;
    }
    try {
      const done = await runner(job);
      // A job asked for by name that found nothing to do still says it ran.
      if (done.length === 0 && selection.jobs !== undefined)
        runs.push(emptyRun(name, ctx.now(), null, selection.tableId));
      runs.push(...done);
    } catch (e) {
      // A runner records per-table failures itself; one that throws stops only its own job.
      runs.push(emptyRun(name, ctx.now(), errorText(e), selection.tableId));
    }
  }
  const stored: StoredJobRun[] = [];
  for (let i = 0; i < runs.length; i += MAX_JOB_RUNS_PER_APPEND) {
    const chunk = runs.slice(i, i + MAX_JOB_RUNS_PER_APPEND);
    stored.push(
      ...(await ctx.exclusive(async (store) => {
        const r = await appendJobRuns(store, chunk);
        return { value: r.stored, durable: r.durable };
      })),
    );
  }
  return stored;
}
