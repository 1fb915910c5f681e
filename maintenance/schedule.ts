/**
 * When the writer's alarm must next run a pass for jobs that wait on time (4: retention, 5: the grace of a
 * scheduled file or of a marked orphan), so an idle lake still does its due work (decisions
 * docs/decisions/0324-maintenance-alarm.md, docs/decisions/0331-orphan-grace-alarm.md). Answers the
 * earliest due time of the jobs the lake's settings switch on, or undefined when none waits.
 */
import { maintenanceSettings, nextDeleteAt, nextExpiryAt, nextOrphanDeleteAt } from "../catalog/index.ts";
import type { ReadView } from "../storage/api.ts";

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
