/**
 * Time as the writer sees it. Pacing, stall reports and the slot bound all read this instead of the
 * globals, so unit tests drive them with a manual clock and stay deterministic.
 */
export interface Clock {
  now(): number;
  /** Runs `fn` after `ms`; the returned function cancels it (idempotent). */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

/** A clock that moves only when told to; timers fire in due order during `advance`. */
export class ManualClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers: { due: number; seq: number; fn: () => void }[] = [];

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { due: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  /** Timers still waiting. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.due <= end).sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.due);
      next.fn();
    }
    this.t = end;
  }
}
