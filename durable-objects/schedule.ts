/**
 * When the writer's alarm runs next, as pure functions of what the pass saw (decisions
 * docs/decisions/0111-background-retry-and-alarm.md, 0178-idle-memtable-flush.md, 0324-maintenance-alarm.md).
 * What a maintenance pass's runs mean is `maintenance/schedule.ts`'s; this only turns times into delays.
 */
import type { WriterTunables } from "./options.ts";
import type { LakeRecord } from "./registry.ts";

type Delays = Pick<WriterTunables, "backgroundSliceDelayMs" | "backgroundIdleDelayMs">;

/** Backoff after the nth consecutive background failure: base doubling, capped. */
export function backgroundRetryDelay(
  t: Pick<WriterTunables, "backgroundRetryBaseMs" | "backgroundRetryMaxMs">,
  failures: number,
): number {
  const exp = Math.min(Math.max(failures, 1) - 1, 30);
  return Math.min(t.backgroundRetryMaxMs, t.backgroundRetryBaseMs * 2 ** exp);
}

/**
 * Whether an alarm of a lake this activation has not opened (and that saw no commit) has anything to do:
 * "run" when a recorded due time (maintenance, idle flush) has come, a delay to re-arm for when one is
 * still ahead, or "sleep" when none is recorded.
 */
export function idleWake(rec: LakeRecord, now: number): "run" | "sleep" | { delayMs: number } {
  const dues = [rec.maintenanceDueAt, rec.idleFlushAt].filter((x): x is number => x !== undefined);
  if (dues.length === 0) return "sleep";
  const due = Math.min(...dues);
  return due > now ? { delayMs: due - now } : "run";
}

/**
 * When jobs 4-5's next work (at `next`) should wake the alarm: in the future as is; already due, soon when
 * this pass made progress on it, else after the idle delay, so a stuck lake does not wake in a loop.
 */
export function maintenanceWakeAt(
  next: number | undefined,
  now: number,
  progressed: boolean,
  t: Delays,
): number | undefined {
  if (next === undefined || next > now) return next;
  return now + (progressed ? t.backgroundSliceDelayMs : t.backgroundIdleDelayMs);
}

/** The idle flush's recorded time: never sooner than one slice from now (a commit was in flight). */
export function idleFlushWakeAt(next: number | undefined, now: number, t: Delays): number | undefined {
  return next === undefined ? undefined : Math.max(next, now + t.backgroundSliceDelayMs);
}

/**
 * The delay until the next pass: one slice when work was left, else the earliest due time (the store's
 * maintenance, jobs 4-5, the idle flush), or none.
 */
export function nextPassDelay(
  more: boolean,
  dueTimes: readonly (number | undefined)[],
  now: number,
  t: Delays,
): number | undefined {
  if (more) return t.backgroundSliceDelayMs;
  const at = dueTimes.filter((x): x is number => x !== undefined);
  return at.length === 0 ? undefined : Math.max(0, Math.min(...at) - now);
}
