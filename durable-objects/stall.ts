/**
 * Stall reports (docs/decisions/0463-commit-protocol-rules.md): every wait a commit can park in is named in the log while it runs
 * long. A report names a slow phase; it never cuts one short (only the submission slot has a bound).
 */
import type { Clock } from "./clock.ts";

/**
 * Where a commit can park:
 *  - admission: arrived, waiting for the writer to be open and ready (the lazy store open);
 *  - open: in the forming batch, which stays open while callers are on their way in;
 *  - staging: in a sealed batch, queued behind the submission holding the slot;
 *  - submission: its batch holds the slot (capacity backpressure, then catalog.commitGroup);
 *  - durability: submitted, awaiting the flush that makes it durable and published.
 */
export type Phase = "admission" | "open" | "staging" | "submission" | "durability";

export interface StallReport {
  phase: Phase;
  /** Commits parked in this phase longer than the threshold. */
  commits: number;
  /** How long the oldest of them has been there, in ms. */
  oldestMs: number;
}

/** One commit's position in the pipeline, as the stall watch sees it. */
export interface Parked {
  phase: Phase;
  since: number;
}

export class StallWatch {
  private readonly parked = new Set<Parked>();
  private cancel: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    /** A phase running longer than this is reported, and again every further interval while it lasts. */
    private readonly thresholdMs: number,
    private readonly report: (r: StallReport) => void,
  ) {}

  enter(p: Parked, phase: Phase): void {
    p.phase = phase;
    p.since = this.clock.now();
    this.parked.add(p);
    this.arm();
  }

  leave(p: Parked): void {
    this.parked.delete(p);
    if (this.parked.size === 0) {
      this.cancel?.();
      this.cancel = undefined;
    }
  }

  /** Stops reporting (the writer is gone). */
  close(): void {
    this.parked.clear();
    this.cancel?.();
    this.cancel = undefined;
  }

  private arm(): void {
    if (this.cancel !== undefined) return;
    this.cancel = this.clock.after(this.thresholdMs, () => {
      this.cancel = undefined;
      this.sweep();
      if (this.parked.size > 0) this.arm();
    });
  }

  private sweep(): void {
    const now = this.clock.now();
    const by = new Map<Phase, StallReport>();
    for (const p of this.parked) {
      const age = now - p.since;
      if (age < this.thresholdMs) continue;
      const r = by.get(p.phase) ?? { phase: p.phase, commits: 0, oldestMs: 0 };
      r.commits++;
      r.oldestMs = Math.max(r.oldestMs, age);
      by.set(p.phase, r);
    }
    for (const r of by.values()) this.report(r);
  }
}
