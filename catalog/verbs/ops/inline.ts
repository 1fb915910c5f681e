/**
 * Inlined data: inline_insert (rows take dense row ids from the table's next_row_id), inline_delete (an
 * inlined row gets an end snapshot; a Parquet position becomes a ducklake_inlined_delete row) and
 * flush_inlined (rows up to a row id, every version, move into a registered file, backdated to the first row's snapshot,
 * with `partial_max`, and inlined file deletes merge into delete files; the inline records merged or
 * flushed are deleted outright, as DuckLake deletes them). All data-only: schema_version carried.
 */
import { decodeValue, ValueKind } from "../../codec.ts";
import { Constraint, InvalidRequest, NotFound, quoteName } from "../../errors.ts";
import { newDataFileRecord, newDeleteFileRecord } from "../../file-records.ts";
import {
  type InlineRowWrite,
  scanInlineRows,
  settleInlineFloor,
  writeInlinedRows,
} from "../../inline-floor.ts";
import { flushCoveredRows } from "../../inline-flush-run.ts";
import { Kind, keys } from "../../keys.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  InlinedTableRecord,
  InlineFileDeleteRecord,
  InlineRowRecord,
  TableMetaRecord,
  TableRecord,
} from "../../records.ts";
import { compareStat, NESTED } from "../../types.ts";
import { refuseFoldedTwice } from "../../values/errors.ts";
import { parseValue, type StoredValue, type TypeNode, toText } from "../../values/index.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { DataFileSpec, DeleteFileSpec, VerbOf } from "../schema.ts";
import { resolveTableShape, type TableShape, tableShape } from "../shape-memo.ts";
import { dataFileRow, deleteFileRow, liveDataFile, liveDeleteFilesOf } from "./files.ts";
import { emptyTableStats, mergeColumnStats, readTableStats, writeTableStats } from "./stats-support.ts";

/**
 * Smallest / largest of a list, by a loop: `Math.min(...xs)` passes every element as an argument and
 * throws RangeError past the engine's argument limit (~130k in workerd).
 */
export function minOf(xs: readonly number[]): number {
  let m = Number.POSITIVE_INFINITY;
  for (const x of xs) if (x < m) m = x;
  return m;
}

export function maxOf(xs: readonly number[]): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const x of xs) if (x > m) m = x;
  return m;
}

/** The schema version of the table's newest inlined-data table (the one new rows go into). */
async function inlineSchemaVersion(ctx: VerbContext, table: TableRecord): Promise<number> {
  if (ctx.inlineRotationTables.has(table.table_id)) return ctx.schemaVersion;
  let newest: InlinedTableRecord | undefined;
  for await (const kv of ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, table.table_id) })) {
    newest = (await ctx.read<InlinedTableRecord>(kv.key, ValueKind.inlinedTable, "inlined table")) ?? newest;
  }
  if (newest) return newest.schema_version;
  // No inlined-data table yet (inlining was off when the table last changed shape): open one now.
  const sv = ctx.schemaVersion;
  ctx.write(keys.current(Kind.inlinedTable, table.table_id, sv), ValueKind.inlinedTable, {
    table_id: table.table_id,
    table_name: `ducklake_inlined_data_${table.table_id}_${sv}`,
    schema_version: sv,
    x_begin_snapshot: ctx.snapshotId,
  } satisfies InlinedTableRecord);
  return sv;
}

/** Inlined rows feed ducklake_table_column_stats like a file does (per top-level primitive column). */
async function mergeInlinedStats(
  ctx: VerbContext,
  tableId: number,
  cols: { col: ColumnRecord; node: TypeNode }[],
  rows: InlineRowRecord["values"][],
): Promise<void> {
  for (const { col: c, node } of cols) {
    if (NESTED.has(c.column_type)) continue;
    let nulls = 0;
    let min: string | null = null;
    let max: string | null = null;
    let nan = false;
    for (const row of rows) {
      const value = row[c.column_name];
      if (value === null || value === undefined) {
        nulls++;
        continue;
      }
      // DuckLake's stats hold the value's DuckDB text (`1.50`, `0.1` for a float32, `true`).
      const text = toText(node, value) ?? "";
      if (text === "nan") {
        nan = true;
        continue;
      }
      if (min === null || compareStat(c.column_type, text, min) < 0) min = text;
      if (max === null || compareStat(c.column_type, text, max) > 0) max = text;
    }
    const float = c.column_type === "float32" || c.column_type === "float64";
    await mergeColumnStats(ctx, tableId, c.column_id, c.column_type, {
      null_count: nulls,
      contains_nan: float ? nan : null,
      min_value: min,
      max_value: max,
      extra_stats: null,
    });
  }
}

