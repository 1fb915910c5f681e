/**
 * `ducklake_delete_file` rows, and the removals around files: a file's deletes rewritten into a new
 * delete file, merged data files, dropped files (docs/decisions/0248-quack-dropped-files.md) and
 * `ducklake_files_scheduled_for_deletion` rows.
 */
import { parseChangesMade } from "../../../changes.ts";
import { ValueKind } from "../../../codec.ts";
import { NotFound, Unsupported } from "../../../errors.ts";
import { newDeleteFileRecord } from "../../../file-records.ts";
import { Kind, keys } from "../../../keys.ts";
import { DUCKLAKE_TABLES } from "../../../reads/ducklake-tables.ts";
import type { DataFileRecord, DeleteFileRecord, GcFileRecord } from "../../../records.ts";
import {
  checkFilePath,
  checkScheduledPath,
  dropDataFile,
  tableOfDroppedFile,
} from "../../../verbs/ops/files.ts";
import type { RowOp } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, bool, type Cells, cellsOf, int, intOrNull, str, strOrNull } from "./cells.ts";
import { changeSet, checkBegin, fileId, liveTable, noEnd } from "./checks.ts";
import { expireFiles, fileVersions } from "./expire.ts";
import { carriedInlinedDeletes, flushDeletes } from "./flushes.ts";

export async function insertDeleteFile(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  const table = await liveTable(batch, t);
  const id = fileId(batch, int(r.delete_file_id, "delete_file_id"), "delete file");
  const f = int(r.data_file_id, "data_file_id");
  const replaced = batch.replacedDeletes.get(f);
  const begin = int(r.begin_snapshot, "delete file.begin_snapshot");
  // A delete file that replaces one this batch removed keeps that file's begin (its rows carry their
  // snapshots, partial_max the newest): DuckLake's rewrite of a file's deletes.
  if (
    !(await carriedInlinedDeletes(batch, t, f, begin, r, replaced)) &&
    !(replaced && begin === replaced.begin_snapshot && intOrNull(r.partial_max, "partial_max") === batch.S) &&
    !(begin !== batch.S && flushDeletes(batch, t, f, begin, r))
  ) {
    checkBegin(batch, r.begin_snapshot, "delete file");
  }
  noEnd(r.end_snapshot, "delete file");
  if (
    !(await batch.ctx.read<DataFileRecord>(
      keys.current(Kind.dataFile, t, f),
      ValueKind.dataFile,
      "data file",
    ))
  ) {
    throw new NotFound(`data file ${f} of table ${t} does not exist (or was removed)`);
  }
  const path = str(r.path, "path");
  const pathIsRelative = bool(r.path_is_relative, "path_is_relative");
  await checkFilePath(batch.ctx, table, "delete", { path, pathIsRelative });
  // Written as is (not putVersion): a replacement keeps the replaced file's begin.
  batch.ctx.write(
    keys.current(Kind.deleteFile, t, id),
    ValueKind.deleteFile,
    newDeleteFileRecord({
      delete_file_id: id,
      table_id: t,
      data_file_id: f,
      begin_snapshot: begin,
      path,
      path_is_relative: pathIsRelative,
      format: str(r.format, "format"),
      delete_count: int(r.delete_count, "delete_count"),
      file_size_bytes: int(r.file_size_bytes, "file_size_bytes"),
      footer_size: intOrNull(r.footer_size, "footer_size"),
      encryption_key: strOrNull(r.encryption_key, "encryption_key"),
      partial_max: intOrNull(r.partial_max, "partial_max"),
    }),
  );
  batch.ctx.deletedDataFileIds.add(f);
  batch.parquetDeletes.add(t);
}

/**
 * Tables whose new file rows this batch inserts, or that it merges (a merge of empty files inserts
 * none): where the files it removes by id are looked up.
 */
function fileTables(batch: Batch): number[] {
  const out = new Set<number>(changeSet(batch).mergeAdjacent);
  for (const op of batch.ops) {
    if (op.op !== "insert" || (op.table !== "ducklake_data_file" && op.table !== "ducklake_delete_file"))
      continue;
    for (const r of cellsOf(op, DUCKLAKE_TABLES[op.table] ?? [])) out.add(int(r.table_id, "table_id"));
  }
  return [...out];
}

/**
 * `DELETE FROM ducklake_<file table> WHERE <file id> IN (…)`: DuckLake rewriting files — a data file's
 * delete files merged into one (back-dated to the old file's begin), or adjacent data files merged into
 * one (back-dated to the first file's begin, `partial_max` the last's). The old rows go without history,
 * as in stock: the new file answers every snapshot the old ones did. Their replacement must follow in
 * the same batch, in a table that batch writes files to.
 */
