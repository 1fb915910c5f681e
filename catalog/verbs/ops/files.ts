/**
 * register/expire data files and delete files. A data file takes `data_file_id` from next_file_id and
 * `row_id_start` from the table's next_row_id (which advances by its record_count); its column stats
 * merge into the table's column stats. One live delete file per data file: a new one replaces the old.
 */

import { ValueKind } from "../../codec.ts";
import { InvalidRequest, NotFound, quoteName } from "../../errors.ts";
import { variantFileStats } from "../../extra-stats.ts";
import { checkPathNotFenced } from "../../fences.ts";
import {
  dataPathPrefix,
  joinPath,
  registeredPathProblem,
  tableDirOf,
  writerReaches,
} from "../../file-paths.ts";
import { newDataFileRecord, newDeleteFileRecord } from "../../file-records.ts";
import { Kind, keys, OptionScope } from "../../keys.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  DeleteFileRecord,
  FileColumnStats,
  OptionRecord,
  PartitionRecord,
  TableRecord,
} from "../../records.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { DataFileSpec, DeleteFileSpec, VerbOf } from "../schema.ts";
import {
  emptyTableStats,
  mergeColumnStats,
  readColumnStats,
  readTableStats,
  writeColumnStats,
  writeTableStats,
} from "./stats-support.ts";

/** The lake's data path (`ducklake_metadata`'s `data_path`; "" when none). */
async function lakeDataPath(ctx: VerbContext): Promise<string> {
  const options = await ctx.read<OptionRecord>(
    keys.current(Kind.option, OptionScope.global, 0),
    ValueKind.option,
    "option",
  );
  return options?.values.data_path ?? "";
}

/** The lake's data path and the table's directory under it, as readers resolve it: data_path → schema → table. */
export async function tableDirectory(
  ctx: VerbContext,
  table: TableRecord,
): Promise<{ dataPath: string; tableDir: string }> {
  const dataPath = await lakeDataPath(ctx);
  const schema = await ctx.schemaById(table.schema_id);
  return { dataPath, tableDir: tableDirOf(dataPath, schema, table) };
}

/** Whether the lake's data path is one the writer cannot reach (decisions 0502, 0601). */
function externalLake(ctx: VerbContext, dataPath: string): boolean {
  const own = ctx.env.ownDataPath;
  return own !== undefined && !writerReaches(dataPath, own);
}

/**
 * Refuses a file outside the lake's data path: the one place every registered data and delete file
 * passes, the verbs' rows and DuckLake's client-side batches alike (docs/decisions/0105-registered-file-paths.md,
 * 0601-external-lake-added-files.md). The table's directory resolves as readers resolve it: data_path →
 * schema path → table path.
 */
export async function checkFilePath(
  ctx: VerbContext,
  table: TableRecord,
  kind: "data" | "delete",
  spec: { path: string; pathIsRelative?: boolean | undefined },
): Promise<void> {
  const { dataPath, tableDir } = await tableDirectory(ctx, table);
  const external = externalLake(ctx, dataPath);
  const problem = registeredPathProblem(dataPath, tableDir, spec.path, spec.pathIsRelative ?? true, external);
  if (problem !== null) {
    throw new InvalidRequest(`the ${kind} file ${quoteName(spec.path)} cannot be registered: ${problem}`);
  }
  // A path maintenance scheduled for deletion is never registered again (decision 0329).
  const full = (spec.pathIsRelative ?? true) ? joinPath(tableDir, spec.path) : spec.path;
  const prefix = dataPathPrefix(dataPath);
  await checkPathNotFenced(ctx.st, full.startsWith(prefix) ? full.slice(prefix.length) : full);
}

/**
 * Refuses a deletion schedule naming a file outside the lake's data path, by the same rule: DuckLake
 * schedules a path relative to `data_path` itself (not a table's directory), and the writer's delete job
 * (decision 0329) removes what it names. No fence check: fencing a scheduled path is the job's own step.
 */
