/**
 * A staged `ducklake_flush_inlined_data` (DuckLake's flush over its server-side commit) as the rows
 * DuckLake's own commit writes for it on the premise: the snapshot, the removal of the flushed inlined rows
 * (`begin_snapshot <= flush_snapshot_id`, per inlined table), each flushed file back-dated to its first
 * row's snapshot with the rows' own ids (one per partition value of a partitioned table,
 * docs/decisions/0617-partitioned-flush.md), its column stats and partition values, the delete file that
 * keeps the flushed rows' ends, the table's `file_size_bytes` grown by the new files, and `inline_flush:<table>`. Those rows go
 * through the client-side translation (`translate.ts`), which owns how a flush is stored and checks that
 * each file carries exactly the rows its flush removes (docs/decisions/0240-quack-flush-inlined-data.md,
 * docs/decisions/0263-staged-flush.md).
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import type { SnapshotRecord } from "../../records.ts";
import type { VerbContext } from "../../verbs/context.ts";
import { mergeColumnStats, readColumnStats, readTableStats } from "../../verbs/ops/stats-support.ts";
import type { Literal, RowOp } from "./parse.ts";
import type { Relativize } from "./staged-compaction.ts";
import { existingFileDeletes } from "./staged-deletes.ts";
import {
  dataFileRow,
  deleteFileRow,
  type FileChildRows,
  fileChildOps,
  stagedColumnStats,
  stagedFileStats,
} from "./staged-file-rows.ts";
import { flag, isNull, NULL, num, orNull, stagedReader } from "./staged-literals.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";
import { type CommitText, changesRow, snapshotRow } from "./staged-snapshot.ts";

const reader = stagedReader("staged flush");
const { int, str } = reader;

const INLINED_DATA = /^ducklake_inlined_data_(\d+)_(\d+)$/;

export interface FlushInput extends CommitText {
  batch: StagedBatch;
  premise: SnapshotRecord;
  /** Reads the premise (table stats), writes nothing. */
  probe: VerbContext;
  tableRelative: Relativize;
  /** The lake's data path: replaced delete files are scheduled for deletion relative to it. */
  dataPath: string;
}

/** What the flush's commit merges into `ducklake_table_column_stats` after the rows are translated. */
export type AfterFlush = (ctx: VerbContext) => Promise<void>;

/** True when the staged batch is a flush (its rows are then only the flush's). */
export function isFlush(batch: StagedBatch): boolean {
  return batch.rows.flushed_inlined.length > 0;
}

