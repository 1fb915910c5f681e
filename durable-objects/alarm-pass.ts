/**
 * One background pass (the object's alarm), in a fixed, visible order. Every step is idempotent and
 * resumable, so an alarm delivered twice, or cut short by a crash, is harmless:
 *  1. a deleted lake: remove its objects in slices once the grace period has passed;
 *  2. an idle lake this activation never opened: wake only for recorded due work, else sleep;
 *  3. sweep expired idempotency keys (through the submission slot);
 *  4. the row flusher, when due;
 *  5. the maintenance jobs the lake's settings switch on, and when jobs 4-5 next have work;
 *  6. the store's own maintenance (the idle memtable flush first when due, then while the store asks);
 *  7. the next alarm (`schedule.ts`).
 * A failed pass re-arms with backoff (docs/decisions/0111-background-retry-and-alarm.md).
 */
import type { StoredJobRun } from "../maintenance/history.ts";
import type { PassSelection } from "../maintenance/run.ts";
import { passFollowUp } from "../maintenance/schedule.ts";
import type { MaintainOptions, MaintenanceReport, Store } from "../storage/api.ts";
import { CodedError, Fenced } from "../storage/errors.ts";
import { idleFlushAt } from "./idle-flush.ts";
import type { WriterMetrics } from "./metrics.ts";
import type { LakeRecord } from "./registry.ts";
import { backgroundRetryDelay, idleFlushWakeAt, idleWake, nextPassDelay } from "./schedule.ts";
import type { FrontDeps, Session } from "./types.ts";

/** Idempotency keys one sweep removes at most. */
export const SWEEP_LIMIT = 500;
/** Store maintenance steps one background pass may run before it yields to the next alarm. */
export const MAINTENANCE_STEPS = 4;

/** What the pass needs from the front (it never calls another part). */
export interface AlarmPassDeps extends FrontDeps {
  metrics: WriterMetrics;
  removeDeleted(rec: LakeRecord): Promise<void>;
  flushRowsIfDue(s: Session): Promise<void>;
  maintenancePass(s: Session, selection: PassSelection): Promise<StoredJobRun[]>;
  maintenanceDueAt(s: Session, progressed: boolean): Promise<number | undefined>;
}

export class AlarmPass {
  /** Expired idempotency keys removed by this instance's sweeps. */
  swept = 0;
  private backgroundArmed = false;
  private maintenanceArmed = false;

  constructor(private readonly d: AlarmPassDeps) {}

  /** The alarm: one pass; a failure re-arms with backoff, a success clears the failure count. */
  async run(): Promise<void> {
    const { registry } = this.d.host;
    try {
      await this.pass();
    } catch (e) {
      this.failed(e);
      return;
    }
    const rec = registry.get();
    if (rec?.backgroundFailures) registry.put({ ...rec, backgroundFailures: 0 });
  }

  /** After a landed commit: mark the lake dirty and run a pass after the idle delay (once per pass). */
  armAfterCommit(): void {
    if (this.backgroundArmed) return;
    this.backgroundArmed = true;
    this.markDirty();
    this.d.host.scheduleBackground(this.d.host.tunables.backgroundIdleDelayMs);
  }

  /** After a store flush: the store asks for maintenance once its WAL tail is long; run it off the commit path. */
  armForStore(store: Store): void {
    if (!store.needsMaintenance || this.maintenanceArmed) return;
    this.maintenanceArmed = true;
    this.markDirty();
    this.d.host.scheduleBackground(this.d.host.tunables.backgroundSliceDelayMs);
  }

  private markDirty(): void {
    const { registry } = this.d.host;
    const rec = registry.get();
    if (rec !== undefined && rec.state === "live" && !rec.dirty) registry.put({ ...rec, dirty: true });
  }

  /**
   * Any failure of a pass re-arms it with exponential backoff (base `backgroundRetryBaseMs`, doubling,
   * at most `backgroundRetryMaxMs`) and says so: removal of a deleted lake and maintenance must never stop
   * for good because the bucket was away once. The count lives in the registry, so it survives restarts.
   */
  private failed(e: unknown): void {
    const { host } = this.d;
    const rec = host.registry.get();
    const failures = (rec?.backgroundFailures ?? 0) + 1;
    if (rec !== undefined) host.registry.put({ ...rec, backgroundFailures: failures });
    const delayMs = backgroundRetryDelay(host.tunables, failures);
    host.scheduleBackground(delayMs);
    host.log("warn", {
      msg: "background work failed; re-armed with backoff",
      lake: host.lake,
      state: rec?.state ?? "unknown",
      failures,
      retryInMs: delayMs,
      code: e instanceof CodedError ? e.code : null,
      error: e instanceof Error ? e.message : String(e),
    });
  }