export async function checkScheduledPath(
  ctx: VerbContext,
  spec: { path: string; pathIsRelative: boolean },
): Promise<void> {
  const dataPath = await lakeDataPath(ctx);
  const external = externalLake(ctx, dataPath);
  const problem = registeredPathProblem(dataPath, dataPath, spec.path, spec.pathIsRelative, external);
  if (problem !== null) {
    throw new InvalidRequest(`the file ${quoteName(spec.path)} cannot be scheduled for deletion: ${problem}`);
  }
}

/** Builds the data-file row (path checked, stats resolved to column ids, partition values checked). */
export async function dataFileRow(
  ctx: VerbContext,
  table: TableRecord,
  spec: DataFileSpec,
  dataFileId: number,
  rowIdStart: number,
): Promise<{ row: DataFileRecord; cols: ColumnRecord[] }> {
  await checkFilePath(ctx, table, "data", spec);
  const cols = spec.columnStats && spec.columnStats.length > 0 ? await ctx.columns(table.table_id) : [];
  const stats: FileColumnStats[] = (spec.columnStats ?? []).map((s) => ({
    column_id: ctx.column(table, cols, s.column).column_id,
    column_size_bytes: s.columnSizeBytes ?? null,
    value_count: s.valueCount ?? null,
    null_count: s.nullCount ?? null,
    min_value: s.min ?? null,
    max_value: s.max ?? null,
    contains_nan: s.containsNan ?? null,
    extra_stats: s.extraStats ?? null,
  }));
  let partitionId: number | null = null;
  const values = spec.partitionValues ?? [];
  if (values.length > 0) {
    const parts = await ctx.scan<PartitionRecord>(
      keys.current(Kind.partition, table.table_id),
      ValueKind.partition,
      "partition",
    );
    const part = parts.find((p) => p.x_columns.length > 0);
    if (!part)
      throw new InvalidRequest(
        `table ${table.table_id} is not partitioned, so its files take no partition values`,
      );
    for (const pv of values) {
      if (!part.x_columns.some((c) => c.partition_key_index === pv.index)) {
        throw new InvalidRequest(`partition key index ${pv.index} does not exist on table ${table.table_id}`);
      }
    }
    partitionId = part.partition_id;
  }
  return {
    cols,
    row: newDataFileRecord({
      data_file_id: dataFileId,
      table_id: table.table_id,
      begin_snapshot: ctx.snapshotId,
      path: spec.path,
      path_is_relative: spec.pathIsRelative ?? true,
      file_format: spec.format ?? "parquet",
      record_count: spec.recordCount,
      file_size_bytes: spec.fileSizeBytes,
      footer_size: spec.footerSize ?? null,
      row_id_start: rowIdStart,
      partition_id: partitionId,
      encryption_key: spec.encryptionKey ?? null,
      x_column_stats: stats,
      // DuckLake derives a VARIANT column's per-field rows from its extra stats (decision 0620).
      x_variant_stats: stats.flatMap((s) => variantFileStats(s.column_id, s.extra_stats)),
      x_partition_values: values.map((pv) => ({ partition_key_index: pv.index, partition_value: pv.value })),
    }),
  };
}

export async function registerDataFile(ctx: VerbContext, v: VerbOf<"register_data_file">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const old = await readTableStats(ctx, t);
  const base = old ?? { ...emptyTableStats(t), begin_snapshot: ctx.snapshotId, end_snapshot: null };
  const dataFileId = ctx.fileId();
  const { row, cols } = await dataFileRow(ctx, table, v.file, dataFileId, base.next_row_id);
  ctx.putVersion(Kind.dataFile, [t, dataFileId], ValueKind.dataFile, row);
  writeTableStats(ctx, old, {
    table_id: t,
    record_count: base.record_count + v.file.recordCount,
    next_row_id: base.next_row_id + v.file.recordCount,
    file_size_bytes: base.file_size_bytes + v.file.fileSizeBytes,
  });
  for (const s of row.x_column_stats) {
    const type = cols.find((c) => c.column_id === s.column_id)?.column_type ?? "varchar";
    // value_count is the non-NULL count: an all-NULL file holds no value (DuckLake's AnyValid).
    const anyValid = s.value_count === null ? {} : { any_valid: s.value_count > 0 };
    await mergeColumnStats(ctx, t, s.column_id, type, { ...s, ...anyValid });
  }
  ctx.change("insertedIntoTable", t);
  ctx.newFileTables.add(t);
  ctx.touch(t);
  return { dataFileId, rowIdStart: row.row_id_start };
}

