/** The writer's tunables, with defaults chosen for R2 (see README "Defaults"). */
import type { MaintenancePolicy, WriterOptions as StoreOptions } from "../storage/api.ts";
import { IDLE_FLUSH_AFTER_MS } from "./idle-flush.ts";

export interface WriterTunables {
  /**
   * Flush spacing S in ms (decision 0463). 100 ms: an R2 PUT from a Durable Object takes tens to
   * hundreds of ms, so a spacing near one PUT adds little to a burst's latency (at most S + one PUT)
   * while the floor (S/10 = 10 ms) caps one writer at 100 segment PUTs per second.
   */
  flushSpacingMs: number;
  /** A coalesced batch seals at this many requests (decision 0463: 64). */
  maxBatchMembers: number;
  /** How long one submission may hold the slot before its batch is given up as unknown (decision 0463: 5 min). */
  slotBoundMs: number;
  /** A commit parked in one phase longer than this is reported, and again every interval after. */
  stallReportMs: number;
  /**
   * Capacity backpressure: a submission waits (holding the slot, so under its bound) while this many
   * applied batches are still not durable. Bounds memory when R2 stops answering.
   */
  maxUnflushedBatches: number;
  /** Background work reruns this soon while it has more to do. */
  backgroundSliceDelayMs: number;
  /** After commits, background work (idempotency sweep) runs this long after the last one. */
  backgroundIdleDelayMs: number;
  /** A deleted lake's objects are removed after this grace period. */
  deleteGraceMs: number;
  /**
   * After an admin purge (objects removed at once), the name is free this long after the delete: longer
   * than a Worker's immutable-object cache may hold the old lake's bytes under the same keys
   * (worker/object-cache.ts CACHE_LIFETIME_MS, 1 h) plus a read's life. docs/decisions/0480-lake-purge.md.
   */
  purgedNameReuseMs: number;
  /**
   * How long a delete waits for commits already admitted to be answered before it gives up (Unavailable,
   * the lake unchanged). 30 s: far above a healthy commit (a PUT or two), well under a client's patience.
   */
  deleteDrainBoundMs: number;
  /** First re-arm delay after a failed background pass; doubles per consecutive failure. */
  backgroundRetryBaseMs: number;
  /** Ceiling of that backoff: a bucket away for hours is retried at least this often, never given up. */
  backgroundRetryMaxMs: number;
  /**
   * The yield (docs/decisions/0261-commit-yield.md): after a lone minting commit (a client-side DuckLake
   * batch: DDL) loses its race, batched arrivals hold this long before staging, or until a lone commit
   * lands, so DuckLake's re-driven DDL finds a gap under writers that commit without pause. 250 ms: above
   * DuckLake's first retry wait (100 ms) plus a round trip; one hiccup per schema change for the writers.
   */
  yieldHoldMs: number;
  /**
   * Longest a maintenance job's pause waits for the appenders' commits in flight to land before its next
   * stretch of work (docs/decisions/0326-maintenance-yields-to-commits.md). A stream of back-to-back
   * commits never leaves the writer idle, so the bound is what keeps the job moving under one: each
   * stretch then runs once per this many ms at most, and at most one commit waits behind it.
   */
  maintenanceYieldMaxMs: number;
  /**
   * The background pass flushes the memtable once no commit has arrived for this long, so the next wake
   * reads a covered WAL instead of a long tail (`IDLE_FLUSH_AFTER_MS`, docs/decisions/0178-idle-memtable-flush.md).
   */
  idleFlushAfterMs: number;
  /**
   * Whether the background pass runs the lake's maintenance jobs (flush, merge, rewrite, expire, delete;
   * decision 0323). Off only by the Worker var `SCHEDULED_MAINTENANCE = "disabled"`: DuckLake's own suite
   * runs against `wrangler dev` with data paths on the client's disk, which a job's Parquet, written to
   * R2, never reaches (docs/decisions/0411-suite-without-scheduled-maintenance.md). Explicit runs
   * (`POST …/maintenance`, the Quack CALLs) are unaffected.
   */
  scheduledMaintenance: boolean;
  /** How long an idempotency key is honoured, in ms (the catalog's default when unset: 24 h). */
  idempotencyTtlMs?: number;
  /** The store's background-work tuning (memtable flush, compaction, GC); storage's defaults when unset. */
  storeMaintenance?: MaintenancePolicy;
  /** Bucket retry bound handed to the store. */
  storeRetry?: StoreOptions["retry"];
}

export const DEFAULT_TUNABLES: WriterTunables = {
  flushSpacingMs: 100,
  maxBatchMembers: 64,
  slotBoundMs: 5 * 60_000,
  stallReportMs: 10_000,
  maxUnflushedBatches: 1024,
  backgroundSliceDelayMs: 1_000,
  backgroundIdleDelayMs: 60_000,
  deleteGraceMs: 24 * 60 * 60_000,
  purgedNameReuseMs: 2 * 60 * 60_000,
  deleteDrainBoundMs: 30_000,
  backgroundRetryBaseMs: 1_000,
  backgroundRetryMaxMs: 15 * 60_000,
  yieldHoldMs: 250,
  maintenanceYieldMaxMs: 100,
  idleFlushAfterMs: IDLE_FLUSH_AFTER_MS,
  scheduledMaintenance: true,
};

/**
 * The grace before a deleted lake's objects are removed and its name is free: shorter once an admin purged
 * it (its objects are already gone; docs/decisions/0480-lake-purge.md).
 */
export function graceOf(tunables: WriterTunables, rec: { purged?: boolean } | undefined): number {
  return rec?.purged ? tunables.purgedNameReuseMs : tunables.deleteGraceMs;
}
