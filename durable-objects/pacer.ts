/**
 * Flush pacing (docs/decisions/0463-commit-protocol-rules.md): when the writer turns applied batches into one WAL segment PUT.
 * One setting, the spacing S, read as the minimum spacing between flushes; the floor is S/10.
 *
 * A flush is planned by the first commit that finds none pending, and that commit's view decides how:
 *  - a flush is in the air: the next one is deferred until S has elapsed from that flush's start;
 *  - S has elapsed since the last flush started: flush at once;
 *  - no recent flush carried more than one commit (the mark is at most 1): flush at the floor, F after
 *    the last flush started — nobody is coming whom waiting longer would coalesce with;
 *  - otherwise: one deferred flush, closed at the spacing, or as soon as the population a recent flush
 *    measured has joined — never before the floor and only while that measurement is trusted.
 * Only a flush that waited its spacing out measures the population (it carries every writer); an early
 * close carries the mark and measures nothing. A measurement is trusted for ten spacings. The mark is
 * the most any of the last few recent flushes carried, so an early close cannot lower it and only a few
 * full-spacing flushes in a row that carried less do. One flush is in the air at a time.
 *
 * Commits are counted by weight: a coalesced batch is one store batch carrying many commits.
 */
import type { Clock } from "./clock.ts";

export interface PacerOptions {
  /** Minimum spacing between flushes in ms; 0 flushes on every commit (one in the air at a time). */
  spacingMs: number;
  clock: Clock;
  /** How many recent flushes the population mark looks back over (default 4). */
  markWindow?: number;
  /** A measurement is trusted for this many spacings (default 10). */
  trustSpacings?: number;
}

/** Why a flush started. */
export type FlushCause = "at-once" | "floor" | "deadline" | "population";

export interface FlushRecord {
  startedAt: number;
  /** Commits (by weight) the flush carried. */
  carried: number;
  cause: FlushCause;
}

type Plan = { kind: "at-once" } | { kind: "floor"; due: number } | { kind: "deferred"; deadline: number };

export class FlushPacer {
  spacing: number;
  floor: number;
  private readonly clock: Clock;
  private readonly markWindow: number;
  private readonly trustSpacings: number;
  private pending = 0;
  private plan: Plan | undefined;
  private cancelTimer: (() => void) | undefined;
  private inAirSince: number | undefined;
  private lastStart = Number.NEGATIVE_INFINITY;
  private lastMeasuredAt = Number.NEGATIVE_INFINITY;
  private recent: FlushRecord[] = [];
  private closed = false;
  private landingWaiters: (() => void)[] = [];
  /** Every flush this pacer started, oldest first (bounded; for logs, tests and benchmarks). */
  readonly history: FlushRecord[] = [];
  private flushes = 0;

  constructor(
    private readonly flush: () => Promise<void>,
    options: PacerOptions,
  ) {
    if (!(options.spacingMs >= 0))
      throw new RangeError(`flush spacing must be >= 0 ms, got ${options.spacingMs}`);
    this.spacing = options.spacingMs;
    this.floor = options.spacingMs / 10;
    this.clock = options.clock;
    this.markWindow = options.markWindow ?? 4;
    this.trustSpacings = options.trustSpacings ?? 10;
  }

  /** Number of flushes started. */
  get flushCount(): number {
    return this.flushes;
  }

  /** True while a flush PUT is in the air. */
  get inAir(): boolean {
    return this.inAirSince !== undefined;
  }

  /** Commits waiting for a flush that has not started. */
  get waiting(): number {
    return this.pending;
  }

  /** The population mark: the most any recent flush carried (0 when none is recent). */
  mark(now = this.clock.now()): number {
    const horizon = now - this.trustSpacings * this.spacing;
    let m = 0;
    for (const r of this.recent) if (r.startedAt >= horizon && r.carried > m) m = r.carried;
    return m;
  }

