/**
 * The writer's maintenance queue: decides what is due, runs memtable flush, compaction and GC one at a
 * time (they never interleave, so none of them sees another's half-written tables), and starts a memtable
 * flush on its own when the host lets the WAL tail grow past the backstop. The backstop also seals the
 * records its flush leaves and, once L0 holds BACKSTOP_L0_FACTOR times the trigger, runs a compaction
 * step: a host whose own work keeps it from calling maintain() for a while (a long catalog job) must not
 * let the manifest or the read path grow meanwhile (docs/decisions/0160-gc-ledgers.md, "The backstop").
 */
import type { MaintainOptions, MaintenanceReport } from "./api.ts";
import { L0_MERGE_MAX_FACTOR } from "./compaction/plan.ts";
import { type CompactionStepResult, compactionDue, compactStep } from "./compaction/step.ts";
import { collectGarbage, dueLedgers, dueRecords, type GcResult, nextDueAt } from "./gc.ts";
import { mergeCandidates, mergeLedgers, sealDue, sealLedger } from "./gc-ledger.ts";
import type { MaintenanceContext } from "./maintenance.ts";
import { ledgerRefs, type Manifest } from "./manifest.ts";
import { flushMemtable } from "./memtable-flush.ts";
import { manifestTables } from "./table-record.ts";

/**
 * L0 tables, as a multiple of `l0CompactionTrigger`, at which the backstop compacts on its own. Each L0
 * table is one more layer every read consults; an L0 merge is due by L0_MERGE_MAX_FACTOR times the
 * trigger at the latest (compaction/plan.ts), so one table-count step past that a host has skipped at
 * least one compaction it was asked for, and the store starts it (one bounded step per backstop flush).
 */
export const BACKSTOP_L0_FACTOR = L0_MERGE_MAX_FACTOR + 1;

export class Maintainer {
  private queue: Promise<unknown> = Promise.resolve();
  private running = 0;
  /** Due records the last GC pass had to keep (pinned), and the manifest checkpoints it saw then. */
  private pinned = new Set<string>();
  private pinnedFor = "";
  private compactionFor: Manifest | undefined;
  private compactionNeeded = false;
  /** The last error a background (backstop) flush hit; the host's next maintain() call retries. */
  backgroundError: unknown;

  constructor(readonly ctx: MaintenanceContext) {}

  get busy(): boolean {
    return this.running > 0;
  }

  flushDue(): boolean {
    const t = this.ctx.tail();
    const p = this.ctx.policy;
    return (
      this.ctx.frozen() !== undefined || t.segments >= p.flushAfterSegments || t.bytes >= p.flushAfterBytes
    );
  }

  compactionDue(): boolean {
    // Asked after every host flush: parse the manifest's table records once per version.
    const m = this.ctx.manifest();
    if (this.compactionFor !== m) {
      this.compactionFor = m;
      this.compactionNeeded = compactionDue(this.ctx.lake, m, this.ctx.policy);
    }
    return this.compactionNeeded;
  }

  gcDue(now: number): boolean {
    const m = this.ctx.manifest();
    if (m.checkpoints.some((c) => c.expiresAt <= now)) return true;
    const skip = this.skipSet();
    const grace = this.ctx.policy.gcGraceMs;
    return (
      dueRecords(m, now, grace).some((r) => !skip.has(r.key)) ||
      dueLedgers(m, now, grace).some((r) => !skip.has(r.key))
    );
  }

  /** Sealing inline GC records into a ledger, or merging ledgers, is due (gc-ledger.ts). */
  ledgerDue(now: number): boolean {
    const m = this.ctx.manifest();
    return sealDue(m) || mergeCandidates(m, now, this.ctx.policy.gcGraceMs) !== undefined;
  }

  needs(): boolean {
    if (this.ctx.failure() !== undefined) return false;
    const now = this.ctx.now();
    return this.flushDue() || this.compactionDue() || this.gcDue(now) || this.ledgerDue(now);
  }

  nextAt(): number | undefined {
    if (this.ctx.failure() !== undefined) return undefined;
    return nextDueAt(this.ctx.manifest(), this.ctx.policy.gcGraceMs, this.skipSet());
  }

  /** Called after every segment lands: the backstop for hosts that never call maintain(). */
  afterSegment(): void {
    const t = this.ctx.tail();
    const p = this.ctx.policy;
    if (this.running > 0 || this.ctx.failure() !== undefined) return;
    if (t.segments < p.forceFlushAfterSegments && t.bytes < 4 * p.flushAfterBytes) return;
    // The flush records every segment it covers as unreferenced; seal them here too, or a host busy
    // elsewhere (its own jobs between maintain() calls) lets them pile up inline in every manifest
    // (docs/decisions/0160-gc-ledgers.md, "The backstop seals too").
    this.run(async () => {
      await flushMemtable(this.ctx);
      const l0 = manifestTables(this.ctx.lake, this.ctx.manifest().sortedTables).l0.length;
      if (l0 >= BACKSTOP_L0_FACTOR * p.l0CompactionTrigger) await compactStep(this.ctx);
      await sealLedger(this.ctx);
      await mergeLedgers(this.ctx);
    }).then(
      () => {
        this.backgroundError = undefined;
      },
      (e: unknown) => {
        this.backgroundError = e;
      },
    );
  }

  flushMemtable(): Promise<boolean> {
    return this.run(() => flushMemtable(this.ctx));
  }

  compact(
    options: { budgetBytes?: number; force?: boolean } = {},
  ): Promise<CompactionStepResult | undefined> {
    return this.run(() => compactStep(this.ctx, options));
  }

  collectGarbage(): Promise<GcResult> {
    return this.run(async () => {
      const r = await collectGarbage(this.ctx);
      this.rememberPinned(r);
      return r;
    });
  }

  maintain(options: MaintainOptions = {}): Promise<MaintenanceReport> {
    return this.run(async () => {
      const report: MaintenanceReport = { memtableFlushed: false, objectsDeleted: 0, more: false };
      if (options.forceFlush || this.flushDue()) report.memtableFlushed = await flushMemtable(this.ctx);
      const step = await compactStep(this.ctx, {
        ...(options.budgetBytes !== undefined ? { budgetBytes: options.budgetBytes } : {}),
        ...(options.forceCompaction ? { force: true } : {}),
      });
      if (step !== undefined) report.compaction = step;
      if (this.gcDue(this.ctx.now()) || this.ctx.orphansPossible) {
        const gc = await collectGarbage(this.ctx);
        this.rememberPinned(gc);
        report.objectsDeleted = gc.deleted;
      }
      // After GC, so records it just deleted are not sealed first.
      await sealLedger(this.ctx);
      await mergeLedgers(this.ctx);
      report.more = this.needs();
      return report;
    });
  }

  private rememberPinned(r: GcResult): void {
    this.pinned = new Set(r.pinned);
    this.pinnedFor = this.checkpointSignature();
  }

  /** Pinned records stay skipped until the checkpoints (what pins them) or the published cut change. */
  private skipSet(): ReadonlySet<string> {
    if (this.pinned.size === 0) return this.pinned;
    if (this.pinnedFor !== this.checkpointSignature()) this.pinned = new Set();
    return this.pinned;
  }

  private checkpointSignature(): string {
    const m = this.ctx.manifest();
    return JSON.stringify([m.checkpoints.map((c) => c.id), m.unreferenced.length, ledgerRefs(m).length]);
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    this.running++;
    const out = this.queue.then(task).finally(() => {
      this.running--;
    });
    this.queue = out.catch(() => {});
    return out;
  }
}
