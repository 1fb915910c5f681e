/**
 * Staged delete files of existing data files that DuckLake's commit writes as more than one new row: a
 * DELETE whose file replaces the data file's live delete file (`overwrites_existing_delete`), and a flush
 * of inlined deletes of Parquet files (`source = 'FLUSH'`, back-dated to the oldest carried delete). As the
 * rows the client-side commit sends for them on the premise: the replaced delete file removed and
 * scheduled for deletion, the new one with a file id from the premise's counter, `deleted_from_table:<t>`.
 * Those rows go through the client-side translation (`translate.ts`), which owns how a replaced delete
 * file and carried inlined deletes are stored and checked (docs/decisions/0245-quack-flush-inlined-deletes.md,
 * docs/decisions/0265-staged-delete-files.md).
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import type { SnapshotRecord } from "../../records.ts";
import type { Literal, RowOp } from "./parse.ts";
import type { Relativize } from "./staged-compaction.ts";
import { deleteFileRow, scheduledDeletionRow } from "./staged-file-rows.ts";
import { flag, isNull, NULL, num, stagedReader } from "./staged-literals.ts";
import type { StagedBatch, StagedRow, StagedTable } from "./staged-parse.ts";
import { type CommitText, changesRow, snapshotRow } from "./staged-snapshot.ts";

const { int, str } = stagedReader("staged delete file");

/** True for a staged delete file this module translates (the plain DELETE's stays on the verbs). */
export function rewritesDeletes(d: StagedRow): boolean {
  return replacesCommitted(d) || (isNull(d.attached_local_file_id) && isFlushSource(d));
}

/**
 * A delete file replacing a committed one. DuckLake also flags a file that only replaces its own
 * transaction's earlier delete file (two DELETEs of one data file in one transaction): no id is named
 * then, and the file is a plain new delete file (decision 0615).
 */
export function replacesCommitted(d: StagedRow): boolean {
  return flag(d.overwrites_existing_delete) && !isNull(d.overwrite_delete_file_id);
}

function isFlushSource(d: StagedRow): boolean {
  return d.source?.k === "str" && d.source.v === "FLUSH";
}

export interface DeletesInput {
  /** Staged delete files of existing data files (no `attached_local_file_id`). */
  rows: readonly StagedRow[];
  /** The commit's snapshot on the premise. */
  snapshotId: number;
  /** The next file id of the premise's counter, advanced per file. */
  allocate: () => number;
  /** The lake's data path: scheduled files are stored relative to it. */
  dataPath: string;
  tableRelative: Relativize;
}

export interface DeletesOps {
  /** In the client-side batch's order: removals, their scheduling, the new delete files. */
  ops: RowOp[];
  /** Tables the delete files belong to, in staged order: `deleted_from_table:<t>`. */
  tables: number[];
}

export async function existingFileDeletes(input: DeletesInput): Promise<DeletesOps> {
  const removed: number[] = [];
  const scheduled: Literal[][] = [];
  const files: Literal[][] = [];
  const tables: number[] = [];
  // File ids in the order of the data files they delete from, as stock's commit allocates them (measured:
  // a DELETE staging a new file for data file 1 before the replacing one of data file 0 numbers file 0's
  // first; docs/decisions/0265-staged-delete-files.md).
  const ordered = [...input.rows].sort(
    (a, b) => int(a.data_file_id, "data_file_id") - int(b.data_file_id, "data_file_id"),
  );
  for (const d of ordered) {
    if (!isNull(d.attached_local_file_id) || isNull(d.data_file_id)) {
      throw new InvalidRequest("staged delete file: not a delete file of an existing data file");
    }
    const source = str(d.source, "source");
    if (source !== "REGULAR" && source !== "FLUSH") {
      throw new Unsupported(`staged delete files with source ${source} are not translated`);
    }
    const t = int(d.table_id, "table_id");
    if (!tables.includes(t)) tables.push(t);
    const overwrites = replacesCommitted(d);
    if (overwrites) {
      removed.push(int(d.overwrite_delete_file_id, "overwrite_delete_file_id"));
      scheduled.push(
        scheduledDeletionRow(
          int(d.overwrite_delete_file_id, "overwrite_delete_file_id"),
          str(d.overwrite_delete_file_path, "overwrite_delete_file_path"),
          input.dataPath,
        ),
      );
    }
    // A flush keeps the carried deletes' snapshots (begin and partial_max as staged, checked by the
    // translation against the inlined deletes); a DELETE's file begins at the replaced one's begin and
    // holds rows up to the commit's own snapshot, which is the premise's, not the one the client assumed.
    // A replacing file without a begin carries no per-row snapshots (a deletion vector, DuckLake's
    // FlushMergedDeletionVector): stock stores it as begun at the commit's snapshot, without partial_max.
    const flush = source === "FLUSH";
    const snapshots = flush || (overwrites && !isNull(d.begin_snapshot));
    const begin = snapshots ? int(d.begin_snapshot, "begin_snapshot") : input.snapshotId;
    const partialMax = flush
      ? num(int(d.max_snapshot, "max_snapshot"))
      : snapshots
        ? num(input.snapshotId)
        : NULL;
    const path = await input.tableRelative(t, str(d.file_name, "file_name"));
    files.push(
      deleteFileRow(d, {
        id: input.allocate(),
        tableId: t,
        beginSnapshot: begin,
        dataFileId: int(d.data_file_id, "data_file_id"),
        path,
        partialMax,
      }),
    );
  }
  const ops: RowOp[] = [];
  if (removed.length > 0) {
    ops.push({ op: "delete", table: "ducklake_delete_file", key: "delete_file_id", ids: removed });
    ops.push({
      op: "insert",
      table: "ducklake_files_scheduled_for_deletion",
      columns: null,
      rows: scheduled,
    });
  }
  if (files.length > 0) ops.push({ op: "insert", table: "ducklake_delete_file", columns: null, rows: files });
  return { ops, tables };
}

