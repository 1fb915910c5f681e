/**
 * A fault-injecting wrapper around a real Bucket (miniflare's R2 in tests and benchmarks — never a fake).
 * It adds latency, errors, ambiguous writes and crashes on top of the real semantics, and counts every
 * call by kind and key so tests can assert R2 costs. See storage/README.md for the API.
 */
import type {
  Bucket,
  BucketGetOptions,
  BucketListOptions,
  BucketListResult,
  BucketObject,
  BucketObjectBody,
  BucketPutOptions,
} from "./api.ts";

export type BucketOp = "put" | "get" | "head" | "list" | "delete";

/** Where a call ended: returned normally, returned null (absent / precondition failed), or threw. */
export type OpOutcome = "ok" | "null" | "error" | "ambiguous" | "crashed";

export interface OpRecord {
  op: BucketOp;
  /** The object key (for list: the listed prefix, "" when none). */
  key: string;
  outcome: OpOutcome;
}

interface Match {
  /** Only these operations (default: all). */
  op?: BucketOp | readonly BucketOp[];
  /** Only keys starting with this (for list: the list prefix). */
  prefix?: string;
}

export interface FaultRule extends Match {
  /**
   * "error": the call fails before reaching the bucket (a write does not land).
   * "ambiguous": the call reaches the bucket (a write lands), then the caller sees an error.
   */
  kind?: "error" | "ambiguous";
  /** Chance that a matching call is hit (default 1), drawn from the seeded generator. */
  probability?: number;
  /** Hit only the nth matching call (1-based), counted from when the rule was added. */
  nth?: number;
  /** Hit at most this many calls (default: 1 with `nth`, unlimited otherwise). */
  times?: number;
}

export interface LatencyRule extends Match {
  /** Fixed delay in ms, or a sampler given a seeded uniform [0,1) generator. */
  ms: number | ((random: () => number) => number);
}

export interface GateRule extends Match {
  /** Hold only the nth matching call (1-based), counted from when the gate was added (default: every one). */
  nth?: number;
}

/**
 * A gate holds matching calls before they reach the bucket until it is released: tests order events with
 * it instead of sleeping. `reached` resolves once the first call is held, so a test knows the call is
 * in flight (and exactly where) before it acts.
 */
export interface Gate {
  /** Resolves when the first matching call is held at the gate. */
  readonly reached: Promise<void>;
  /** Calls held so far (including released ones). */
  readonly held: number;
  /** Resolves once `n` calls have been held (all at once, while the gate is closed). */
  whenHeld(n: number): Promise<void>;
  /** Lets every held call, and every later matching one, through; removes the gate. */
  release(): void;
}

/** The error every injected failure throws. */
export class InjectedFault extends Error {
  readonly code: string;
  constructor(message: string, code: "InjectedFault" | "InjectedCrash" = "InjectedFault") {
    super(message);
    this.name = code;
    this.code = code;
  }
}

interface ArmedGate {
  rule: GateRule;
  seen: number;
  held: number;
  open: Promise<void>;
  release: () => void;
  reach: () => void;
  waiters: { n: number; resolve: () => void }[];
}

interface ArmedFault {
  rule: FaultRule;
  seen: number;
  fired: number;
}

