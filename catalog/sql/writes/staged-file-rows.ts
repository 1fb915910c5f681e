/**
 * The file rows the staged-row translations (`staged-compaction.ts`, `staged-deletes.ts`, `staged-flush.ts`,
 * `staged-rewrite.ts`) send for a staged file, in the column order of DuckLake's client-side commit:
 * `ducklake_data_file`, its `ducklake_file_column_stats` rows, `ducklake_delete_file` and
 * `ducklake_files_scheduled_for_deletion`. What differs per translation (the file id from the premise's
 * counter, the begin snapshot, `row_id_start`, `partial_max`) is the caller's; the rest is copied from the
 * staged row as stock's commit copies it (docs/decisions/0263-staged-flush.md,
 * docs/decisions/0265-staged-delete-files.md).
 */
import { variantFileStats } from "../../extra-stats.ts";
import type { NewColumnStats } from "../../verbs/ops/stats-support.ts";
import type { Literal, RowOp } from "./parse.ts";
import { flag, isNull, NULL, num, orNull, type StagedReader, text } from "./staged-literals.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";

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
 * DuckLake's `value_count` (the non-NULL count) and `null_count` of a staged stats row: known when both
 * counts are known and consistent, else undefined and both stored NULL (its `FromColumnStats`).
 */
export function stagedCounts(
  s: Readonly<Record<string, Literal | undefined>>,
): { values: bigint; nulls: bigint } | undefined {
  const known = (l: Literal | undefined) => (l?.k === "num" ? BigInt(l.text) : undefined);
  const all = flag(s.has_num_values) ? known(s.num_values) : undefined;
  const nulls = flag(s.has_null_count) ? known(s.null_count) : undefined;
  if (all === undefined || nulls === undefined || nulls > all) return undefined;
  return { values: all - nulls, nulls };
}

/** DuckLake's `AnyValid` of a staged stats row: more values than NULLs when both are known, else its flag. */
export function stagedAnyValid(s: Readonly<Record<string, Literal | undefined>>): boolean {
  const c = stagedCounts(s);
  if (c !== undefined) return c.values > 0n;
  return isNull(s.any_valid) || flag(s.any_valid);
}

/** A staged stats row (data file or inlined: the same columns) as the merge into the table's stats reads it. */
export function stagedColumnStats(s: StagedRow, read: StagedReader): NewColumnStats {
  const value = (has: Literal | undefined, l: Literal | undefined, what: string) =>
    flag(has) && !isNull(l) ? read.str(l, what) : null;
  return {
    null_count: flag(s.has_null_count) && !isNull(s.null_count) ? read.int(s.null_count, "null_count") : null,
    contains_nan: flag(s.has_contains_nan) && !isNull(s.contains_nan) ? flag(s.contains_nan) : null,
    min_value: value(s.has_min, s.min_value, "min_value"),
    max_value: value(s.has_max, s.max_value, "max_value"),
    extra_stats: isNull(s.extra_stats) ? null : read.str(s.extra_stats, "extra_stats"),
    any_valid: stagedAnyValid(s),
  };
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
  const c = stagedCounts(s);
  return [
    num(fileId),
    num(tableId),
    orNull(s.column_id),
    orNull(s.column_size_bytes),
    c === undefined ? NULL : { k: "num", text: String(c.values) },
    c === undefined ? NULL : { k: "num", text: String(c.nulls) },
    flag(s.has_min) ? orNull(s.min_value) : NULL,
    flag(s.has_max) ? orNull(s.max_value) : NULL,
    flag(s.has_contains_nan) ? orNull(s.contains_nan) : NULL,
    orNull(s.extra_stats),
  ];
}

/** The rows a client-side commit sends beside a new data file: its stats, VARIANT stats, partition values. */
export interface FileChildRows {
  stats: Literal[][];
  variants: Literal[][];
  partitions: Literal[][];
  /** The staged stats rows of the file (for the table's stats merge). */
  staged: StagedRow[];
}

/**
 * The child rows of staged file `local` (its staged, commit-local id), registered under file `fileId` of
 * table `tableId`: `ducklake_file_column_stats`, the `ducklake_file_variant_stats` DuckLake derives from a
 * VARIANT column's extra stats (docs/decisions/0620-extra-stats.md) and `ducklake_file_partition_value`.
 */
export function stagedFileStats(
  rows: Readonly<Pick<StagedBatch["rows"], "data_file_column_stats" | "data_file_partition">>,
  local: number,
  fileId: number,
  tableId: number,
  read: StagedReader,
): FileChildRows {
  const staged = rows.data_file_column_stats.filter(
    (x) => read.int(x.data_file_id, "data_file_id") === local,
  );
  const variants = staged.flatMap((s) =>
    variantFileStats(
      read.int(s.column_id, "column_id"),
      isNull(s.extra_stats) ? null : read.str(s.extra_stats, "extra_stats"),
    ).map((v) => [
      num(fileId),
      num(tableId),
      num(v.column_id),
      text(v.variant_path),
      v.shredded_type === null ? NULL : text(v.shredded_type),
      v.column_size_bytes === null ? NULL : num(v.column_size_bytes),
      v.value_count === null ? NULL : num(v.value_count),
      v.null_count === null ? NULL : num(v.null_count),
      v.min_value === null ? NULL : text(v.min_value),
      v.max_value === null ? NULL : text(v.max_value),
      v.contains_nan === null ? NULL : ({ k: "bool", v: v.contains_nan } as Literal),
      NULL,
    ]),
  );
  const partitions = stagedPartitionValues(rows.data_file_partition, local, fileId, tableId, read);
  return { stats: staged.map((s) => fileColumnStatsRow(fileId, tableId, s)), variants, partitions, staged };
}

/** The inserts of the child rows of the files one commit adds, in DuckLake's order (none when empty). */
export function fileChildOps(files: readonly FileChildRows[]): RowOp[] {
  const ops: RowOp[] = [];
  const add = (table: string, rows: Literal[][]) => {
    if (rows.length > 0) ops.push({ op: "insert", table, columns: null, rows });
  };
  add(
    "ducklake_file_column_stats",
    files.flatMap((f) => f.stats),
  );
  add(
    "ducklake_file_partition_value",
    files.flatMap((f) => f.partitions),
  );
  add(
    "ducklake_file_variant_stats",
    files.flatMap((f) => f.variants),
  );
  return ops;
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
