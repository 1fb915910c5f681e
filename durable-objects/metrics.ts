/**
 * The lake writer's own counters, cheap to keep (a few integer adds per batch) and cheap to read: what
 * `GET /v1/lakes/{lake}/metrics` answers and the explorer charts. Given a MetricsStore (the object's own
 * storage) they survive writer restarts: restored when the writer starts, saved at most every few seconds
 * (durable-objects/metrics-store.ts); `since` is when counting began. They hold no DuckLake rules: commit
 * outcomes arrive as codes.
 */
import { type MetricsStore, SaveThrottle } from "./metrics-store.ts";

/** Upper bounds (inclusive) of the batch-size histogram, in commits per batch; the last bucket is open. */
export const BATCH_SIZE_BOUNDS = [1, 2, 4, 8, 16, 32, 64, 128, 256] as const;
/** Upper bounds (inclusive) of the latency histograms, in ms; the last bucket is open. */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000] as const;
/** Width of one activity bucket (the charts' time resolution), in ms. */
export const ACTIVITY_BUCKET_MS = 10_000;
/** Activity buckets kept (the charts' window: 360 × 10 s = one hour). Older buckets are dropped. */
export const ACTIVITY_BUCKETS = 360;

/** Where a commit's time went: waiting to join a batch and for the slot, submission, durability. */
export type LatencyPhase = "queue" | "submit" | "durability" | "total";
const PHASES: LatencyPhase[] = ["queue", "submit", "durability", "total"];

export interface Histogram {
  /** Upper bounds of the buckets; `counts` has one more entry (the open bucket). */
  bounds: number[];
  counts: number[];
  count: number;
  sum: number;
  max: number;
}

export interface ActivityBucket {
  /** Bucket start, ms since the epoch. */
  t: number;
  commits: number;
  batches: number;
  conflicts: number;
  retries: number;
  failures: number;
  /** Sum and max of total commit latency in this bucket, ms. */
  latencyMsSum: number;
  latencyMsMax: number;
}

export interface MetricsSnapshot {
  since: number;
  commits: { ok: number; failed: number; replayed: number; byCode: Record<string, number> };
  batches: { count: number; members: number; sizes: Histogram };
  flushes: number;
  conflicts: number;
  retries: { total: number; byClass: Record<string, number> };
  latencyMs: Record<LatencyPhase, Histogram>;
  background: {
    passes: number;
    sweptKeys: number;
    maintenanceSteps: number;
    memtableFlushes: number;
    compactions: number;
    objectsDeleted: number;
  };
  /**
   * Bytes the store's maintenance wrote (memtable flushes, compaction) and moved, since the writer's store
   * last opened (a reopen starts them at zero); zeros when it is not open.
   */
  storeBytes: { flushed: number; compacted: number; moved: number };
  activity: { bucketMs: number; buckets: ActivityBucket[] };
}

function histogram(bounds: readonly number[]): Histogram {
  return {
    bounds: [...bounds],
    counts: new Array<number>(bounds.length + 1).fill(0),
    count: 0,
    sum: 0,
    max: 0,
  };
}

function observe(h: Histogram, v: number): void {
  let i = h.bounds.findIndex((b) => v <= b);
  if (i < 0) i = h.bounds.length;
  h.counts[i] = (h.counts[i] ?? 0) + 1;
  h.count++;
  h.sum += v;
  if (v > h.max) h.max = v;
}

const copy = (h: Histogram): Histogram => ({ ...h, bounds: [...h.bounds], counts: [...h.counts] });

/** The commit failure codes counted as retryable classes (a client may retry them). */
const RETRY_CLASSES = new Set(["CommitConflict", "RetryBudgetExhausted", "Unavailable", "Fenced"]);

/** The counters as saved (everything but `flushes` and `storeBytes`, which the store keeps). */
type SavedMetrics = Omit<MetricsSnapshot, "flushes" | "storeBytes">;

export class WriterMetrics {
  private since: number;
  private ok = 0;
  private failed = 0;
  private replayed = 0;
  private readonly byCode: Record<string, number> = {};
  private batches = 0;
  private members = 0;
  private readonly sizes = histogram(BATCH_SIZE_BOUNDS);
  private conflicts = 0;
  private retries = 0;
  private readonly retryByClass: Record<string, number> = {};
  private readonly latency: Record<LatencyPhase, Histogram>;
  private readonly bg = {
    passes: 0,
    sweptKeys: 0,
    maintenanceSteps: 0,
    memtableFlushes: 0,
    compactions: 0,
    objectsDeleted: 0,
  };
  private buckets: ActivityBucket[] = [];
  private readonly throttle: SaveThrottle;

  constructor(
    private readonly now: () => number,
    private readonly store?: MetricsStore,
  ) {
    this.since = now();
    this.latency = Object.fromEntries(PHASES.map((p) => [p, histogram(LATENCY_BOUNDS_MS)])) as Record<
      LatencyPhase,
      Histogram
    >;
    this.throttle = new SaveThrottle(now);
    this.restore(store?.load());
  }

