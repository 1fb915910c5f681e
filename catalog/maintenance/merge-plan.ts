/**
 * Maintenance job 2, the DuckLake part: which adjacent small files of a table to merge, as stock DuckLake
 * 1.5.5's `ducklake_merge_adjacent_files` chooses them — live files below `target_file_size` without
 * deletes (Parquet or inlined), grouped by schema version and partition, in begin snapshot / row id / file
 * id order, each run taking files while the total moves toward the target — and the merged file plus the
 * `merge_adjacent_files` verb that registers it. Runs are further bounded by a step's named limits
 * (`compaction-files.ts`), so a large group is merged over several steps. The alarm's runs choose by size
 * tiers instead (`merge-tiers.ts`, decision 0333). Pure: the host passes a reader
 * of the inputs' bytes, PUTs the planned object, then commits (decision docs/decisions/0322-compaction-output.md).
 */
import type { ReadView } from "../../storage/api.ts";
import { CodedError } from "../errors.ts";
import { tableOption } from "../options.ts";
import { catalogAt } from "../reads/catalog-at.ts";
import type { ColumnRecord } from "../records.ts";
import { uuidv7 } from "../uuid.ts";
import { rowIdsAdjacent } from "../verbs/ops/compaction.ts";
import type { CommitRequest, VerbOf } from "../verbs/schema.ts";
import {
  type Candidate,
  type CompactedRow,
  columnsOf,
  DEFAULT_STEP_LIMITS,
  greedyRuns,
  groupKey,
  hasDataFiles,
  inputRows,
  layoutColumns,
  readAll,
  type StepLimits,
  type TableCandidates,
  tableCandidates,
  targetFileSize,
  writeCompacted,
} from "./compaction-files.ts";
import { autoCompact, type PlannedObject } from "./inline-flush-plan.ts";
import { type RunSizes, tieredRuns } from "./merge-tiers.ts";
import { noPause, Pacer, type Pause } from "./pace.ts";

/** Most steps one pass of a compaction job plans (each is one commit; the next pass continues). */
export const MAX_COMPACTION_STEPS_PER_PASS = 64;

/** One compaction step: its inputs (in output order), the columns of their schema version, where it writes. */
export interface CompactionStep {
  tableId: number;
  inputs: Candidate[];
  columns: ColumnRecord[];
  dataPath: string;
  tablePath: string;
}

/** The step compacting `run` (inputs of one table, in output order): jobs 2 and 3 build theirs alike. */
export async function stepFor(view: ReadView, t: TableCandidates, run: Candidate[]): Promise<CompactionStep> {
  return {
    tableId: t.tableId,
    inputs: run,
    columns: await columnsOf(view, t.tableId, run[0] as Candidate),
    dataPath: t.dataPath,
    tablePath: t.tablePath,
  };
}

export interface CompactionOptions {
  /** Overrides the table's `target_file_size` (bytes). */
  targetFileSize?: number;
  limits?: StepLimits;
  maxSteps?: number;
  /** The yield between a plan's bounded stretches (decision 0325); default none. */
  pause?: Pause;
  /**
   * A step merges at least this many files (default 2, as DuckLake's `merge_adjacent_files`). The alarm
   * asks for more (`SCHEDULED_MERGE_MIN_FILES`), so a growing table is not rewritten on every pass.
   */
  minInputs?: number;
  /**
   * When set (the alarm's run: `SCHEDULED_MERGE_GROWTH`), runs are chosen by size tiers instead of
   * DuckLake's greedy walk: a step's rows are at least this many times its largest input's, so a file near
   * its final size is not rewritten again and again (`merge-tiers.ts`, decision 0333).
   */
  growth?: number;
}

export interface PlannedCompaction {
  objects: PlannedObject[];
  request: CommitRequest;
  rowsOut: number;
  bytesOut: number;
}

/** Reads an input object by its path below the lake's data path (the host's GET). */
export type ReadObject = (relativeToDataPath: string) => Promise<Uint8Array>;

export type Refusal = { tableId: number; error: CodedError };

/** Per table that DuckLake's `auto_compact` leaves to maintenance: its candidates and resolved options. */
export async function eachTable(
  view: ReadView,
  pause: Pause | undefined,
  visit: (t: TableCandidates, option: (name: string) => string | undefined) => Promise<void>,
): Promise<Refusal[]> {
  // The candidates' scans pause between bounded stretches (decision 0325).
  const pacer = new Pacer(pause ?? noPause);
  const state = await catalogAt(view);
  const refused: Refusal[] = [];
  for (const t of state.tables) {
    if (!autoCompact(state.options, t.table_id, t.schema_id)) continue;
    // No data file, no candidates: the visitors would see an empty list (test/catalog/maintenance-plan-cost.test.ts).
    if (!(await hasDataFiles(view, t.table_id))) continue;
    try {
      const c = await tableCandidates(view, t.table_id, state.options.global.data_path ?? "", pacer);
      await visit(c, (name) => tableOption(state.options, t.table_id, t.schema_id, name));
    } catch (e) {
      if (e instanceof CodedError && (e.code === "Unsupported" || e.code === "InvalidRequest")) {
        refused.push({ tableId: t.table_id, error: e });
        continue;
      }
      throw e;
    }
  }
  return refused;
}