export async function flushOps(input: FlushInput): Promise<{ ops: RowOp[]; after: AfterFlush }> {
  const { batch, premise, probe } = input;
  const rows = batch.rows;
  for (const t of [
    "inlined_data",
    "inlined_row",
    "inlined_delete",
    "inlined_file_delete",
    "compaction",
    "compaction_source",
  ] as const) {
    if (rows[t].length > 0) {
      throw new InvalidRequest(
        `a flush commits only the flushed files: the staged flush also carries ducklake_staged_${t} rows`,
      );
    }
  }
  const S = premise.snapshot_id + 1;
  let nextFileId = premise.next_file_id;
  const ops: RowOp[] = [];
  const flushTables: number[] = [];
  for (const f of rows.flushed_inlined) {
    const name = str(f.inlined_table_name, "inlined_table_name");
    const m = INLINED_DATA.exec(name);
    if (!m) throw new InvalidRequest(`staged flush: ${name} is not an inlined data table`);
    const t = Number(m[1]);
    if (!flushTables.includes(t)) flushTables.push(t);
    ops.push({ op: "flush_inlined", table: name, upTo: int(f.flush_snapshot_id, "flush_snapshot_id") });
  }
  // File ids as DuckLake's commit allocates them: the data files by table, then their delete files.
  const staged = [...rows.data_file].sort(
    (a, b) => int(a.table_id, "table_id") - int(b.table_id, "table_id"),
  );
  const idOf = new Map<number, number>();
  const files: Literal[][] = [];
  const children: FileChildRows[] = [];
  const sizeByTable = new Map<number, number>();
  const statsByTable = new Map<number, StagedRow[]>();
  for (const f of staged) {
    for (const c of ["compaction_id", "mapping_id"] as const) {
      if (!isNull(f[c])) throw new Unsupported(`staged flushed files with ${c} set are not translated yet`);
    }
    if (isNull(f.begin_snapshot) || isNull(f.row_id_start)) {
      throw new InvalidRequest(
        "a staged flush appends a file without a begin_snapshot and row_id_start: flush or append, not both",
      );
    }
    const t = int(f.table_id, "table_id");
    if (!flushTables.includes(t)) {
      throw new InvalidRequest(`staged flush: a file of table ${t}, which the commit does not flush`);
    }
    const local = int(f.data_file_id, "data_file_id");
    if (idOf.has(local)) throw new InvalidRequest(`staged flush: local file id ${local} is staged twice`);
    const id = nextFileId++;
    idOf.set(local, id);
    const path = await input.tableRelative(t, str(f.path, "path"));
    files.push(
      dataFileRow(f, {
        id,
        tableId: t,
        beginSnapshot: int(f.begin_snapshot, "begin_snapshot"),
        path,
        rowIdStart: num(int(f.row_id_start, "row_id_start")),
        partialMax: orNull(f.partial_max),
        mappingId: NULL,
      }),
    );
    sizeByTable.set(t, (sizeByTable.get(t) ?? 0) + int(f.file_size_bytes, "file_size_bytes"));
    const fileStats = stagedFileStats(rows, local, id, t, reader);
    children.push(fileStats);
    if (fileStats.staged.length > 0) {
      statsByTable.set(t, [...(statsByTable.get(t) ?? []), ...fileStats.staged]);
    }
  }
  const deletes: Literal[][] = [];
  for (const d of rows.delete_file.filter((x) => !isNull(x.attached_local_file_id))) {
    if (
      !isNull(d.data_file_id) ||
      flag(d.overwrites_existing_delete) ||
      str(d.source, "source") !== "FLUSH"
    ) {
      throw new InvalidRequest(
        "staged flush: a delete file attached to a new file names an existing data file or a source other than FLUSH",
      );
    }
    const t = int(d.table_id, "table_id");
    const onto = idOf.get(int(d.attached_local_file_id, "attached_local_file_id"));
    if (onto === undefined) {
      throw new InvalidRequest("staged flush: a delete file attached to a file this commit does not stage");
    }
    const path = await input.tableRelative(t, str(d.file_name, "file_name"));
    deletes.push(
      deleteFileRow(d, {
        id: nextFileId++,
        tableId: t,
        beginSnapshot: int(d.begin_snapshot, "begin_snapshot"),
        dataFileId: onto,
        path,
        partialMax: orNull(d.max_snapshot),
      }),
    );
  }
  // The flush of inlined deletes of Parquet files: delete files of existing data files, after the new
  // files' ids (docs/decisions/0265-staged-delete-files.md).
  const existing = await existingFileDeletes({
    rows: rows.delete_file.filter((x) => isNull(x.attached_local_file_id)),
    snapshotId: S,
    allocate: () => nextFileId++,
    dataPath: input.dataPath,
    tableRelative: input.tableRelative,
  });
  ops.unshift(snapshotRow(premise, nextFileId));
  // The table's stats: its rows were counted when inlined; only the new files' bytes are added.
  for (const [t, bytes] of sizeByTable) {
    const old = await readTableStats(probe, t);
    if (!old) continue;
    ops.push({
      op: "table_stats",
      tableId: t,
      recordCount: old.record_count,
      fileSizeBytes: old.file_size_bytes + bytes,
      nextRowId: old.next_row_id,
    });
  }
  if (files.length > 0) ops.push({ op: "insert", table: "ducklake_data_file", columns: null, rows: files });
  ops.push(...fileChildOps(children));
  if (deletes.length > 0)
    ops.push({ op: "insert", table: "ducklake_delete_file", columns: null, rows: deletes });
  ops.push(...existing.ops);
  const changes = [
    ...[...sizeByTable.keys()].map((t) => `inline_flush:${t}`),
    ...existing.tables.map((t) => `deleted_from_table:${t}`),
  ];
  ops.push(changesRow(premise, changes, input));
  // DuckLake merges each flushed file's stats into the table's column stats with `UPDATE … FROM
  // new_values`: a column without a stats row gets none.
  const after: AfterFlush = async (ctx) => {
    for (const [t, list] of statsByTable) {
      const types = new Map((await ctx.columns(t)).map((c) => [c.column_id, c.column_type]));
      for (const s of list) {
        const c = int(s.column_id, "column_id");
        if ((await readColumnStats(ctx, t, c)) === undefined) continue;
        await mergeColumnStats(ctx, t, c, types.get(c) ?? "varchar", stagedColumnStats(s, reader));
      }
    }
  };
  return { ops, after };
}
