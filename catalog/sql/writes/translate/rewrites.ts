/**
 * ducklake_rewrite_data_files (docs/decisions/0243-quack-rewrite-data-files.md): a batch whose
 * `changes_made` names `rewrite_delete` tables is staged through the compaction verb up front; its
 * per-file statements are checked against what the verb did.
 */
import { parseChangesMade } from "../../../changes.ts";
import { Unsupported } from "../../../errors.ts";
import { DUCKLAKE_TABLES } from "../../../reads/ducklake-tables.ts";
import { type RewriteOutput, type RewriteStaged, stageRewrites } from "../rewrite.ts";
import type { Batch } from "./batch.ts";
import { bad, bool, type Cells, cellsOf, int, intOrNull, str, strOrNull } from "./cells.ts";
import { changeSet, checkBegin, fileId, liveTable, noEnd } from "./checks.ts";

/**
 * Before any statement runs: a batch whose `changes_made` names `rewrite_delete` tables is staged
 * through the compaction verb from its outputs (data files without `row_id_start`) and the files it
 * ends by id; the statements are then checked against what the verb did.
 */
export async function collectRewrites(batch: Batch): Promise<void> {
  if (batch.changes === undefined) return;
  const tables = parseChangesMade(strOrNull(batch.changes.changes_made, "changes_made")).rewriteDelete;
  const outputs: RewriteOutput[] = [];
  const endedData: number[] = [];
  const endedDeletes: number[] = [];
  for (const op of batch.ops) {
    if (op.op === "end_file") (op.table === "ducklake_data_file" ? endedData : endedDeletes).push(op.id);
    if (op.op !== "insert" || op.table !== "ducklake_data_file") continue;
    for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_data_file ?? [])) {
      if (!rewriteOutput(batch, r)) continue;
      const id = fileId(batch, int(r.data_file_id, "data_file_id"), "data file");
      checkBegin(batch, r.begin_snapshot, "rewritten data file");
      noEnd(r.end_snapshot, "rewritten data file");
      if (r.mapping_id?.k !== "null")
        throw new Unsupported("data files with a column mapping are not translated yet");
      outputs.push({
        dataFileId: id,
        tableId: int(r.table_id, "table_id"),
        path: str(r.path, "path"),
        pathIsRelative: bool(r.path_is_relative, "path_is_relative"),
        format: str(r.file_format, "file_format"),
        recordCount: int(r.record_count, "record_count"),
        fileSizeBytes: int(r.file_size_bytes, "file_size_bytes"),
        footerSize: intOrNull(r.footer_size, "footer_size"),
        encryptionKey: strOrNull(r.encryption_key, "encryption_key"),
        stats: batch.fileStats.get(id) ?? [],
        partitionValues: batch.partitionValues.get(id) ?? [],
      });
      batch.fileStats.delete(id);
      batch.partitionValues.delete(id);
      // The verb derives the output's VARIANT rows from its column stats, as DuckLake derived these.
      batch.variantStats.delete(id);
    }
  }
  if (tables.length === 0) {
    if (outputs.length > 0 || endedData.length > 0 || endedDeletes.length > 0)
      throw bad("files are ended or inserted without row_id_start outside a rewrite_delete commit");
    return;
  }
  for (const t of tables) await liveTable(batch, t);
  const statsSet = new Set<number>();
  for (const op of batch.ops) if (op.op === "table_stats") statsSet.add(op.tableId);
  batch.rewrite = await stageRewrites(batch.ctx, { tables, outputs, endedData, endedDeletes, statsSet });
}

/**
 * A data file without `row_id_start` (its rows carry their ids) is a rewrite's output, unless the batch
 * merges its table and rewrites none of it: then it is a merge of non-adjacent files (decision 0322).
 */
export function rewriteOutput(batch: Batch, r: Cells): boolean {
  if (r.row_id_start?.k !== "null") return false;
  const set = changeSet(batch);
  const t = int(r.table_id, "table_id");
  return !(set.mergeAdjacent.includes(t) && !set.rewriteDelete.includes(t));
}

/** One of the rewrite's per-file statements: it names a file the verb ended or wrote, at this snapshot. */
export function rewritten(batch: Batch, snapshot: number, id: number, set: keyof RewriteStaged): number {
  if (snapshot !== batch.S) throw bad(`a rewrite sets snapshot ${snapshot} on file ${id}, not ${batch.S}`);
  if (!batch.rewrite?.[set].has(id))
    throw bad(`file ${id} is not one this rewrite ${set === "outputs" ? "writes" : "ends"}`);
  return 1;
}
