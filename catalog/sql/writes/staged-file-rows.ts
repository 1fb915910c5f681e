/**
 * The file rows the staged-row translations (`staged-compaction.ts`, `staged-deletes.ts`, `staged-flush.ts`,
 * `staged-rewrite.ts`) send for a staged file, in the column order of DuckLake's client-side commit:
 * `ducklake_data_file`, its `ducklake_file_column_stats` rows, `ducklake_delete_file` and
 * `ducklake_files_scheduled_for_deletion`. What differs per translation (the file id from the premise's
 * counter, the begin snapshot, `row_id_start`, `partial_max`) is the caller's; the rest is copied from the
 * staged row as stock's commit copies it (docs/decisions/0263-staged-flush.md,
 * docs/decisions/0265-staged-delete-files.md).
 */
import type { Literal } from "./parse.ts";
import { flag, NULL, num, orNull, type StagedReader, text } from "./staged-literals.ts";
import type { StagedRow } from "./staged-parse.ts";

/** A staged path as the commit stores it (`Relativize`'s answer). */
export interface StoredPath {
  path: string;
  relative: boolean;
}

/** What a translation decides for a new data file; every other column is the staged row's. */
export interface DataFileAt {
  /** The file id from the premise's counter. */
  id: number;
  tableId: number;
  beginSnapshot: number;
  path: StoredPath;
  /** NULL when the file carries its rows' ids (a rewrite's output). */
  rowIdStart: Literal;
  partialMax: Literal;
  /** The staged `mapping_id` unless the translation refuses or drops it. */
  mappingId: Literal;
}

/** `ducklake_data_file` of one staged `ducklake_staged_data_file` row, a new file with no end snapshot. */
export function dataFileRow(f: StagedRow, at: DataFileAt): Literal[] {
  return [
    num(at.id),
    num(at.tableId),
    num(at.beginSnapshot),
    NULL, // end_snapshot
    NULL, // file_order
    text(at.path.path),
    { k: "bool", v: at.path.relative },
    orNull(f.file_format),
    orNull(f.record_count),
    orNull(f.file_size_bytes),
    orNull(f.footer_size),
    at.rowIdStart,
    orNull(f.partition_id),
    orNull(f.encryption_key),
    at.mappingId,
    at.partialMax,
  ];
}

/**
 * The `ducklake_file_column_stats` row a client-side commit sends for one staged
 * `ducklake_staged_data_file_column_stats` row of file `fileId` in table `tableId`: a value whose `has_*`
 * flag is false is NULL.
 */
export function fileColumnStatsRow(
  fileId: number,
  tableId: number,
  s: Readonly<Record<string, Literal | undefined>>,
): Literal[] {
  return [
    num(fileId),
    num(tableId),
    orNull(s.column_id),
    orNull(s.column_size_bytes),
    flag(s.has_num_values) ? orNull(s.num_values) : NULL,
    flag(s.has_null_count) ? orNull(s.null_count) : NULL,
    flag(s.has_min) ? orNull(s.min_value) : NULL,
    flag(s.has_max) ? orNull(s.max_value) : NULL,
    flag(s.has_contains_nan) ? orNull(s.contains_nan) : NULL,
    orNull(s.extra_stats),
  ];
}

/**
 * The `ducklake_file_column_stats` rows of staged file `local` (its staged, commit-local id), registered
 * under file `fileId` of table `tableId`.
 */
export function stagedFileStats(
  all: readonly StagedRow[],
  local: number,
  fileId: number,
  tableId: number,
  read: StagedReader,
): { rows: Literal[][]; staged: StagedRow[] } {
  const staged = all.filter((x) => read.int(x.data_file_id, "data_file_id") === local);
  return { rows: staged.map((s) => fileColumnStatsRow(fileId, tableId, s)), staged };
}

/**
 * The `ducklake_file_partition_value` rows of staged file `local` (its commit-local id), registered under
 * file `fileId` of table `tableId`.
 */
export function stagedPartitionValues(
  all: readonly StagedRow[],
  local: number,
  fileId: number,
  tableId: number,
  read: StagedReader,
): Literal[][] {
  return all
    .filter((p) => read.int(p.local_file_id, "local_file_id") === local)
    .map((p) => [
      num(fileId),
      num(tableId),
      num(read.int(p.partition_column_idx, "partition_column_idx")),
      orNull(p.partition_value),
    ]);
}

/** What a translation decides for a new delete file; every other column is the staged row's. */
export interface DeleteFileAt {
  id: number;
  tableId: number;
  beginSnapshot: number;
  /** The data file its deletes apply to. */
  dataFileId: number;
  path: StoredPath;
  partialMax: Literal;
}

/** `ducklake_delete_file` of one staged `ducklake_staged_delete_file` row, a new file with no end snapshot. */
export function deleteFileRow(d: StagedRow, at: DeleteFileAt): Literal[] {
  return [
    num(at.id),
    num(at.tableId),
    num(at.beginSnapshot),
    NULL, // end_snapshot
    num(at.dataFileId),
    text(at.path.path),
    { k: "bool", v: at.path.relative },
    orNull(d.format),
    orNull(d.delete_count),
    orNull(d.file_size_bytes),
    orNull(d.footer_size),
    orNull(d.encryption_key),
    at.partialMax,
  ];
}

/**
 * `ducklake_files_scheduled_for_deletion` of a file the commit removes: its path relative to the lake's
 * `dataPath` when inside it, as DuckLake's commit stores it, scheduled now.
 */
export function scheduledDeletionRow(fileId: number, path: string, dataPath: string): Literal[] {
  const inside = path.startsWith(dataPath);
  return [
    num(fileId),
    text(inside ? path.slice(dataPath.length) : path),
    { k: "bool", v: inside },
    { k: "now" },
  ];
}