export interface ReplacedDeletesInput extends CommitText {
  batch: StagedBatch;
  premise: SnapshotRecord;
  dataPath: string;
  tableRelative: Relativize;
}

/**
 * True for a staged DELETE this module translates: it replaces a live delete file, or drops whole files
 * with nothing else staged but delete files. A DELETE dropping files beside inlined deletes or rows stays
 * on the verbs, which drop the files after the other changes (`staged-member.ts`).
 */
export function isDeleteRewrite(batch: StagedBatch): boolean {
  if (replacesBesideNewFiles(batch)) return false;
  if (batch.rows.delete_file.some(rewritesDeletes)) return true;
  if (batch.rows.dropped_file.length === 0) return false;
  return (Object.entries(batch.rows) as [StagedTable, StagedRow[]][]).every(
    ([t, list]) => list.length === 0 || ONLY_DELETES.includes(t),
  );
}

const ONLY_DELETES: readonly StagedTable[] = ["commit", "delete_file", "dropped_file", "tables_deleted_from"];

/** What an UPDATE replacing delete files stages beside them: its new data files (decision 0618). */
const BESIDE_NEW_FILES: readonly StagedTable[] = [
  "commit",
  "delete_file",
  "data_file",
  "data_file_column_stats",
  "data_file_partition",
];

/**
 * An UPDATE whose delete files replace live ones while its new rows go to new data files, and nothing
 * else: no flush, no dropped file, no inlined rows or deletes. The verbs register the files (ids, row ids,
 * stats as for any UPDATE); `staged-member.ts` then stores the replacements as stock does
 * (docs/decisions/0618-update-replacing-delete-files.md).
 */
export function replacesBesideNewFiles(batch: StagedBatch): boolean {
  const rows = batch.rows;
  if (rows.data_file.length === 0 || !rows.delete_file.some(replacesCommitted)) return false;
  if (
    rows.delete_file.some(
      (d) => isFlushSource(d) || (!isNull(d.attached_local_file_id) && replacesCommitted(d)),
    )
  )
    return false;
  return (Object.entries(rows) as [StagedTable, StagedRow[]][]).every(
    ([t, list]) => list.length === 0 || BESIDE_NEW_FILES.includes(t),
  );
}

/**
 * A DELETE whose delete files replace live ones, or that covers every live row of some data files (stock
 * then drops them: `ducklake_staged_dropped_file`, their tables in `ducklake_staged_tables_deleted_from`):
 * the snapshot, the dropped files ended by id, the delete files (replacing and new, in staged order) and
 * `deleted_from_table:<t>`, as the client-side DELETE sends them (docs/decisions/0248-quack-dropped-files.md).
 * A batch that also stages other rows (an UPDATE's inlined rows, appended files, inlined deletes) is not
 * this shape and is refused by name.
 */
export async function replacedDeleteOps(input: ReplacedDeletesInput): Promise<RowOp[]> {
  const { batch, premise } = input;
  // Beside inlined rows or deletes, dropped files or a flush: stock numbers the files differently from
  // what the verbs would (measured, docs/decisions/0733-replacements-beside-other-rows.md), so refused.
  for (const [t, list] of Object.entries(batch.rows) as [StagedTable, StagedRow[]][]) {
    if (
      t !== "commit" &&
      t !== "delete_file" &&
      t !== "dropped_file" &&
      t !== "tables_deleted_from" &&
      list.length > 0
    ) {
      throw new Unsupported(
        `a staged commit replacing delete files or dropping data files with ducklake_staged_${t} rows too is not translated yet (docs/decisions/0265-staged-delete-files.md)`,
      );
    }
  }
  const dropped = batch.rows.dropped_file.map((d) => int(d.data_file_id, "dropped data_file_id"));
  const droppedTables = batch.rows.tables_deleted_from.map((d) => int(d.table_id, "tables_deleted_from"));
  if (dropped.length > 0 && droppedTables.length === 0) {
    throw new InvalidRequest("staged dropped files name no table in ducklake_staged_tables_deleted_from");
  }
  const S = premise.snapshot_id + 1;
  let nextFileId = premise.next_file_id;
  const { ops, tables } = await existingFileDeletes({
    rows: batch.rows.delete_file,
    snapshotId: S,
    allocate: () => nextFileId++,
    dataPath: input.dataPath,
    tableRelative: input.tableRelative,
  });
  for (const t of droppedTables) if (!tables.includes(t)) tables.push(t);
  return [
    snapshotRow(premise, nextFileId),
    ...(dropped.length > 0
      ? [
          {
            op: "end",
            table: "ducklake_data_file",
            endSnapshot: S,
            key: "data_file_id",
            ids: dropped,
          } satisfies RowOp,
        ]
      : []),
    ...ops,
    changesRow(
      premise,
      tables.map((t) => `deleted_from_table:${t}`),
      input,
    ),
  ];
}