/**
 * Safety bounds on inlined rows (docs/decisions/0121-inlined-row-limits.md). DuckLake's
 * `data_inlining_row_limit` option says when a client inlines rows instead of writing Parquet; these caps
 * sit far above any sensible setting of it and keep one commit, one table's flush and every per-table
 * read of inlined rows bounded.
 */
export const MAX_INLINED_ROWS_PER_COMMIT = 10_000;
export const MAX_INLINED_ROWS_PER_TABLE = 100_000;
/** Inlined deletes (row ids and Parquet positions) one commit may stage. */
export const MAX_INLINED_DELETES_PER_COMMIT = 10_000;

/** Inlined rows the table holds now (flushed rows are gone); counted once for tables older than the counter. */
async function inlinedRowCount(
  ctx: VerbContext,
  tableId: number,
): Promise<{ meta: TableMetaRecord | undefined; count: number }> {
  const meta = await ctx.read<TableMetaRecord>(
    keys.current(Kind.tableMeta, tableId),
    ValueKind.tableMeta,
    "table meta",
  );
  if (meta?.x_inlined_rows !== undefined) return { meta, count: meta.x_inlined_rows };
  let count = 0;
  for await (const _ of scanInlineRows(ctx.st, tableId)) count++;
  return { meta, count };
}

/** Moves the table's inlined-row counter by `delta` (the counter lives in its table meta record). */
async function adjustInlinedRows(ctx: VerbContext, tableId: number, delta: number): Promise<number> {
  const { meta, count } = await inlinedRowCount(ctx, tableId);
  const next = count + delta;
  if (meta) {
    ctx.write(keys.current(Kind.tableMeta, tableId), ValueKind.tableMeta, {
      ...meta,
      x_inlined_rows: next,
    } satisfies TableMetaRecord);
  }
  return next;
}

/**
 * One row as the catalog stores it: every value checked and canonicalised by catalog/values (unknown
 * column ⇒ NotFound, NOT NULL column without a value ⇒ Constraint), errors naming `path.column`. The one
 * rule for an inlined row, shared by inline_insert and the row-ingestion log.
 */
export function canonicalRow(
  shape: TableShape,
  row: Record<string, unknown>,
  path: string,
): InlineRowRecord["values"] {
  const t = shape.tableId;
  const values: InlineRowRecord["values"] = {};
  const given = new Map<string, string>();
  for (const [name, value] of Object.entries(row)) {
    const c = shape.byName.get(name.toLowerCase());
    if (c === undefined) throw new NotFound(`column ${quoteName(name)} does not exist in table ${t}`);
    refuseFoldedTwice(given, name, c.col.column_name, path);
    values[c.col.column_name] = parseValue(
      c.node,
      value === undefined ? null : (value as StoredValue),
      `${path}.${c.col.column_name}`,
    );
  }
  for (const { col } of shape.cols) {
    if (!col.nulls_allowed && (values[col.column_name] ?? null) === null)
      throw new Constraint(`${path}.${col.column_name}: column ${col.column_id} of table ${t} is NOT NULL`);
  }
  return values;
}