/** mulberry32: small, seedable, good enough to make fault schedules reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function matches(m: Match, op: BucketOp, key: string): boolean {
  if (m.op !== undefined && (typeof m.op === "string" ? m.op !== op : !m.op.includes(op))) return false;
  return m.prefix === undefined || key.startsWith(m.prefix);
}

export class FaultBucket implements Bucket {
  /** Every call in order, including failed ones. */
  readonly log: OpRecord[] = [];
  readonly random: () => number;
  private faults: ArmedFault[] = [];
  private latencies: LatencyRule[] = [];
  private gates: ArmedGate[] = [];
  private crashBudget: number | undefined;
  private isCrashed = false;

  constructor(
    readonly inner: Bucket,
    options: { seed?: number } = {},
  ) {
    this.random = seeded(options.seed ?? 1);
  }

  /** Adds a fault rule; returns a function that removes it. */
  fail(rule: FaultRule): () => void {
    const armed: ArmedFault = { rule, seen: 0, fired: 0 };
    this.faults.push(armed);
    return () => {
      this.faults = this.faults.filter((f) => f !== armed);
    };
  }

  /** Adds latency to matching calls (all matching rules add up); returns a remover. */
  delay(rule: LatencyRule): () => void {
    this.latencies.push(rule);
    return () => {
      this.latencies = this.latencies.filter((r) => r !== rule);
    };
  }

  /** Holds matching calls until released (see `Gate`); a crash or fault rule still applies after release. */
  hold(rule: GateRule = {}): Gate {
    let release!: () => void;
    let reach!: () => void;
    const open = new Promise<void>((r) => {
      release = r;
    });
    const reached = new Promise<void>((r) => {
      reach = r;
    });
    const armed: ArmedGate = { rule, seen: 0, held: 0, open, release, reach, waiters: [] };
    this.gates.push(armed);
    return {
      reached,
      get held() {
        return armed.held;
      },
      whenHeld: (n) =>
        armed.held >= n
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              armed.waiters.push({ n, resolve });
            }),
      release: () => {
        this.gates = this.gates.filter((g) => g !== armed);
        armed.release();
      },
    };
  }

  /**
   * After `n` more writes (put/delete calls) land, the process "crashes": the next write does not land
   * and every later call of any kind fails with InjectedCrash.
   */
  crashAfterWrites(n: number): void {
    this.crashBudget = n;
  }

  get crashed(): boolean {
    return this.isCrashed;
  }

  /** Removes all fault and latency rules and any pending crash (a crash that happened stays); opens every gate. */
  clearFaults(): void {
    this.faults = [];
    this.latencies = [];
    for (const g of this.gates) g.release();
    this.gates = [];
    this.crashBudget = undefined;
  }

  /** Calls matching the filter. */
  count(filter: Match & { outcome?: OpOutcome | readonly OpOutcome[] } = {}): number {
    let n = 0;
    for (const r of this.log) {
      if (!matches(filter, r.op, r.key)) continue;
      const o = filter.outcome;
      if (o !== undefined && (typeof o === "string" ? o !== r.outcome : !o.includes(r.outcome))) continue;
      n++;
    }
    return n;
  }

  /** Calls by kind. */
  counts(prefix?: string): Record<BucketOp, number> {
    const c: Record<BucketOp, number> = { put: 0, get: 0, head: 0, list: 0, delete: 0 };
    for (const r of this.log) if (prefix === undefined || r.key.startsWith(prefix)) c[r.op]++;
    return c;
  }

  resetCounters(): void {
    this.log.length = 0;
  }

  put(
    key: string,
    value: ArrayBuffer | ArrayBufferView | string | ReadableStream | null,
    options?: BucketPutOptions,
  ): Promise<BucketObject | null> {
    return this.call("put", key, true, () => this.inner.put(key, value, options));
  }

  get(key: string, options?: BucketGetOptions): Promise<BucketObjectBody | null> {
    return this.call("get", key, false, () => this.inner.get(key, options));
  }

  head(key: string): Promise<BucketObject | null> {
    return this.call("head", key, false, () => this.inner.head(key));
  }

  list(options?: BucketListOptions): Promise<BucketListResult> {
    return this.call("list", options?.prefix ?? "", false, () => this.inner.list(options));
  }

  delete(keys: string | string[]): Promise<void> {
    const first = typeof keys === "string" ? keys : (keys[0] ?? "");
    return this.call("delete", first, true, () => this.inner.delete(keys));
  }

  private async call<T>(op: BucketOp, key: string, isWrite: boolean, run: () => Promise<T>): Promise<T> {
    const rec: OpRecord = { op, key, outcome: "ok" };
    this.log.push(rec);
    if (this.isCrashed) {
      rec.outcome = "crashed";
      throw new InjectedFault(`${op} ${key}: the bucket client crashed earlier`, "InjectedCrash");
    }
    for (const g of [...this.gates]) {
      if (!matches(g.rule, op, key)) continue;
      g.seen++;
      if (g.rule.nth !== undefined && g.seen !== g.rule.nth) continue;
      g.held++;
      g.reach();
      for (const w of g.waiters.filter((x) => x.n <= g.held)) w.resolve();
      g.waiters = g.waiters.filter((x) => x.n > g.held);
      await g.open;
      if (this.isCrashed) {
        rec.outcome = "crashed";
        throw new InjectedFault(
          `${op} ${key}: the bucket client crashed while this call was held`,
          "InjectedCrash",
        );
      }
    }
    let wait = 0;
    for (const l of this.latencies) {
      if (matches(l, op, key)) wait += typeof l.ms === "number" ? l.ms : l.ms(this.random);
    }
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const hit = this.pickFault(op, key);
    if (hit === "error") {
      rec.outcome = "error";
      throw new InjectedFault(`${op} ${key}: injected failure (nothing reached the bucket)`);
    }
    if (isWrite && this.crashBudget !== undefined) {
      if (this.crashBudget <= 0) {
        this.isCrashed = true;
        rec.outcome = "crashed";
        throw new InjectedFault(`${op} ${key}: injected crash (this write did not land)`, "InjectedCrash");
      }
      this.crashBudget--;
    }
    const result = await run();
    if (hit === "ambiguous") {
      rec.outcome = "ambiguous";
      throw new InjectedFault(`${op} ${key}: injected lost acknowledgement (the call did reach the bucket)`);
    }
    rec.outcome = result === null ? "null" : "ok";
    return result;
  }

  private pickFault(op: BucketOp, key: string): "error" | "ambiguous" | undefined {
    for (const f of this.faults) {
      if (!matches(f.rule, op, key)) continue;
      f.seen++;
      const limit = f.rule.times ?? (f.rule.nth !== undefined ? 1 : Number.POSITIVE_INFINITY);
      if (f.fired >= limit) continue;
      if (f.rule.nth !== undefined && f.seen !== f.rule.nth) continue;
      if (f.rule.probability !== undefined && this.random() >= f.rule.probability) continue;
      f.fired++;
      return f.rule.kind ?? "error";
    }
    return undefined;
  }
}
