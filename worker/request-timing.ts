/**
 * Optional per-request phase timing (docs/decisions/0640-quack-request-timing.md): where one request's
 * time goes, answered as a `Server-Timing` header. Off unless the Worker var `REQUEST_TIMING` is
 * "enabled"; off, no timer exists and every `timed()` is one null check.
 *
 * Phases are exclusive: R2 calls made while a phase runs are counted under `store` (the wall time during
 * which at least one R2 call was in flight), not under the phase. workerd advances its clock only across
 * I/O, so under workerd the CPU phases read 0 and `store`/`writer` are exact; in Node (bench/quack-wire)
 * every phase is measured.
 */

import { BUCKET_IDENTITY, type Bucket, bucketIdentity } from "../storage/index.ts";

/** The phases a request is split into, in the order they usually run. */
export const TIMING_PHASES = ["body", "auth", "parse", "cut", "store", "eval", "encode", "writer"] as const;
export type TimingPhase = (typeof TIMING_PHASES)[number];

/** The var that turns timing on. */
export function timingEnabled(env: { REQUEST_TIMING?: string }): boolean {
  return env.REQUEST_TIMING === "enabled";
}

interface Entered {
  outer: TimingPhase | null;
  outerExcluded: number;
  t0: number;
}

export class RequestTimer {
  private readonly totals = new Map<TimingPhase, number>();
  private current: TimingPhase | null = null;
  private readonly started: number;
  private inFlight = 0;
  private storeSince = 0;
  /**
   * Time inside `current` already counted elsewhere (store waits, nested phases): subtracted from it so
   * phases stay exclusive.
   */
  private excluded = 0;

  constructor(private readonly clock: () => number = () => performance.now()) {
    this.started = clock();
  }

  /** Runs `fn` as `phase` (nested phases count under the innermost one). */
  async run<T>(phase: TimingPhase, fn: () => Promise<T> | T): Promise<T> {
    const entered = this.enter(phase);
    try {
      return await fn();
    } finally {
      this.leave(phase, entered);
    }
  }

  /** Synchronous form of `run`. */
  runSync<T>(phase: TimingPhase, fn: () => T): T {
    const entered = this.enter(phase);
    try {
      return fn();
    } finally {
      this.leave(phase, entered);
    }
  }

  private enter(phase: TimingPhase): Entered {
    const entered = { outer: this.current, outerExcluded: this.excluded, t0: 0 };
    this.current = phase;
    this.excluded = 0;
    entered.t0 = this.clock();
    return entered;
  }

  private leave(phase: TimingPhase, entered: Entered): void {
    const spent = this.clock() - entered.t0;
    this.add(phase, spent - this.excluded);
    // The outer phase's own time excludes this whole span: charge it back as "already counted".
    this.current = entered.outer;
    this.excluded = entered.outerExcluded + spent;
  }

  /** An R2 call began. */
  storeStart(): void {
    if (this.inFlight++ === 0) this.storeSince = this.clock();
  }

  /** An R2 call ended. */
  storeEnd(): void {
    if (--this.inFlight > 0) return;
    const spent = this.clock() - this.storeSince;
    this.add("store", spent);
    if (this.current !== null) this.excluded += spent;
  }

  private add(phase: TimingPhase, ms: number): void {
    this.totals.set(phase, (this.totals.get(phase) ?? 0) + Math.max(0, ms));
  }

  /** Milliseconds per phase so far (phases never entered are absent). */
  phases(): Partial<Record<TimingPhase, number>> {
    return Object.fromEntries(this.totals);
  }

  /** The `Server-Timing` header value: every phase entered, then `total` since the timer was made. */
  header(): string {
    const parts = TIMING_PHASES.filter((p) => this.totals.has(p)).map(
      (p) => `${p};dur=${(this.totals.get(p) ?? 0).toFixed(3)}`,
    );
    parts.push(`total;dur=${(this.clock() - this.started).toFixed(3)}`);
    return parts.join(", ");
  }
}

/** `fn` under `phase` when timing is on; `fn` itself when it is off. */
export function timed<T>(timer: RequestTimer | null, phase: TimingPhase, fn: () => Promise<T>): Promise<T> {
  return timer === null ? fn() : timer.run(phase, fn);
}

/** Synchronous form of `timed`. */
export function timedSync<T>(timer: RequestTimer | null, phase: TimingPhase, fn: () => T): T {
  return timer === null ? fn() : timer.runSync(phase, fn);
}

const BODY_READERS = new Set(["arrayBuffer", "text", "json", "bytes", "blob"]);

/**
 * The bucket with every call's wait counted as `store` (an object body's read too). Only built when
 * timing is on; the answer is the same bucket's.
 */
export function timedBucket(bucket: R2Bucket, timer: RequestTimer): R2Bucket {
  // The call's synchronous part counts too (a binding may do real work before its promise exists).
  const track = <T>(call: () => T): T => {
    timer.storeStart();
    let out: T;
    try {
      out = call();
    } catch (err) {
      timer.storeEnd();
      throw err;
    }
    const then = (out as { then?: unknown } | null)?.then;
    if (typeof then !== "function") {
      timer.storeEnd();
      return out;
    }
    return (out as unknown as Promise<unknown>).then(
      (v) => {
        timer.storeEnd();
        return v;
      },
      (err: unknown) => {
        timer.storeEnd();
        throw err;
      },
    ) as T;
  };
  const wrapBody = <T>(value: T): T => {
    if (value === null || typeof value !== "object") return value;
    return new Proxy(value as object, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof v !== "function") return v;
        const fn = v as (...args: unknown[]) => unknown;
        if (typeof prop === "string" && BODY_READERS.has(prop)) {
          return (...args: unknown[]) => track(() => fn.apply(target, args));
        }
        return fn.bind(target);
      },
    }) as T;
  };
  return new Proxy(bucket, {
    get(target, prop) {
      // The same store: the isolate's remembered tails and decoded cuts are shared with untimed requests.
      if (prop === BUCKET_IDENTITY) return bucketIdentity(target as unknown as Bucket);
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== "function") return v;
      const fn = v as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const out = track(() => fn.apply(target, args));
        if (typeof (out as { then?: unknown } | null)?.then !== "function") return out;
        return (out as Promise<unknown>).then(wrapBody);
      };
    },
  });
}
