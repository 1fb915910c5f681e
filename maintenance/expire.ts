/**
 * Job 4 run by the lake writer: expire snapshots older than the lake's `expire_older_than`, never one a
 * live checkpoint pins, in bounded steps (`catalog/maintenance/expire.ts` holds the rules). Each step is
 * one head-preserving batch in the writer's submission slot, awaited durable before the next; a crash
 * between steps leaves a lake that is readable at every remaining snapshot, and the next run resumes from
 * the catalog (decision docs/decisions/0328-maintenance-expire.md). Lake-wide: a table selection is
 * ignored.
 */
import { expireSnapshotsStep } from "../catalog/index.ts";
import { CodedError } from "../storage/errors.ts";
import type { JobRun } from "./history.ts";
import { emptyRun } from "./job-deps.ts";
import type { JobContext } from "./registry.ts";

/**
 * Steps one run takes before it yields (the alarm's next pass continues). Steps are small so that the
 * appenders' commits interleave between them (decision docs/decisions/0325-paced-maintenance.md); 64 of
 * them expire as many snapshots per run (16,384) as 16 steps of 1,024 did.
 */
export const MAX_EXPIRE_STEPS_PER_RUN = 64;

export async function runExpireJob(ctx: JobContext): Promise<JobRun[]> {
  const olderThanMs = ctx.settings.expireOlderThanMs;
  if (olderThanMs === null) return [];
  const startedAt = ctx.now();
  const run: JobRun = { ...emptyRun("expire_snapshots", startedAt, null), snapshotsExpired: 0 };
  try {
    const pinned = await ctx.pinnedSnapshots();
    // Each step starts after the last snapshot the previous one decided (same pins, same run).
    let after: number | undefined;
    for (let step = 0; step < MAX_EXPIRE_STEPS_PER_RUN; step++) {
      const from = after;
      const r = await ctx.exclusive(async (store) => {
        const s = await expireSnapshotsStep(store, {
          now: ctx.now(),
          olderThanMs,
          pinned,
          ...(from !== undefined ? { after: from } : {}),
        });
        return { value: s, durable: s.durable };
      });
      if (r.through !== null) after = r.through;
      run.snapshotsExpired = (run.snapshotsExpired ?? 0) + r.expired.length;
      run.filesOut += r.filesScheduled;
      if (!r.more) break;
      // Outside the slot: the commits that queued behind this step go first (decision 0326).
      await ctx.pause?.();
    }
  } catch (e) {
    run.error = e instanceof CodedError ? `${e.code}: ${e.message}` : String(e);
  }
  run.durationMs = ctx.now() - startedAt;
  return run.error === null && run.snapshotsExpired === 0 && run.filesOut === 0 ? [] : [run];
}
