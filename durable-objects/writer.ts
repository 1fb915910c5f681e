/**
 * The lake writer's core, free of the Durable Object shell so benchmarks run the same code in Node:
 * lazy memoised open, the coalescer feeding `catalog.commitGroup`, the flush pacer, acknowledgement only
 * after the batch is durable and published, the terminal path, and background work.
 *
 * Acknowledgement: the store publishes by writing the segment (the newest segment names the cut), so a
 * batch's `durable` settling is both durability and publication; only then does a member get its result.
 * Terminal: `Fenced`, or an outcome the writer can no longer resolve, answers every pending caller and
 * asks the host to abort the instance; it never reopens in place.
 */

import { normalizeDataPath } from "../catalog/data-path.ts";
import {
  AlreadyExists,
  type Catalog,
  type CommitRequest,
  CommitRequestSchema,
  type CommitResult,
  commitLookupRanges,
  type GroupMember,
  type GroupOutcome,
  head,
  InvalidRequest,
  type MemberResult,
  NotFound,
  openCatalog,
  plannableRowsWrites,
  quoteName,
  readIngestHead,
  readIngestSettings,
  storePartitionCuts,
} from "../catalog/index.ts";
import { MAX_FLUSH_ROWS_PER_STEP } from "../catalog/maintenance/flush-plan.ts";
import { liveTableId } from "../catalog/maintenance/table-ref.ts";
import type { SqlWriteAnswer, SqlWriteRequest } from "../catalog/sql/writes/contract.ts";
import { expiresSnapshots, planSqlWrite } from "../catalog/sql/writes/plan.ts";
import { JOB_NAMES, type JobName, type JobRun, type StoredJobRun } from "../maintenance/history.ts";
import { runMaintenancePass } from "../maintenance/run.ts";
import { nextDueAt } from "../maintenance/schedule.ts";
import type {
  Bucket,
  CheckpointInfo,
  CheckpointWriter,
  MaintainOptions,
  MaintenanceReport,
  Store,
} from "../storage/api.ts";
import { dataObjectReader } from "../storage/data-objects.ts";
import { CodedError, Fenced, LakeDeleted, OpenRaced, StoreUnavailable } from "../storage/errors.ts";
import { LakeStore, openCheckpoint, openWriter } from "../storage/index.ts";
import { lakeState, markLakeDeleted, removeDeletedLake } from "../storage/lakes.ts";
import { yieldToEventLoop } from "../storage/maintenance.ts";
import type { Clock } from "./clock.ts";
import { Coalescer, type Settled } from "./coalescer.ts";
import { CommitOutcomeUnknown, LakeDeletedPendingRemoval, LakeWasDeleted, Unavailable } from "./errors.ts";
import { idleFlushAt } from "./idle-flush.ts";
import { type MetricsSnapshot, WriterMetrics } from "./metrics.ts";
import type { WriterTunables } from "./options.ts";
import { FlushPacer } from "./pacer.ts";
import type { LakeRecord, LakeRegistry } from "./registry.ts";
import { drainRowLog } from "./rows-flush.ts";
import { commitLakeWrite } from "./rows-lake-write.ts";
import { type Phase, type StallReport, StallWatch } from "./stall.ts";
import { Ticket } from "./ticket.ts";

export type LogLevel = "info" | "warn" | "error";

/** Who asked for a commit: a caller, or the writer's own background pass (jobs, the row flusher). */
export type Origin = "caller" | "background";

/** The awaits of the submitting task, in order (a test seam may throw after each). */
export type SubmitStep = "capacity" | "commitGroup";

/** What the writer needs from whatever hosts it (the Durable Object, or a benchmark in Node). */
export interface WriterHost {
  lake: string;
  bucket: Bucket;
  /** Recorded in the manifest; a different identity taking over is reported (two deployments, one bucket). */
  identity: string;
  registry: LakeRegistry;
  /** Monotonic time for pacing, stall reports and the slot bound. */
  clock: Clock;
  /** Wall time in ms (snapshot times, idempotency expiry, deletion grace). */
  now: () => number;
  tunables: WriterTunables;
  /** Ends the instance once every pending caller has been answered. */
  abort: (reason: string) => void;
  /** Asks for `background()` to run in about `delayMs` (the object's alarm). */
  scheduleBackground: (delayMs: number) => void;
  log: (level: LogLevel, fields: Record<string, unknown>) => void;
  /** Test seam: runs after each await of the submitting task and may throw. Unset in production. */
  afterSubmitStep?: (step: SubmitStep) => void;
}

export interface HeadAnswer {
  snapshotId: number;
  batchCount: number;
  /** Read-your-writes token of the cut the head was read from (durable and published). */
  position: number;
}

export interface CreateAnswer extends HeadAnswer {
  lake: string;
}

export interface DeleteAnswer {
  lake: string;
  deletedAt: number;
  /** When its objects become eligible for removal (ms since the epoch). */
  removeAfter: number;
}

export interface WriterStats {
  open: boolean;
  terminal: string | null;
  /** True while a delete drains admitted commits and writes its marker. */
  deleting: boolean;
  flushSpacingMs: number;
  batches: number;
  batchedRequests: number;
  flushes: number;
  /** True while a submission holds the slot. */
  slotHeld: boolean;
  /** Time batches held the submission slot (capacity wait + catalog.commitGroup), in ms. */
  submitMs: number;
  /** Expired idempotency keys removed by background sweeps of this instance. */
  sweptKeys: number;
  /** Stall reports so far, by phase. */
  stalls: Partial<Record<Phase, number>>;
  /** The newest maintenance runs of this instance, oldest first (at most MAINTENANCE_HISTORY_RUNS). */
  maintenance: JobRun[];
}

interface Session {
  store: Store;
  catalog: Catalog;
  pacer: FlushPacer;
}

/** A coalescer member: one caller's request list (a caller's own group stays in one batch). */
interface Unit {
  requests: GroupMember[];
}

type Submitted =
  | { kind: "group"; outcome: GroupOutcome; offsets: number[]; submitMs: number }
  | { kind: "failed"; error: unknown; applied: boolean };