  /**
   * Resolves when the next flush lands: the one in the air, or the one planned for waiting commits. At
   * once when neither exists (or pacing stopped). Used for capacity backpressure.
   */
  whenLanded(): Promise<void> {
    if (this.closed || (this.inAirSince === undefined && this.pending === 0)) return Promise.resolve();
    return new Promise((resolve) => this.landingWaiters.push(resolve));
  }

  /** Changes the spacing for flushes planned from now on. */
  setSpacing(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`flush spacing must be >= 0 ms, got ${ms}`);
    this.spacing = ms;
    this.floor = ms / 10;
  }

  /** `weight` commits were applied to the store and wait for the next flush. */
  arrived(weight: number): void {
    if (this.closed) return;
    const w = Math.max(1, Math.floor(weight));
    if (this.pending === 0) this.plan = this.planFor(this.clock.now());
    this.pending += w;
    this.evaluate();
  }

  /** Stops pacing (the writer is terminal): cancels any scheduled flush and starts no more. */
  close(): void {
    this.closed = true;
    const waiters = this.landingWaiters;
    this.landingWaiters = [];
    for (const w of waiters) w();
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  private planFor(now: number): Plan {
    if (this.inAirSince !== undefined) return { kind: "deferred", deadline: this.inAirSince + this.spacing };
    if (now >= this.lastStart + this.spacing) return { kind: "at-once" };
    if (this.mark(now) <= 1) return { kind: "floor", due: this.lastStart + this.floor };
    return { kind: "deferred", deadline: this.lastStart + this.spacing };
  }

  private trusted(at: number): boolean {
    return at - this.lastMeasuredAt <= this.trustSpacings * this.spacing;
  }

  private evaluate(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    const plan = this.plan;
    if (this.closed || this.pending === 0 || plan === undefined || this.inAirSince !== undefined) return;
    const now = this.clock.now();
    if (plan.kind === "at-once") {
      this.start("at-once", now);
      return;
    }
    if (plan.kind === "floor") {
      if (now >= plan.due) {
        this.start("floor", now);
        return;
      }
      this.wake(plan.due - now);
      return;
    }
    if (now >= plan.deadline) {
      this.start("deadline", now);
      return;
    }
    const floorAt = this.lastStart + this.floor;
    const populated = this.pending >= this.mark(now);
    if (populated && now >= floorAt && this.trusted(now)) {
      this.start("population", now);
      return;
    }
    // The population may already be here but the floor not yet passed: close at the floor if the
    // measurement will still be trusted then; otherwise only the deadline can close it.
    const early = populated && floorAt > now && floorAt < plan.deadline && this.trusted(floorAt);
    const wakeAt = early ? floorAt : plan.deadline;
    this.wake(wakeAt - now);
  }

  private wake(ms: number): void {
    this.cancelTimer = this.clock.after(ms, () => {
      this.cancelTimer = undefined;
      this.evaluate();
    });
  }

  private start(cause: FlushCause, now: number): void {
    const record: FlushRecord = { startedAt: now, carried: this.pending, cause };
    this.pending = 0;
    this.plan = undefined;
    this.lastStart = now;
    this.inAirSince = now;
    if (cause === "deadline") this.lastMeasuredAt = now;
    this.recent.push(record);
    if (this.recent.length > this.markWindow) this.recent.shift();
    this.history.push(record);
    if (this.history.length > 4096) this.history.splice(0, 2048);
    this.flushes++;
    const landed = (): void => {
      this.inAirSince = undefined;
      const waiters = this.landingWaiters;
      this.landingWaiters = [];
      for (const w of waiters) w();
      this.evaluate();
    };
    // The flush's outcome reaches callers through their own durability handles; here it only ends the
    // flight. A rejected flush means the store is terminal, which the writer handles by closing us.
    let p: Promise<void>;
    try {
      p = this.flush();
    } catch {
      p = Promise.resolve();
    }
    p.then(landed, landed);
  }
}
