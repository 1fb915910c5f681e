/**
 * catalog/: DuckLake 1.0 semantics on the store. Start here: `openCatalog` bootstraps or adopts a store,
 * `Catalog.commitGroup` is the commit core the lake writer drives, and the read functions work on any
 * ReadView (the writer's snapshot or a stateless reader's cut).
 */
import type { Store } from "../storage/api.ts";
import { bootstrapOrAdopt, DEFAULT_DATA_PATH } from "./bootstrap.ts";
import {
  type CommitResult,
  type GroupEnv,
  type GroupOutcome,
  memberError,
  runGroup,
} from "./commit/group.ts";
import { DEFAULT_IDEMPOTENCY_TTL_MS } from "./commit/idempotency.ts";
import type { GroupMember } from "./commit/member.ts";
import { sweepIdempotencyKeys } from "./commit/sweep.ts";
import { uuidv7 } from "./uuid.ts";
import type { CommitRequest } from "./verbs/schema.ts";

export type { CommitResult, GroupOutcome, MemberResult } from "./commit/group.ts";
export { MINTED_KEY_SKEW_MS, mintIdempotencyKey, sha256Hex } from "./commit/idempotency.ts";
export { planLakeWrite, plannableRowsWrites } from "./commit/lake-write-plan.ts";
export { appendsToRowLog, type GroupMember, type SelfStagedMember } from "./commit/member.ts";
export {
  DataPathExternal,
  DEFAULT_BUCKET_NAME,
  externalDataPathReason,
  guardedFileSource,
  type LakeFileSource,
  lakeDataPathExternal,
  lakeDataUrl,
  MAX_DATA_PATH,
  normalizeDataPath,
} from "./data-path.ts";
export * from "./errors.ts";
export { checkPathNotFenced, FileScheduledForDeletion } from "./fences.ts";
// The plans, steps and records of the writer's own jobs (maintenance/, durable-objects/), the data-path
// rule the lakes route and the writer share, and the staged-row write contract: the catalog's one door
// for everything outside it (test/repo/layers.node-test.ts; decision docs/decisions/0460-layer-check.md).
export { checkFileColumns, type TableColumnType, tableColumnTypes } from "./file-schema.ts";
export { readDeadLetters } from "./ingest/dead-letter.ts";
export { planKeyIndexRebuild } from "./ingest/key-index.ts";
export { MAX_ROWS_PAGE, type RowsQuery, type RowsRead, readRows } from "./ingest/read.ts";
export {
  MAX_ROWS_READ_BYTES,
  MAX_ROWS_READ_FILE_BYTES,
  MAX_ROWS_READ_LAKE_ROWS,
  type RowFileSource,
  RowsReadTooLarge,
} from "./ingest/read-files.ts";
export { planRowsFlush } from "./ingest/row-flush-plan.ts";
export { readIngestHead, readSettings as readIngestSettings, readTail } from "./ingest/state.ts";
export { storePartitionCuts } from "./keys.ts";
export {
  type DueFile,
  dueFiles,
  fenceDue,
  forgetDeleted,
  MAX_FILES_DELETED_PER_STEP,
  referencedPaths,
} from "./maintenance/cleanup.ts";
export { nextDeleteAt, nextExpiryAt, nextOrphanDeleteAt } from "./maintenance/due.ts";
export { expireSnapshotsStep } from "./maintenance/expire.ts";
export {
  type FlushPlan,
  MAX_FLUSH_ROWS_PER_STEP,
  type PlannedObject,
  planFlushes,
} from "./maintenance/inline-flush-plan.ts";
export {
  buildMerge,
  type CompactionOptions,
  type CompactionStep,
  type PlannedCompaction,
  planMerges,
  type ReadObject,
  type Refusal,
} from "./maintenance/merge-plan.ts";
export {
  type DueOrphan,
  dueOrphans,
  fenceOrphans,
  forgetOrphans,
  type ListedObject,
  MAX_OBJECTS_LISTED_PER_PASS,
  markOrphans,
  orphanCursor,
  stillOrphaned,
  unreferencedObjects,
} from "./maintenance/orphans.ts";
export type { Pause } from "./maintenance/pace.ts";
export { dataPathOf } from "./maintenance/paths.ts";
export { buildRewrite, planRewrites, type RewriteOptions } from "./maintenance/rewrite-plan.ts";
export {
  appendJobRuns,
  JOB_NAMES,
  type JobName,
  type JobRun,
  MAX_JOB_RUNS_KEPT,
  MAX_JOB_RUNS_PAGE,
  MAX_JOB_RUNS_PER_APPEND,
  readJobRuns,
  type StoredJobRun,
} from "./maintenance/runs.ts";
export { type MaintenanceSettings, maintenanceSettings } from "./maintenance/settings.ts";
export { liveTableId } from "./maintenance/table-ref.ts";
export { MAX_NAME_LENGTH } from "./name-rules.ts";
export { type CatalogState, catalogAt } from "./reads/catalog-at.ts";
export {
  DEFAULT_DUCKLAKE_PAGE_ROWS,
  type DucklakePage,
  ducklakePage,
  isDucklakeTableName,
  MAX_DUCKLAKE_PAGE_ROWS,
} from "./reads/ducklake-dump.ts";
export { DUCKLAKE_TABLES, ducklakeTable, type Row } from "./reads/ducklake-tables.ts";
export { type FileTarget, fileTargets } from "./reads/file-targets.ts";
export { type PlannedRowIds, plannedRowIds, type ScanPlan, tableFilesAt } from "./reads/files-at.ts";
export {
  type InlinedRow,
  type InlinedTable,
  inlinedTableNamed,
  inlinedTablesAt,
} from "./reads/inlined-tables.ts";
export { type CountedFile, fileRowCount, planRowCount } from "./reads/plan-count.ts";
export { commitLookupRanges } from "./reads/plan-prefetch.ts";
export { FILTER_OPS, type FilterOp, pruneFiles, type StatsFilter } from "./reads/prune.ts";
export { MAX_NAMED_TABLES_PER_PAGE, type NamedSnapshot, withTableNames } from "./reads/snapshot-naming.ts";
export { head, listSnapshots, type SnapshotInfo } from "./reads/snapshots.ts";
export { type TableFileRows, tableFileRows } from "./reads/table-files.ts";
export {
  MAX_DEAD_LETTERS,
  MAX_DEAD_LETTERS_PAGE,
  MAX_FLUSH_INTERVAL_MS,
  MAX_FLUSH_RECORDS,
  MAX_KEY_COLUMNS,
  MAX_OPS_PER_WRITE,
  MAX_UNFLUSHED_RECORDS,
} from "./row-log-limits.ts";
// The Quack wire's reads of catalog/sql/ (worker/quack/): statements, read answers, result types.
export { AnswerCache } from "./sql/answer-cache.ts";
export { type CutIdentity, CutMemos } from "./sql/cut-memo.ts";
export { type StatementKind, statementKind } from "./sql/kind.ts";
export { MAX_SQL_TOKENS, type Statement, shapeOf, splitStatements } from "./sql/lexer.ts";
export { MAX_METADATA_SCHEMA_CHARS, routeMetadataSchema, type SchemaRoute } from "./sql/metadata-schema.ts";
export { answerRead, type DataObjects, type SqlReadContext } from "./sql/reads.ts";
export type { SqlField, SqlInterval, SqlResult, SqlTimeTz, SqlType, SqlValue } from "./sql/result.ts";
export { VARIANT_PHYSICAL } from "./sql/result.ts";
export type { SqlWriteAnswer, SqlWriteRequest } from "./sql/writes/contract.ts";
export { flushMarksOf } from "./sql/writes/flush-marks.ts";
export { expiresSnapshots, planMetadataAppend, planSqlWrite } from "./sql/writes/plan.ts";
export { int128ToUuid, uuidToInt128 } from "./uuid.ts";
export { timestamptzFromEpochMicros } from "./values/index.ts";
export type { Assigned } from "./verbs/context.ts";
export {
  MAX_INLINED_DELETES_PER_COMMIT,
  MAX_INLINED_ROWS_PER_COMMIT,
  MAX_INLINED_ROWS_PER_TABLE,
} from "./verbs/ops/inline.ts";
export { JOB_SWITCH } from "./verbs/ops/options.ts";
export {
  type CommitRequest,
  CommitRequestSchema,
  RowOpSchema,
  type Verb,
  VerbSchema,
  WritePathSchema,
} from "./verbs/schema.ts";

