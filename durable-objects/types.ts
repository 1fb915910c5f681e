/**
 * The writer's shapes: what its host provides, what its methods answer, the session it opens, and the
 * one small record of state its parts share (owned by the front, `writer.ts`).
 */

import type { Catalog, GroupMember, GroupOutcome } from "../catalog/index.ts";
import type { JobRun } from "../maintenance/history.ts";
import type { Bucket, Store } from "../storage/api.ts";
import { CodedError } from "../storage/errors.ts";
import type { Clock } from "./clock.ts";
import type { MetricsStore } from "./metrics-store.ts";
import type { WriterTunables } from "./options.ts";
import type { FlushPacer } from "./pacer.ts";
import type { LakeRegistry } from "./registry.ts";
import type { Phase } from "./stall.ts";
import type { Ticket } from "./ticket.ts";

export type LogLevel = "info" | "warn" | "error";

/** Who asked for a commit: a caller, or the writer's own background pass (jobs, the row flusher). */
export type Origin = "caller" | "background";

/** The awaits of the submitting task, in order (a test seam may throw after each). */
export type SubmitStep = "capacity" | "commitGroup";

/** What the writer needs from whatever hosts it (the Durable Object, or a benchmark in Node). */
export interface WriterHost {
  lake: string;
  bucket: Bucket;
  /** The bucket's name (BUCKET_NAME): whether the lake's data path is the writer's (decision 0502). */
  bucketName?: string;
  /** Where the counters survive restarts (the object's storage); absent: they start at zero each time. */
  metricsStore?: MetricsStore;
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

/** A purge's answer: the delete's, and whether every object is gone (the name is free again). */
export interface PurgeAnswer extends DeleteAnswer {
  purged: boolean;
  objectsRemoved: number;
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

/** An open lake: its store, its catalog, and the pacer that flushes the store. */
export interface Session {
  store: Store;
  catalog: Catalog;
  pacer: FlushPacer;
}

/** A coalescer member: one caller's request list (a caller's own group stays in one batch). */
export interface Unit {
  requests: GroupMember[];
}

export type Submitted =
  | { kind: "group"; outcome: GroupOutcome; offsets: number[]; submitMs: number }
  | { kind: "failed"; error: unknown; applied: boolean };

/**
 * State more than one part reads, in one record the front owns: the commit path adds and removes
 * tickets and stamps `lastCommitAt`; the quiet wait, the idle flush, the delete's drain and the terminal
 * answers read the tickets; the row host arms and clears `rowFlushDueAt`.
 */
export interface SharedState {
  /** Commits in flight (admitted, batched, submitting or awaiting durability). */
  readonly tickets: Set<Ticket>;
  /** Wall time of the newest caller commit this activation saw arrive or land (the idle flush's clock). */
  lastCommitAt: number | undefined;
  /** When the row flusher is next due (undefined: not armed, or unknown after a restart; ∞: being armed). */
  rowFlushDueAt: number | undefined;
}

/**
 * What the front hands every part (`writer.ts` builds it once): the host, the shared record, and the
 * front's own answers — the session, the lifecycle's state and transitions, the submission slot. A part
 * reaches the rest of the writer only through these and its own events.
 */
export interface FrontDeps {
  host: WriterHost;
  shared: SharedState;
  /** The open session, opening it on first use (refuses on a stopped, deleted or deleting writer). */
  ready(): Promise<Session>;
  /** The open session, if any. */
  current(): Session | undefined;
  /** Why the writer stopped, if it did. */
  terminal(): CodedError | undefined;
  throwIfStopped(): void;
  terminate(reason: CodedError): void;
  /** The store failed to confirm a segment: terminal; answers the error every waiter gets. */
  durabilityFailed(e: unknown): CodedError;
  /** Runs `fn` holding the submission slot. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/** A member's failure, rebuilt as a typed error so it crosses RPC with its own code. */
export class MemberFailed extends CodedError {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** What every file-writing step is handed: the lake, its bucket and the bucket's name (decision 0502). */
export function fileDeps(host: WriterHost): { lake: string; bucket: Bucket; bucketName?: string } {
  const { lake, bucket, bucketName } = host;
  return bucketName === undefined ? { lake, bucket } : { lake, bucket, bucketName };
}
