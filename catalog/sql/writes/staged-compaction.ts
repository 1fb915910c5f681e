/**
 * A staged `merge_adjacent` compaction (DuckLake's `ducklake_merge_adjacent_files` over its server-side
 * commit) as the rows DuckLake's own commit writes for it on the premise: the snapshot, the removal of the
 * source files' rows, their scheduling for deletion, the merged file back-dated to the first source's
 * snapshot with `partial_max` the last one, its column stats, and `merge_adjacent:<table>`. Those rows go
 * through the client-side translation (`translate.ts`), which owns how stock stores a file rewrite
 * (docs/decisions/0230-sql-write-translation.md, docs/decisions/0260-staged-commit.md).
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import type { SnapshotRecord } from "../../records.ts";
import { mergeSpan } from "./merge-output.ts";
import type { Literal, RowOp } from "./parse.ts";
import { dataFileRow, fileChildOps, scheduledDeletionRow, stagedFileStats } from "./staged-file-rows.ts";
import { isNull, NULL, num, type StagedReader, stagedReader } from "./staged-literals.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";
import { type CommitText, changesRow, snapshotRow } from "./staged-snapshot.ts";

const reader = stagedReader("staged compaction");
const { int, str } = reader;

/** Paths as DuckLake's commit stores them: relative to `dir` when inside it. */
export type Relativize = (tableId: number, path: string) => Promise<{ path: string; relative: boolean }>;

export interface CompactionInput extends CommitText {
  batch: StagedBatch;
  premise: SnapshotRecord;
  dataPath: string;
  tableRelative: Relativize;
}

/** True when the staged batch is a compaction (its rows are then only the compaction's). */
export function isCompaction(batch: StagedBatch): boolean {
  return batch.rows.compaction.length > 0 || batch.rows.compaction_source.length > 0;
}

/**
 * DuckLake's writer commits a compaction alone (README "Verified against a stock DuckLake"): a staged
 * compaction (`what`: merge or rewrite) that also carries other changes or appends files is refused.
 */
export function compactsAlone(rows: StagedBatch["rows"], what: "compaction" | "rewrite"): void {
  for (const t of [
    "delete_file",
    "inlined_data",
    "inlined_row",
    "inlined_delete",
    "inlined_file_delete",
  ] as const) {
    if (rows[t].length > 0) {
      throw new InvalidRequest(
        `a transaction either compacts or makes other changes, not both: the staged ${what} carries other rows`,
      );
    }
  }
  if (rows.data_file.some((f) => isNull(f.compaction_id))) {
    throw new InvalidRequest(`a staged ${what} also appends files: compact or append, not both`);
  }
}

/**
 * Staged compaction `id`'s source files in their `source_order` (at least one) and its output file (the
 * staged data file carrying that `compaction_id`; undefined when none, which each compaction judges).
 */
export function compactionParts(
  rows: StagedBatch["rows"],
  id: number,
  what: "compaction" | "rewrite",
  read: StagedReader,
): { sources: StagedRow[]; out: StagedRow | undefined } {
  const sources = rows.compaction_source
    .filter((s) => read.int(s.compaction_id, "compaction_id") === id)
    .sort((a, b) => read.int(a.source_order, "source_order") - read.int(b.source_order, "source_order"));
  if (sources.length === 0) throw new InvalidRequest(`staged ${what} ${id} has no source files`);
  const out = rows.data_file.find(
    (f) => !isNull(f.compaction_id) && read.int(f.compaction_id, "compaction_id") === id,
  );
  return { sources, out };
}

export async function compactionOps(input: CompactionInput): Promise<RowOp[]> {
  const { batch, premise } = input;
  const rows = batch.rows;
  compactsAlone(rows, "compaction");
  let nextFileId = premise.next_file_id;
  // Per compaction, its sources' removal and then its output: the translation pairs each merged output
  // with the files removed before it (decision 0610).
  const perCompaction: RowOp[] = [];
  const scheduled: Literal[][] = [];
  const tables = new Set<number>();
  for (const c of rows.compaction) {
    const id = int(c.compaction_id, "compaction_id");
    const t = int(c.table_id, "table_id");
    if (str(c.compaction_type, "compaction_type") !== "merge_adjacent") {
      throw new Unsupported(
        `staged ${str(c.compaction_type, "compaction_type")} compactions are not translated yet`,
      );
    }
    const { sources, out } = compactionParts(rows, id, "compaction", reader);
    for (const s of sources) {
      if (
        !isNull(s.last_delete_file_id) ||
        int(s.source_inlined_delete_count, "source_inlined_delete_count") > 0
      ) {
        throw new Unsupported("staged compactions of files with deletes are not translated yet");
      }
    }
    const removed: number[] = [];
    for (const s of sources) {
      const id2 = int(s.source_data_file_id, "source_data_file_id");
      removed.push(id2);
      scheduled.push(scheduledDeletionRow(id2, str(s.source_path, "source_path"), input.dataPath));
    }
    for (const table of [
      "ducklake_data_file",
      "ducklake_file_column_stats",
      "ducklake_delete_file",
      "ducklake_file_partition_value",
      "ducklake_file_variant_stats",
    ]) {
      perCompaction.push({ op: "delete", table, key: "data_file_id", ids: removed });
    }
    tables.add(t);
    // A merge of files without rows writes no output (DuckLake's merge of empty files).
    if (!out) {
      if (sources.some((s) => int(s.source_row_count, "source_row_count") > 0))
        throw new InvalidRequest(`staged compaction ${id} of rows has no output file`);
      continue;
    }
    const span = mergeSpan(
      sources.map((s) => ({
        begin_snapshot: int(s.source_begin_snapshot, "source_begin_snapshot"),
        partial_max: isNull(s.source_max_partial_file_snapshot)
          ? null
          : int(s.source_max_partial_file_snapshot, "source_max_partial_file_snapshot"),
      })),
    );
    const dataFileId = nextFileId++;
    const local = int(out.data_file_id, "data_file_id");
    const path = await input.tableRelative(t, str(out.path, "path"));
    perCompaction.push({
      op: "insert",
      table: "ducklake_data_file",
      columns: null,
      rows: [
        dataFileRow(out, {
          id: dataFileId,
          tableId: t,
          beginSnapshot: span.begin,
          path,
          rowIdStart: isNull(c.row_id_start) ? NULL : num(int(c.row_id_start, "row_id_start")),
          partialMax: span.partialMax === null ? NULL : num(span.partialMax),
          mappingId: out.mapping_id ?? NULL,
        }),
      ],
    });
    // Its stats, partition values and VARIANT stats (decisions 0610, 0620).
    perCompaction.push(...fileChildOps([stagedFileStats(rows, local, dataFileId, t, reader)]));
  }
  return [
    snapshotRow(premise, nextFileId),
    ...perCompaction,
    { op: "insert", table: "ducklake_files_scheduled_for_deletion", columns: null, rows: scheduled },
    changesRow(
      premise,
      [...tables].map((t) => `merge_adjacent:${t}`),
      input,
    ),
  ];
}