export interface CatalogOptions {
  /** Wall clock in milliseconds (snapshot_time, idempotency expiry). */
  now?: () => number;
  /** DuckLake's data_path written at bootstrap (must end with `/`; one is appended if missing). */
  dataPath?: string;
  /** The data path the lake writer reaches (`lakeDataUrl`; decisions 0502, 0601). */
  ownDataPath?: string;
  /** Bootstrap a lake whose files DuckLake encrypts (its `ENCRYPTED` ATTACH option; decision 0440). */
  encrypted?: boolean;
  /** How long an idempotency record is kept, in milliseconds (default 24 h). */
  idempotencyTtlMs?: number;
  /** Source of backoff jitter in [0, 1). */
  random?: () => number;
  /** Where exhausted retry budgets are reported (default console.warn). */
  log?: (message: string) => void;
  /** UUID generator (default v7). */
  uuid?: () => string;
}

/** A single commit's outcome: its result plus the durability of the batch it landed in. */
export type CommitOutcome = CommitResult & { durable: Promise<void> };

export class Catalog {
  private readonly env: GroupEnv;
  constructor(
    readonly store: Store,
    options: CatalogOptions,
    /** True when this open bootstrapped the store (the host should flush it). */
    readonly bootstrapped: boolean,
  ) {
    const now = options.now ?? (() => Date.now());
    this.env = {
      now,
      dataPath: options.dataPath ?? DEFAULT_DATA_PATH,
      ...(options.ownDataPath !== undefined ? { ownDataPath: options.ownDataPath } : {}),
      uuid: options.uuid ?? (() => uuidv7(now())),
      idempotencyTtlMs: options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
      random: options.random ?? Math.random,
      log: options.log ?? ((m) => console.warn(m)),
    };
  }

