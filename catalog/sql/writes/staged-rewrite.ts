/**
 * A staged `rewrite_delete` compaction (DuckLake's `ducklake_rewrite_data_files` over its server-side
 * commit) as the rows DuckLake's client-side commit sends for it on the premise: the rewritten file with
 * `row_id_start` NULL (its rows carry their ids) and its column stats, every source's live delete files
 * and the source files ended one by one, the output begun, the table's stats and `rewrite_delete:<table>`.
 * Those rows go through the client-side translation (`translate.ts` and `rewrite.ts`, the compaction
 * verb), which checks them against what the verb did (docs/decisions/0243-quack-rewrite-data-files.md,
 * docs/decisions/0265-staged-delete-files.md). Sources with inlined deletes and rewrites keeping no row:
 * docs/decisions/0611-staged-rewrite-inlined-deletes.md.
 */
import { ValueKind } from "../../codec.ts";
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { Kind, keys } from "../../keys.ts";
import type { DataFileRecord, SnapshotRecord } from "../../records.ts";
import type { VerbContext } from "../../verbs/context.ts";
import type { Literal, RowOp } from "./parse.ts";
import { compactionParts, compactsAlone, type Relativize } from "./staged-compaction.ts";
import { dataFileRow, type FileChildRows, fileChildOps, stagedFileStats } from "./staged-file-rows.ts";
import { isNull, NULL, stagedReader } from "./staged-literals.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";
import { recomputeAfterRewrite } from "./staged-rewrite-stats.ts";
import { type CommitText, changesRow, snapshotRow } from "./staged-snapshot.ts";

const reader = stagedReader("staged rewrite");
const { int, str } = reader;

export interface RewriteInput extends CommitText {
  batch: StagedBatch;
  premise: SnapshotRecord;
  /** Reads the premise (the sources' files and the table's stats), writes nothing. */
  probe: VerbContext;
  tableRelative: Relativize;
}

/** True when every staged compaction is a rewrite of deleted rows. */
export function isRewrite(batch: StagedBatch): boolean {
  return (
    batch.rows.compaction.length > 0 &&
    batch.rows.compaction.every(
      (c) => c.compaction_type?.k === "str" && c.compaction_type.v === "rewrite_delete",
    )
  );
}

export async function rewriteOps(input: RewriteInput): Promise<RowOp[]> {
  const { batch, premise, probe } = input;
  const rows = batch.rows;
  compactsAlone(rows, "rewrite");
  const S = premise.snapshot_id + 1;
  let nextFileId = premise.next_file_id;
  const files: Literal[][] = [];
  const children: FileChildRows[] = [];
  const perSource: RowOp[] = [];
  const tableStats: RowOp[] = [];
  const tables: number[] = [];
  for (const c of rows.compaction) {
    const t = int(c.table_id, "table_id");
    if (!tables.includes(t)) tables.push(t);
  }
  for (const t of tables) {
    // A partitioned table's rewrite stages one compaction per partition; all of them are one rewrite.
    const outputs: StagedRow[] = [];
    const sourceIds: number[] = [];
    for (const c of rows.compaction.filter((x) => int(x.table_id, "table_id") === t)) {
      const id = int(c.compaction_id, "compaction_id");
      const { sources, out } = compactionParts(rows, id, "rewrite", reader);
      // Every source row deleted: DuckLake writes no output and only ends the sources.
      const fileId = out ? nextFileId++ : undefined;
      if (out && fileId !== undefined) {
        if (!isNull(out.mapping_id))
          throw new Unsupported("staged rewritten files with a column mapping are not translated yet");
        const local = int(out.data_file_id, "data_file_id");
        const path = await input.tableRelative(t, str(out.path, "path"));
        files.push(
          dataFileRow(out, {
            id: fileId,
            tableId: t,
            beginSnapshot: S,
            path,
            rowIdStart: NULL,
            partialMax: NULL,
            mappingId: NULL,
          }),
        );
        children.push(stagedFileStats(rows, local, fileId, t, reader));
        outputs.push(out);
      }
      // DuckLake's client-side batch, per source: its delete file ended, the source ended, the output begun.
      for (const s of sources) {
        // Deletes of the source kept inlined (ducklake_inlined_delete_<t>) stay with the ended file, as in stock.
        const f = int(s.source_data_file_id, "source_data_file_id");
        const rec = await probe.read<DataFileRecord>(
          keys.current(Kind.dataFile, t, f),
          ValueKind.dataFile,
          "data file",
        );
        if (!rec) throw new InvalidRequest(`staged rewrite: data file ${f} is not a live file of table ${t}`);
        sourceIds.push(f);
        if (!isNull(s.last_delete_file_id)) {
          perSource.push({
            op: "end_file",
            table: "ducklake_delete_file",
            endSnapshot: S,
            id: int(s.last_delete_file_id, "last_delete_file_id"),
          });
        }
        perSource.push({ op: "end_file", table: "ducklake_data_file", endSnapshot: S, id: f });
        if (fileId !== undefined) perSource.push({ op: "begin_file", beginSnapshot: S, id: fileId });
      }
    }
    // DuckLake recomputes the table's stats when no deletes remain on its files (decision 0730).
    tableStats.push(
      ...(await recomputeAfterRewrite({
        probe,
        tableId: t,
        premise: premise.snapshot_id,
        sourceIds,
        outputs,
        stagedStats: rows.data_file_column_stats,
        read: reader,
      })),
    );
  }
  return [
    snapshotRow(premise, nextFileId),
    ...(files.length > 0
      ? [{ op: "insert", table: "ducklake_data_file", columns: null, rows: files } as RowOp]
      : []),
    ...fileChildOps(children),
    ...perSource,
    ...tableStats,
    changesRow(
      premise,
      tables.map((t) => `rewrite_delete:${t}`),
      input,
    ),
  ];
}