export async function inlineInsert(ctx: VerbContext, v: VerbOf<"inline_insert">): Promise<Assigned> {
  // The batch's memo: a group of single-row inserts resolves the table once (decision 0180).
  const { table, shape } = await resolveTableShape(ctx, v.table);
  const t = table.table_id;
  const cols = shape.cols;
  ctx.inlinedRows += v.rows.length;
  if (ctx.inlinedRows > MAX_INLINED_ROWS_PER_COMMIT) {
    throw new Constraint(
      `one commit may inline at most ${MAX_INLINED_ROWS_PER_COMMIT} rows (this one has ${ctx.inlinedRows}); split it or write a Parquet file`,
    );
  }
  const held = await adjustInlinedRows(ctx, t, v.rows.length);
  if (held > MAX_INLINED_ROWS_PER_TABLE) {
    throw new Constraint(
      `table ${t} would hold ${held} inlined rows, above the limit of ${MAX_INLINED_ROWS_PER_TABLE}; flush them into a file (flush_inlined) first`,
    );
  }
  const old = await readTableStats(ctx, t);
  const base = old ?? { ...emptyTableStats(t), begin_snapshot: ctx.snapshotId, end_snapshot: null };
  const sv = await inlineSchemaVersion(ctx, table);
  const rowIdStart = base.next_row_id;
  const canonicalRows: InlineRowRecord["values"][] = [];
  const writes: InlineRowWrite[] = v.rows.map((row, i) => {
    const values = canonicalRow(shape, row, `rows[${i}]`);
    canonicalRows.push(values);
    return {
      record: {
        row_id: rowIdStart + i,
        begin_snapshot: ctx.snapshotId,
        end_snapshot: null,
        schema_version: sv,
        values,
      },
    };
  });
  await writeInlinedRows(ctx, t, writes);
  writeTableStats(ctx, old, {
    table_id: t,
    record_count: base.record_count + v.rows.length,
    next_row_id: base.next_row_id + v.rows.length,
    file_size_bytes: base.file_size_bytes,
  });
  await mergeInlinedStats(ctx, t, cols, canonicalRows);
  ctx.change("inlinedInsert", t);
  ctx.inlinedInsertTables.add(t);
  ctx.touch(t);
  return { rowIdStart, rowCount: v.rows.length };
}

/**
 * Inlined rows that keep row ids the table already gave out: DuckLake's UPDATE over its server-side
 * commit, which deletes the old version (an inlined delete of the row, or a file position) and stages the
 * new one under the same row id (docs/decisions/0260-staged-commit.md). Runs after the commit's deletes: a
 * prior inlined version this commit ended moves to its version key, so both versions stay readable as
 * stock keeps them. The row count grows, `next_row_id` does not; column stats merge as for any insert.
 */
export async function inlineInsertPreserving(
  ctx: VerbContext,
  tableId: number,
  rows: { rowId: number; row: Record<string, unknown> }[],
): Promise<void> {
  const table = await ctx.table({ id: tableId });
  const t = table.table_id;
  const shape = tableShape(t, await ctx.columns(t));
  ctx.inlinedRows += rows.length;
  if (ctx.inlinedRows > MAX_INLINED_ROWS_PER_COMMIT) {
    throw new Constraint(
      `one commit may inline at most ${MAX_INLINED_ROWS_PER_COMMIT} rows (this one has ${ctx.inlinedRows}); split it or write a Parquet file`,
    );
  }
  const old = await readTableStats(ctx, t);
  if (!old) throw new NotFound(`table ${t} has no rows whose ids an update could keep`);
  const sv = await inlineSchemaVersion(ctx, table);
  const canonicalRows: InlineRowRecord["values"][] = [];
  for (const [i, { rowId, row }] of rows.entries()) {
    if (rowId >= old.next_row_id) {
      throw new InvalidRequest(
        `row id ${rowId} of table ${t} was never given out (next_row_id is ${old.next_row_id})`,
      );
    }
    const values = canonicalRow(shape, row, `rows[${i}]`);
    canonicalRows.push(values);
    const k = keys.inlineRow(t, rowId);
    const prior = await ctx.read<InlineRowRecord>(k, ValueKind.inlineRow, "inlined row");
    if (prior && prior.end_snapshot !== ctx.snapshotId) {
      throw new InvalidRequest(
        `inlined row ${rowId} of table ${t} keeps its id without this commit deleting it`,
      );
    }
    // The prior version this commit ended moves to its version key; the new one takes the row's key.
    await writeInlinedRows(ctx, t, [
      ...(prior ? [{ record: prior, asVersion: true }] : []),
      {
        record: {
          row_id: rowId,
          begin_snapshot: ctx.snapshotId,
          end_snapshot: null,
          schema_version: sv,
          values,
        },
      },
    ]);
  }
  const held = await adjustInlinedRows(ctx, t, rows.length);
  if (held > MAX_INLINED_ROWS_PER_TABLE) {
    throw new Constraint(
      `table ${t} would hold ${held} inlined rows, above the limit of ${MAX_INLINED_ROWS_PER_TABLE}; flush them into a file (flush_inlined) first`,
    );
  }
  writeTableStats(ctx, old, {
    table_id: t,
    record_count: old.record_count + rows.length,
    next_row_id: old.next_row_id,
    file_size_bytes: old.file_size_bytes,
  });
  await mergeInlinedStats(ctx, t, shape.cols, canonicalRows);
  ctx.change("inlinedInsert", t);
  ctx.inlinedInsertTables.add(t);
  ctx.touch(t);
}