export async function removeRows(batch: Batch, op: Extract<RowOp, { op: "delete" }>): Promise<number> {
  const ctx = batch.ctx;
  let n = 0;
  if (op.table === "ducklake_files_scheduled_for_deletion") {
    // ducklake_cleanup_old_files: DuckLake removed the objects, then drops their schedule rows.
    for (const id of op.ids) {
      const k = keys.current(Kind.gcFile, id);
      if (!(await ctx.st.get(k))) continue;
      ctx.st.delete(k);
      n++;
    }
    return n;
  }
  if (batch.snap === undefined) return expireFiles(batch, op);
  for (const id of op.ids) {
    if (op.table === "ducklake_data_file") {
      for (const t of fileTables(batch)) {
        const k = keys.current(Kind.dataFile, t, id);
        const rec = await ctx.read<DataFileRecord>(k, ValueKind.dataFile, "data file");
        if (!rec) continue;
        ctx.st.delete(k);
        batch.removedData.set(id, rec);
        batch.touched.add(t);
        n++;
      }
    } else if (op.table === "ducklake_delete_file") {
      for (const t of fileTables(batch)) {
        for (const rec of await ctx.scan<DeleteFileRecord>(
          keys.current(Kind.deleteFile, t),
          ValueKind.deleteFile,
          "delete file",
        )) {
          if ((op.key === "delete_file_id" ? rec.delete_file_id : rec.data_file_id) !== id) continue;
          if (op.key === "data_file_id" && !batch.removedData.has(id)) {
            throw bad(`delete files of data file ${id} are removed while the data file stays`);
          }
          ctx.st.delete(keys.current(Kind.deleteFile, t, rec.delete_file_id));
          if (op.key === "delete_file_id") {
            if (batch.replacedDeletes.has(rec.data_file_id))
              throw bad(`data file ${rec.data_file_id} loses two delete files`);
            batch.replacedDeletes.set(rec.data_file_id, rec);
          }
          batch.removedDeleteIds.add(rec.delete_file_id);
          batch.touched.add(t);
          n++;
        }
      }
    } else {
      // Child rows embedded in the data file record: they went with it.
      const rec = batch.removedData.get(id);
      if (!rec) throw bad(`${op.table} rows of data file ${id} are removed while the data file stays`);
      n +=
        op.table === "ducklake_file_column_stats"
          ? rec.x_column_stats.length
          : op.table === "ducklake_file_partition_value"
            ? rec.x_partition_values.length
            : rec.x_variant_stats.length;
    }
  }
  return n;
}

export async function scheduleDeletion(batch: Batch, r: Cells): Promise<void> {
  const id = int(r.data_file_id, "data_file_id");
  if (batch.snap === undefined) {
    // expire_snapshots schedules a file after removing its row, in a request of its own: the file must be
    // one the catalog no longer names (docs/decisions/0241-quack-expire-snapshots.md).
    if (id >= batch.premise.next_file_id) throw bad(`file id ${id} was never allocated`);
    if (
      (await fileVersions(batch, true, "data_file_id", id)).length > 0 ||
      (await fileVersions(batch, false, "delete_file_id", id)).length > 0
    )
      throw bad(`file ${id} is scheduled for deletion while the catalog still names it`);
  } else if (!batch.removedDeleteIds.has(id) && !batch.removedData.has(id)) {
    throw new Unsupported(
      "scheduling files for deletion outside a delete-file rewrite is not translated yet",
    );
  }
  if (r.schedule_start?.k !== "now") throw bad("schedule_start must be NOW()");
  const path = str(r.path, "path");
  const pathIsRelative = bool(r.path_is_relative, "path_is_relative");
  // The writer's delete job removes what a schedule names: the same rule as a registered file's.
  await checkScheduledPath(batch.ctx, { path, pathIsRelative });
  batch.ctx.write(keys.current(Kind.gcFile, id), ValueKind.gcFile, {
    data_file_id: id,
    path,
    path_is_relative: pathIsRelative,
    schedule_start: Math.floor(batch.ctx.env.now() * 1000),
  } satisfies GcFileRecord);
}

/**
 * `UPDATE ducklake_data_file SET end_snapshot = N WHERE end_snapshot IS NULL AND data_file_id IN (…)`: a
 * DELETE covering every live row of those files drops them whole instead of writing a delete file
 * (docs/decisions/0248-quack-dropped-files.md). Each must be a live file of a table `changes_made` names
 * as `deleted_from_table`; its delete files stay as they are, as stock leaves them, and the table's stats
 * are not touched (DuckLake sends no update for them).
 */
export async function dropFiles(batch: Batch, ids: readonly number[]): Promise<number> {
  if (batch.changes === undefined) throw bad("data files are dropped outside a commit");
  const tables = parseChangesMade(strOrNull(batch.changes.changes_made, "changes_made")).deletedFromTable;
  let n = 0;
  for (const id of new Set(ids)) {
    const t = await tableOfDroppedFile(batch.ctx, tables, id);
    await dropDataFile(batch.ctx, await liveTable(batch, t), id);
    batch.touched.add(t);
    n++;
  }
  return n;
}
