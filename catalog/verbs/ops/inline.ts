/**
 * Inlined data: inline_insert (rows take dense row ids from the table's next_row_id), inline_delete (an
 * inlined row gets an end snapshot; a Parquet position becomes a ducklake_inlined_delete row) and
 * flush_inlined (rows up to a row id move into a registered file, backdated to the first row's snapshot,
 * with `partial_max`; their inline records are deleted outright). All data-only: schema_version carried.
 */
import { ValueKind } from "../../codec.ts";
import { InvalidRequest, NotFound, quoteName } from "../../errors.ts";
import { Kind, keys } from "../../keys.ts";
import type {
  DataFileRecord,
  InlinedTableRecord,
  InlineFileDeleteRecord,
  InlineRowRecord,
  TableRecord,
} from "../../records.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";
import { dataFileRow, deleteFileRow } from "./files.ts";
import { emptyTableStats, readTableStats, writeTableStats } from "./stats-support.ts";

/** The schema version of the table's newest inlined-data table (the one new rows go into). */
async function inlineSchemaVersion(ctx: VerbContext, table: TableRecord): Promise<number> {
  if (ctx.inlineRotationTables.has(table.table_id)) return ctx.schemaVersion;
  let newest: InlinedTableRecord | undefined;
  for await (const kv of ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, table.table_id) })) {
    newest = (await ctx.read<InlinedTableRecord>(kv.key, ValueKind.inlinedTable, "inlined table")) ?? newest;
  }
  return newest?.schema_version ?? ctx.schemaVersion;
}

export async function inlineInsert(ctx: VerbContext, v: VerbOf<"inline_insert">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const cols = (await ctx.columns(t)).filter((c) => c.parent_column === null);
  const names = new Map(cols.map((c) => [c.column_name.toLowerCase(), c.column_name]));
  const old = await readTableStats(ctx, t);
  const base = old ?? { ...emptyTableStats(t), begin_snapshot: ctx.snapshotId, end_snapshot: null };
  const sv = await inlineSchemaVersion(ctx, table);
  const rowIdStart = base.next_row_id;
  v.rows.forEach((row, i) => {
    const values: InlineRowRecord["values"] = {};
    for (const [name, value] of Object.entries(row)) {
      const canonical = names.get(name.toLowerCase());
      if (canonical === undefined)
        throw new NotFound(`column ${quoteName(name)} does not exist in table ${t}`);
      values[canonical] = value;
    }
    const rowId = rowIdStart + i;
    ctx.write(keys.inlineRow(t, rowId), ValueKind.inlineRow, {
      row_id: rowId,
      begin_snapshot: ctx.snapshotId,
      end_snapshot: null,
      schema_version: sv,
      values,
    } satisfies InlineRowRecord);
  });
  writeTableStats(ctx, old, {
    table_id: t,
    record_count: base.record_count + v.rows.length,
    next_row_id: base.next_row_id + v.rows.length,
    file_size_bytes: base.file_size_bytes,
  });
  ctx.change("inlinedInsert", t);
  ctx.inlinedInsertTables.add(t);
  ctx.touch(t);
  return { rowIdStart, rowCount: v.rows.length };
}

export async function inlineDelete(ctx: VerbContext, v: VerbOf<"inline_delete">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const rowIds = v.rowIds ?? [];
  const fileDeletes = v.fileDeletes ?? [];
  if (rowIds.length === 0 && fileDeletes.length === 0)
    throw new InvalidRequest("inline_delete needs rowIds or fileDeletes");
  for (const rowId of rowIds) {
    const k = keys.inlineRow(t, rowId);
    const row = await ctx.read<InlineRowRecord>(k, ValueKind.inlineRow, "inlined row");
    if (!row || row.end_snapshot !== null)
      throw new NotFound(`inlined row ${rowId} of table ${t} does not exist or is already deleted`);
    if (row.begin_snapshot === ctx.snapshotId) ctx.st.delete(k);
    else
      ctx.write(k, ValueKind.inlineRow, { ...row, end_snapshot: ctx.snapshotId } satisfies InlineRowRecord);
  }
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

export async function flushInlined(ctx: VerbContext, v: VerbOf<"flush_inlined">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const rows: InlineRowRecord[] = [];
  const keysToDrop: Uint8Array[] = [];
  for await (const kv of ctx.st.scan({
    prefix: keys.inlineRowPrefix(t),
    end: keys.inlineRow(t, v.throughRowId + 1),
  })) {
    rows.push(
      (await ctx.read<InlineRowRecord>(kv.key, ValueKind.inlineRow, "inlined row")) as InlineRowRecord,
    );
    keysToDrop.push(kv.key);
  }
  if (rows.length === 0) throw new NotFound(`table ${t} has no inlined rows up to row id ${v.throughRowId}`);
  if (v.file.recordCount !== rows.length) {
    throw new InvalidRequest(
      `the flushed file holds ${v.file.recordCount} rows but ${rows.length} inlined rows are up to row id ${v.throughRowId}`,
    );
  }
  const deleted = rows.filter((r) => r.end_snapshot !== null);
  if (deleted.length > 0 && !v.deleteFile) {
    throw new InvalidRequest(
      `${deleted.length} of the flushed rows are deleted; supply the delete file that marks them`,
    );
  }
  if (deleted.length === 0 && v.deleteFile)
    throw new InvalidRequest("no flushed row is deleted, so no delete file belongs to this flush");
  const dataFileId = ctx.fileId();
  const { row } = await dataFileRow(ctx, table, v.file, dataFileId, Math.min(...rows.map((r) => r.row_id)));
  const begins = rows.map((r) => r.begin_snapshot);
  const fileRow: DataFileRecord = {
    ...row,
    begin_snapshot: Math.min(...begins),
    partial_max: Math.max(...begins),
  };
  ctx.write(keys.current(Kind.dataFile, t, dataFileId), ValueKind.dataFile, fileRow);
  let deleteFileId: number | undefined;
  if (v.deleteFile && deleted.length > 0) {
    if (v.deleteFile.deleteCount !== deleted.length) {
      throw new InvalidRequest(
        `the delete file marks ${v.deleteFile.deleteCount} rows but ${deleted.length} flushed rows are deleted`,
      );
    }
    deleteFileId = ctx.fileId();
    const ends = deleted.map((r) => r.end_snapshot as number);
    const del = deleteFileRow(ctx, t, dataFileId, deleteFileId, v.deleteFile);
    ctx.write(keys.current(Kind.deleteFile, t, deleteFileId), ValueKind.deleteFile, {
      ...del,
      begin_snapshot: Math.min(...ends),
      partial_max: Math.max(...ends),
    });
    ctx.change("deletedFromTable", t);
    ctx.deletedDataFileIds.add(dataFileId);
  }
  for (const k of keysToDrop) ctx.st.delete(k);
  ctx.change("inlineFlush", t);
  ctx.touch(t);
  const out: Assigned = { dataFileId, rowCount: rows.length };
  if (deleteFileId !== undefined) out.deleteFileId = deleteFileId;
  return out;
}