  /** Takes over counters a previous activation saved (a value of another shape is ignored). */
  private restore(raw: unknown): void {
    const s = raw as SavedMetrics | undefined;
    if (!s || typeof s.since !== "number" || !s.commits || !s.latencyMs) return;
    this.since = s.since;
    this.ok = s.commits.ok;
    this.failed = s.commits.failed;
    this.replayed = s.commits.replayed;
    Object.assign(this.byCode, s.commits.byCode);
    this.batches = s.batches.count;
    this.members = s.batches.members;
    Object.assign(this.sizes, copy(s.batches.sizes));
    this.conflicts = s.conflicts;
    this.retries = s.retries.total;
    Object.assign(this.retryByClass, s.retries.byClass);
    for (const p of PHASES) if (s.latencyMs[p]) this.latency[p] = copy(s.latencyMs[p]);
    Object.assign(this.bg, s.background);
    this.buckets = s.activity.buckets.map((b) => ({ ...b }));
  }

  /** Saves the counters when the throttle allows (`force`: now, e.g. before the object ends). */
  save(force = false): void {
    if (!this.store || (!force && !this.throttle.due())) return;
    const { flushes: _f, storeBytes: _b, ...saved } = this.snapshot(0);
    this.store.save(saved);
  }

  private bucket(): ActivityBucket {
    const t = Math.floor(this.now() / ACTIVITY_BUCKET_MS) * ACTIVITY_BUCKET_MS;
    const last = this.buckets.at(-1);
    if (last && last.t === t) return last;
    const b: ActivityBucket = {
      t,
      commits: 0,
      batches: 0,
      conflicts: 0,
      retries: 0,
      failures: 0,
      latencyMsSum: 0,
      latencyMsMax: 0,
    };
    this.buckets.push(b);
    if (this.buckets.length > ACTIVITY_BUCKETS)
      this.buckets.splice(0, this.buckets.length - ACTIVITY_BUCKETS);
    return b;
  }

  /** A batch submitted: its size, how many attempts the group took, and each member's outcome code. */
  batch(
    size: number,
    attempts: number,
    outcomes: { ok: boolean; code?: string; replayed?: boolean }[],
  ): void {
    this.batches++;
    this.members += size;
    observe(this.sizes, size);
    const b = this.bucket();
    b.batches++;
    const retried = Math.max(0, attempts - 1);
    if (retried > 0) {
      this.retries += retried;
      this.retryByClass.headRace = (this.retryByClass.headRace ?? 0) + retried;
      b.retries += retried;
    }
    for (const o of outcomes) {
      if (o.replayed) this.replayed++;
      if (o.ok || o.code === undefined) continue;
      if (o.code === "CommitConflict") {
        this.conflicts++;
        b.conflicts++;
      }
      if (RETRY_CLASSES.has(o.code)) this.retryByClass[o.code] = (this.retryByClass[o.code] ?? 0) + 1;
    }
    this.save();
  }

  /** One caller's commit answered: ok or its code, and its phase timings in ms. */
  commit(ok: boolean, code: string | null, phases: Partial<Record<LatencyPhase, number>>): void {
    const b = this.bucket();
    if (ok) {
      this.ok++;
      b.commits++;
    } else {
      this.failed++;
      b.failures++;
      const c = code ?? "Internal";
      this.byCode[c] = (this.byCode[c] ?? 0) + 1;
    }
    for (const p of PHASES) {
      const v = phases[p];
      if (v !== undefined) observe(this.latency[p], Math.max(0, v));
    }
    const total = phases.total;
    if (total !== undefined) {
      b.latencyMsSum += total;
      if (total > b.latencyMsMax) b.latencyMsMax = total;
    }
    this.save();
  }

  /** A background pass and what it did. */
  background(report: {
    sweptKeys?: number;
    maintenanceSteps?: number;
    memtableFlushes?: number;
    compactions?: number;
    objectsDeleted?: number;
  }): void {
    this.bg.passes++;
    this.bg.sweptKeys += report.sweptKeys ?? 0;
    this.bg.maintenanceSteps += report.maintenanceSteps ?? 0;
    this.bg.memtableFlushes += report.memtableFlushes ?? 0;
    this.bg.compactions += report.compactions ?? 0;
    this.bg.objectsDeleted += report.objectsDeleted ?? 0;
    // A background pass is rare and often the last thing before the object is evicted: saved now.
    this.save(true);
  }

  snapshot(
    flushes: number,
    storeBytes: MetricsSnapshot["storeBytes"] = { flushed: 0, compacted: 0, moved: 0 },
  ): MetricsSnapshot {
    return {
      since: this.since,
      commits: { ok: this.ok, failed: this.failed, replayed: this.replayed, byCode: { ...this.byCode } },
      batches: { count: this.batches, members: this.members, sizes: copy(this.sizes) },
      flushes,
      conflicts: this.conflicts,
      retries: { total: this.retries, byClass: { ...this.retryByClass } },
      latencyMs: Object.fromEntries(PHASES.map((p) => [p, copy(this.latency[p])])) as Record<
        LatencyPhase,
        Histogram
      >,
      background: { ...this.bg },
      storeBytes: { ...storeBytes },
      activity: { bucketMs: ACTIVITY_BUCKET_MS, buckets: this.buckets.map((b) => ({ ...b })) },
    };
  }
}
