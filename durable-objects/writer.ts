/**
 * The lake writer: a front that only wires its parts, free of the Durable Object shell so benchmarks run
 * the same code in Node. Each part does one job and never calls another part or the front; it reports
 * events (a batch landed, a flush landed, a deleted lake found), and the front turns them into actions
 * (arm the alarm, arm the row flusher, record the deletion). State more than one part reads lives in one
 * record the front owns (`SharedState`: the tickets, `lastCommitAt`, `rowFlushDueAt`).
 *
 *   lifecycle.ts   live → draining → deleted | terminal; the terminal answers
 *   session.ts     lazy memoised open, takeover; the durable head, checkpoints
 *   arrivals.ts    the yield and the quiet wait
 *   commit-path.ts admit → coalesce → submit → durable → answer
 *   deletion.ts    the delete, then removal after the grace
 *   rows-host.ts   `lake` writes with Parquet, the row flush and when it is due
 *   maintenance-host.ts  the maintenance jobs' passes
 *   alarm-pass.ts  one background pass in a fixed order; schedule.ts: the next alarm, pure
 *
 * Acknowledgement: a member is answered only once its batch is durable and published. Terminal:
 * `Fenced`, or an outcome the writer can no longer resolve, answers every pending caller and asks the host
 * to abort the instance; it never reopens in place.
 */
import {
  AlreadyExists,
  appendsToRowLog,
  type CommitRequest,
  type CommitResult,
  expiresSnapshots,
  InvalidRequest,
  type MemberResult,
  NotFound,
  normalizeDataPath,
  planMetadataAppend,
  plannableRowsWrites,
  planSqlWrite,
  quoteName,
  type SqlWriteAnswer,
} from "../catalog/index.ts";
import type { GuardedDeleteAnswer } from "../maintenance/guarded-delete.ts";
import type { JobName, StoredJobRun } from "../maintenance/history.ts";
import type { CheckpointInfo } from "../storage/api.ts";
import { AlarmPass } from "./alarm-pass.ts";
import { Arrivals } from "./arrivals.ts";
import { CommitPath } from "./commit-path.ts";
import { Deletion } from "./deletion.ts";
import { deletedError, LakeWasDeleted } from "./errors.ts";
import { Lifecycle } from "./lifecycle.ts";
import { MaintenanceHost } from "./maintenance-host.ts";
import { type MetricsSnapshot, WriterMetrics } from "./metrics.ts";
import { graceOf } from "./options.ts";
import type { FlushPacer } from "./pacer.ts";
import { checkLifetime, checkSpacing, parseGroup, parseRequest, parseSqlWrite } from "./requests.ts";
import { RowsHost } from "./rows-host.ts";
import { checkpointsOf, durableHead, pinnedSnapshots, SessionHost } from "./session.ts";
import { type Phase, type StallReport, StallWatch } from "./stall.ts";
import {
  type CreateAnswer,
  type DeleteAnswer,
  type FlushAnswer,
  type FrontDeps,
  type HeadAnswer,
  MemberFailed,
  type Origin,
  type PurgeAnswer,
  type Session,
  type SharedState,
  type WriterHost,
  type WriterStats,
} from "./types.ts";

export class Writer {
  private readonly shared: SharedState = {
    tickets: new Set(),
    lastCommitAt: undefined,
    rowFlushDueAt: undefined,
  };
  private readonly stallCounts: Partial<Record<Phase, number>> = {};
  private readonly stall: StallWatch;
  private readonly metrics: WriterMetrics;
  private readonly life: Lifecycle;
  private readonly sessions: SessionHost;
  private readonly arrivals: Arrivals;
  private readonly path: CommitPath;
  private readonly deletion: Deletion;
  private readonly rows: RowsHost;
  private readonly jobs: MaintenanceHost;
  private readonly alarm: AlarmPass;

