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
import { scanInlineRows } from "../../inline-floor.ts";
import { Kind, keys } from "../../keys.ts";
import type { DataFileRecord, SnapshotRecord } from "../../records.ts";
import { compareStat } from "../../types.ts";
import type { VerbContext } from "../../verbs/context.ts";
import { readTableStats } from "../../verbs/ops/stats-support.ts";
import type { Literal, RowOp } from "./parse.ts";
import { compactionParts, compactsAlone, type Relativize } from "./staged-compaction.ts";
import { dataFileRow, type FileChildRows, fileChildOps, stagedFileStats } from "./staged-file-rows.ts";
import { flag, isNull, NULL, num, stagedReader, text } from "./staged-literals.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";
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
  const columnStats: Literal[][] = [];
  const tables: number[] = [];
  for (const c of rows.compaction) {
    const t = int(c.table_id, "table_id");
    if (!tables.includes(t)) tables.push(t);
  }
  for (const t of tables) {
    // A partitioned table's rewrite stages one compaction per partition; all of them are one rewrite.
    const outputs: StagedRow[] = [];
    const sourceIds: number[] = [];
    let removedRows = 0;
    let removedBytes = 0;
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
        removedRows += int(s.source_inlined_delete_count, "source_inlined_delete_count");
        const f = int(s.source_data_file_id, "source_data_file_id");
        const rec = await probe.read<DataFileRecord>(
          keys.current(Kind.dataFile, t, f),
          ValueKind.dataFile,
          "data file",
        );
        if (!rec) throw new InvalidRequest(`staged rewrite: data file ${f} is not a live file of table ${t}`);
        sourceIds.push(f);
        removedBytes += rec.file_size_bytes;
        if (!isNull(s.last_delete_file_id)) {
          perSource.push({
            op: "end_file",
            table: "ducklake_delete_file",
            endSnapshot: S,
            id: int(s.last_delete_file_id, "last_delete_file_id"),
          });
          removedRows += int(s.last_delete_row_count, "last_delete_row_count");
        }
        perSource.push({ op: "end_file", table: "ducklake_data_file", endSnapshot: S, id: f });
        if (fileId !== undefined) perSource.push({ op: "begin_file", beginSnapshot: S, id: fileId });
      }
    }
    // DuckLake sets the table's stats only when the rewrite replaces every live file of the table (measured
    // client-side and server-side, docs/decisions/0247-quack-partial-rewrites.md): they then become the
    // outputs'. After a rewrite of some of its files the table's stats stay.
    const live = await probe.scan<DataFileRecord>(
      keys.current(Kind.dataFile, t),
      ValueKind.dataFile,
      "data file",
    );
    if (live.some((f) => !sourceIds.includes(f.data_file_id))) continue;
    // Stock then folds the table's live inlined rows into the new column stats (when every column is a
    // foldable scalar, else it keeps them); the outputs' stats alone would bound the column below values the
    // inlined rows hold, and DuckDB prunes by those bounds. Refused until that fold is translated.
    for await (const _ of scanInlineRows(probe.st, t)) {
      throw new Unsupported(
        `a staged rewrite of every file of table ${t}, which also holds inlined rows, is not translated yet: its column stats fold the inlined rows`,
      );
    }
    const old = await readTableStats(probe, t);
    if (old) {
      tableStats.push({
        op: "table_stats",
        tableId: t,
        recordCount: old.record_count - removedRows,
        fileSizeBytes:
          old.file_size_bytes -
          removedBytes +
          outputs.reduce((n, o) => n + int(o.file_size_bytes, "file_size_bytes"), 0),
        nextRowId: old.next_row_id,
      });
    }
    columnStats.push(...(await outputColumnStats(probe, t, rows.data_file_column_stats, outputs)));
  }
  return [
    snapshotRow(premise, nextFileId),
    ...(files.length > 0
      ? [{ op: "insert", table: "ducklake_data_file", columns: null, rows: files } as RowOp]
      : []),
    ...fileChildOps(children),
    ...perSource,
    ...tableStats,
    ...(columnStats.length > 0 ? [{ op: "column_stats", rows: columnStats } as RowOp] : []),
    changesRow(
      premise,
      tables.map((t) => `rewrite_delete:${t}`),
      input,
    ),
  ];
}

/**
 * The table's column stats after a rewrite of every file: the outputs' stats merged per column (DuckLake's
 * `UPDATE ducklake_table_column_stats … FROM new_values`, one row per column; min and max in the column
 * type's order, `contains_null` when any output has nulls, `contains_nan` when any output reports it).
 */
async function outputColumnStats(
  probe: VerbContext,
  t: number,
  all: readonly StagedRow[],
  outputs: readonly StagedRow[],
): Promise<Literal[][]> {
  const types = new Map((await probe.columns(t)).map((c) => [c.column_id, c.column_type]));
  const locals = new Set(outputs.map((o) => int(o.data_file_id, "data_file_id")));
  const byColumn = new Map<number, StagedRow[]>();
  for (const s of all) {
    if (!locals.has(int(s.data_file_id, "data_file_id"))) continue;
    const c = int(s.column_id, "column_id");
    byColumn.set(c, [...(byColumn.get(c) ?? []), s]);
  }
  const out: Literal[][] = [];
  for (const [c, list] of byColumn) {
    const type = types.get(c) ?? "varchar";
    const pick = (a: string | null, b: string | null, lower: boolean): string | null => {
      if (a === null) return b;
      if (b === null) return a;
      const cmp = compareStat(type, a, b);
      return (lower ? cmp <= 0 : cmp >= 0) ? a : b;
    };
    let min: string | null = null;
    let max: string | null = null;
    let nullsKnown = false;
    let nulls = false;
    let nan: boolean | null = null;
    const extras = new Set<string>();
    for (const s of list) {
      if (flag(s.has_min) && !isNull(s.min_value)) min = pick(min, str(s.min_value, "min_value"), true);
      if (flag(s.has_max) && !isNull(s.max_value)) max = pick(max, str(s.max_value, "max_value"), false);
      if (flag(s.has_null_count) && !isNull(s.null_count)) {
        nullsKnown = true;
        nulls = nulls || int(s.null_count, "null_count") > 0;
      }
      if (flag(s.has_contains_nan) && !isNull(s.contains_nan)) nan = (nan ?? false) || flag(s.contains_nan);
      if (!isNull(s.extra_stats)) extras.add(str(s.extra_stats, "extra_stats"));
    }
    if (extras.size > 1) {
      throw new Unsupported(
        `a staged rewrite merging extra stats of several files (table ${t}, column ${c}) is not translated yet`,
      );
    }
    const [extra] = extras;
    out.push([
      num(t),
      num(c),
      nullsKnown ? { k: "bool", v: nulls } : NULL,
      nan === null ? NULL : { k: "bool", v: nan },
      min === null ? NULL : text(min),
      max === null ? NULL : text(max),
      extra === undefined ? NULL : text(extra),
    ]);
  }
  // A column no output has data for becomes unknown (stock refreshes every column's row).
  for (const c of types.keys())
    if (!byColumn.has(c)) out.push([num(t), num(c), NULL, NULL, NULL, NULL, NULL]);
  return out;
}
