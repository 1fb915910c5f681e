/**
 * `ducklake_data_file` rows (new, flushed or a merge's output, decision 0322 and 0610) and
 * `ducklake_column_mapping` name maps (decision 0600).
 */
import { ValueKind } from "../../../codec.ts";
import { newDataFileRecord } from "../../../file-records.ts";
import { Kind, keys } from "../../../keys.ts";
import { checkFilePath } from "../../../verbs/ops/files.ts";
import { checkFileMapping, writeNameMap } from "../../../verbs/ops/name-maps.ts";
import { type MergeSpan, mergeSpan } from "../merge-output.ts";
import type { Batch } from "./batch.ts";
import { bad, bool, type Cells, int, intOrNull, str, strOrNull } from "./cells.ts";
import { changeSet, checkBegin, fileId, liveTable, noEnd, premiseRowIds, useRowIds } from "./checks.ts";
import { flushedInto } from "./flushes.ts";
import { rewriteOutput } from "./rewrites.ts";

export async function insertDataFile(batch: Batch, r: Cells): Promise<void> {
  // A rewrite's output, written by the compaction verb up front (collectRewrites).
  if (rewriteOutput(batch, r)) return;
  const t = int(r.table_id, "table_id");
  const table = await liveTable(batch, t);
  await premiseRowIds(batch, t);
  const id = fileId(batch, int(r.data_file_id, "data_file_id"), "data file");
  const begin = int(r.begin_snapshot, "data file.begin_snapshot");
  const flushed = begin !== batch.S ? flushedInto(batch, t, id, begin, r) : undefined;
  const merged = flushed ? undefined : mergedInto(batch, t, begin, r);
  if (!merged && !flushed) checkBegin(batch, r.begin_snapshot, "data file");
  noEnd(r.end_snapshot, "data file");
  const rec = newDataFileRecord({
    data_file_id: id,
    table_id: t,
    begin_snapshot: begin,
    file_order: intOrNull(r.file_order, "file_order"),
    path: str(r.path, "path"),
    path_is_relative: bool(r.path_is_relative, "path_is_relative"),
    file_format: str(r.file_format, "file_format"),
    record_count: int(r.record_count, "record_count"),
    file_size_bytes: int(r.file_size_bytes, "file_size_bytes"),
    footer_size: intOrNull(r.footer_size, "footer_size"),
    // A merge of non-adjacent files carries its rows' ids: the record keeps the lowest (decision 0322).
    row_id_start: merged && r.row_id_start?.k === "null" ? merged.lo : int(r.row_id_start, "row_id_start"),
    partition_id: intOrNull(r.partition_id, "partition_id"),
    encryption_key: strOrNull(r.encryption_key, "encryption_key"),
    mapping_id: intOrNull(r.mapping_id, "mapping_id"),
    partial_max: intOrNull(r.partial_max, "partial_max"),
    x_column_stats: batch.fileStats.get(id) ?? [],
    x_variant_stats: batch.variantStats.get(id) ?? [],
    x_partition_values: batch.partitionValues.get(id) ?? [],
  });
  batch.fileStats.delete(id);
  batch.partitionValues.delete(id);
  batch.variantStats.delete(id);
  // The verbs' rule (decisions 0105, 0601, and 0329's fence): a batch names no file outside the data path.
  await checkFilePath(batch.ctx, table, "data", { path: rec.path, pathIsRelative: rec.path_is_relative });
  if (rec.mapping_id !== null) await checkFileMapping(batch.ctx, t, rec.mapping_id);
  if (merged) {
    // The merged rows keep their row ids: within the range the removed files held, all of them.
    if (rec.row_id_start < merged.lo || rec.row_id_start + rec.record_count > merged.hi) {
      throw bad(`merged data file ${id} holds row ids outside the files it replaces`);
    }
    if (rec.record_count !== merged.rows)
      throw bad(
        `merged data file ${id} holds ${rec.record_count} rows, the files it replaces ${merged.rows}`,
      );
    if (r.row_id_start?.k === "null") rec.x_row_ids_in_file = true;
  } else if (flushed?.idsInFile) {
    // DuckLake registers the lowest id; the ids are the file's (docs/decisions/0617-partitioned-flush.md).
    rec.x_row_ids_in_file = true;
    rec.x_row_id_start_shown = true;
  } else if (!flushed) useRowIds(batch, t, rec.row_id_start, rec.record_count);
  // Written as is (not putVersion): a merged file keeps the first replaced file's begin.
  batch.ctx.write(keys.current(Kind.dataFile, t, id), ValueKind.dataFile, rec);
  batch.ctx.newFileTables.add(t);
}

