/**
 * The compaction outputs, as stock DuckLake 1.5.5's `ducklake_merge_adjacent_files` and
 * `ducklake_rewrite_data_files` write them (captured into a DuckDB-file catalog, decision
 * docs/decisions/0322-compaction-output.md):
 *  - merge_adjacent_files: live files without deletes become one file backdated to the first input's
 *    begin with `partial_max` the newest input snapshot (rows carry `_ducklake_internal_snapshot_id`, so
 *    every earlier snapshot reads its part of the file); the inputs' rows go without history and are
 *    scheduled for deletion; table stats stay (change kind `merge_adjacent`).
 *  - rewrite_data_files: files whose deletes are applied become one file begun at this snapshot (rows carry
 *    `_ducklake_internal_row_id`); the inputs and their delete files end here, so time travel before it
 *    reads them; table stats shrink by the deleted rows (change kind `rewrite_delete`).
 * A compaction commits alone (commit/member.ts) and conflicts with concurrent deletes, drops and alters of
 * its table (conflict.ts).
 */
import { ValueKind } from "../../codec.ts";
import { InvalidRequest } from "../../errors.ts";
import { joinPath } from "../../file-paths.ts";
import { newDataFileRecord } from "../../file-records.ts";
import { Kind, keys } from "../../keys.ts";
import type {
  DataFileRecord,
  DeleteFileRecord,
  GcFileRecord,
  TableColumnStatsRecord,
  TableRecord,
} from "../../records.ts";
import { compareStat } from "../../types.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";
import { dataFileRow, liveDataFile, liveDeleteFilesOf } from "./files.ts";
import { readColumnStats, readTableStats, writeColumnStats, writeTableStats } from "./stats-support.ts";

/** Most input files one compaction verb names (bounds the verb's reads and the commit's size). */
export const MAX_COMPACTION_INPUTS = 1_000;

async function inputs(
  ctx: VerbContext,
  table: TableRecord,
  ids: readonly number[],
): Promise<DataFileRecord[]> {
  if (ids.length > MAX_COMPACTION_INPUTS) {
    throw new InvalidRequest(
      `a compaction names ${ids.length} files, above the limit of ${MAX_COMPACTION_INPUTS}; split it`,
    );
  }
  if (new Set(ids).size !== ids.length) throw new InvalidRequest("a compaction names one data file twice");
  const out: DataFileRecord[] = [];
  for (const id of ids) out.push(await liveDataFile(ctx, table, id));
  const first = out[0];
  for (const f of out) {
    if (
      f.partition_id !== first?.partition_id ||
      JSON.stringify(f.x_partition_values) !== JSON.stringify(first?.x_partition_values)
    ) {
      throw new InvalidRequest(
        `data file ${f.data_file_id} lies in another partition than data file ${first?.data_file_id}; DuckLake compacts within a partition`,
      );
    }
  }
  return out;
}

async function inlinedDeleteCount(ctx: VerbContext, t: number, dataFileId: number): Promise<number> {
  let n = 0;
  for await (const _ of ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t, dataFileId) })) n++;
  return n;
}

/** The path DuckLake schedules a removed file under: relative to the data path when every part is. */
export async function scheduledPath(
  ctx: VerbContext,
  table: TableRecord,
  f: Pick<DataFileRecord, "path" | "path_is_relative">,
): Promise<{ path: string; path_is_relative: boolean }> {
  if (!f.path_is_relative) return { path: f.path, path_is_relative: false };
  if (!table.path_is_relative) return { path: joinPath(table.path, f.path), path_is_relative: false };
  const schema = await ctx.schemaById(table.schema_id);
  const tableDir = joinPath(schema.path, table.path);
  return schema.path_is_relative
    ? { path: joinPath(tableDir, f.path), path_is_relative: true }
    : { path: joinPath(tableDir, f.path), path_is_relative: false };
}

/**
 * DuckLake's adjacency: every input numbers its rows from row_id_start (none carries its own ids) and
 * each starts where the previous ends, so the merged file needs no row-id column.
 */
