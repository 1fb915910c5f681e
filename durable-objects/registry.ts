/**
 * What the object remembers about its lake between activations, in its own storage (SQLite-backed KV in
 * the Durable Object, a Map in benchmarks). R2 stays the source of truth; this record only saves R2
 * round trips on a wake (existence, the held writer epoch) and carries per-lake settings and the name the
 * alarm needs (an alarm has no arguments and the object cannot learn its own name).
 */
export interface LakeRecord {
  lake: string;
  state: "live" | "deleted";
  /** The writer epoch the last activation opened with (storage's `heldEpoch` shortcut). */
  epoch?: number;
  /** When the lake was marked deleted (ms since the epoch). */
  deletedAt?: number;
  /** True once an admin purged it: objects removed at once, the name free after `purgedNameReuseMs`. */
  purged?: boolean;
  /** Per-lake flush spacing, overriding the default. */
  flushSpacingMs?: number;
  /** True when commits happened since the last background pass. */
  dirty?: boolean;
  /**
   * When maintenance jobs 4-5 next have work (ms since the epoch): the alarm runs the pass then even if
   * no commit came since (decision docs/decisions/0324-maintenance-alarm.md).
   */
  maintenanceDueAt?: number;
  /**
   * When the idle memtable flush is due (ms since the epoch): applied batches live only in the WAL tail,
   * and the alarm flushes them then even if the object was evicted meanwhile
   * (docs/decisions/0178-idle-memtable-flush.md). Absent when the sorted tables cover every batch.
   */
  idleFlushAt?: number;
  /** Consecutive failed background passes (drives the re-arm backoff); 0 or absent after a success. */
  backgroundFailures?: number;
}

export interface LakeRegistry {
  get(): LakeRecord | undefined;
  put(record: LakeRecord): void;
  delete(): void;
}

export class MemoryRegistry implements LakeRegistry {
  private record: LakeRecord | undefined;
  get(): LakeRecord | undefined {
    return this.record === undefined ? undefined : { ...this.record };
  }
  put(record: LakeRecord): void {
    this.record = { ...record };
  }
  delete(): void {
    this.record = undefined;
  }
}
