/**
 * Jobs 2 and 3 run by the lake writer: merge adjacent small files (`runMergeJob`) and rewrite files whose
 * deleted fraction passes the threshold (`runRewriteJob`). Each step of the catalog's plan
 * (`catalog/maintenance/merge-plan.ts`, `rewrite-plan.ts`) GETs its inputs (bounded by the step limits),
 * builds the compacted file, PUTs it (put-if-absent: a data file never changes once written), then commits
 * the step's verb through the writer's coalescer — an ordinary commit with DuckLake's change kind
 * (`merge_adjacent` / `rewrite_delete`) and conflict class. A crash or refusal between the PUT and the
 * commit leaves only an unreferenced object (job 5 collects it); the next pass plans again from the
 * catalog, so running twice is harmless (decision docs/decisions/0322-compaction-output.md).
 */

import {
  buildMerge,
  buildRewrite,
  type CompactionOptions,
  type CompactionStep,
  type Pause,
  type PlannedCompaction,
  planMerges,
  planRewrites,
  type ReadObject,
  type Refusal,
  type RewriteOptions,
} from "../catalog/index.ts";
import { CodedError } from "../storage/errors.ts";
import { dataObjectKey } from "../storage/keys.ts";
import { yieldToEventLoop } from "../storage/maintenance.ts";
import type { JobName, JobRun } from "./history.ts";
import { emptyRun, errorText, type JobDeps } from "./job-deps.ts";
import { putPlannedThenCommit } from "./put-planned.ts";

/** Jobs 2 and 3 need exactly what every job gets (`job-deps.ts`). */
export type CompactionDeps = JobDeps;

export type MergeDeps = CompactionDeps & CompactionOptions;
export type RewriteDeps = CompactionDeps & RewriteOptions;

/** An input file the catalog references is missing from the bucket. */
export class CompactionInputMissing extends CodedError {
  readonly code = "Corruption";
}

function reader(deps: CompactionDeps): { read: ReadObject; bytes: () => number } {
  let total = 0;
  return {
    read: async (rel) => {
      const key = dataObjectKey(deps.lake, rel);
      const obj = await deps.bucket.get(key);
      if (!obj) throw new CompactionInputMissing(`a compaction input is missing at ${key}`);
      const b = new Uint8Array(await obj.arrayBuffer());
      total += b.byteLength;
      return b;
    },
    bytes: () => total,
  };
}

async function runStep(
  deps: CompactionDeps,
  job: JobName,
  step: CompactionStep,
  build: (s: CompactionStep, read: ReadObject, now: () => number, pause: Pause) => Promise<PlannedCompaction>,
): Promise<JobRun> {
  const startedAt = deps.now();
  const run: JobRun = {
    job,
    tableId: step.tableId,
    startedAt,
    durationMs: 0,
    filesIn: step.inputs.length,
    filesOut: 0,
    rowsIn: step.inputs.reduce((n, c) => n + c.file.record_count, 0),
    rowsOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    snapshotId: null,
    error: null,
  };
  const r = reader(deps);
  try {
    const planned = await build(step, r.read, deps.now, deps.pause ?? yieldToEventLoop);
    run.bytesIn = r.bytes();
    run.snapshotId = (await putPlannedThenCommit(deps, planned, deps.commit)).snapshotId;
    run.filesOut = planned.objects.length;
    run.rowsOut = planned.rowsOut;
    run.bytesOut = planned.bytesOut;
  } catch (e) {
    run.bytesIn = r.bytes();
    run.error = errorText(e);
  }
  run.durationMs = deps.now() - startedAt;
  return run;
}

function refusals(job: JobName, refused: Refusal[], now: () => number): JobRun[] {
  return refused.map((r) => emptyRun(job, now(), errorText(r.error), r.tableId));
}

/**
 * One pass of job 2: every planned merge step (at most `maxSteps`), one commit each. Answers one run
 * record per step, errors included; never throws for one step's failure. A step whose commit lost to a
 * concurrent delete or drop reports the CommitConflict; the next pass plans from the new state.
 */
export async function runMergeJob(deps: MergeDeps): Promise<JobRun[]> {
  const { steps, refused } = await planMerges(deps.view(), {
    ...deps,
    pause: deps.pause ?? yieldToEventLoop,
  });
  const runs = refusals("merge_adjacent", refused, deps.now);
  for (const step of steps) runs.push(await runStep(deps, "merge_adjacent", step, buildMerge));
  return runs;
}

/** One pass of job 3, as `runMergeJob`. */
export async function runRewriteJob(deps: RewriteDeps): Promise<JobRun[]> {
  const { steps, refused } = await planRewrites(deps.view(), {
    ...deps,
    pause: deps.pause ?? yieldToEventLoop,
  });
  const runs = refusals("rewrite_deletes", refused, deps.now);
  for (const step of steps) runs.push(await runStep(deps, "rewrite_deletes", step, buildRewrite));
  return runs;
}