export function rowIdsAdjacent(files: readonly DataFileRecord[]): boolean {
  return files.every((f, i) => {
    const prev = files[i - 1];
    return (
      !f.x_row_ids_in_file && (prev === undefined || f.row_id_start === prev.row_id_start + prev.record_count)
    );
  });
}

export async function mergeAdjacentFiles(
  ctx: VerbContext,
  v: VerbOf<"merge_adjacent_files">,
): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const files = await inputs(ctx, table, v.dataFileIds);
  for (const f of files) {
    if (
      (await liveDeleteFilesOf(ctx, t, f.data_file_id)).length > 0 ||
      (await inlinedDeleteCount(ctx, t, f.data_file_id)) > 0
    ) {
      throw new InvalidRequest(
        `data file ${f.data_file_id} has deletes; DuckLake's merge leaves such files to rewrite_data_files`,
      );
    }
  }
  const rows = files.reduce((n, f) => n + f.record_count, 0);
  if (v.file.recordCount !== rows) {
    throw new InvalidRequest(`the merged file holds ${v.file.recordCount} rows but its inputs hold ${rows}`);
  }
  const first = files[0] as DataFileRecord;
  // Adjacent row ids: the file's rows are numbered from the first input's start (no row-id column);
  // otherwise the file carries `_ducklake_internal_row_id` and the start is the lowest id (decision 0322).
  const adjacent = rowIdsAdjacent(files);
  const rowIdStart = adjacent ? first.row_id_start : Math.min(...files.map((f) => f.row_id_start));
  const dataFileId = ctx.fileId();
  const { row } = await dataFileRow(ctx, table, v.file, dataFileId, rowIdStart);
  const now = Math.floor(ctx.env.now() * 1000);
  for (const f of files) {
    // Without history, as stock: the merged file answers every snapshot the inputs did.
    ctx.st.delete(keys.current(Kind.dataFile, t, f.data_file_id));
    ctx.write(keys.current(Kind.gcFile, f.data_file_id), ValueKind.gcFile, {
      data_file_id: f.data_file_id,
      ...(await scheduledPath(ctx, table, f)),
      schedule_start: now,
    } satisfies GcFileRecord);
  }
  ctx.write(
    keys.current(Kind.dataFile, t, dataFileId),
    ValueKind.dataFile,
    newDataFileRecord({
      ...row,
      begin_snapshot: Math.min(...files.map((f) => f.begin_snapshot)),
      partial_max: Math.max(...files.map((f) => f.partial_max ?? f.begin_snapshot)),
      partition_id: first.partition_id,
      x_partition_values: first.x_partition_values,
      ...(adjacent ? {} : { x_row_ids_in_file: true as const }),
    }),
  );
  ctx.change("mergeAdjacent", t);
  ctx.newFileTables.add(t);
  ctx.touch(t);
  return { dataFileId, rowCount: rows };
}

