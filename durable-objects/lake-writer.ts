/**
 * LakeWriter: one Durable Object per lake (addressed by `idFromName(lake)`), the lake's single writer.
 * This file is the shell: RPC methods, the alarm, the object's own storage and its abort. The writer
 * itself (open, coalescer, pacing, acknowledgement, terminal path) is `writer.ts`, which also runs in
 * Node for benchmarks. Every RPC method answers with an envelope (see envelope.ts) and takes the lake
 * name, since the object cannot learn its own name reliably.
 */

import { DurableObject } from "cloudflare:workers";
import type { CommitResult, SqlWriteAnswer, SqlWriteRequest } from "../catalog/index.ts";
import { InvalidRequest, type MemberResult, quoteName } from "../catalog/index.ts";
import type { GuardedDeleteAnswer } from "../maintenance/guarded-delete.ts";
import type { JobName, StoredJobRun } from "../maintenance/history.ts";
import type { CheckpointInfo } from "../storage/api.ts";
import { AlarmScheduler } from "./alarm.ts";
import "./bindings.ts";
import { systemClock } from "./clock.ts";
import { type Envelope, enveloped } from "./envelope.ts";
import type { MetricsSnapshot } from "./metrics.ts";
import { clearObjectMetrics, objectMetricsStore } from "./metrics-store.ts";
import { DEFAULT_TUNABLES } from "./options.ts";
import type { LakeRecord, LakeRegistry } from "./registry.ts";
import { writerSetup } from "./setup.ts";
import type {
  CreateAnswer,
  DeleteAnswer,
  FlushAnswer,
  HeadAnswer,
  LogLevel,
  PurgeAnswer,
  WriterStats,
} from "./types.ts";
import { Writer } from "./writer.ts";

export interface WriterMetricsAnswer {
  lake: string;
  instanceStartedAt: string;
  metrics: MetricsSnapshot;
}

export interface WriterStatus {
  lake: string;
  instanceStartedAt: string;
  requestsServed: number;
  writer: WriterStats | null;
}

export interface CommitOptions {
  idempotencyKey?: string;
  author?: string;
  message?: string;
  extraInfo?: string;
}

const RECORD_KEY = "lake";
/** If some RPC never returns, the instance aborts anyway after this long. */
const ABORT_GRACE_MS = 2_000;

class ObjectRegistry implements LakeRegistry {
  constructor(private readonly storage: DurableObjectStorage) {}
  get(): LakeRecord | undefined {
    return this.storage.kv.get<LakeRecord>(RECORD_KEY);
  }
  put(record: LakeRecord): void {
    this.storage.kv.put(RECORD_KEY, record);
  }
  delete(): void {
    this.storage.kv.delete(RECORD_KEY);
    clearObjectMetrics(this.storage);
  }
}