  constructor(private readonly host: WriterHost) {
    const shared = this.shared;
    this.stall = new StallWatch(host.clock, host.tunables.stallReportMs, (r) => this.reportStall(r));
    this.metrics = new WriterMetrics(host.now, host.metricsStore);
    this.life = new Lifecycle(host, shared, {
      closeAdmission: (notSubmitted) => {
        this.sessions.session?.pacer.close();
        this.path.coalescer.shutdown(notSubmitted);
      },
      closeRest: () => {
        this.stall.close();
        this.sessions.session?.store.close().catch(() => {});
      },
    });
    this.sessions = new SessionHost(host, {
      deletedFound: (at) => this.deletion.recordDeleted(at),
      flushed: (store) => this.alarm.armForStore(store),
      flushFailed: (e) => this.life.durabilityFailed(e),
    });
    this.arrivals = new Arrivals(host, shared);
    const common: FrontDeps = {
      host,
      shared,
      ready: () => this.ready(),
      current: () => this.sessions.session,
      terminal: () => this.life.terminal,
      terminate: (reason) => this.life.terminate(reason),
      durabilityFailed: (e) => this.life.durabilityFailed(e),
      throwIfStopped: () => this.life.throwIfStopped(),
      exclusive: (fn) => this.path.coalescer.exclusive(fn),
    };
    this.path = new CommitPath({
      ...common,
      stall: this.stall,
      metrics: this.metrics,
      beforeJoin: () => this.arrivals.holdForYield(),
      quiet: () => this.arrivals.quiet(),
      landed: (requests) => {
        this.alarm.armAfterCommit();
        if (requests.some(appendsToRowLog)) this.rows.armFlush();
      },
    });
    this.deletion = new Deletion({
      ...common,
      draining: (on) => {
        this.life.draining = on;
      },
      deleted: async (deletedAt, s) => {
        this.life.deletedAt = deletedAt;
        this.path.coalescer.shutdown(new LakeWasDeleted(host.lake, deletedAt));
        s.pacer.close();
        await s.store.close().catch((e: unknown) => {
          host.log("warn", {
            msg: "closing a deleted lake's store failed",
            lake: host.lake,
            error: String(e),
          });
        });
      },
      removed: () => {
        this.life.removed = true;
      },
    });
    this.rows = new RowsHost({
      ...common,
      commit: (request, origin) => this.commitParsed(request, false, origin),
      commitOne: (request, alone, origin) => this.path.commitOne(request, alone, origin),
      pause: () => this.arrivals.maintenancePause(),
    });
    this.jobs = new MaintenanceHost({
      ...common,
      commit: (request) => this.commitParsed(request, false, "background"),
      exclusiveBatch: (s, fn) => this.path.exclusiveBatch(s, fn),
      pinned: async (s) => [...(await pinnedSnapshots(s, host)).keys()],
      pause: () => this.arrivals.maintenancePause(),
    });
    this.alarm = new AlarmPass({
      ...common,
      metrics: this.metrics,
      removeDeleted: (rec) => this.deletion.removeDeleted(rec),
      flushRowsIfDue: (s) => this.rows.backgroundFlush(s),
      maintenancePass: (s, selection) => this.jobs.pass(s, selection),
      maintenanceDueAt: (s, progressed) => this.jobs.recordDueAt(s, progressed),
    });
  }

  /** True once a deleted lake's objects are all removed: the host serves the name with a fresh writer. */
  get removed(): boolean {
    return this.life.removed;
  }

  get stats(): WriterStats {
    const c = this.path.coalescer.stats;
    const s = this.sessions.session;
    return {
      open: s !== undefined,
      terminal: this.life.terminal?.code ?? null,
      deleting: this.life.draining,
      flushSpacingMs: s?.pacer.spacing ?? this.spacing(),
      batches: c.batches,
      batchedRequests: c.members,
      flushes: s?.pacer.flushCount ?? 0,
      slotHeld: this.path.coalescer.slotHeld,
      sweptKeys: this.alarm.swept,
      submitMs: this.path.submitMs,
      stalls: { ...this.stallCounts },
      maintenance: [...this.jobs.runs],
    };
  }

  /** Counters, histograms and recent activity of this activation (`GET …/metrics`). */
  metricsSnapshot(): MetricsSnapshot {
    const s = this.sessions.session;
    return this.metrics.snapshot(s?.pacer.flushCount ?? 0, s?.store.maintenanceBytes);
  }

  /** The flush pacer of the open session (benchmarks read its history). */
  get pacer(): FlushPacer | undefined {
    return this.sessions.session?.pacer;
  }