/** A member's failure, rebuilt as a typed error so it crosses RPC with its own code. */
class MemberFailed extends CodedError {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const SWEEP_LIMIT = 500;
/** Objects of a deleted lake one background pass removes before it re-arms (one R2 list page). */
const REMOVAL_SLICE_OBJECTS = 1000;
/** Store maintenance steps one background pass may run before it yields to the next alarm. */
const MAINTENANCE_STEPS = 4;
/** Maintenance runs an instance remembers for `status` (a bounded ring; the durable history is not built yet). */
export const MAINTENANCE_HISTORY_RUNS = 100;
/** A takeover this soon after the previous writer's last manifest write is reported as a misconfiguration. */
const SUSPICIOUS_TAKEOVER_MS = 10 * 60_000;

function parseRequest(raw: unknown): CommitRequest {
  const r = CommitRequestSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new InvalidRequest(
      `commit request rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return r.data;
}

/** The commit message of flush snapshots (lakes with `require_commit_message` accept them). */
const FLUSH_MESSAGE = "ducklake-edge: flush row log";

export interface FlushAnswer {
  drained: number;
  records: number;
  batches: number;
  snapshots: number[];
  /** Records still in the log after this call. */
  pending: number;
  /** Poison records this call moved to the dead letters (docs/decisions/0314-dead-letters.md). */
  deadLettered: number[];
}

function appendsRows(r: GroupMember): boolean {
  return (
    "verbs" in r &&
    r.verbs.some(
      (v) => v.op === "rows_write" || v.op === "rows_truncate" || v.op === "rows_dead_letter_replay",
    )
  );
}

function parseSqlWrite(raw: unknown): SqlWriteRequest {
  const r = raw as Partial<SqlWriteRequest> | null;
  if (
    r === null ||
    typeof r !== "object" ||
    typeof r.sql !== "string" ||
    typeof r.mayCreateLake !== "boolean"
  ) {
    throw new InvalidRequest(
      "a SQL write needs { sql: string, mayCreateLake: boolean, idempotencyKey?: string }",
    );
  }
  if (r.idempotencyKey !== undefined && (typeof r.idempotencyKey !== "string" || r.idempotencyKey === "")) {
    throw new InvalidRequest("idempotencyKey must be a non-empty string");
  }
  if (r.connection !== undefined && (typeof r.connection !== "string" || r.connection === "")) {
    throw new InvalidRequest("connection must be a non-empty string");
  }
  return {
    sql: r.sql,
    mayCreateLake: r.mayCreateLake,
    ...(r.idempotencyKey !== undefined ? { idempotencyKey: r.idempotencyKey } : {}),
    ...(r.connection !== undefined ? { connection: r.connection } : {}),
  };
}

export class Writer {
  private session: Session | undefined;
  private opening: Promise<Session> | undefined;
  private terminal: CodedError | undefined;
  /** The delete in progress: admission is closed while it drains and writes the marker. */
  private deletion: Promise<DeleteAnswer> | undefined;
  /** Set once this instance has seen the lake's deletion marker land (ms since the epoch). */
  private deletedAt: number | undefined;
  /** True while a delete drains and writes its marker: new work is refused as Unavailable. */
  private draining = false;
  /** True once a deleted lake's objects are all removed: the host serves the name with a fresh writer. */
  removed = false;
  private backgroundArmed = false;
  /** When the row flusher is next due (undefined: not armed, or unknown after a restart). */
  private flushDueAt: number | undefined;
  private maintenanceArmed = false;
  /** Wall time of the newest commit this activation saw arrive or land (the idle flush's clock). */
  private lastCommitAt: number | undefined;
  private swept = 0;
  private readonly maintenanceRuns: JobRun[] = [];
  /** The maintenance pass running or last run (passes are serialised: `maintenancePass`). */
  private passes: Promise<unknown> = Promise.resolve();
  private submitMs = 0;
  private readonly tickets = new Set<Ticket>();
  private readonly stall: StallWatch;
  private readonly coalescer: Coalescer<Unit, Submitted>;
  private readonly stallCounts: Partial<Record<Phase, number>> = {};
  private readonly metrics: WriterMetrics;

  constructor(private readonly host: WriterHost) {
    this.stall = new StallWatch(host.clock, host.tunables.stallReportMs, (r) => this.reportStall(r));
    this.metrics = new WriterMetrics(host.now);
    this.coalescer = new Coalescer<Unit, Submitted>((units) => this.submit(units), {
      clock: host.clock,
      stall: this.stall,
      maxMembers: host.tunables.maxBatchMembers,
      slotBoundMs: host.tunables.slotBoundMs,
      onAbandoned: ({ members, boundMs }) =>
        this.terminate(
          new CommitOutcomeUnknown(
            `a batch of ${members} commit(s) held the submission slot past its ${boundMs} ms bound`,
          ),
        ),
    });
  }

  get stats(): WriterStats {
    const c = this.coalescer.stats;
    return {
      open: this.session !== undefined,
      terminal: this.terminal?.code ?? null,
      deleting: this.draining,
      flushSpacingMs: this.session?.pacer.spacing ?? this.spacing(),
      batches: c.batches,
      batchedRequests: c.members,
      flushes: this.session?.pacer.flushCount ?? 0,
      slotHeld: this.coalescer.slotHeld,
      sweptKeys: this.swept,
      submitMs: this.submitMs,
      stalls: { ...this.stallCounts },
      maintenance: [...this.maintenanceRuns],
    };
  }

  /** Counters, histograms and recent activity of this activation (`GET …/metrics`). */
  metricsSnapshot(): MetricsSnapshot {
    const s = this.session;
    return this.metrics.snapshot(s?.pacer.flushCount ?? 0, s?.store.maintenanceBytes);
  }

  /** The flush pacer of the open session (benchmarks read its history). */
  get pacer(): FlushPacer | undefined {
    return this.session?.pacer;
  }

  /** True while a submission holds the slot. */
  get slotHeld(): boolean {
    return this.coalescer.slotHeld;
  }

  /**
   * Commits one request; resolves only once its batch is durable and published. `origin` "background":
   * the writer's own pass commits it (maintenance jobs, the row flusher), which does not count as the
   * lake being busy for the idle flush (docs/decisions/0178-idle-memtable-flush.md).
   */
  async commit(request: unknown, origin: Origin = "caller"): Promise<CommitResult> {
    const parsed = parseRequest(request);
    // A `lake` row write above the inlining limit PUTs its Parquet first (docs/decisions/0316-lake-write-parquet.md).
    if (plannableRowsWrites(parsed) === undefined) return this.commitOne(parsed, false, origin);
    return this.commitPlanned(parsed, false, origin);
  }

  /** A request of row writes only, through the lake-write plan (decisions 0316, 0319). */
  private async commitPlanned(
    request: CommitRequest,
    alone: boolean,
    origin: Origin = "caller",
  ): Promise<CommitResult> {
    const s = await this.ready();
    return commitLakeWrite(
      { lake: this.host.lake, bucket: this.host.bucket, now: this.host.now, view: () => s.store.snapshot() },
      request,
      (r) => this.commitOne(r, alone, origin),
    );
  }

  private async commitOne(
    request: CommitRequest,
    alone = false,
    origin: Origin = "caller",
  ): Promise<CommitResult> {
    const results = await this.run([request], alone, origin);
    const r = results[0];
    if (r === undefined) throw new Error("the batch returned no result for a member");
    if (!r.ok) throw new MemberFailed(r.error.code, r.error.message);
    return r.value;
  }

  /**
   * A row transaction: one request, all or nothing, in a batch of its own (never coalesced with other
   * writes; docs/decisions/0312-ingest-writer.md).
   */
  async transaction(request: unknown): Promise<CommitResult> {
    const parsed = parseRequest(request);
    // A `lake` transaction PUTs the Parquet of each write above its table's inlining limit first
    // (docs/decisions/0319-lake-transactions-parquet.md), then commits alone as ever.
    if (plannableRowsWrites(parsed) === undefined) return this.commitOne(parsed, true);
    return this.commitPlanned(parsed, true);
  }

  /**
   * Drains the row log into DuckLake now: flush batches (one DuckLake commit each, through the ordinary
   * commit path, so writes keep flowing between them) until the log is empty or MAX_FLUSH_BATCHES_PER_CALL.
   */
  async flushRows(origin: Origin = "caller"): Promise<FlushAnswer> {
    let records = 0;
    let batches = 0;
    let drained = 0;
    const snapshots: number[] = [];
    const s = await this.ready();
    // Row flush (docs/decisions/0313, 0314): plan, PUT the batch's Parquet files, commit; poison records
    // are narrowed down and dead-lettered. The loop and its bounds are durable-objects/rows-flush.ts's.
    const d = await drainRowLog({
      lake: this.host.lake,
      bucket: this.host.bucket,
      view: () => s.store.snapshot(),
      commit: (request) => this.commit(request, origin),
      now: this.host.now,
      message: FLUSH_MESSAGE,
      files: dataObjectReader(this.host.bucket, this.host.lake),
      // Its Parquet encode yields to commits in flight as maintenance jobs do
      // (docs/decisions/0326-maintenance-yields-to-commits.md, 0325's ingestion section).
      pause: () => this.maintenancePause(),
    });
    records = d.records;
    batches = d.batches;
    snapshots.push(...d.snapshots);
    if (d.deadLettered.length > 0) {
      this.host.log("warn", {
        msg: "dead-lettered row log records",
        lake: this.host.lake,
        seqs: d.deadLettered,
      });
    }
    const head = await readIngestHead(s.store.snapshot());
    drained = Math.max(drained, head.drained);
    const pending = head.next_seq - 1 - head.drained;
    this.flushDueAt = undefined;
    if (pending > 0) this.armFlush();
    return { drained, records, batches, snapshots, pending, deadLettered: d.deadLettered };
  }

  /** Commits a caller's own group in one batch; each member's result, once the batch is durable. */
  async commitGroup(requests: unknown): Promise<MemberResult[]> {
    if (!Array.isArray(requests) || requests.length === 0) {
      throw new InvalidRequest("a commit group needs a non-empty list of commit requests");
    }
    return this.run(requests.map(parseRequest));
  }

  /**
   * A Quack request holding write statements: DuckLake's commit batch, translated into one staged-row
   * member of the same commit core as verb commits (docs/decisions/0230-sql-write-translation.md), or a new lake's initialization batch.
   * Answers once the batch is durable and published, with the last statement's result.
   */
  async sqlWrite(raw: unknown): Promise<SqlWriteAnswer> {
    const req = parseSqlWrite(raw);
    const pinned = expiresSnapshots(req.sql) ? await this.pinnedSnapshots() : undefined;
    const plan = planSqlWrite(req.sql, req.idempotencyKey, pinned, req.connection);
    if (plan.kind === "create-lake") {
      if (!req.mayCreateLake) {
        throw new InvalidRequest(
          `lake ${quoteName(this.host.lake)}: an initialization batch creates the lake, and this caller may not create lakes`,
        );
      }
      const created = await this.createLake({ dataPath: plan.dataPath, encrypted: plan.encrypted });
      return { result: plan.result, position: created.position };
    }
    const results = await this.run([plan.member], plan.alone);
    const r = results[0];
    if (r === undefined) throw new Error("the batch returned no result for a member");
    if (plan.alone) this.yieldAfter(r.ok ? null : r.error.code);
    if (!r.ok) throw new MemberFailed(r.error.code, r.error.message);
    return { result: plan.answer(r.value), position: r.value.position };
  }

  /**
   * The snapshot each live checkpoint pins (its cut's head) → the checkpoint's id: expire_snapshots
   * refuses to remove them (docs/decisions/0241-quack-expire-snapshots.md). A checkpoint minted after this
   * read pins the head of its time, which expire never removes, so reading before the commit is enough.
   */
  private async pinnedSnapshots(): Promise<Map<number, string>> {
    const s = await this.ready();
    const out = new Map<number, string>();
    for (const c of await this.checkpoints(s).listCheckpoints()) {
      const view = await openCheckpoint(this.host.bucket, this.host.lake, c.id);
      out.set((await head(view)).snapshot_id, c.id);
    }
    return out;
  }

  /** The head as of the newest durable, published cut. */
  async head(): Promise<HeadAnswer> {
    const s = await this.ready();
    return this.durableHead(s);
  }

  /** Creates the lake: genesis open, catalog bootstrap, durable before it answers. */
  async createLake(
    options: { dataPath?: string; flushSpacingMs?: number; encrypted?: boolean } = {},
  ): Promise<CreateAnswer> {
    this.throwIfStopped();
    if (options.flushSpacingMs !== undefined) checkSpacing(options.flushSpacingMs);
    if (options.dataPath !== undefined) {
      options = { ...options, dataPath: normalizeDataPath(options.dataPath) };
    }
    this.throwIfDeleting();
    const known = this.host.registry.get();
    if (known?.state === "deleted") throw this.deletedError(true, known.deletedAt);
    if (this.opening) {
      const existing = await this.opening.then(
        () => true,
        (e) => {
          if (e instanceof NotFound) return false;
          throw e;
        },
      );
      if (existing) throw new AlreadyExists(`lake ${quoteName(this.host.lake)} already exists`);
    }
    this.opening ??= this.open(true, options);
    const s = await this.settleOpen();
    return { lake: this.host.lake, ...(await this.durableHead(s)) };
  }

  /**
   * Deletes the lake: closes admission, lets admitted commits finish (bounded by `deleteDrainBoundMs`),
   * then, holding the submission slot, makes every applied batch durable and writes the deletion marker;
   * only once the marker has landed does it stop the store and schedule removal. A step that fails
   * before the marker landed reopens admission and leaves the lake exactly as it was. A marker write
   * whose outcome is unknown is resolved by reading the lake state; if even that fails the instance
   * ends, and the next one learns the truth from R2. Concurrent deletes share one attempt; a delete of a
   * lake already marked deleted answers what the first did (and re-arms its removal).
   * Why this order: docs/decisions/0110-lake-deletion-order.md.
   */
  deleteLake(): Promise<DeleteAnswer> {
    this.deletion ??= this.runDelete().finally(() => {
      this.deletion = undefined;
    });
    return this.deletion;
  }

  private async runDelete(): Promise<DeleteAnswer> {
    this.throwIfStopped();
    const known = this.host.registry.get();
    if (known?.state === "deleted") return this.deletedAnswer(known.deletedAt ?? this.host.now());
    let s: Session;
    try {
      s = await this.ready();
    } catch (e) {
      if (e instanceof LakeWasDeleted) return this.deletedAnswer(e.deletedAt);
      throw e;
    }
    let deletedAt: number;
    this.draining = true;
    try {
      await this.drain();
      deletedAt = await this.coalescer.exclusive(() => this.writeMarker(s));
    } finally {
      this.draining = false;
    }
    // The marker has landed: from here on nothing may be written, and every step is local.
    this.deletedAt = deletedAt;
    this.coalescer.shutdown(new LakeWasDeleted(this.host.lake, deletedAt));
    s.pacer.close();
    await s.store.close().catch((e: unknown) => {
      this.host.log("warn", {
        msg: "closing a deleted lake's store failed",
        lake: this.host.lake,
        error: String(e),
      });
    });
    const answer = this.deletedAnswer(deletedAt);
    this.host.log("info", { msg: "lake deleted", ...answer });
    return answer;
  }

  /** Waits for every admitted commit to be answered, up to the drain bound; nothing new is admitted. */
  private async drain(): Promise<void> {
    const pending = [...this.tickets].map((t) => t.done);
    if (pending.length === 0) return;
    const bound = this.host.tunables.deleteDrainBoundMs;
    let cancel = (): void => {};
    const timedOut = new Promise<"timeout">((resolve) => {
      cancel = this.host.clock.after(bound, () => resolve("timeout"));
    });
    try {
      const r = await Promise.race([Promise.all(pending).then(() => "drained" as const), timedOut]);
      if (r === "timeout") {
        throw new Unavailable(
          `lake ${quoteName(this.host.lake)} was not deleted: ${pending.length} admitted commit(s) were still in flight after the ${bound} ms drain bound (deleteDrainBoundMs); the lake is unchanged, retry the delete`,
        );
      }
    } finally {
      cancel();
    }
    if (this.terminal) throw this.terminal;
  }

  /** In the submission slot: flush what is applied, then write the marker (resolving a lost answer). */
  private async writeMarker(s: Session): Promise<number> {
    const { bucket, lake } = this.host;
    try {
      // Every applied batch is durable before the marker hides the WAL from readers.
      await s.store.flush();
    } catch (e) {
      throw this.durabilityFailed(e);
    }
    try {
      return await markLakeDeleted(bucket, lake, this.host.now());
    } catch (e) {
      let state: Awaited<ReturnType<typeof lakeState>>;
      try {
        state = await lakeState(bucket, lake);
      } catch (probe) {
        // Whether the marker landed cannot be known here: this instance must not write again. The next
        // activation's open reads R2 and finds the lake live or deleted.
        const err = new Unavailable(
          `could not learn whether lake ${quoteName(lake)} was marked deleted (${String(e)}; then ${String(probe)}); retry the delete`,
        );
        this.terminate(err);
        throw err;
      }
      if (state.state === "deleted") return state.deletedAt;
      throw new Unavailable(
        `the deletion marker of lake ${quoteName(lake)} could not be written (${String(e)}), so the lake was not deleted and is unchanged; retry the delete`,
        { cause: e },
      );
    }
  }

  /** Records the deletion, (re-)arms removal for the end of the grace period, and answers it. */
  private deletedAnswer(deletedAt: number): DeleteAnswer {
    const { lake, registry, tunables } = this.host;
    const rec = registry.get();
    registry.put({ ...rec, lake, state: "deleted", deletedAt, dirty: false });
    const removeAfter = deletedAt + tunables.deleteGraceMs;
    this.host.scheduleBackground(Math.max(0, removeAfter - this.host.now()));
    return { lake, deletedAt, removeAfter };
  }

  /** Per-lake flush spacing; applies to the next flush planned and survives restarts. */
  configure(options: { flushSpacingMs?: number }): { flushSpacingMs: number } {
    this.throwIfStopped();
    if (options.flushSpacingMs === undefined) return { flushSpacingMs: this.spacing() };
    checkSpacing(options.flushSpacingMs);
    const rec = this.host.registry.get();
    if (rec === undefined || rec.state !== "live") {
      throw new NotFound(`lake ${quoteName(this.host.lake)} does not exist; create it first`);
    }
    this.host.registry.put({ ...rec, flushSpacingMs: options.flushSpacingMs });
    this.session?.pacer.setSpacing(options.flushSpacingMs);
    return { flushSpacingMs: options.flushSpacingMs };
  }

  /** Mints a named checkpoint of the durable cut (every acknowledged commit), with an optional lifetime. */
  async createCheckpoint(options: { lifetimeMs?: number } = {}): Promise<CheckpointInfo> {
    const lifetime = options.lifetimeMs;
    if (lifetime !== undefined && (!Number.isFinite(lifetime) || lifetime <= 0)) {
      throw new InvalidRequest(`lifetimeMs must be a positive number of milliseconds, got ${lifetime}`);
    }
    const s = await this.ready();
    return this.checkpoints(s).createCheckpoint(lifetime !== undefined ? { lifetimeMs: lifetime } : {});
  }

  /** Live checkpoints the writer's manifest records. */
  async listCheckpoints(): Promise<CheckpointInfo[]> {
    const s = await this.ready();
    return this.checkpoints(s).listCheckpoints();
  }

  /** Refuses the id to readers from now on and releases its cut to GC after the grace period. */
  async deleteCheckpoint(id: string): Promise<{ id: string }> {
    if (typeof id !== "string" || id.length === 0) throw new InvalidRequest("a checkpoint id is required");
    const s = await this.ready();
    await this.checkpoints(s).deleteCheckpoint(id);
    return { id };
  }

  /**
   * One slice of background work (the alarm). Every step is idempotent and resumable, so an alarm
   * delivered twice, or cut short by a crash, is harmless.
   *  - a deleted lake: remove its objects in slices once the grace period has passed;
   *  - a live lake that saw commits: sweep expired idempotency keys, through the submission slot;
   *  - the store's own maintenance (memtable flush, a compaction step, GC) while it says it is due.
   */
  async background(): Promise<void> {
    try {
      await this.backgroundPass();
    } catch (e) {
      this.backgroundFailed(e);
      return;
    }
    const rec = this.host.registry.get();
    if (rec?.backgroundFailures) this.host.registry.put({ ...rec, backgroundFailures: 0 });
  }

  /**
   * Any failure of a pass re-arms it with exponential backoff (base `backgroundRetryBaseMs`, doubling,
   * at most `backgroundRetryMaxMs`) and says so: removal of a deleted lake and maintenance must never stop
   * for good because the bucket was away once. The count lives in the registry, so it survives restarts.
   * See docs/decisions/0111-background-retry-and-alarm.md.
   */
  private backgroundFailed(e: unknown): void {
    const { registry, tunables } = this.host;
    const rec = registry.get();
    const failures = (rec?.backgroundFailures ?? 0) + 1;
    if (rec !== undefined) registry.put({ ...rec, backgroundFailures: failures });
    const delayMs = backgroundRetryDelay(tunables, failures);
    this.host.scheduleBackground(delayMs);
    this.host.log("warn", {
      msg: "background work failed; re-armed with backoff",
      lake: this.host.lake,
      state: rec?.state ?? "unknown",
      failures,
      retryInMs: delayMs,
      code: e instanceof CodedError ? e.code : null,
      error: e instanceof Error ? e.message : String(e),
    });
  }

  private async backgroundPass(): Promise<void> {
    const rec = this.host.registry.get();
    if (rec === undefined) return;
    if (rec.state === "deleted") return this.removeDeleted(rec);
    if (!rec.dirty && this.session === undefined) {
      // An idle lake wakes only for maintenance that has come due: a retention or grace that ended with
      // no commit since (decision docs/decisions/0324-maintenance-alarm.md), or the idle flush of batches
      // an evicted instance left in the WAL tail (docs/decisions/0178-idle-memtable-flush.md).
      const dues = [rec.maintenanceDueAt, rec.idleFlushAt].filter((x): x is number => x !== undefined);
      if (dues.length === 0) return;
      const due = Math.min(...dues);
      if (due > this.host.now()) {
        this.host.scheduleBackground(due - this.host.now());
        return;
      }
    }
    const s = await this.ready();
    this.backgroundArmed = false;
    this.maintenanceArmed = false;
    this.host.registry.put({ ...rec, dirty: false });
    const swept = await this.coalescer.exclusive(async () => {
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
      this.host.log("info", {
        msg: "swept expired idempotency keys",
        lake: this.host.lake,
        removed: swept.removed,
      });
    }
    await this.backgroundFlush(s);
    let more = swept.removed >= SWEEP_LIMIT;
    // The maintenance jobs the lake's settings switch on (issue 14; maintenance/run.ts), each an
    // ordinary commit through the coalescer or a head-preserving batch in its slot.
    let timedProgress = false;
    if (!this.terminal) {
      for (const run of await this.maintenancePass(s, { scheduled: true })) {
        // A full flush step may have left rows behind: come back soon rather than at the idle delay.
        if (run.job === "flush_inlined" && run.error === null && run.rowsIn >= MAX_FLUSH_ROWS_PER_STEP)
          more = true;
        // Progress on due work is work done: a job-5 run that only found due items it had to leave (a
        // referenced scheduled file, an orphan R2 calls too young) must wait the idle delay, not loop.
        if (run.job === "expire_snapshots" && run.error === null) timedProgress = true;
        if (run.job === "delete_files" && run.error === null && run.filesOut + (run.orphansDeleted ?? 0) > 0)
          timedProgress = true;
      }
    }
    const dueAt = this.terminal ? undefined : await this.maintenanceDueAt(s, timedProgress);
    const done = {
      sweptKeys: swept.removed,
      maintenanceSteps: 0,
      memtableFlushes: 0,
      compactions: 0,
      objectsDeleted: 0,
    };
    // The idle flush (docs/decisions/0178-idle-memtable-flush.md): no commit for idleFlushAfterMs and none
    // in flight, so the first step flushes the memtable whatever its size.
    let idle = this.idleFlushDue(s);
    // Recorded before it runs: if the flush fails (or the instance dies in it), the re-armed alarm of an
    // evicted object still finds it due and opens the lake to run it again.
    if (idle && !this.terminal) this.recordIdleFlushAt(s);
    try {
      for (
        let step = 0;
        step < MAINTENANCE_STEPS && (idle || s.store.needsMaintenance) && !this.terminal;
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
      this.metrics.background(done);
    }
    const idleAt = this.terminal ? undefined : this.recordIdleFlushAt(s);
    if (more) this.host.scheduleBackground(this.host.tunables.backgroundSliceDelayMs);
    else {
      const at = [s.store.nextMaintenanceAt, dueAt, idleAt].filter((x): x is number => x !== undefined);
      if (at.length > 0) this.host.scheduleBackground(Math.max(0, Math.min(...at) - this.host.now()));
    }
  }

  /** The idle flush is due now: its time has come and no commit is in flight (it would reset the clock). */
  private idleFlushDue(s: Session): boolean {
    const at = this.idleFlushState(s);
    return at !== undefined && at <= this.host.now() && this.tickets.size === 0;
  }

  private idleFlushState(s: Session): number | undefined {
    return idleFlushAt(
      {
        position: s.store.position,
        coveredPosition: s.store.coveredPosition,
        lastCommitAt: this.lastCommitAt,
      },
      this.host.tunables.idleFlushAfterMs,
    );
  }

  /**
   * When the idle flush is next due, kept in the registry so an evicted object's alarm still runs it;
   * cleared once the sorted tables cover every batch, so an idle lake's alarm stops re-arming for it.
   * A time already past (a commit was in flight at the check) comes back after `backgroundSliceDelayMs`.
   */
  private recordIdleFlushAt(s: Session): number | undefined {
    const next = this.idleFlushState(s);
    const at =
      next === undefined
        ? undefined
        : Math.max(next, this.host.now() + this.host.tunables.backgroundSliceDelayMs);
    const rec = this.host.registry.get();
    if (rec !== undefined && rec.state === "live" && rec.idleFlushAt !== at) {
      const { idleFlushAt: _, ...rest } = rec;
      this.host.registry.put(at === undefined ? rest : { ...rest, idleFlushAt: at });
    }
    return at;
  }

  /**
   * When jobs 4-5 next have work (`maintenance/schedule.ts`), recorded in the registry so that an evicted
   * object's alarm still runs the pass. Work already due that this pass made progress on comes back after
   * `backgroundSliceDelayMs`; due work it could not move (a failing job, a file it must leave) waits
   * `backgroundIdleDelayMs`, so a stuck lake does not wake in a loop.
   */
  private async maintenanceDueAt(s: Session, progressed: boolean): Promise<number | undefined> {
    const next = await nextDueAt(s.store.snapshot(), [...(await this.pinnedSnapshots()).keys()]);
    const now = this.host.now();
    const { backgroundSliceDelayMs, backgroundIdleDelayMs } = this.host.tunables;
    const at =
      next === undefined || next > now
        ? next
        : now + (progressed ? backgroundSliceDelayMs : backgroundIdleDelayMs);
    const rec = this.host.registry.get();
    if (rec !== undefined && rec.state === "live" && rec.maintenanceDueAt !== at) {
      const { maintenanceDueAt: _, ...rest } = rec;
      this.host.registry.put(at === undefined ? rest : { ...rest, maintenanceDueAt: at });
    }
    return at;
  }

  /** One maintenance step of the store; a failure that stops the store is terminal like any other. */
  private async maintain(s: Session, options: MaintainOptions = {}): Promise<MaintenanceReport> {
    const t0 = this.host.clock.now();
    try {
      const report = await s.store.maintain(options);
      this.host.log("info", {
        msg: "store maintenance step",
        lake: this.host.lake,
        ...(options.forceFlush ? { idleFlush: true } : {}),
        memtableFlushed: report.memtableFlushed,
        compaction: report.compaction ?? null,
        objectsDeleted: report.objectsDeleted,
        more: report.more,
        ms: Math.round(this.host.clock.now() - t0),
      });
      return report;
    } catch (e) {
      if (e instanceof Fenced) this.terminate(e);
      throw e;
    }
  }

  /**
   * Runs maintenance jobs now (`POST …/maintenance`): the named ones (switched on or not), or every job
   * the lake's settings switch on; optionally one table. Answers the runs as recorded in the history.
   */
  async runMaintenance(
    selection: { jobs?: readonly JobName[]; table?: { schema?: string; name: string } } = {},
  ): Promise<StoredJobRun[]> {
    if (this.terminal) throw this.terminal;
    for (const j of selection.jobs ?? [])
      if (!JOB_NAMES.includes(j)) throw new InvalidRequest(`unknown maintenance job ${JSON.stringify(j)}`);
    const s = await this.ready();
    const tableId = selection.table ? await liveTableId(s.store.snapshot(), selection.table) : undefined;
    return this.maintenancePass(s, {
      ...(selection.jobs !== undefined ? { jobs: selection.jobs } : {}),
      ...(tableId !== undefined ? { tableId } : {}),
    });
  }

  /**
   * One maintenance pass at a time: the alarm's and a `POST …/maintenance` would otherwise plan the same
   * work from the same state, and the second's commit would fail after its PUT (an orphan and an error in
   * the history). A pass waits for the one running, then plans from the state it left.
   */
  private maintenancePass(
    s: Session,
    selection: { jobs?: readonly JobName[]; tableId?: number; scheduled?: boolean },
  ): Promise<StoredJobRun[]> {
    const pass = this.passes.then(() => this.runPass(s, selection));
    this.passes = pass.catch(() => undefined);
    return pass;
  }

  private async runPass(
    s: Session,
    selection: { jobs?: readonly JobName[]; tableId?: number; scheduled?: boolean },
  ): Promise<StoredJobRun[]> {
    const runs = await runMaintenancePass(
      {
        lake: this.host.lake,
        bucket: this.host.bucket,
        view: () => s.store.snapshot(),
        commit: (request) => this.commit(request, "background"),
        exclusive: (fn) => this.exclusiveBatch(s, fn),
        // The head snapshot of every live checkpoint's cut: expiry keeps them (decision 0328).
        pinnedSnapshots: async () => [...(await this.pinnedSnapshots()).keys()],
        now: this.host.now,
        pause: () => this.maintenancePause(),
      },
      selection,
    );
    for (const run of runs) {
      this.maintenanceRuns.push(run);
      if (this.maintenanceRuns.length > MAINTENANCE_HISTORY_RUNS) this.maintenanceRuns.shift();
      this.host.log(run.error === null ? "info" : "warn", {
        msg: "maintenance run",
        lake: this.host.lake,
        ...run,
      });
    }
    return runs;
  }

  /** A head-preserving batch in the submission slot (as the idempotency sweep), awaited durable. */
  private async exclusiveBatch<T>(
    s: Session,
    fn: (store: Store) => Promise<{ value: T; durable: Promise<void> }>,
  ): Promise<T> {
    const out = await this.coalescer.exclusive(async () => {
      const before = s.store.position;
      try {
        return await fn(s.store);
      } finally {
        if (s.store.position !== before) s.pacer.arrived(1);
      }
    });
    await out.durable;
    return out.value;
  }

  /** Forces a memtable flush and runs maintenance to completion (benchmarks; hosts use the alarm). */
  async maintainNow(): Promise<void> {
    const s = await this.ready();
    let report = await s.store.maintain({ forceFlush: true });
    for (let i = 0; i < 16 && report.more; i++) report = await s.store.maintain();
  }

  private checkpoints(s: Session): CheckpointWriter {
    if (s.store instanceof LakeStore) return s.store;
    throw new Unavailable("this store does not mint checkpoints");
  }

  private async removeDeleted(rec: LakeRecord): Promise<void> {
    const now = this.host.now();
    const due = (rec.deletedAt ?? now) + this.host.tunables.deleteGraceMs;
    if (now < due) {
      this.host.scheduleBackground(due - now);
      return;
    }
    const p = await removeDeletedLake(this.host.bucket, this.host.lake, {
      now,
      graceMs: this.host.tunables.deleteGraceMs,
      maxObjects: REMOVAL_SLICE_OBJECTS,
    });
    if (p.done) {
      this.host.registry.delete();
      this.removed = true;
      this.host.log("info", { msg: "deleted lake removed", lake: this.host.lake, objects: p.deletedObjects });
    } else {
      this.host.scheduleBackground(this.host.tunables.backgroundSliceDelayMs);
    }
  }

  // --- commit path ---------------------------------------------------------------------------------

  // --- the yield (docs/decisions/0261-commit-yield.md) ------------------------------------------------

  /** Until when batched arrivals hold, and the holders to release early when a lone commit lands. */
  private yieldUntil = 0;
  private yieldHolders: (() => void)[] = [];

  /** A lone minting commit answered: a lost race arms the hold, a landing ends it. */
  private yieldAfter(code: string | null): void {
    if (code === "CommitConflict") {
      this.yieldUntil = this.host.clock.now() + this.host.tunables.yieldHoldMs;
    } else if (code === null) {
      this.yieldUntil = 0;
      for (const release of this.yieldHolders.splice(0)) release();
    }
  }

  private async holdForYield(): Promise<void> {
    const wait = this.yieldUntil - this.host.clock.now();
    if (wait <= 0) return;
    await new Promise<void>((resolve) => {
      const release = () => {
        cancel();
        this.yieldHolders = this.yieldHolders.filter((r) => r !== release);
        resolve();
      };
      const cancel = this.host.clock.after(wait, release);
      this.yieldHolders.push(release);
    });
  }

  /** Maintenance pauses waiting for the commits in flight to land (`maintenancePause`). */
  private quietWaiters: (() => void)[] = [];

  /**
   * A maintenance job's yield between stretches (docs/decisions/0326-maintenance-yields-to-commits.md):
   * one macrotask, then, while any commit is in flight (admitted, batched, submitting or awaiting its
   * PUT), wait until none is — re-checked a macrotask later, since a back-to-back appender starts its next
   * commit in the same turn as the last one lands — or until `maintenanceYieldMaxMs` has passed since the
   * pause began. Commits then run without a job's stretch between their steps, and at most one commit
   * waits behind each stretch. Public for tests.
   */
  async maintenancePause(): Promise<void> {
    const clock = this.host.clock;
    const until = clock.now() + this.host.tunables.maintenanceYieldMaxMs;
    await yieldToEventLoop();
    while (this.tickets.size > 0) {
      const left = until - clock.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const release = () => {
          cancel();
          this.quietWaiters = this.quietWaiters.filter((r) => r !== release);
          resolve();
        };
        const cancel = clock.after(left, release);
        this.quietWaiters.push(release);
      });
      await yieldToEventLoop();
    }
  }

  private async run(
    requests: GroupMember[],
    alone = false,
    origin: Origin = "caller",
  ): Promise<MemberResult[]> {
    this.throwIfStopped();
    if (!alone) await this.holdForYield();
    const ticket = new Ticket();
    this.tickets.add(ticket);
    if (origin === "caller") this.lastCommitAt = this.host.now();
    const t0 = this.host.clock.now();
    let joined: number | undefined;
    let submitMs: number | undefined;
    try {
      const settled = await Promise.race([
        this.coalescer.join({ requests }, requests.length, ticket, () => this.ready().then(() => {}), alone),
        ticket.stopped,
      ]);
      joined = this.host.clock.now();
      if (settled.kind === "submitted" && settled.batch.kind === "group") submitMs = settled.batch.submitMs;
      const { outcome, offset } = this.interpret(settled);
      this.stall.enter(ticket, "durability");
      const durable = await Promise.race([
        outcome.durable.then(
          () => undefined,
          (e: unknown) => e ?? new Error("durability failed"),
        ),
        ticket.stopped,
      ]);
      if (durable !== undefined) throw this.durabilityFailed(durable);
      this.armBackground();
      if (requests.some(appendsRows)) this.armFlush();
      const mine = outcome.results.slice(offset, offset + requests.length);
      const end = this.host.clock.now();
      const phases = {
        queue: joined - t0 - (submitMs ?? 0),
        ...(submitMs !== undefined ? { submit: submitMs } : {}),
        durability: end - joined,
        total: end - t0,
      };
      for (const r of mine) this.metrics.commit(r.ok, r.ok ? null : r.error.code, phases);
      return mine;
    } catch (e) {
      const code = e instanceof CodedError ? e.code : "Internal";
      const end = this.host.clock.now();
      for (let i = 0; i < requests.length; i++) {
        this.metrics.commit(false, code, {
          total: end - t0,
          ...(joined !== undefined ? { durability: end - joined } : {}),
        });
      }
      throw e;
    } finally {
      if (origin === "caller") this.lastCommitAt = this.host.now();
      this.stall.leave(ticket);
      this.tickets.delete(ticket);
      ticket.close();
      if (this.tickets.size === 0) for (const release of this.quietWaiters.splice(0)) release();
    }
  }

  private interpret(settled: Settled<Submitted>): { outcome: GroupOutcome; offset: number } {
    switch (settled.kind) {
      case "dropped":
        throw settled.error instanceof CodedError
          ? settled.error
          : new Unavailable(`the writer could not admit the commit (${String(settled.error)})`);
      case "abandoned":
        throw new CommitOutcomeUnknown(`its submission held the slot past the ${settled.boundMs} ms bound`);
      case "threw":
        this.terminate(new CommitOutcomeUnknown(`the submitting task failed (${String(settled.error)})`));
        throw new CommitOutcomeUnknown(`the submitting task failed (${String(settled.error)})`);
      case "submitted": {
        const b = settled.batch;
        if (b.kind === "failed") {
          if (b.applied) {
            throw new CommitOutcomeUnknown(
              `its batch was applied but the submission did not finish (${String(b.error)})`,
              {
                cause: b.error,
              },
            );
          }
          if (b.error instanceof CodedError) throw b.error;
          throw new Unavailable(`the submission failed before anything was written (${String(b.error)})`, {
            cause: b.error,
          });
        }
        return { outcome: b.outcome, offset: b.offsets[settled.index] ?? 0 };
      }
    }
  }

  /** The submitting task: capacity backpressure, then the catalog's group commit. */
  private async submit(units: Unit[]): Promise<Submitted> {
    const s = this.session;
    if (s === undefined) {
      return { kind: "failed", error: new Unavailable("the writer is not open"), applied: false };
    }
    const requests = units.flatMap((u) => u.requests);
    const offsets: number[] = [];
    let at = 0;
    for (const u of units) {
      offsets.push(at);
      at += u.requests.length;
    }
    const before = s.store.position;
    const t0 = this.host.clock.now();
    try {
      await this.capacity(s);
      this.host.afterSubmitStep?.("capacity");
      const outcome = await s.catalog.commitGroup(requests);
      this.host.afterSubmitStep?.("commitGroup");
      this.checkStoreFailure(outcome);
      this.metrics.batch(
        requests.length,
        outcome.attempts ?? 1,
        outcome.results.map((r) =>
          r.ok ? { ok: true, replayed: r.value.replayed === true } : { ok: false, code: r.error.code },
        ),
      );
      return { kind: "group", outcome, offsets, submitMs: this.host.clock.now() - t0 };
    } catch (error) {
      return { kind: "failed", error, applied: s.store.position !== before };
    } finally {
      this.submitMs += this.host.clock.now() - t0;
      // Whatever happened above, an applied batch is flushed: it lands whole or not at all.
      if (s.store.position !== before && !this.terminal) s.pacer.arrived(requests.length);
    }
  }

  /** Waits while too many applied batches are not yet durable (the bucket is slow or not answering). */
  private async capacity(s: Session): Promise<void> {
    while (s.store.unflushedBatches >= this.host.tunables.maxUnflushedBatches) {
      if (!s.pacer.inAir && s.pacer.waiting === 0) return;
      await s.pacer.whenLanded();
      if (this.terminal) throw this.terminal;
    }
    // Always yield once, so the submitting task's first await is the same whether or not it waited.
    await Promise.resolve();
  }

  /** A store that turned terminal under commitGroup reports it in every member; so do we, once. */
  private checkStoreFailure(outcome: GroupOutcome): void {
    for (const r of outcome.results) {
      if (r.ok) continue;
      if (r.error.code === "Fenced") this.terminate(new Fenced(r.error.message));
      else if (r.error.code === "OutcomeUnknown" || r.error.code === "StoreClosed") {
        this.terminate(new CommitOutcomeUnknown(`the store stopped: ${r.error.message}`));
      }
    }
  }

  private durabilityFailed(e: unknown): CodedError {
    const err =
      e instanceof Fenced
        ? e
        : new CommitOutcomeUnknown(
            `its WAL segment could not be confirmed (${e instanceof Error ? e.message : String(e)})`,
            { cause: e },
          );
    this.terminate(err);
    return err;
  }

  /**
   * After an acknowledged append: the flusher runs `flushIntervalMs` later (the lake's ingest setting;
   * 0 = on demand only), on the object's alarm.
   */
  private armFlush(): void {
    if (this.flushDueAt !== undefined || this.session === undefined) return;
    const s = this.session;
    this.flushDueAt = Number.POSITIVE_INFINITY;
    void readIngestSettings(s.store.snapshot())
      .then((settings) => {
        if (settings.flush_interval_ms === 0) {
          this.flushDueAt = undefined;
          return;
        }
        this.flushDueAt = this.host.now() + settings.flush_interval_ms;
        this.host.scheduleBackground(settings.flush_interval_ms);
      })
      .catch(() => {
        this.flushDueAt = undefined;
      });
  }

  /** The alarm's flush: due (or unknown after a restart) and the log has records. */
  private async backgroundFlush(s: Session): Promise<void> {
    const view = s.store.snapshot();
    const head = await readIngestHead(view);
    if (head.next_seq - 1 === head.drained) return;
    const settings = await readIngestSettings(view);
    if (settings.flush_interval_ms === 0) return;
    // Unknown (after a restart) or still being armed (its settings read in flight): due now, which at
    // worst flushes earlier than the interval, never later.
    const armed = this.flushDueAt;
    const due = armed === undefined || !Number.isFinite(armed) ? this.host.now() : armed;
    if (due > this.host.now()) {
      if (Number.isFinite(due)) this.host.scheduleBackground(due - this.host.now());
      return;
    }
    const r = await this.flushRows("background");
    this.host.log("info", { msg: "flushed rows", lake: this.host.lake, ...r });
    if (r.pending > 0) {
      this.flushDueAt = this.host.now();
      this.host.scheduleBackground(this.host.tunables.backgroundSliceDelayMs);
    }
  }

  private armBackground(): void {
    if (this.backgroundArmed) return;
    this.backgroundArmed = true;
    const rec = this.host.registry.get();
    if (rec !== undefined && rec.state === "live" && !rec.dirty)
      this.host.registry.put({ ...rec, dirty: true });
    this.host.scheduleBackground(this.host.tunables.backgroundIdleDelayMs);
  }

  // --- lifecycle -----------------------------------------------------------------------------------

  private spacing(): number {
    return this.host.registry.get()?.flushSpacingMs ?? this.host.tunables.flushSpacingMs;
  }

  private throwIfStopped(): void {
    if (this.terminal) {
      throw this.terminal instanceof Fenced
        ? this.terminal
        : new Unavailable(`this writer instance stopped (${this.terminal.code}) and is restarting`);
    }
  }

  /** While a delete is in progress its outcome is not known yet: the caller retries and learns it. */
  private throwIfDeleting(): void {
    if (this.draining) {
      throw new Unavailable(
        `lake ${quoteName(this.host.lake)} is being deleted; retry to learn whether the delete completed`,
      );
    }
  }

  /** The open session, opening it on first use; concurrent first requests share one open. */
  private ready(): Promise<Session> {
    try {
      this.throwIfStopped();
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.deletedAt !== undefined) {
      return Promise.reject(new LakeWasDeleted(this.host.lake, this.deletedAt));
    }
    try {
      this.throwIfDeleting();
    } catch (e) {
      return Promise.reject(e);
    }
    this.opening ??= this.open(false, {});
    return this.settleOpen();
  }

  private async settleOpen(): Promise<Session> {
    const opening = this.opening;
    if (opening === undefined) throw new Unavailable("the writer is not opening");
    try {
      const s = await opening;
      this.session = s;
      return s;
    } catch (e) {
      // A failed open is not memoised: the next request tries again.
      if (this.opening === opening) this.opening = undefined;
      throw e;
    }
  }

  private async open(
    create: boolean,
    options: { dataPath?: string; flushSpacingMs?: number; encrypted?: boolean },
  ): Promise<Session> {
    const { lake, bucket, registry } = this.host;
    const rec = registry.get();
    if (rec?.state === "deleted") throw this.deletedError(create, rec.deletedAt);
    try {
      return await this.openSession(create, options, rec);
    } catch (e) {
      if (!(e instanceof LakeDeleted)) throw e;
      // The registry still said live but R2 holds the marker (a delete whose answer was lost): learn its
      // time, record it and re-arm removal, so the lake is fully deleted from now on.
      const st = await lakeState(bucket, lake);
      if (st.state !== "deleted") throw e;
      this.deletedAnswer(st.deletedAt);
      throw this.deletedError(create, st.deletedAt);
    }
  }

  private async openSession(
    create: boolean,
    options: { dataPath?: string; flushSpacingMs?: number; encrypted?: boolean },
    rec: LakeRecord | undefined,
  ): Promise<Session> {
    const { lake, bucket, registry, clock } = this.host;
    const t0 = clock.now();
    if (rec?.state === "live") {
      if (create) throw new AlreadyExists(`lake ${quoteName(lake)} already exists`);
    } else {
      const st = await lakeState(bucket, lake).catch((e: unknown) => {
        if (e instanceof CodedError) throw e;
        throw new StoreUnavailable(
          `could not learn whether lake ${quoteName(lake)} exists (${String(e)}); retry`,
          {
            cause: e,
          },
        );
      });
      if (st.state === "deleted") {
        this.deletedAnswer(st.deletedAt);
        throw this.deletedError(create, st.deletedAt);
      }
      if (st.state === "absent" && !create)
        throw new NotFound(`lake ${quoteName(lake)} does not exist; create it first`);
      if (st.state === "live" && create) throw new AlreadyExists(`lake ${quoteName(lake)} already exists`);
    }
    const store = await this.openStore(rec?.epoch);
    const catalog = await openCatalog(store, {
      now: this.host.now,
      ...(this.host.tunables.idempotencyTtlMs !== undefined
        ? { idempotencyTtlMs: this.host.tunables.idempotencyTtlMs }
        : {}),
      ...(options.dataPath !== undefined ? { dataPath: options.dataPath } : {}),
      ...(options.encrypted === true ? { encrypted: true } : {}),
    });
    // The bootstrap batch is flushed before anyone is told the lake exists.
    if (catalog.bootstrapped) await store.flush();
    const spacing = options.flushSpacingMs ?? rec?.flushSpacingMs ?? this.host.tunables.flushSpacingMs;
    registry.put({
      ...(registry.get() ?? {}),
      lake,
      state: "live",
      epoch: store.epoch,
      ...(options.flushSpacingMs !== undefined ? { flushSpacingMs: options.flushSpacingMs } : {}),
    });
    const pacer = new FlushPacer(() => this.flushStore(store), { spacingMs: spacing, clock });
    this.host.log("info", {
      msg: "lake writer open",
      lake,
      epoch: store.epoch,
      bootstrapped: catalog.bootstrapped,
      position: store.position,
      ms: Math.round(clock.now() - t0),
    });
    return { store, catalog, pacer };
  }

  /** A deleted lake answers NotFound, except to a create, which learns when the name is free again. */
  private deletedError(create: boolean, deletedAt: number | undefined): CodedError {
    const { lake, tunables } = this.host;
    const at = deletedAt ?? this.host.now();
    if (!create) return new LakeWasDeleted(lake, at);
    return new LakeDeletedPendingRemoval(lake, at, at + tunables.deleteGraceMs);
  }

  private async openStore(heldEpoch: number | undefined): Promise<Store> {
    const { lake, bucket, identity, tunables } = this.host;
    const options = {
      identity,
      now: this.host.now,
      ...(heldEpoch !== undefined ? { heldEpoch } : {}),
      ...(tunables.storeRetry ? { retry: tunables.storeRetry } : {}),
      ...(tunables.storeMaintenance ? { maintenance: tunables.storeMaintenance } : {}),
      // The first commit's lookups, fetched beside the tail reads and the fence PUT
      // (docs/decisions/0171-wake-prefetch.md).
      prefetch: commitLookupRanges(),
      // The catalog's append-only log gets partitions of its own, which run merges move rather than rewrite
      // (docs/decisions/0186-partition-moves.md).
      partitionCuts: storePartitionCuts(),
    };
    let store: Store;
    try {
      store = await openWriter(bucket, lake, options);
    } catch (e) {
      // Two openers raced and this one lost; opening again takes over from the winner.
      if (!(e instanceof OpenRaced)) throw e;
      store = await openWriter(bucket, lake, { ...options, heldEpoch: undefined });
    }
    const t = store.takeover;
    if (t !== undefined && t.identity !== "" && t.identity !== identity) {
      const ago = this.host.now() - t.writtenAt;
      this.host.log(ago < SUSPICIOUS_TAKEOVER_MS ? "error" : "warn", {
        msg:
          ago < SUSPICIOUS_TAKEOVER_MS
            ? "lake taken over from a different writer identity shortly after it wrote: two deployments probably share this bucket, and their writers will keep fencing each other"
            : "lake taken over from a different writer identity",
        lake,
        previousIdentity: t.identity,
        previousEpoch: t.epoch,
        msSincePreviousWrite: ago,
      });
    }
    return store;
  }

  private flushStore(store: Store): Promise<void> {
    return store.flush().then(
      () => {
        // The store asks for maintenance once its WAL tail is long; the alarm runs it, off the commit path.
        if (store.needsMaintenance && !this.maintenanceArmed) {
          this.maintenanceArmed = true;
          const rec = this.host.registry.get();
          if (rec !== undefined && rec.state === "live" && !rec.dirty)
            this.host.registry.put({ ...rec, dirty: true });
          this.host.scheduleBackground(this.host.tunables.backgroundSliceDelayMs);
        }
      },
      (e: unknown) => {
        // Waiters learn this through their own durability handles; this covers a flush nobody waits on.
        this.durabilityFailed(e);
      },
    );
  }

  private async durableHead(s: Session): Promise<HeadAnswer> {
    // An empty transaction commits trivially at its begin position; its handle settles once that cut
    // is durable, so the head reported is one a reader can already see.
    const tx = s.store.begin();
    try {
      const h = await head(tx);
      const handle = tx.commit();
      await handle.durable;
      return { snapshotId: h.snapshot_id, batchCount: h.batch_count, position: h.position };
    } finally {
      tx.abort();
    }
  }

  /** Terminal: answer every pending caller, stop flushing and ask the host to end the instance. */
  private terminate(reason: CodedError): void {
    if (this.terminal) return;
    this.terminal = reason;
    const fenced = reason instanceof Fenced;
    this.host.log("error", {
      msg: "lake writer is terminal: answering every pending commit, then ending this instance",
      lake: this.host.lake,
      code: reason.code,
      error: reason.message,
      pending: this.tickets.size,
    });
    this.session?.pacer.close();
    const notSubmitted = fenced
      ? reason
      : new Unavailable(`the writer stopped (${reason.code}) before this commit was submitted`);
    this.coalescer.shutdown(notSubmitted);
    for (const t of this.tickets) {
      const submitted = t.phase === "submission" || t.phase === "durability";
      t.stop(
        fenced
          ? reason
          : submitted
            ? reason instanceof CommitOutcomeUnknown
              ? reason
              : new CommitOutcomeUnknown(`the writer stopped (${reason.code}) while it was in flight`)
            : notSubmitted,
      );
    }
    this.stall.close();
    this.session?.store.close().catch(() => {});
    this.host.abort(`${reason.code}: ${reason.message}`);
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

/** Backoff after the nth consecutive background failure: base doubling, capped. */
export function backgroundRetryDelay(
  t: Pick<WriterTunables, "backgroundRetryBaseMs" | "backgroundRetryMaxMs">,
  failures: number,
): number {
  const exp = Math.min(Math.max(failures, 1) - 1, 30);
  return Math.min(t.backgroundRetryMaxMs, t.backgroundRetryBaseMs * 2 ** exp);
}

function checkSpacing(ms: number): void {
  if (!Number.isFinite(ms) || ms < 0 || ms > 10_000) {
    throw new InvalidRequest(`flushSpacingMs must be between 0 and 10000, got ${ms}`);
  }
}
