/**
 * Job 5 run by the lake writer: delete files scheduled for deletion once their grace
 * (`delete_older_than`) has passed. Order (decision docs/decisions/0329-maintenance-delete-files.md):
 * fence the due paths (one batch in the submission slot; from then on no commit can register them), then
 * re-check that no data or delete file version references them (a commit applied before the fence),
 * delete the rest from R2, and forget their schedule rows (one batch). Every step may crash: the next run
 * finds the same schedule rows and does the same again (a DELETE of a missing object succeeds).
 */
import {
  type DueFile,
  dueFiles,
  fenceDue,
  forgetDeleted,
  MAX_FILES_DELETED_PER_STEP,
  referencedPaths,
} from "../catalog/maintenance/cleanup.ts";
import { CodedError } from "../storage/errors.ts";
import { dataObjectKey } from "../storage/keys.ts";
import type { JobRun } from "./history.ts";
import type { JobContext } from "./registry.ts";

export async function runDeleteFilesJob(ctx: JobContext): Promise<JobRun[]> {
  const startedAt = ctx.now();
  const due = await dueFiles(ctx.view(), {
    nowMs: startedAt,
    graceMs: ctx.settings.deleteOlderThanMs,
    limit: MAX_FILES_DELETED_PER_STEP,
  });
  if (due.length === 0) return [];
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
    run.error = e instanceof CodedError ? `${e.code}: ${e.message}` : String(e);
  }
  run.durationMs = ctx.now() - startedAt;
  return [run];
}