  /** True while a submission holds the slot. */
  get slotHeld(): boolean {
    return this.path.coalescer.slotHeld;
  }

  /**
   * Commits one request; resolves only once its batch is durable and published. `origin` "background":
   * the writer's own pass commits it (maintenance jobs, the row flusher), which does not count as the
   * lake being busy for the idle flush (docs/decisions/0178-idle-memtable-flush.md).
   */
  commit(request: unknown, origin: Origin = "caller"): Promise<CommitResult> {
    return this.commitParsed(parseRequest(request), false, origin);
  }

  /**
   * A row transaction: one request, all or nothing, in a batch of its own (never coalesced with other
   * writes; docs/decisions/0312-ingest-writer.md). A `lake` transaction PUTs the Parquet of each write
   * above its table's inlining limit first (docs/decisions/0319-lake-transactions-parquet.md).
   */
  transaction(request: unknown): Promise<CommitResult> {
    return this.commitParsed(parseRequest(request), true, "caller");
  }

  /** A `lake` row write above the inlining limit PUTs its Parquet first (decision 0316). */
  private commitParsed(request: CommitRequest, alone: boolean, origin: Origin): Promise<CommitResult> {
    if (plannableRowsWrites(request) === undefined) return this.path.commitOne(request, alone, origin);
    return this.rows.commitPlanned(request, alone, origin);
  }

  /** Drains the row log into DuckLake now (`rows-host.ts`). */
  flushRows(origin: Origin = "caller"): Promise<FlushAnswer> {
    return this.rows.flushRows(origin);
  }

  /** Commits a caller's own group in one batch; each member's result, once the batch is durable. */
  commitGroup(requests: unknown): Promise<MemberResult[]> {
    return this.path.run(parseGroup(requests));
  }

  /**
   * A Quack request holding write statements: DuckLake's commit batch, translated into one staged-row
   * member of the same commit core as verb commits (docs/decisions/0230-sql-write-translation.md), or a new
   * lake's initialization batch. Answers once the batch is durable and published, with the last
   * statement's result.
   */
  async sqlWrite(raw: unknown): Promise<SqlWriteAnswer> {
    const req = parseSqlWrite(raw);
    const pinned = expiresSnapshots(req.sql)
      ? await pinnedSnapshots(await this.ready(), this.host)
      : undefined;
    const plan =
      req.append !== undefined
        ? planMetadataAppend(req.append, req.mayCreateLake)
        : planSqlWrite(req.sql, req.idempotencyKey, pinned, req.connection);
    if (plan.kind === "create-lake") {
      if (!req.mayCreateLake) {
        throw new InvalidRequest(
          `lake ${quoteName(this.host.lake)}: an initialization batch creates the lake, and this caller may not create lakes`,
        );
      }
      const created = await this.createLake({ dataPath: plan.dataPath, encrypted: plan.encrypted });
      return { result: plan.result, position: created.position };
    }
    const r = await this.path.one(plan.member, plan.alone);
    if (plan.alone) this.arrivals.yieldAfter(r.ok ? null : r.error.code);
    if (!r.ok) throw new MemberFailed(r.error.code, r.error.message);
    return { result: plan.answer(r.value), position: r.value.position };
  }

  /** The head as of the newest durable, published cut. */
  async head(): Promise<HeadAnswer> {
    return durableHead(await this.ready());
  }

  /** Creates the lake: genesis open, catalog bootstrap, durable before it answers. */
  async createLake(
    options: { dataPath?: string; flushSpacingMs?: number; encrypted?: boolean } = {},
  ): Promise<CreateAnswer> {
    const { lake, registry, tunables } = this.host;
    this.life.throwIfStopped();
    if (options.flushSpacingMs !== undefined) checkSpacing(options.flushSpacingMs);
    if (options.dataPath !== undefined)
      options = { ...options, dataPath: normalizeDataPath(options.dataPath) };
    this.life.throwIfDeleting();
    const known = registry.get();
    if (known?.state === "deleted")
      throw deletedError(lake, true, known.deletedAt ?? this.host.now(), graceOf(tunables, known));
    if (await this.sessions.exists()) throw new AlreadyExists(`lake ${quoteName(lake)} already exists`);
    const s = await this.sessions.ensure(true, options);
    return { lake, ...(await durableHead(s)) };
  }

