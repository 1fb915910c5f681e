/**
 * How arrivals wait for each other: the yield (docs/decisions/0261-commit-yield.md: after a lone minting
 * commit loses a race, batched arrivals hold back until it lands or `yieldHoldMs` passes) and the quiet
 * wait (docs/decisions/0326-maintenance-yields-to-commits.md: a maintenance job's stretch waits for the
 * commits in flight to land).
 */
import { yieldToEventLoop } from "../storage/maintenance.ts";
import type { SharedState, WriterHost } from "./types.ts";

export class Arrivals {
  /** Until when batched arrivals hold, and the holders to release early when a lone commit lands. */
  private yieldUntil = 0;
  private readonly yieldHolders = new Set<() => void>();
  /** Maintenance pauses waiting for the commits in flight to land (`maintenancePause`). */
  private readonly quietWaiters = new Set<() => void>();

  constructor(
    private readonly host: WriterHost,
    private readonly shared: SharedState,
  ) {}

  /** A lone minting commit answered: a lost race arms the hold, a landing ends it. */
  yieldAfter(code: string | null): void {
    if (code === "CommitConflict") {
      this.yieldUntil = this.host.clock.now() + this.host.tunables.yieldHoldMs;
    } else if (code === null) {
      this.yieldUntil = 0;
      releaseAll(this.yieldHolders);
    }
  }

  /** A batched arrival waits out an armed hold (released early when the lone commit lands). */
  async holdForYield(): Promise<void> {
    const wait = this.yieldUntil - this.host.clock.now();
    if (wait <= 0) return;
    await this.park(this.yieldHolders, wait);
  }

  /**
   * A maintenance job's yield between stretches: one macrotask, then, while any commit is in flight
   * (admitted, batched, submitting or awaiting its PUT), wait until none is — re-checked a macrotask
   * later, since a back-to-back appender starts its next commit in the same turn as the last one lands —
   * or until `maintenanceYieldMaxMs` has passed since the pause began. Commits then run without a job's
   * stretch between their steps, and at most one commit waits behind each stretch.
   */
  async maintenancePause(): Promise<void> {
    const clock = this.host.clock;
    const until = clock.now() + this.host.tunables.maintenanceYieldMaxMs;
    await yieldToEventLoop();
    while (this.shared.tickets.size > 0) {
      const left = until - clock.now();
      if (left <= 0) return;
      await this.park(this.quietWaiters, left);
      await yieldToEventLoop();
    }
  }

  /** No commit is in flight any more: release the quiet waiters. */
  quiet(): void {
    releaseAll(this.quietWaiters);
  }

  /** Waits until released through `waiters`, or `ms` passes, whichever is first. */
  private park(waiters: Set<() => void>, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const release = () => {
        cancel();
        waiters.delete(release);
        resolve();
      };
      const cancel = this.host.clock.after(ms, release);
      waiters.add(release);
    });
  }
}

function releaseAll(waiters: Set<() => void>): void {
  for (const release of [...waiters]) release();
}