export async function liveDataFile(
  ctx: VerbContext,
  table: TableRecord,
  dataFileId: number,
): Promise<DataFileRecord> {
  const rec = await ctx.read<DataFileRecord>(
    keys.current(Kind.dataFile, table.table_id, dataFileId),
    ValueKind.dataFile,
    "data file",
  );
  if (!rec) throw new NotFound(`data file ${dataFileId} is not a live file of table ${table.table_id}`);
  return rec;
}

export async function liveDeleteFilesOf(
  ctx: VerbContext,
  tableId: number,
  dataFileId: number,
): Promise<DeleteFileRecord[]> {
  const all = await ctx.scan<DeleteFileRecord>(
    keys.current(Kind.deleteFile, tableId),
    ValueKind.deleteFile,
    "delete file",
  );
  return all.filter((d) => d.data_file_id === dataFileId);
}

export async function expireDataFile(ctx: VerbContext, v: VerbOf<"expire_data_file">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const file = await liveDataFile(ctx, table, v.dataFileId);
  ctx.endVersion(Kind.dataFile, [table.table_id, file.data_file_id], ValueKind.dataFile, file);
  for (const d of await liveDeleteFilesOf(ctx, table.table_id, file.data_file_id)) {
    ctx.endVersion(Kind.deleteFile, [table.table_id, d.delete_file_id], ValueKind.deleteFile, d);
  }
  ctx.change("mergeAdjacent", table.table_id);
  ctx.touch(table.table_id);
  return { dataFileId: file.data_file_id };
}

/**
 * The table of a data file a DELETE drops whole: the one of `tables` (those it deletes from) holding it
 * live; `NotFound` otherwise (a raced staged commit reports it as `CommitConflict`).
 */
export async function tableOfDroppedFile(
  ctx: VerbContext,
  tables: readonly number[],
  id: number,
): Promise<number> {
  for (const t of tables) {
    const found = await ctx.read<DataFileRecord>(
      keys.current(Kind.dataFile, t, id),
      ValueKind.dataFile,
      "data file",
    );
    if (found) return t;
  }
  throw new NotFound(
    `data file ${id} is not a live file of a table this commit deletes from (or was removed)`,
  );
}

/**
 * A DELETE of every live row of a data file, as DuckLake 1.5.5 stores it: the file ends at this snapshot
 * and nothing else changes — its delete files stay as they are and the table's stats are not touched
 * (measured, docs/decisions/0248-quack-dropped-files.md). The one rule for the Quack translations (the
 * client-side batch and the server-side commit's `ducklake_staged_dropped_file`).
 */
export async function dropDataFile(
  ctx: VerbContext,
  table: TableRecord,
  dataFileId: number,
): Promise<DataFileRecord> {
  const file = await liveDataFile(ctx, table, dataFileId);
  ctx.endVersion(Kind.dataFile, [table.table_id, file.data_file_id], ValueKind.dataFile, file);
  ctx.change("deletedFromTable", table.table_id);
  ctx.deletedDataFileIds.add(file.data_file_id);
  ctx.touch(table.table_id);
  return file;
}