/** DuckLake creates `ducklake_inlined_delete_<table>` at the table's first inlined file delete. */
async function markInlinedDeleteTable(ctx: VerbContext, tableId: number): Promise<void> {
  const k = keys.current(Kind.tableMeta, tableId);
  const meta = await ctx.read<TableMetaRecord>(k, ValueKind.tableMeta, "table meta");
  if (!meta || meta.x_inlined_delete_since !== undefined) return;
  ctx.write(k, ValueKind.tableMeta, {
    ...meta,
    x_inlined_delete_since: ctx.snapshotId,
  } satisfies TableMetaRecord);
}

export async function inlineDelete(ctx: VerbContext, v: VerbOf<"inline_delete">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const rowIds = v.rowIds ?? [];
  const fileDeletes = v.fileDeletes ?? [];
  if (rowIds.length === 0 && fileDeletes.length === 0)
    throw new InvalidRequest("inline_delete needs rowIds or fileDeletes");
  ctx.inlinedDeletes += rowIds.length;
  for (const fd of fileDeletes) ctx.inlinedDeletes += fd.positions.length;
  if (ctx.inlinedDeletes > MAX_INLINED_DELETES_PER_COMMIT) {
    throw new Constraint(
      `one commit may stage at most ${MAX_INLINED_DELETES_PER_COMMIT} inlined deletes (this one has ${ctx.inlinedDeletes}); split it or register a delete file`,
    );
  }
  let removed = 0;
  for (const rowId of rowIds) {
    const k = keys.inlineRow(t, rowId);
    const row = await ctx.read<InlineRowRecord>(k, ValueKind.inlineRow, "inlined row");
    if (!row || row.end_snapshot !== null)
      throw new NotFound(`inlined row ${rowId} of table ${t} does not exist or is already deleted`);
    if (row.begin_snapshot === ctx.snapshotId) {
      ctx.st.delete(k);
      removed++;
    } else await writeInlinedRows(ctx, t, [{ record: { ...row, end_snapshot: ctx.snapshotId } }]);
  }
  if (removed > 0) await adjustInlinedRows(ctx, t, -removed);
  if (fileDeletes.length > 0) await markInlinedDeleteTable(ctx, t);
  for (const fd of fileDeletes) {
    const file = await ctx.read<DataFileRecord>(
      keys.current(Kind.dataFile, t, fd.dataFileId),
      ValueKind.dataFile,
      "data file",
    );
    if (!file) throw new NotFound(`data file ${fd.dataFileId} is not a live file of table ${t}`);
    for (const pos of fd.positions) {
      if (pos >= file.record_count)
        throw new InvalidRequest(`position ${pos} is past the end of data file ${fd.dataFileId}`);
      const k = keys.inlineFileDelete(t, fd.dataFileId, pos);
      if (await ctx.st.get(k))
        throw new NotFound(`position ${pos} of data file ${fd.dataFileId} is already deleted`);
      ctx.write(k, ValueKind.inlineFileDelete, {
        file_id: fd.dataFileId,
        row_id: pos,
        begin_snapshot: ctx.snapshotId,
      } satisfies InlineFileDeleteRecord);
    }
  }
  ctx.change("inlinedDelete", t);
  ctx.deletesUntargeted = true;
  ctx.touch(t);
  return { deleted: rowIds.length + fileDeletes.reduce((n, f) => n + f.positions.length, 0) };
}

