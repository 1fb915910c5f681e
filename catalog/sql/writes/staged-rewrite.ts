/**
 * A staged `rewrite_delete` compaction (DuckLake's `ducklake_rewrite_data_files` over its server-side
 * commit) as the rows DuckLake's client-side commit sends for it on the premise: the rewritten file with
 * `row_id_start` NULL (its rows carry their ids) and its column stats, every source's live delete files
 * and the source files ended one by one, the output begun, the table's stats and `rewrite_delete:<table>`.
 * Those rows go through the client-side translation (`translate.ts` and `rewrite.ts`, the compaction
 * verb), which checks them against what the verb did (docs/decisions/0243-quack-rewrite-data-files.md,
 * docs/decisions/0265-staged-delete-files.md).
 */
import { ValueKind } from "../../codec.ts";
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { Kind, keys } from "../../keys.ts";
import type { DataFileRecord, SnapshotRecord } from "../../records.ts";
import type { VerbContext } from "../../verbs/context.ts";
import { readTableStats } from "../../verbs/ops/stats-support.ts";
import type { Literal, RowOp } from "./parse.ts";
import type { Relativize } from "./staged-compaction.ts";
import { flag, isNull, NULL, num, orNull, stagedReader, text } from "./staged-literals.ts";
import type { StagedBatch } from "./staged-parse.ts";

const { int, str } = stagedReader("staged rewrite");

