/**
 * Job 5 run by the lake writer: delete files scheduled for deletion once their grace
 * (`delete_older_than`) has passed. Order (decision docs/decisions/0329-maintenance-delete-files.md):
 * fence the due paths (one batch in the submission slot; from then on no commit can register them), then
 * re-check that no data or delete file version references them (a commit applied before the fence),
 * delete the rest from R2, and forget their schedule rows (one batch). Every step may crash: the next run
 * finds the same schedule rows and does the same again (a DELETE of a missing object succeeds).
 * Then it sweeps orphans, objects under the data prefix nothing names (`orphans.ts`, decision 0330).
 */
import {
  type DueFile,
  dueFiles,
  fenceDue,
  forgetDeleted,
  MAX_FILES_DELETED_PER_STEP,
  referencedPaths,
} from "../catalog/index.ts";
import { dataObjectKey } from "../storage/keys.ts";
import type { JobRun } from "./history.ts";
import { emptyRun, errorText } from "./job-deps.ts";
import { type OrphanSweep, sweepOrphans } from "./orphans.ts";
import type { JobContext } from "./registry.ts";

export async function runDeleteFilesJob(ctx: JobContext): Promise<JobRun[]> {
  const startedAt = ctx.now();
  const run = await deleteScheduled(ctx, startedAt);
  // Then the orphans: objects no catalog state names (decision 0330), same fences and re-check.
  let sweep: OrphanSweep = { marked: 0, due: 0, deleted: 0 };
  let sweepError: string | null = null;
  try {
    sweep = await sweepOrphans(ctx, startedAt);
  } catch (e) {
    sweepError = errorText(e);
  }
  if (run === null && sweep.marked === 0 && sweep.due === 0 && sweepError === null) return [];
  const out: JobRun = run ?? emptyRun("delete_files", startedAt, null);
  out.orphansMarked = sweep.marked;
  out.orphansDeleted = sweep.deleted;
  if (sweepError !== null) out.error = out.error === null ? sweepError : `${out.error}; ${sweepError}`;
  out.durationMs = ctx.now() - startedAt;
  return [out];
}

/** The scheduled files whose grace has passed (decision 0329); null when none are due. */
async function deleteScheduled(ctx: JobContext, startedAt: number): Promise<JobRun | null> {
  const due = await dueFiles(ctx.view(), {
    nowMs: startedAt,
    graceMs: ctx.settings.deleteOlderThanMs,
    limit: MAX_FILES_DELETED_PER_STEP,
  });
  if (due.length === 0) return null;
  const run: JobRun = {
    job: "delete_files",
    startedAt,
    durationMs: 0,
    filesIn: due.length,
    filesOut: 0,
    rowsIn: 0,
    rowsOut: 0,
    snapshotId: null,
    error: null,
  };
  try {
    await ctx.exclusive(async (store) => ({
      value: null,
      durable: (await fenceDue(store, due, startedAt)).durable,
    }));
    // Outside the slot: the commits that queued behind the fence go first (decision 0326).
    await ctx.pause?.();
    // The fence is applied: every commit that could reference these paths is in this view or refused.
    const referenced = await referencedPaths(
      ctx.view(),
      due.map((f) => f.path),
    );
    const gone: DueFile[] = [];
    let outside = 0;
    for (const f of due) {
      if (referenced.has(f.path)) continue;
      // Only objects under the lake's own data prefix are ever deleted.
      if (!f.pathIsRelative) {
        outside++;
        continue;
      }
      await ctx.bucket.delete(dataObjectKey(ctx.lake, f.path));
      gone.push(f);
    }
    await ctx.exclusive(async (store) => ({
      value: null,
      durable: (await forgetDeleted(store, gone, ctx.now())).durable,
    }));
    run.filesOut = gone.length;
    if (outside > 0)
      run.error = `Unsupported: ${outside} scheduled file(s) lie outside the lake's data path and were left`;
  } catch (e) {
    run.error = errorText(e);
  }
  return run;
}