export async function rewriteDataFiles(ctx: VerbContext, v: VerbOf<"rewrite_data_files">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const files = await inputs(ctx, table, v.dataFileIds);
  let kept = 0;
  let deleted = 0;
  const ended: DeleteFileRecord[] = [];
  for (const f of files) {
    const dels = await liveDeleteFilesOf(ctx, t, f.data_file_id);
    const gone =
      dels.reduce((n, d) => n + d.delete_count, 0) + (await inlinedDeleteCount(ctx, t, f.data_file_id));
    if (gone === 0) throw new InvalidRequest(`data file ${f.data_file_id} has no deletes to rewrite`);
    ended.push(...dels);
    deleted += gone;
    kept += f.record_count - gone;
  }
  if ((v.file?.recordCount ?? 0) !== kept) {
    throw new InvalidRequest(
      `the rewritten file holds ${v.file?.recordCount ?? 0} rows but its inputs keep ${kept} after their deletes`,
    );
  }
  if (v.file && v.rowIdStart === undefined) {
    throw new InvalidRequest("a rewritten file names rowIdStart, its lowest kept row id");
  }
  const out: Assigned = {};
  for (const f of files) ctx.endVersion(Kind.dataFile, [t, f.data_file_id], ValueKind.dataFile, f);
  for (const d of ended) ctx.endVersion(Kind.deleteFile, [t, d.delete_file_id], ValueKind.deleteFile, d);
  const first = files[0] as DataFileRecord;
  let live: DataFileRecord[] = [];
  if (v.file && v.rowIdStart !== undefined) {
    const lo = Math.min(...files.map((f) => f.row_id_start));
    const hi = Math.max(...files.map((f) => f.row_id_start + f.record_count));
    if (v.rowIdStart < lo || v.rowIdStart >= hi) {
      throw new InvalidRequest(`rowIdStart ${v.rowIdStart} lies outside the inputs' row ids [${lo}, ${hi})`);
    }
    const dataFileId = ctx.fileId();
    const { row } = await dataFileRow(ctx, table, v.file, dataFileId, v.rowIdStart);
    const rec = newDataFileRecord({
      ...row,
      partition_id: first.partition_id,
      x_partition_values: first.x_partition_values,
      x_row_ids_in_file: true,
    });
    ctx.write(keys.current(Kind.dataFile, t, dataFileId), ValueKind.dataFile, rec);
    live = [rec];
    out.dataFileId = dataFileId;
    ctx.newFileTables.add(t);
  }
  const stats = await readTableStats(ctx, t);
  if (stats) {
    writeTableStats(ctx, stats, {
      table_id: t,
      record_count: stats.record_count - deleted,
      next_row_id: stats.next_row_id,
      file_size_bytes:
        stats.file_size_bytes -
        files.reduce((n, f) => n + f.file_size_bytes, 0) +
        (v.file?.fileSizeBytes ?? 0),
    });
  }
  // DuckLake recomputes the table's column stats from the files left live.
  for await (const kv of ctx.st.scan({ prefix: keys.current(Kind.dataFile, t) })) {
    const rec = await ctx.read<DataFileRecord>(kv.key, ValueKind.dataFile, "data file");
    if (rec && rec.data_file_id !== out.dataFileId) live.push(rec);
  }
  await recomputeColumnStats(ctx, t, live);
  ctx.change("rewriteDelete", t);
  ctx.touch(t);
  out.rowCount = kept;
  return out;
}

async function recomputeColumnStats(
  ctx: VerbContext,
  t: number,
  live: readonly DataFileRecord[],
): Promise<void> {
  for (const c of await ctx.columns(t)) {
    const old = await readColumnStats(ctx, t, c.column_id);
    if (!old) continue;
    const per = live.flatMap((f) => f.x_column_stats.filter((s) => s.column_id === c.column_id));
    const pick = (a: string | null, b: string | null, lower: boolean): string | null => {
      if (a === null) return b;
      if (b === null) return a;
      const cmp = compareStat(c.column_type, a, b);
      return (lower ? cmp <= 0 : cmp >= 0) ? a : b;
    };
    let min: string | null = null;
    let max: string | null = null;
    let nulls = false;
    let nan: boolean | null = null;
    for (const s of per) {
      min = pick(min, s.min_value, true);
      max = pick(max, s.max_value, false);
      nulls = nulls || (s.null_count ?? 0) > 0;
      if (s.contains_nan !== null) nan = (nan ?? false) || s.contains_nan;
    }
    const next: TableColumnStatsRecord = {
      ...old,
      begin_snapshot: ctx.snapshotId,
      end_snapshot: null,
      contains_null: nulls,
      contains_nan: nan,
      min_value: min,
      max_value: max,
    };
    if (
      next.contains_null !== old.contains_null ||
      next.contains_nan !== old.contains_nan ||
      next.min_value !== old.min_value ||
      next.max_value !== old.max_value
    ) {
      writeColumnStats(ctx, old, next);
    }
  }
}