/** What the tiered choice reads of a candidate (its rows, its bytes, and the bytes a step reads for it). */
function candidateSizes(c: Candidate): RunSizes {
  return {
    rows: c.file.record_count,
    bytes: c.file.file_size_bytes,
    inputBytes: c.file.file_size_bytes + (c.file.delete_file?.file_size_bytes ?? 0),
  };
}

/** DuckLake's groups of a table's files, in candidate order within each group (first-seen group order). */
export function groups(files: readonly Candidate[]): Candidate[][] {
  const by = new Map<string, Candidate[]>();
  for (const c of files) {
    const k = groupKey(c);
    const g = by.get(k);
    if (g) g.push(c);
    else by.set(k, [c]);
  }
  return [...by.values()];
}

/** The next merge steps of every table, at most `maxSteps` in all. */
export async function planMerges(
  view: ReadView,
  options: CompactionOptions = {},
): Promise<{ steps: CompactionStep[]; refused: Refusal[] }> {
  const steps: CompactionStep[] = [];
  const max = options.maxSteps ?? MAX_COMPACTION_STEPS_PER_PASS;
  const limits = options.limits ?? DEFAULT_STEP_LIMITS;
  const minInputs = Math.max(2, options.minInputs ?? 2);
  const refused = await eachTable(view, options.pause, async (t, option) => {
    const target = options.targetFileSize ?? targetFileSize(option("target_file_size"));
    const small = t.candidates.filter((c) => c.file.file_size_bytes < target && c.deletedCount === 0);
    for (const g of groups(small)) {
      if (g.length < minInputs) continue;
      const runs =
        options.growth === undefined
          ? greedyRuns(g, target, (c) => c.file.file_size_bytes, limits)
          : tieredRuns(g, candidateSizes, { target, limits, minInputs, growth: options.growth });
      for (const run of runs) {
        if (run.length < minInputs || steps.length >= max) continue;
        steps.push(await stepFor(view, t, run));
      }
    }
  });
  return { steps, refused };
}

/** Row ids adjacent across the inputs: the merged file needs no row-id column (the verb's rule). */
export function inputsAdjacent(inputs: readonly Candidate[]): boolean {
  return rowIdsAdjacent(inputs.map((c) => c.file));
}

/** The compacted file's name, beside the first input (so a partitioned table's file stays in its partition). */
export function outputName(
  step: CompactionStep,
  now: () => number,
): { path: string; relativeToDataPath: string } {
  const first = step.inputs[0]?.file;
  const dir = first?.path_is_relative ? first.path.slice(0, first.path.lastIndexOf("/") + 1) : "";
  const path = `${dir}ducklake-${uuidv7(now())}.parquet`;
  const full = step.tablePath.endsWith("/") ? `${step.tablePath}${path}` : `${step.tablePath}/${path}`;
  return { path, relativeToDataPath: full.slice(step.dataPath.length) };
}

/** The merged file (rows in input order, ids and snapshots kept) and its verb. */
export async function buildMerge(
  step: CompactionStep,
  read: ReadObject,
  now: () => number,
  pause: Pause = noPause,
): Promise<PlannedCompaction> {
  const pacer = new Pacer(pause);
  const top = layoutColumns(step.columns);
  const rows: CompactedRow[] = [];
  const bytes = await readAll(
    step.inputs.map((c) => c.relativeToDataPath),
    read,
  );
  for (const [i, c] of step.inputs.entries()) {
    for (const r of await inputRows(top, c, bytes[i] as Uint8Array, new Set(), pacer)) rows.push(r);
  }
  const name = outputName(step, now);
  const { file, spec } = await writeCompacted(
    step.columns,
    rows,
    { rowId: !inputsAdjacent(step.inputs), snapshotId: true },
    name.path,
    pacer,
  );
  const verb: VerbOf<"merge_adjacent_files"> = {
    op: "merge_adjacent_files",
    table: { id: step.tableId },
    dataFileIds: step.inputs.map((c) => c.file.data_file_id),
    file: spec,
  };
  return {
    objects: [{ relativeToDataPath: name.relativeToDataPath, bytes: file.bytes }],
    request: { verbs: [verb], author: "ducklake-edge maintenance", message: "merge adjacent files" },
    rowsOut: rows.length,
    bytesOut: file.bytes.byteLength,
  };
}
