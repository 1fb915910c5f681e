/**
 * When the writer's alarm must next run a pass for jobs that wait on time (4: retention, 5: the grace of a
 * scheduled file or of a marked orphan), so an idle lake still does its due work (decisions
 * docs/decisions/0324-maintenance-alarm.md, docs/decisions/0331-orphan-grace-alarm.md). Answers the
 * earliest due time of the jobs the lake's settings switch on, or undefined when none waits.
 */
import {
  MAX_FLUSH_ROWS_PER_STEP,
  maintenanceSettings,
  nextDeleteAt,
  nextExpiryAt,
  nextOrphanDeleteAt,
} from "../catalog/index.ts";
import type { ReadView } from "../storage/api.ts";
import type { JobRun } from "./history.ts";

export async function nextDueAt(view: ReadView, pinned: readonly number[]): Promise<number | undefined> {
  const settings = await maintenanceSettings(view);
  const due: number[] = [];
  if (settings.enabled.expire_snapshots && settings.expireOlderThanMs !== null) {
    const at = await nextExpiryAt(view, { olderThanMs: settings.expireOlderThanMs, pinned });
    if (at !== null) due.push(at);
  }
  if (settings.enabled.delete_files) {
    const at = await nextDeleteAt(view, { graceMs: settings.deleteOlderThanMs });
    if (at !== null) due.push(at);
    const orphanAt = await nextOrphanDeleteAt(view, { graceMs: settings.deleteOlderThanMs });
    if (orphanAt !== null) due.push(orphanAt);
  }
  return due.length === 0 ? undefined : Math.min(...due);
}

/** What one scheduled pass's runs mean for the writer's next alarm. */
export interface PassFollowUp {
  /** Work was left that the next slice should take soon (a full flush step may have left rows behind). */
  more: boolean;
  /**
   * Progress on work that waits on time: a retention applied, or job 5 deleted something. Due work that
   * made none (a referenced scheduled file, an orphan R2 calls too young) waits the idle delay, not a loop.
   */
  timedProgress: boolean;
}

/** The meaning of a pass's runs for the next alarm (the writer only turns it into a delay). */
export function passFollowUp(runs: readonly JobRun[]): PassFollowUp {
  let more = false;
  let timedProgress = false;
  for (const run of runs) {
    if (run.error !== null) continue;
    if (run.job === "flush_inlined" && run.rowsIn >= MAX_FLUSH_ROWS_PER_STEP) more = true;
    if (run.job === "expire_snapshots") timedProgress = true;
    if (run.job === "delete_files" && run.filesOut + (run.orphansDeleted ?? 0) > 0) timedProgress = true;
  }
  return { more, timedProgress };
}