/** Builds the delete-file row (path checked). */
export async function deleteFileRow(
  ctx: VerbContext,
  table: TableRecord,
  dataFileId: number,
  deleteFileId: number,
  spec: DeleteFileSpec,
): Promise<DeleteFileRecord> {
  await checkFilePath(ctx, table, "delete", spec);
  return newDeleteFileRecord({
    delete_file_id: deleteFileId,
    table_id: table.table_id,
    begin_snapshot: ctx.snapshotId,
    data_file_id: dataFileId,
    path: spec.path,
    path_is_relative: spec.pathIsRelative ?? true,
    format: spec.format ?? "parquet",
    delete_count: spec.deleteCount,
    file_size_bytes: spec.fileSizeBytes,
    footer_size: spec.footerSize ?? null,
    encryption_key: spec.encryptionKey ?? null,
  });
}

export async function registerDeleteFile(
  ctx: VerbContext,
  v: VerbOf<"register_delete_file">,
): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const file = await liveDataFile(ctx, table, v.dataFileId);
  if (v.file.deleteCount > file.record_count) {
    throw new InvalidRequest(
      `a delete file of ${v.file.deleteCount} rows exceeds data file ${file.data_file_id}'s ${file.record_count}`,
    );
  }
  for (const d of await liveDeleteFilesOf(ctx, table.table_id, file.data_file_id)) {
    ctx.endVersion(Kind.deleteFile, [table.table_id, d.delete_file_id], ValueKind.deleteFile, d);
  }
  const deleteFileId = ctx.fileId();
  const row = await deleteFileRow(ctx, table, file.data_file_id, deleteFileId, v.file);
  ctx.putVersion(Kind.deleteFile, [table.table_id, deleteFileId], ValueKind.deleteFile, row);
  ctx.change("deletedFromTable", table.table_id);
  ctx.deletedDataFileIds.add(file.data_file_id);
  ctx.touch(table.table_id);
  return { deleteFileId };
}

export async function expireDeleteFile(ctx: VerbContext, v: VerbOf<"expire_delete_file">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const rec = await ctx.read<DeleteFileRecord>(
    keys.current(Kind.deleteFile, table.table_id, v.deleteFileId),
    ValueKind.deleteFile,
    "delete file",
  );
  if (!rec) throw new NotFound(`delete file ${v.deleteFileId} is not a live file of table ${table.table_id}`);
  ctx.endVersion(Kind.deleteFile, [table.table_id, rec.delete_file_id], ValueKind.deleteFile, rec);
  ctx.change("rewriteDelete", table.table_id);
  ctx.touch(table.table_id);
  return { deleteFileId: rec.delete_file_id };
}

export async function setTableStats(ctx: VerbContext, v: VerbOf<"set_table_stats">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const old = await readTableStats(ctx, table.table_id);
  const base = old ?? {
    ...emptyTableStats(table.table_id),
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
  };
  writeTableStats(ctx, old, {
    table_id: table.table_id,
    record_count: v.recordCount ?? base.record_count,
    next_row_id: base.next_row_id,
    file_size_bytes: v.fileSizeBytes ?? base.file_size_bytes,
  });
  ctx.touch(table.table_id);
  return {};
}

export async function setColumnStats(ctx: VerbContext, v: VerbOf<"set_column_stats">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const col = ctx.column(table, await ctx.columns(table.table_id), v.column);
  const old = await readColumnStats(ctx, table.table_id, col.column_id);
  writeColumnStats(ctx, old, {
    table_id: table.table_id,
    column_id: col.column_id,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    contains_null: v.containsNull !== undefined ? v.containsNull : (old?.contains_null ?? null),
    contains_nan: v.containsNan !== undefined ? v.containsNan : (old?.contains_nan ?? null),
    min_value: v.min !== undefined ? v.min : (old?.min_value ?? null),
    max_value: v.max !== undefined ? v.max : (old?.max_value ?? null),
    extra_stats: v.extraStats !== undefined ? v.extraStats : (old?.extra_stats ?? null),
  });
  ctx.touch(table.table_id);
  return { columnId: col.column_id };
}