export interface RewriteInput {
  batch: StagedBatch;
  premise: SnapshotRecord;
  /** Reads the premise (the sources' files and the table's stats), writes nothing. */
  probe: VerbContext;
  tableRelative: Relativize;
  author: string | null;
  message: string | null;
  extraInfo: string | null;
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
  for (const t of [
    "delete_file",
    "inlined_data",
    "inlined_row",
    "inlined_delete",
    "inlined_file_delete",
  ] as const) {
    if (rows[t].length > 0) {
      throw new InvalidRequest(
        "a transaction either compacts or makes other changes, not both: the staged rewrite carries other rows",
      );
    }
  }
  const S = premise.snapshot_id + 1;
  let nextFileId = premise.next_file_id;
  const files: Literal[][] = [];
  const stats: Literal[][] = [];
  const ends: RowOp[] = [];
  const begins: RowOp[] = [];
  const tableStats: RowOp[] = [];
  const columnStats: Literal[][] = [];
  const tables: number[] = [];
  for (const c of rows.compaction) {
    const id = int(c.compaction_id, "compaction_id");
    const t = int(c.table_id, "table_id");
    if (tables.includes(t)) {
      throw new Unsupported(`a staged rewrite writing several files for table ${t} is not translated yet`);
    }
    tables.push(t);
    const sources = rows.compaction_source
      .filter((s) => int(s.compaction_id, "compaction_id") === id)
      .sort((a, b) => int(a.source_order, "source_order") - int(b.source_order, "source_order"));
    if (sources.length === 0) throw new InvalidRequest(`staged rewrite ${id} has no source files`);
    const out = rows.data_file.find(
      (f) => !isNull(f.compaction_id) && int(f.compaction_id, "compaction_id") === id,
    );
    if (!out)
      throw new Unsupported(
        `a staged rewrite without an output file (every row deleted) is not translated yet`,
      );
    if (!isNull(out.mapping_id))
      throw new Unsupported("staged rewritten files with a column mapping are not translated yet");
    let removedRows = 0;
    let removedBytes = 0;
    const sourceIds: number[] = [];
    for (const s of sources) {
      if (int(s.source_inlined_delete_count, "source_inlined_delete_count") > 0) {
        throw new Unsupported("staged rewrites of files with inlined deletes are not translated yet");
      }
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
        ends.push({
          op: "end_file",
          table: "ducklake_delete_file",
          endSnapshot: S,
          id: int(s.last_delete_file_id, "last_delete_file_id"),
        });
        removedRows += int(s.last_delete_row_count, "last_delete_row_count");
      }
    }
    for (const f of sourceIds)
      ends.push({ op: "end_file", table: "ducklake_data_file", endSnapshot: S, id: f });
    // The table's column stats become the output's: only a rewrite of every live file of the table has that
    // rule measured (stock, client-side capture), so a partial rewrite is refused by name.
    const live = await probe.scan<DataFileRecord>(
      keys.current(Kind.dataFile, t),
      ValueKind.dataFile,
      "data file",
    );
    if (live.some((f) => !sourceIds.includes(f.data_file_id))) {
      throw new Unsupported(`a staged rewrite of some of table ${t}'s files is not translated yet`);
    }
    const fileId = nextFileId++;
    const local = int(out.data_file_id, "data_file_id");
    const path = await input.tableRelative(t, str(out.path, "path"));
    files.push([
      num(fileId),
      num(t),
      num(S),
      NULL,
      NULL,
      text(path.path),
      { k: "bool", v: path.relative },
      orNull(out.file_format),
      orNull(out.record_count),
      orNull(out.file_size_bytes),
      orNull(out.footer_size),
      NULL,
      orNull(out.partition_id),
      orNull(out.encryption_key),
      NULL,
      NULL,
    ]);
    for (const s of rows.data_file_column_stats.filter(
      (x) => int(x.data_file_id, "data_file_id") === local,
    )) {
      stats.push([
        num(fileId),
        num(t),
        orNull(s.column_id),
        orNull(s.column_size_bytes),
        flag(s.has_num_values) ? orNull(s.num_values) : NULL,
        flag(s.has_null_count) ? orNull(s.null_count) : NULL,
        flag(s.has_min) ? orNull(s.min_value) : NULL,
        flag(s.has_max) ? orNull(s.max_value) : NULL,
        flag(s.has_contains_nan) ? orNull(s.contains_nan) : NULL,
        orNull(s.extra_stats),
      ]);
      columnStats.push([
        num(t),
        orNull(s.column_id),
        flag(s.has_null_count) && !isNull(s.null_count)
          ? { k: "bool", v: int(s.null_count, "null_count") > 0 }
          : NULL,
        flag(s.has_contains_nan) ? orNull(s.contains_nan) : NULL,
        flag(s.has_min) ? orNull(s.min_value) : NULL,
        flag(s.has_max) ? orNull(s.max_value) : NULL,
        orNull(s.extra_stats),
      ]);
    }
    begins.push({ op: "begin_file", beginSnapshot: S, id: fileId });
    const old = await readTableStats(probe, t);
    if (old) {
      tableStats.push({
        op: "table_stats",
        tableId: t,
        recordCount: old.record_count - removedRows,
        fileSizeBytes: old.file_size_bytes - removedBytes + int(out.file_size_bytes, "file_size_bytes"),
        nextRowId: old.next_row_id,
      });
    }
  }
  if (rows.data_file.some((f) => isNull(f.compaction_id))) {
    throw new InvalidRequest("a staged rewrite also appends files: compact or append, not both");
  }
  const opt = (v: string | null): Literal => (v === null ? NULL : text(v));
  return [
    {
      op: "insert",
      table: "ducklake_snapshot",
      columns: null,
      rows: [
        [num(S), { k: "now" }, num(premise.schema_version), num(premise.next_catalog_id), num(nextFileId)],
      ],
    },
    { op: "insert", table: "ducklake_data_file", columns: null, rows: files },
    ...(stats.length > 0
      ? [{ op: "insert", table: "ducklake_file_column_stats", columns: null, rows: stats } as RowOp]
      : []),
    ...ends,
    ...begins,
    ...tableStats,
    ...(columnStats.length > 0 ? [{ op: "column_stats", rows: columnStats } as RowOp] : []),
    {
      op: "insert",
      table: "ducklake_snapshot_changes",
      columns: null,
      rows: [
        [
          num(S),
          text(tables.map((t) => `rewrite_delete:${t}`).join(",")),
          opt(input.author),
          opt(input.message),
          opt(input.extraInfo),
        ],
      ],
    },
  ];
}