/**
 * A name map of `ducklake_add_data_files` (decision 0600): its id is a fresh file id (DuckLake takes it
 * from `next_file_id` ahead of the files), its columns the batch's `ducklake_name_mapping` rows.
 */
export async function insertNameMap(batch: Batch, r: Cells): Promise<void> {
  const id = fileId(batch, int(r.mapping_id, "mapping_id"), "column mapping");
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  const columns = batch.nameMapColumns.get(id) ?? [];
  batch.nameMapColumns.delete(id);
  await writeNameMap(batch.ctx, {
    mapping_id: id,
    table_id: t,
    type: str(r.type, "type"),
    x_names: columns,
  });
}

/**
 * DuckLake's merge output: a data file replacing the next run of files of its table this batch removed
 * (in removal order, which is the compactions' source order) that no earlier output replaced, back-dated
 * by `mergeSpan` (decision 0610). The run holds the output's rows (a merge drops none); of the runs that
 * do (files without rows may end one), the shortest whose span the row names. Its sources' row-id span
 * and row count, or undefined for a file that replaces none.
 */
function mergedInto(
  batch: Batch,
  t: number,
  begin: number,
  r: Cells,
): { lo: number; hi: number; rows: number } | undefined {
  const open = [...batch.removedData.values()].filter(
    (f) => f.table_id === t && !batch.mergedSources.has(f.data_file_id),
  );
  if (open.length === 0 || begin === batch.S) return undefined;
  const rows = int(r.record_count, "record_count");
  const partialMax = intOrNull(r.partial_max, "partial_max");
  let sum = 0;
  let named: MergeSpan | undefined;
  for (let n = 1; n <= open.length && sum <= rows; n++) {
    const run = open.slice(0, n);
    sum += run[n - 1]?.record_count ?? 0;
    if (sum !== rows) continue;
    const span = mergeSpan(run);
    named ??= span;
    if (span.begin !== begin || span.partialMax !== partialMax) continue;
    for (const f of run) batch.mergedSources.add(f.data_file_id);
    const held = run.filter((f) => f.record_count > 0);
    return {
      lo: Math.min(...held.map((f) => f.row_id_start)),
      hi: Math.max(...held.map((f) => f.row_id_start + f.record_count)),
      rows,
    };
  }
  throw bad(
    named
      ? `data file begins at snapshot ${begin} with partial_max ${partialMax}: only a merge back-dates a file, to its first file's snapshot ${named.begin} with partial_max ${named.partialMax}`
      : `data file begins at snapshot ${begin}: only a merge back-dates a file, and no run of the files removed before it holds its ${rows} rows`,
  );
}

/**
 * A merge whose sources hold no rows writes no output (DuckLake's merge of empty files): any other
 * data file this batch removed from a merged table must have been replaced by a merged output.
 */
export function checkMergesReplaced(batch: Batch): void {
  const merged = changeSet(batch).mergeAdjacent;
  for (const f of batch.removedData.values()) {
    if (merged.includes(f.table_id) && !batch.mergedSources.has(f.data_file_id) && f.record_count > 0) {
      throw bad(`data file ${f.data_file_id} of ${f.record_count} rows is merged into no output file`);
    }
  }
}