/** Flushes inlined rows up to `throughRowId` into `file` (DuckLake's id order: data file first). */
async function flushRows(
  ctx: VerbContext,
  table: TableRecord,
  throughRowId: number,
  spec: DataFileSpec,
  deleteSpec: DeleteFileSpec | undefined,
): Promise<{ dataFileId: number; rowCount: number; deleted: InlineRowRecord[]; dropKeys: Uint8Array[] }> {
  const t = table.table_id;
  // The keys a flush through throughRowId covers, every version of each row, from the floor (decisions
  // 0182, 0183): the same rule the flush plan chose its run by.
  const covered = await flushCoveredRows(ctx.st, t, throughRowId);
  const rows = covered.map((c) => c.record);
  const dropKeys = covered.map((c) => c.key);
  if (rows.length === 0) throw new NotFound(`table ${t} has no inlined rows up to row id ${throughRowId}`);
  if (spec.recordCount !== rows.length) {
    throw new InvalidRequest(
      `the flushed file holds ${spec.recordCount} rows but ${rows.length} inlined rows are up to row id ${throughRowId}`,
    );
  }
  const deleted = rows.filter((r) => r.end_snapshot !== null);
  if (deleted.length > 0 && !deleteSpec) {
    throw new InvalidRequest(
      `${deleted.length} of the flushed rows are deleted; supply the delete file that marks them`,
    );
  }
  if (deleted.length === 0 && deleteSpec)
    throw new InvalidRequest("no flushed row is deleted, so no delete file belongs to this flush");
  if (deleteSpec && deleteSpec.deleteCount !== deleted.length) {
    throw new InvalidRequest(
      `the delete file marks ${deleteSpec.deleteCount} rows but ${deleted.length} flushed rows are deleted`,
    );
  }
  const dataFileId = ctx.fileId();
  const { row } = await dataFileRow(ctx, table, spec, dataFileId, minOf(rows.map((r) => r.row_id)));
  const begins = rows.map((r) => r.begin_snapshot);
  // Backdated to the first row's snapshot; rows above `partial_max`'s snapshot filter are not yet visible.
  const fileRow = newDataFileRecord({
    ...row,
    begin_snapshot: minOf(begins),
    partial_max: maxOf(begins),
  });
  ctx.write(keys.current(Kind.dataFile, t, dataFileId), ValueKind.dataFile, fileRow);
  // The table's bytes grow by the new file; its record count already holds the rows.
  const stats = await readTableStats(ctx, t);
  if (stats) {
    writeTableStats(ctx, stats, {
      table_id: t,
      record_count: stats.record_count,
      next_row_id: stats.next_row_id,
      file_size_bytes: stats.file_size_bytes + spec.fileSizeBytes,
    });
  }
  return { dataFileId, rowCount: rows.length, deleted, dropKeys };
}

/**
 * Merges one Parquet file's inlined deletes with its live delete file (if any) into `spec`, which
 * replaces it: begun at the oldest merged delete, `partial_max` the newest (DuckLake's flush). The merged
 * inlined delete records go; the replaced delete file's version ends here.
 */