  private async pass(): Promise<void> {
    const { host } = this.d;
    const rec = host.registry.get();
    if (rec === undefined) return;
    // 1. A deleted lake.
    if (rec.state === "deleted") return this.d.removeDeleted(rec);
    // 2. An idle lake wakes only for maintenance that has come due: a retention or grace that ended with
    // no commit since (docs/decisions/0324-maintenance-alarm.md), or the idle flush of batches an evicted
    // instance left in the WAL tail (docs/decisions/0178-idle-memtable-flush.md).
    if (!rec.dirty && this.d.current() === undefined) {
      const wake = idleWake(rec, host.now());
      if (wake === "sleep") return;
      if (wake !== "run") return host.scheduleBackground(wake.delayMs);
    }
    const s = await this.d.ready();
    this.backgroundArmed = false;
    this.maintenanceArmed = false;
    host.registry.put({ ...rec, dirty: false });
    // 3. The idempotency sweep.
    const removed = await this.sweep(s);
    // 4. The row flusher.
    await this.d.flushRowsIfDue(s);
    let more = removed >= SWEEP_LIMIT;
    // 5. The maintenance jobs (maintenance/run.ts), each an ordinary commit through the coalescer or a
    // head-preserving batch in its slot; what their runs mean for the next alarm is maintenance/'s.
    let timedProgress = false;
    // Off only by the tunable `scheduledMaintenance` (decision 0411); explicit runs are unaffected.
    if (!this.d.terminal() && host.tunables.scheduledMaintenance) {
      const follow = passFollowUp(await this.d.maintenancePass(s, { scheduled: true }));
      more ||= follow.more;
      timedProgress = follow.timedProgress;
    }
    const dueAt = this.d.terminal() ? undefined : await this.d.maintenanceDueAt(s, timedProgress);
    // 6. The store's maintenance.
    more = await this.storeMaintenance(s, removed, more);
    // 7. The next alarm.
    const idleAt = this.d.terminal() ? undefined : this.recordIdleFlushAt(s);
    const delay = nextPassDelay(more, [s.store.nextMaintenanceAt, dueAt, idleAt], host.now(), host.tunables);
    if (delay !== undefined) host.scheduleBackground(delay);
  }

  private async sweep(s: Session): Promise<number> {
    const swept = await this.d.exclusive(async () => {
      const before = s.store.position;
      try {
        return await s.catalog.sweepIdempotencyKeys(SWEEP_LIMIT);
      } finally {
        if (s.store.position !== before) s.pacer.arrived(1);
      }
    });
    await swept.durable;
    this.swept += swept.removed;
    if (swept.removed > 0) {
      this.d.host.log("info", {
        msg: "swept expired idempotency keys",
        lake: this.d.host.lake,
        removed: swept.removed,
      });
    }
    return swept.removed;
  }

  /**
   * The idle flush first when due (docs/decisions/0178-idle-memtable-flush.md: no commit for
   * idleFlushAfterMs and none in flight, so the first step flushes the memtable whatever its size), then
   * store maintenance steps while the store asks, at most MAINTENANCE_STEPS. Answers whether work is left.
   */
  private async storeMaintenance(s: Session, sweptKeys: number, moreBefore: boolean): Promise<boolean> {
    let more = moreBefore;
    const done = { sweptKeys, maintenanceSteps: 0, memtableFlushes: 0, compactions: 0, objectsDeleted: 0 };
    let idle = this.idleFlushDue(s);
    // Recorded before it runs: if the flush fails (or the instance dies in it), the re-armed alarm of an
    // evicted object still finds it due and opens the lake to run it again.
    if (idle && !this.d.terminal()) this.recordIdleFlushAt(s);
    try {
      for (
        let step = 0;
        step < MAINTENANCE_STEPS && (idle || s.store.needsMaintenance) && !this.d.terminal();
        step++
      ) {
        const report = await this.maintain(s, idle ? { forceFlush: true } : {});
        idle = false;
        done.maintenanceSteps++;
        if (report.memtableFlushed) done.memtableFlushes++;
        if (report.compaction) done.compactions++;
        done.objectsDeleted += report.objectsDeleted;
        more = report.more;
      }
    } finally {
      this.d.metrics.background(done);
    }
    return more;
  }

  /** The idle flush is due now: its time has come and no commit is in flight (it would reset the clock). */
  private idleFlushDue(s: Session): boolean {
    const at = this.idleFlushState(s);
    return at !== undefined && at <= this.d.host.now() && this.d.shared.tickets.size === 0;
  }

  private idleFlushState(s: Session): number | undefined {
    return idleFlushAt(
      {
        position: s.store.position,
        coveredPosition: s.store.coveredPosition,
        lastCommitAt: this.d.shared.lastCommitAt,
      },
      this.d.host.tunables.idleFlushAfterMs,
    );
  }

  /**
   * When the idle flush is next due, kept in the registry so an evicted object's alarm still runs it;
   * cleared once the sorted tables cover every batch, so an idle lake's alarm stops re-arming for it.
   */
  private recordIdleFlushAt(s: Session): number | undefined {
    const { host } = this.d;
    const at = idleFlushWakeAt(this.idleFlushState(s), host.now(), host.tunables);
    const rec = host.registry.get();
    if (rec !== undefined && rec.state === "live" && rec.idleFlushAt !== at) {
      const { idleFlushAt: _, ...rest } = rec;
      host.registry.put(at === undefined ? rest : { ...rest, idleFlushAt: at });
    }
    return at;
  }

  /** One maintenance step of the store; a failure that stops the store is terminal like any other. */
  private async maintain(s: Session, options: MaintainOptions = {}): Promise<MaintenanceReport> {
    const { host } = this.d;
    const t0 = host.clock.now();
    try {
      const report = await s.store.maintain(options);
      host.log("info", {
        msg: "store maintenance step",
        lake: host.lake,
        ...(options.forceFlush ? { idleFlush: true } : {}),
        memtableFlushed: report.memtableFlushed,
        compaction: report.compaction ?? null,
        objectsDeleted: report.objectsDeleted,
        more: report.more,
        ms: Math.round(host.clock.now() - t0),
      });
      return report;
    } catch (e) {
      if (e instanceof Fenced) this.d.terminate(e);
      throw e;
    }
  }
}