  /**
   * Stages every member against the state the previous members left, each minting its own snapshot, in
   * one store batch; re-runs members after a benign lost race. Results are final once `durable` settles.
   */
  commitGroup(members: GroupMember[]): Promise<GroupOutcome> {
    return runGroup(this.store, members, this.env);
  }

  /** A group of one. Throws the member's error (CommitConflict, NotFound, ...) instead of returning it. */
  async commit(request: CommitRequest): Promise<CommitOutcome> {
    const outcome = await this.commitGroup([request]);
    const r = outcome.results[0];
    if (!r) throw new Error("commitGroup returned no result for its only member");
    if (!r.ok) {
      outcome.durable.catch(() => {});
      throw memberError(outcome, 0) ?? new Error(r.error.message);
    }
    const durable = outcome.durable;
    return { ...r.value, durable };
  }

  /** Removes idempotency records whose expiry has passed; returns how many went. Mints no snapshot. */
  sweepIdempotencyKeys(limit = 1000): Promise<{ removed: number; durable: Promise<void> }> {
    return sweepIdempotencyKeys(this.store, this.env.now(), limit);
  }
}

export async function openCatalog(store: Store, options: CatalogOptions = {}): Promise<Catalog> {
  const now = options.now ?? (() => Date.now());
  const bootstrapped = await bootstrapOrAdopt(store, {
    now,
    dataPath: options.dataPath ?? DEFAULT_DATA_PATH,
    uuid: options.uuid ?? (() => uuidv7(now())),
    ...(options.encrypted === true ? { encrypted: true } : {}),
  });
  return new Catalog(store, options, bootstrapped);
}
