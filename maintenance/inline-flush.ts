/**
 * Job 1 run by the lake writer: flush inlined rows to Parquet. For each table the catalog's planner
 * (`catalog/maintenance/inline-flush-plan.ts`) names, PUT its files under the lake's data prefix (put-if-absent:
 * a data file never changes once written), then commit the `flush_inlined` verb through the writer's
 * coalescer, an ordinary commit with DuckLake's change kind (`inline_flush`) and conflict class. A crash
 * or refusal between the PUT and the commit leaves only an unreferenced file, never a half-registered one;
 * the next run plans again from the catalog, so running twice is harmless (decision 0321).
 */

import { type FlushPlan, planFlushes } from "../catalog/index.ts";
import { yieldToEventLoop } from "../storage/maintenance.ts";
import type { JobRun } from "./history.ts";
import { emptyRun, errorText, type JobDeps } from "./job-deps.ts";
import { putPlannedThenCommit } from "./put-planned.ts";

export interface FlushDeps extends JobDeps {
  /** Flush once a table holds more inlined rows than this (default: its `data_inlining_row_limit`). */
  threshold?: number;
  maxRowsPerStep?: number;
  /** Only this table (a run asked for one table). */
  tableId?: number;
}

async function runPlan(deps: FlushDeps, plan: FlushPlan): Promise<JobRun> {
  const startedAt = deps.now();
  const run: JobRun = {
    job: "flush_inlined",
    tableId: plan.tableId,
    startedAt,
    durationMs: 0,
    filesIn: 0,
    filesOut: plan.objects.length,
    rowsIn: plan.rowsIn,
    rowsOut: plan.rowsIn,
    snapshotId: null,
    error: null,
  };
  try {
    run.snapshotId = (await putPlannedThenCommit(deps, plan, deps.commit)).snapshotId;
  } catch (e) {
    run.error = errorText(e);
    run.rowsOut = 0;
  }
  run.durationMs = deps.now() - startedAt;
  return run;
}

/**
 * One pass: at most one bounded step per table (a table with more rows than a step holds is flushed
 * further by the next pass). Answers one run record per table worked on, errors included; never throws
 * for one table's failure.
 */
export async function runFlushJob(deps: FlushDeps): Promise<JobRun[]> {
  const { plans, refused } = await planFlushes(deps.view(), {
    ...(deps.threshold !== undefined ? { threshold: deps.threshold } : {}),
    ...(deps.maxRowsPerStep !== undefined ? { maxRows: deps.maxRowsPerStep } : {}),
    now: deps.now,
    ...(deps.tableId !== undefined ? { tableId: deps.tableId } : {}),
    pause: deps.pause ?? yieldToEventLoop,
  });
  const runs: JobRun[] = refused.map((r) =>
    emptyRun("flush_inlined", deps.now(), errorText(r.error), r.tableId),
  );
  for (const plan of plans) runs.push(await runPlan(deps, plan));
  return runs;
}
