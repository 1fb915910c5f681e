/**
 * Maintenance job 3, the DuckLake part: which files to rewrite without their deleted rows, as stock
 * DuckLake 1.5.5's `ducklake_rewrite_data_files` chooses them — live files whose deleted fraction (delete
 * file plus inlined deletes) reaches `rewrite_delete_threshold` (default 0.95), grouped by schema version
 * and partition, each run taking files while the estimated kept size moves toward `target_file_size` —
 * and the rewritten file (rows keep their ids through `_ducklake_internal_row_id`) plus the
 * `rewrite_data_files` verb. Pure, like merge-plan.ts (decision docs/decisions/0322-compaction-output.md).
 */
import type { ReadView } from "../../storage/api.ts";
import { InvalidRequest } from "../errors.ts";
import type { VerbOf } from "../verbs/schema.ts";
import {
  type Candidate,
  type CompactedRow,
  DEFAULT_STEP_LIMITS,
  DUCKLAKE_DEFAULT_REWRITE_DELETE_THRESHOLD,
  deletePositions,
  greedyRuns,
  inputRows,
  layoutColumns,
  readAll,
  targetFileSize,
  writeCompacted,
} from "./compaction-files.ts";
import {
  type CompactionOptions,
  type CompactionStep,
  eachTable,
  groups,
  MAX_COMPACTION_STEPS_PER_PASS,
  outputName,
  type PlannedCompaction,
  type ReadObject,
  type Refusal,
  stepFor,
} from "./merge-plan.ts";
import { noPause, Pacer, type Pause } from "./pace.ts";

export interface RewriteOptions extends CompactionOptions {
  /** Overrides the table's `rewrite_delete_threshold` (a fraction in [0, 1]). */
  deleteThreshold?: number;
}

function threshold(text: string | undefined): number {
  if (text === undefined) return DUCKLAKE_DEFAULT_REWRITE_DELETE_THRESHOLD;
  const v = Number(text);
  if (!Number.isFinite(v) || v < 0 || v > 1)
    throw new InvalidRequest(`rewrite_delete_threshold ${JSON.stringify(text)} is not a fraction in [0, 1]`);
  return v;
}

const ratio = (c: Candidate): number =>
  c.file.record_count === 0 ? 0 : c.deletedCount / c.file.record_count;

/** The next rewrite steps of every table, at most `maxSteps` in all. */
export async function planRewrites(
  view: ReadView,
  options: RewriteOptions = {},
): Promise<{ steps: CompactionStep[]; refused: Refusal[] }> {
  const steps: CompactionStep[] = [];
  const max = options.maxSteps ?? MAX_COMPACTION_STEPS_PER_PASS;
  const limits = options.limits ?? DEFAULT_STEP_LIMITS;
  const refused = await eachTable(view, options.pause, async (t, option) => {
    const target = options.targetFileSize ?? targetFileSize(option("target_file_size"));
    const min = options.deleteThreshold ?? threshold(option("rewrite_delete_threshold"));
    const heavy = t.candidates.filter((c) => c.deletedCount > 0 && ratio(c) >= min);
    for (const g of groups(heavy)) {
      for (const run of greedyRuns(g, target, (c) => c.file.file_size_bytes * (1 - ratio(c)), limits)) {
        if (steps.length >= max) continue;
        steps.push(await stepFor(view, t, run));
      }
    }
  });
  return { steps, refused };
}

/** The rewritten file (kept rows in input order, ids kept) and its verb; no file when nothing is kept. */
export async function buildRewrite(
  step: CompactionStep,
  read: ReadObject,
  now: () => number,
  pause: Pause = noPause,
): Promise<PlannedCompaction> {
  const pacer = new Pacer(pause);
  const top = layoutColumns(step.columns);
  const rows: CompactedRow[] = [];
  const paths = step.inputs.flatMap((c) =>
    c.deleteRelativeToDataPath === null
      ? [c.relativeToDataPath]
      : [c.relativeToDataPath, c.deleteRelativeToDataPath],
  );
  const bytes = await readAll(paths, read);
  let k = 0;
  for (const c of step.inputs) {
    const data = bytes[k++] as Uint8Array;
    const deleted = new Set(c.inlinedDeleted);
    if (c.deleteRelativeToDataPath !== null)
      for (const p of await deletePositions(bytes[k++] as Uint8Array, pacer)) deleted.add(p);
    for (const r of await inputRows(top, c, data, deleted, pacer)) rows.push(r);
  }
  const verb: VerbOf<"rewrite_data_files"> = {
    op: "rewrite_data_files",
    table: { id: step.tableId },
    dataFileIds: step.inputs.map((c) => c.file.data_file_id),
  };
  const objects: PlannedCompaction["objects"] = [];
  let bytesOut = 0;
  if (rows.length > 0) {
    const name = outputName(step, now);
    const { file, spec } = await writeCompacted(
      step.columns,
      rows,
      { rowId: true, snapshotId: false },
      name.path,
      pacer,
    );
    verb.file = spec;
    let lowest = Number.POSITIVE_INFINITY;
    for (const r of rows) lowest = Math.min(lowest, Number(r.rowId));
    verb.rowIdStart = lowest;
    objects.push({ relativeToDataPath: name.relativeToDataPath, bytes: file.bytes });
    bytesOut = file.bytes.byteLength;
  }
  return {
    objects,
    request: { verbs: [verb], author: "ducklake-edge maintenance", message: "rewrite data files" },
    rowsOut: rows.length,
    bytesOut,
  };
}