function log(level: LogLevel, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, time: new Date().toISOString(), ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export class LakeWriter extends DurableObject<Cloudflare.Env> {
  private readonly startedAt = new Date().toISOString();
  private served = 0;
  private inflight = 0;
  private writer: Writer | undefined;
  /** The lake this instance's writer serves (set with the writer). */
  private boundLake: string | undefined;
  private aborting: string | undefined;
  private readonly registry: ObjectRegistry;
  private readonly alarms: AlarmScheduler;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.registry = new ObjectRegistry(ctx.storage);
    this.alarms = new AlarmScheduler(ctx.storage, Date.now, (e) =>
      log("warn", { msg: "could not schedule the alarm", error: String(e) }),
    );
  }

  /** Resolves once every alarm request so far is applied (tests read the alarm after it). */
  alarmsScheduled(): Promise<void> {
    return this.alarms.settled();
  }

  async status(lake: string): Promise<Envelope<WriterStatus>> {
    return this.call(lake, async (w) => ({
      lake,
      instanceStartedAt: this.startedAt,
      requestsServed: this.served,
      writer: w?.stats ?? null,
    }));
  }

  /** The writer's counters and histograms (durable-objects/metrics.ts); reading them opens nothing. */
  async metrics(lake: string): Promise<Envelope<WriterMetricsAnswer>> {
    return this.call(lake, async (w) => ({
      lake,
      instanceStartedAt: this.startedAt,
      metrics: w.metricsSnapshot(),
    }));
  }

  /** Creates the lake (bootstraps its catalog); AlreadyExists if it exists or is being removed. */
  async createLake(
    lake: string,
    options: { dataPath?: string; flushSpacingMs?: number } = {},
  ): Promise<Envelope<CreateAnswer>> {
    return this.call(lake, (w) => w.createLake(options));
  }

  /** Marks the lake deleted (its name answers NotFound) and removes its objects after the grace period. */
  async deleteLake(lake: string): Promise<Envelope<DeleteAnswer>> {
    return this.call(lake, (w) => w.deleteLake());
  }

  /** Deletes the lake if live and removes its objects now (admin purge, docs/decisions/0480-lake-purge.md). */
  async purgeLake(lake: string): Promise<Envelope<PurgeAnswer>> {
    return this.call(lake, (w) => w.purgeLake());
  }

  /** One commit: answered once its WAL segment is durable and published, with its position token. */
  async commit(lake: string, verbs: unknown, options: CommitOptions = {}): Promise<Envelope<CommitResult>> {
    return this.call(lake, (w) => w.commit({ ...options, verbs }));
  }

  /** A row transaction: one request in a batch of its own, all or nothing. */
  async transaction(
    lake: string,
    verbs: unknown,
    options: CommitOptions = {},
  ): Promise<Envelope<CommitResult>> {
    return this.call(lake, (w) => w.transaction({ ...options, verbs }));
  }

  /** Drains the row log into DuckLake now (bounded batches); answers what it drained. */
  async flushRows(lake: string): Promise<Envelope<FlushAnswer>> {
    return this.call(lake, (w) => w.flushRows());
  }

  /** Runs maintenance jobs now (`POST …/maintenance`); answers the runs as the history records them. */
  async runMaintenance(
    lake: string,
    selection: { jobs?: JobName[]; table?: { schema?: string; name: string } } = {},
  ): Promise<Envelope<StoredJobRun[]>> {
    return this.call(lake, (w) => w.runMaintenance(selection));
  }

  /**
   * Deletes objects of the lake's data prefix for the S3 endpoint, behind job 5's fence: answers which
   * were deleted and which a file version names (kept). Decision docs/decisions/0630-quack-orphan-listing-grace.md.
   */
  async deleteDataObjects(lake: string, paths: string[]): Promise<Envelope<GuardedDeleteAnswer>> {
    return this.call(lake, (w) => w.deleteDataObjects(paths));
  }

  /** A caller's own group: one batch, one snapshot per member, per-member results. */
  async commitGroup(lake: string, requests: unknown): Promise<Envelope<MemberResult[]>> {
    return this.call(lake, (w) => w.commitGroup(requests));
  }

  /**
   * A Quack request holding write statements (DuckLake's commit batch): one atomic commit through the
   * coalescer, answered once durable and published with the last statement's result and its position.
   */
  async sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>> {
    return this.call(lake, (w) => w.sqlWrite(req));
  }

  /** The head of the newest durable, published cut. */
  async head(lake: string): Promise<Envelope<HeadAnswer>> {
    return this.call(lake, (w) => w.head());
  }

  /** Mints a named checkpoint of the durable cut; readers open it by id without the writer. */
  async createCheckpoint(
    lake: string,
    options: { lifetimeMs?: number } = {},
  ): Promise<Envelope<CheckpointInfo>> {
    return this.call(lake, (w) => w.createCheckpoint(options));
  }

  /** Live checkpoints. */
  async listCheckpoints(lake: string): Promise<Envelope<CheckpointInfo[]>> {
    return this.call(lake, (w) => w.listCheckpoints());
  }

  /** Deletes a checkpoint: readers refuse it from now on; GC reclaims its cut after the grace period. */
  async deleteCheckpoint(lake: string, id: string): Promise<Envelope<{ id: string }>> {
    return this.call(lake, (w) => w.deleteCheckpoint(id));
  }

  /** Per-lake settings (flush spacing); survive restarts. */
  async configure(
    lake: string,
    options: { flushSpacingMs?: number },
  ): Promise<Envelope<{ flushSpacingMs: number }>> {
    return this.call(lake, async (w) => w.configure(options));
  }

  /**
   * Background work in small, idempotent slices: deleted-lake removal, idempotency-key sweep, store
   * maintenance. The writer re-arms a failed pass itself (with backoff), so the alarm never throws: a
   * runtime retry on top would only double the work.
   */
  override async alarm(): Promise<void> {
    const rec = this.registry.get();
    if (rec === undefined) return;
    try {
      await this.writerFor(rec.lake).background();
    } catch (e) {
      log("error", { msg: "background work could not start", lake: rec.lake, error: String(e) });
    }
    await this.alarms.settled();
  }

  private async call<T>(lake: string, fn: (w: Writer) => Promise<T>, count = true): Promise<Envelope<T>> {
    if (count) this.served++;
    this.inflight++;
    try {
      return await enveloped(() => fn(this.writerFor(lake)));
    } finally {
      this.inflight--;
      this.maybeAbort();
    }
  }

  private writerFor(lake: string): Writer {
    const bound = this.writer !== undefined ? this.boundLake : this.registry.get()?.lake;
    if (bound !== undefined && bound !== lake) {
      throw new InvalidRequest(`this writer serves lake ${quoteName(bound)}, not ${quoteName(lake)}`);
    }
    // A deleted lake whose objects are gone is served afresh: its name may be created again.
    if (this.writer?.removed) this.writer = undefined;
    if (this.writer === undefined) {
      const setup = writerSetup(lake);
      this.boundLake = lake;
      this.writer = new Writer({
        lake,
        bucket: setup.bucket ? setup.bucket(this.env.BUCKET) : this.env.BUCKET,
        ...(this.env.BUCKET_NAME !== undefined ? { bucketName: this.env.BUCKET_NAME } : {}),
        identity: this.ctx.id.toString(),
        registry: this.registry,
        metricsStore: objectMetricsStore(this.ctx.storage),
        clock: systemClock,
        now: setup.now ?? (() => Date.now()),
        tunables: {
          ...DEFAULT_TUNABLES,
          scheduledMaintenance: this.env.SCHEDULED_MAINTENANCE !== "disabled",
          ...setup.tunables,
        },
        abort: (reason) => {
          setup.onAbort?.(reason, this.writer?.stats);
          this.abortWhenAnswered(reason);
        },
        scheduleBackground: (delayMs) => this.alarms.schedule(delayMs),
        log,
        ...(setup.afterSubmitStep ? { afterSubmitStep: setup.afterSubmitStep } : {}),
      });
    }
    return this.writer;
  }

  /** Every pending caller has been given its answer; end the instance once those answers are out. */
  private abortWhenAnswered(reason: string): void {
    if (this.aborting !== undefined) return;
    this.aborting = reason;
    setTimeout(() => this.ctx.abort(reason), ABORT_GRACE_MS);
    this.maybeAbort();
  }

  private maybeAbort(): void {
    const reason = this.aborting;
    if (reason === undefined || this.inflight > 0) return;
    setTimeout(() => this.ctx.abort(reason), 0);
  }
}
