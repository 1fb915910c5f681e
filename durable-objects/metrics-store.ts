/**
 * Where the writer's counters live between activations: the object's own storage, so
 * `GET …/metrics` counts (and the explorer's charts show) more than the current activation
 * (docs/decisions/0483-metrics-persisted-and-prometheus.md). Saved at most every
 * METRICS_SAVE_INTERVAL_MS while counters change: an instance that dies loses at most that much counting.
 */

/** The least time between two saves of the counters (ms). */
export const METRICS_SAVE_INTERVAL_MS = 5_000;

/** A place to keep one JSON-able value: the Durable Object's KV, or a Map in tests and benchmarks. */
export interface MetricsStore {
  load(): unknown;
  save(state: unknown): void;
}

const KEY = "metrics";

/** The object's synchronous KV (SQLite-backed Durable Object storage). */
export function objectMetricsStore(storage: DurableObjectStorage): MetricsStore {
  return {
    load: () => storage.kv.get(KEY),
    save: (state) => storage.kv.put(KEY, state),
  };
}

/** Forgets the saved counters (the lake's name is served afresh once a deleted lake is removed). */
export function clearObjectMetrics(storage: DurableObjectStorage): void {
  storage.kv.delete(KEY);
}

/** Calls `save` when `now` has moved METRICS_SAVE_INTERVAL_MS past the last save. */
export class SaveThrottle {
  private last = Number.NEGATIVE_INFINITY;
  constructor(private readonly now: () => number) {}
  due(): boolean {
    const t = this.now();
    if (t - this.last < METRICS_SAVE_INTERVAL_MS) return false;
    this.last = t;
    return true;
  }
}
