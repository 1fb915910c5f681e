/**
 * One flush batch of the row log, run by the lake writer (docs/decisions/0313-rows-flush-parquet.md):
 * the catalog plans the batch (`planRowsFlush`: which records, and the Parquet file of each table whose
 * rows pass its inlining limit), the files are PUT under the lake's data prefix (put-if-absent: a data
 * file never changes once written), then the `rows_flush` verb commits through the writer's coalescer —
 * one DuckLake commit registering the files, trimming the records and moving the watermark in one store
 * batch. A crash or a refusal after a PUT leaves only an unreferenced file; the next step plans afresh
 * from the log, so what was drained is never applied twice.
 */
import {
  type CommitRequest,
  DataPathExternal,
  MAX_FLUSH_RECORDS,
  type Pause,
  planKeyIndexRebuild,
  planRowsFlush,
  type RowFileSource,
  readIngestHead,
  readTail,
} from "../catalog/index.ts";
import type { Bucket, ReadView } from "../storage/api.ts";
import { CodedError } from "../storage/errors.ts";
import { yieldToEventLoop } from "../storage/maintenance.ts";
import { putPlanned } from "./put-planned.ts";

export interface RowsFlushDeps {
  lake: string;
  bucket: Bucket;
  /** The bucket's name: a lake whose data path is external gets no files (catalog/data-path.ts, 0502). */
  bucketName?: string;
  /** The writer's latest state (the plan is made from it). */
  view: () => ReadView;
  commit: (
    request: CommitRequest,
  ) => Promise<{ snapshotId: number | null; assigned: Record<string, unknown>[] }>;
  now: () => number;
  message: string;
  /** Reads the lake's data files (a key-index rebuild reads the table's rows). */
  files: RowFileSource;
  /**
   * The yield between the stretches of laying out and encoding a batch's Parquet, as maintenance's
   * (docs/decisions/0325-paced-maintenance.md); default one macrotask.
   */
  pause?: Pause;
}

export interface RowsFlushStep {
  /** Records the step drained (0: the log was drained, or the plan went stale and nothing applied). */
  records: number;
  drained: number;
  snapshotId: number | null;
  /** The plan was made at a watermark another flush had moved (nothing applied; plan again). */
  stale: boolean;
  /** Parquet files this step registered. */
  files: number;
}

export async function runRowsFlushStep(
  deps: RowsFlushDeps,
  max: number = MAX_FLUSH_RECORDS,
): Promise<RowsFlushStep | null> {
  const plan = await planRowsFlush(deps.view(), deps.now, max, deps.pause ?? yieldToEventLoop);
  if (plan === null) return null;
  await putPlanned(deps, plan.objects);
  const r = await deps.commit({ verbs: [plan.verb], message: deps.message });
  const a = r.assigned[0] ?? {};
  return {
    records: Number(a.records ?? 0),
    drained: Number(a.drained ?? 0),
    snapshotId: r.snapshotId,
    stale: Number(a.stale ?? 0) === 1,
    files: plan.objects.length,
  };
}

/** Flush batches one drain commits before it answers (the alarm re-arms for the rest). */
export const MAX_FLUSH_BATCHES_PER_CALL = 20;
/**
 * Commit attempts one drain makes in all: its batches, stale plans re-made, and the narrowing that finds a
 * poison record (log2 of MAX_FLUSH_RECORDS halvings, twice over) — so one call always ends.
 */
export const MAX_FLUSH_ATTEMPTS_PER_CALL = 64;

/**
 * The catalog's member-error codes a record itself can cause (its values no longer fit the table, a cap
 * reached): only these narrow a batch towards a poison record. A stale plan re-plans; anything else (the
 * store, the writer, a conflict) propagates.
 */
const RECORD_ERROR_CODES = new Set([
  "Constraint",
  "InvalidRequest",
  "NotFound",
  "Unsupported",
  "AlreadyExists",
]);

function isRecordError(e: unknown): e is CodedError {
  return e instanceof CodedError && RECORD_ERROR_CODES.has(e.code);
}

export interface DrainAnswer {
  records: number;
  batches: number;
  snapshots: number[];
  /** Sequence numbers this drain moved to the dead letters (decision 0314). */
  deadLettered: number[];
}

/**
 * Drains the log: flush steps until it is empty or the bounds above are reached. A batch that fails with a
 * member error (a record the fold cannot apply) is halved from the front until the failing record is alone;
 * that record is dead-lettered (`rows_dead_letter`) and the batch size grows back (docs/decisions/0314-dead-letters.md).
 * Any other failure (the store, the writer) propagates unchanged.
 */
/**
 * Before a batch is planned: every keyed table the next `max` records upsert or delete into whose key
 * index has lost its marker gets its index rebuilt from the lake (docs/decisions/0315-key-index-rebuild.md),
 * so the fold never misses the lake row a key names.
 */
async function rebuildLostIndexes(deps: RowsFlushDeps, max: number): Promise<void> {
  const view = deps.view();
  const head = await readIngestHead(view);
  const tables = new Set<number>();
  for (const r of await readTail(view, head.drained, max)) {
    if (r.kind === "upsert" || r.kind === "delete") tables.add(r.table_id);
  }
  for (const t of tables) {
    const verb = await planKeyIndexRebuild(deps.view(), t, deps.files);
    if (verb) await deps.commit({ verbs: [verb], message: deps.message });
  }
}

export async function drainRowLog(deps: RowsFlushDeps): Promise<DrainAnswer> {
  const out: DrainAnswer = { records: 0, batches: 0, snapshots: [], deadLettered: [] };
  let size = MAX_FLUSH_RECORDS;
  for (
    let attempt = 0;
    attempt < MAX_FLUSH_ATTEMPTS_PER_CALL && out.batches < MAX_FLUSH_BATCHES_PER_CALL;
    attempt++
  ) {
    // Outside the narrowing below: a rebuild that cannot run is the lake's problem, not a record's.
    await rebuildLostIndexes(deps, size);
    let step: RowsFlushStep | null;
    try {
      step = await runRowsFlushStep(deps, size);
    } catch (e) {
      if (e instanceof CodedError && e.code === "FlushPlanStale") continue;
      // The lake's, not a record's: never narrowed into dead letters (decision 0502).
      if (e instanceof DataPathExternal || !isRecordError(e)) throw e;
      if (size > 1) {
        size = Math.ceil(size / 2);
        continue;
      }
      const head = await readIngestHead(deps.view());
      const seq = head.drained + 1;
      await deps.commit({
        verbs: [
          { op: "rows_dead_letter", seq, expectDrained: head.drained, code: e.code, message: e.message },
        ],
        message: deps.message,
      });
      out.deadLettered.push(seq);
      continue;
    }
    if (step === null) break;
    if (step.stale) continue;
    if (step.records === 0) break;
    out.batches++;
    out.records += step.records;
    if (step.snapshotId !== null) out.snapshots.push(step.snapshotId);
    size = Math.min(MAX_FLUSH_RECORDS, size * 2);
  }
  return out;
}