  /** Deletes the lake (`deletion.ts`; docs/decisions/0110-lake-deletion-order.md). */
  deleteLake(): Promise<DeleteAnswer> {
    return this.deletion.deleteLake();
  }

  /** Deletes the lake and removes its objects now (`deletion.ts` `purge`; decision 0480). */
  purgeLake(): Promise<PurgeAnswer> {
    return this.deletion.purge();
  }

  /** Per-lake flush spacing; applies to the next flush planned and survives restarts. */
  configure(options: { flushSpacingMs?: number }): { flushSpacingMs: number } {
    this.life.throwIfStopped();
    if (options.flushSpacingMs === undefined) return { flushSpacingMs: this.spacing() };
    checkSpacing(options.flushSpacingMs);
    const rec = this.host.registry.get();
    if (rec === undefined || rec.state !== "live") {
      throw new NotFound(`lake ${quoteName(this.host.lake)} does not exist; create it first`);
    }
    this.host.registry.put({ ...rec, flushSpacingMs: options.flushSpacingMs });
    this.sessions.session?.pacer.setSpacing(options.flushSpacingMs);
    return { flushSpacingMs: options.flushSpacingMs };
  }

  /** Mints a named checkpoint of the durable cut (every acknowledged commit), with an optional lifetime. */
  async createCheckpoint(options: { lifetimeMs?: number } = {}): Promise<CheckpointInfo> {
    const lifetime = options.lifetimeMs;
    checkLifetime(lifetime);
    const s = await this.ready();
    return checkpointsOf(s).createCheckpoint(lifetime !== undefined ? { lifetimeMs: lifetime } : {});
  }

  /** Live checkpoints the writer's manifest records. */
  async listCheckpoints(): Promise<CheckpointInfo[]> {
    return checkpointsOf(await this.ready()).listCheckpoints();
  }

  /** Refuses the id to readers from now on and releases its cut to GC after the grace period. */
  async deleteCheckpoint(id: string): Promise<{ id: string }> {
    if (typeof id !== "string" || id.length === 0) throw new InvalidRequest("a checkpoint id is required");
    await checkpointsOf(await this.ready()).deleteCheckpoint(id);
    return { id };
  }

  /** One slice of background work (the alarm; `alarm-pass.ts`). */
  background(): Promise<void> {
    return this.alarm.run();
  }

  /** Runs maintenance jobs now (`POST …/maintenance`; `maintenance-host.ts`). */
  runMaintenance(
    selection: { jobs?: readonly JobName[]; table?: { schema?: string; name: string } } = {},
  ): Promise<StoredJobRun[]> {
    return this.jobs.runNow(selection);
  }

  /** A client's DELETE of data objects, fenced like job 5's (`maintenance-host.ts`, decision 0630). */
  deleteDataObjects(paths: readonly string[]): Promise<GuardedDeleteAnswer> {
    return this.jobs.deleteDataObjects(paths);
  }

  /** A maintenance job's yield between stretches (`arrivals.ts`). Public for tests. */
  maintenancePause(): Promise<void> {
    return this.arrivals.maintenancePause();
  }

  /** Forces a memtable flush and runs maintenance to completion (benchmarks; hosts use the alarm). */
  async maintainNow(): Promise<void> {
    const s = await this.ready();
    let report = await s.store.maintain({ forceFlush: true });
    for (let i = 0; i < 16 && report.more; i++) report = await s.store.maintain();
  }

  /** The open session, opening it on first use; concurrent first requests share one open. */
  private ready(): Promise<Session> {
    try {
      this.life.throwIfClosed();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.sessions.ensure(false, {});
  }

  private spacing(): number {
    return this.host.registry.get()?.flushSpacingMs ?? this.host.tunables.flushSpacingMs;
  }

  private reportStall(r: StallReport): void {
    this.stallCounts[r.phase] = (this.stallCounts[r.phase] ?? 0) + 1;
    this.host.log("warn", {
      msg: `commits parked in ${r.phase} longer than ${this.host.tunables.stallReportMs} ms`,
      lake: this.host.lake,
      phase: r.phase,
      commits: r.commits,
      oldestMs: Math.round(r.oldestMs),
    });
  }
}
