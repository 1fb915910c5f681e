/**
 * The idle memtable flush (docs/decisions/0178-idle-memtable-flush.md): once no commit has arrived for
 * `idleFlushAfterMs`, the writer's background pass flushes the memtable (`maintain({ forceFlush: true })`)
 * so the next wake finds the WAL covered by the manifest instead of replaying a long tail, ⌈tail / 5⌉
 * rounds of GETs (docs/decisions/0174-wake-tail-overlap.md). The host's alarm runs it: no timer of its own.
 */

/**
 * 60 s. Longer than the pauses inside a burst of commits, so a lake that commits steadily never flushes
 * tiny memtables (each flush is an L0 table, a manifest and a publish segment, and tables are merged
 * later); equal to the background pass after commits (`backgroundIdleDelayMs`), so a steady stream of
 * commits keeps one pass a minute; shorter than the runtime's eviction of an idle object (70–140 s of
 * inactivity), so the flush normally runs on the warm memtable and not after a replay.
 */
export const IDLE_FLUSH_AFTER_MS = 60_000;

export interface IdleFlushState {
  /** Newest applied position (`Store.position`). */
  position: number;
  /** Newest position the sorted tables cover (`Store.coveredPosition`). */
  coveredPosition: number;
  /** Wall time of the newest commit this activation saw arrive or land; undefined: none yet. */
  lastCommitAt: number | undefined;
}

/**
 * When the idle flush is due (wall ms), or undefined when there is nothing for it to flush: every
 * applied batch is already in a sorted table. That answer is what stops an idle lake's alarm from
 * re-arming: a flush moves `coveredPosition` up to `position`, and only a commit moves `position`.
 * No commit seen in this activation (a wake by the alarm after an eviction) counts as idle since ever.
 */
export function idleFlushAt(state: IdleFlushState, afterMs: number): number | undefined {
  if (state.position <= state.coveredPosition) return undefined;
  if (state.lastCommitAt === undefined) return Number.NEGATIVE_INFINITY;
  return state.lastCommitAt + afterMs;
}