async function mergeFileDeletes(
  ctx: VerbContext,
  table: TableRecord,
  dataFileId: number,
  spec: DeleteFileSpec,
): Promise<number> {
  const t = table.table_id;
  const file = await liveDataFile(ctx, table, dataFileId);
  const inlined: { key: Uint8Array; rec: InlineFileDeleteRecord }[] = [];
  for await (const kv of ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t, dataFileId) })) {
    inlined.push({
      key: kv.key,
      rec: decodeValue<InlineFileDeleteRecord>(ValueKind.inlineFileDelete, kv.value, "inlined delete"),
    });
  }
  if (inlined.length === 0) {
    throw new NotFound(`data file ${dataFileId} of table ${t} has no inlined deletes to merge`);
  }
  const live = await liveDeleteFilesOf(ctx, t, dataFileId);
  const expected = inlined.length + live.reduce((n, d) => n + d.delete_count, 0);
  if (spec.deleteCount !== expected) {
    throw new InvalidRequest(
      `the merged delete file of data file ${dataFileId} marks ${spec.deleteCount} rows but its ${inlined.length} inlined deletes and live delete file hold ${expected}`,
    );
  }
  if (expected > file.record_count) {
    throw new InvalidRequest(
      `${expected} deletes exceed data file ${dataFileId}'s ${file.record_count} rows`,
    );
  }
  const begins = [...inlined.map((d) => d.rec.begin_snapshot), ...live.map((d) => d.begin_snapshot)];
  for (const d of live) ctx.endVersion(Kind.deleteFile, [t, d.delete_file_id], ValueKind.deleteFile, d);
  for (const d of inlined) ctx.st.delete(d.key);
  const deleteFileId = ctx.fileId();
  ctx.write(
    keys.current(Kind.deleteFile, t, deleteFileId),
    ValueKind.deleteFile,
    newDeleteFileRecord({
      ...(await deleteFileRow(ctx, table, dataFileId, deleteFileId, spec)),
      begin_snapshot: minOf(begins),
      partial_max: maxOf(begins),
    }),
  );
  ctx.change("deletedFromTable", t);
  ctx.deletedDataFileIds.add(dataFileId);
  return deleteFileId;
}

/**
 * flush_inlined: DuckLake's ducklake_flush_inlined_data for one table. Inlined rows move into a data
 * file (`inline_flush`), each named Parquet file's inlined deletes are merged into a delete file
 * (`deleted_from_table`), and the flushed rows deleted while inlined get a delete file of their own — in
 * that id order, as DuckLake allocates them.
 */
export async function flushInlined(ctx: VerbContext, v: VerbOf<"flush_inlined">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const merges = v.fileDeletes ?? [];
  if ((v.throughRowId === undefined) !== (v.file === undefined)) {
    throw new InvalidRequest(
      "flush_inlined flushes rows with both throughRowId and file; give both or neither",
    );
  }
  if (v.throughRowId === undefined && v.deleteFile) {
    throw new InvalidRequest("deleteFile marks flushed rows; give throughRowId and file as well");
  }
  if (v.throughRowId === undefined && merges.length === 0) {
    throw new InvalidRequest(
      "flush_inlined needs rows to flush (throughRowId and file) or fileDeletes to merge",
    );
  }
  const seen = new Set<number>();
  for (const m of merges) {
    if (seen.has(m.dataFileId))
      throw new InvalidRequest(`data file ${m.dataFileId} is named twice in fileDeletes`);
    seen.add(m.dataFileId);
  }
  const out: Assigned = {};
  const flushed =
    v.throughRowId !== undefined && v.file
      ? await flushRows(ctx, table, v.throughRowId, v.file, v.deleteFile)
      : undefined;
  const merged: number[] = [];
  for (const m of merges) merged.push(await mergeFileDeletes(ctx, table, m.dataFileId, m.file));
  if (flushed) {
    out.dataFileId = flushed.dataFileId;
    out.rowCount = flushed.rowCount;
    if (v.deleteFile && flushed.deleted.length > 0) {
      const deleteFileId = ctx.fileId();
      const ends = flushed.deleted.map((r) => r.end_snapshot as number);
      // DuckLake begins it at the first delete and leaves partial_max NULL (the file's rows carry their
      // snapshot ids); our reader still needs the newest one to filter older snapshots.
      ctx.write(
        keys.current(Kind.deleteFile, t, deleteFileId),
        ValueKind.deleteFile,
        newDeleteFileRecord({
          ...(await deleteFileRow(ctx, table, flushed.dataFileId, deleteFileId, v.deleteFile)),
          begin_snapshot: minOf(ends),
          x_max_snapshot: maxOf(ends),
        }),
      );
      out.deleteFileId = deleteFileId;
    }
    for (const k of flushed.dropKeys) ctx.st.delete(k);
    // Every key from the floor through throughRowId is gone: later scans start past them (decision 0182).
    const past = (v.throughRowId as number) + 1;
    await settleInlineFloor(ctx, t, { past, clearedBelow: past });
    await adjustInlinedRows(ctx, t, -flushed.dropKeys.length);
    ctx.change("inlineFlush", t);
  }
  if (merged.length > 0) out.mergedDeleteFileIds = merged;
  ctx.touch(t);
  return out;
}
