/**
 * A table's scan plan at snapshot S, by DuckLake's reader rules (GetFilesForTable and friends): data files
 * visible at S with their delete file visible at S, snapshot filters for partial files, inlined file
 * deletes with begin <= S, and inlined rows visible at S. Paths are resolved data_path → schema → table.
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { NotFound, quoteName } from "../errors.ts";
import { joinPath, tableDirOf } from "../file-paths.ts";
import { resolveSnapshot } from "../head.ts";
import { inlineRowRecords } from "../inline-floor.ts";
import { foldName, Kind, keys, NameSpace, OptionScope } from "../keys.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  DeleteFileRecord,
  InlineFileDeleteRecord,
  InlineRowRecord,
  OptionRecord,
  SchemaRecord,
  TableRecord,
} from "../records.ts";
import type { RelationRef } from "../verbs/schema.ts";
import { nameEntry } from "./names.ts";
import { lookupRanges, tableRanges } from "./plan-prefetch.ts";
import { scanAll, versionsAt, visibleAt } from "./versions.ts";

export interface PlannedDeleteFile extends DeleteFileRecord {
  resolved_path: string;
  /** Only positions whose snapshot is <= this apply (a partial delete file read at an older snapshot). */
  snapshot_filter: number | null;
}

export interface PlannedFile extends DataFileRecord {
  resolved_path: string;
  /** Rows whose `_ducklake_internal_snapshot_id` is above this are not visible (partial file). */
  snapshot_filter: number | null;
  delete_file: PlannedDeleteFile | null;
  /** Positions deleted through ducklake_inlined_delete_<table>. */
  inlined_deleted_positions: number[];
}

export interface ScanPlan {
  snapshot_id: number;
  schema_version: number;
  table: TableRecord;
  schema: SchemaRecord;
  /** The table's columns visible at the snapshot (nested fields carry parent_column), by column_order. */
  columns: ColumnRecord[];
  files: PlannedFile[];
  /** With a page: the `afterFileId` of the next page, or null when this was the last. */
  next_after_file_id: number | null;
  inlined_rows: {
    row_id: number;
    begin_snapshot: number;
    schema_version: number;
    values: InlineRowRecord["values"];
  }[];
}

/** A planned file's row ids, as DuckLake's metadata gives them to a reader. */
export interface PlannedRowIds {
  /** The first id of a file numbered from it; null when the file carries its own ids (DuckLake's NULL). */
  row_id_start: number | null;
  /** Exclusive end of that contiguous range (`row_id_start + record_count`); null with it. */
  row_id_end: number | null;
  /** Each row's id is its `_ducklake_internal_row_id` column: not contiguous, so no range is claimed. */
  row_ids_in_file: boolean;
}

/**
 * Where a reader finds a file's row ids. A file DuckLake registers with `row_id_start` NULL (a rewrite, or
 * a merge of non-adjacent files) carries them and they may have gaps, so `start + count` would name ids it
 * does not hold; the record's `row_id_start` there is only the lowest id, kept for this catalog's own
 * readers (decision 0322).
 */
export function plannedRowIds(
  f: Pick<DataFileRecord, "row_id_start" | "record_count" | "x_row_ids_in_file">,
): PlannedRowIds {
  // A flushed file registered from its lowest id carries its ids too: no range is claimed for it (0617).
  return f.x_row_ids_in_file
    ? { row_id_start: null, row_id_end: null, row_ids_in_file: true }
    : { row_id_start: f.row_id_start, row_id_end: f.row_id_start + f.record_count, row_ids_in_file: false };
}

/**
 * The table a reference names at snapshot s. Names go through the name index (live names, one key each)
 * and are verified against the versions visible at s; only a name that no longer resolves to the same
 * table (dropped, renamed, recreated since s) falls back to scanning every table's versions.
 */
async function tableAt(
  view: ReadView,
  s: number,
  ref: number | RelationRef,
): Promise<{ table: TableRecord; schema: SchemaRecord }> {
  const schemaAt = async (id: number): Promise<SchemaRecord | undefined> =>
    (await versionsAt<SchemaRecord>(view, s, Kind.schema, ValueKind.schema, id)).find(
      (x) => x.schema_id === id,
    );
  const tableAtId = async (id: number): Promise<TableRecord | undefined> =>
    (await versionsAt<TableRecord>(view, s, Kind.table, ValueKind.table, id)).find((t) => t.table_id === id);
  let table: TableRecord | undefined;
  if (typeof ref === "number" || "id" in ref) {
    const id = typeof ref === "number" ? ref : ref.id;
    table = await tableAtId(id);
    if (!table) throw new NotFound(`table id ${id} does not exist at snapshot ${s}`);
  } else {
    const schemaName = foldName(ref.schema ?? "main");
    const tableName = foldName(ref.name);
    const sEntry = await nameEntry(view, NameSpace.schema, 0, schemaName);
    const indexedSchema = sEntry ? await schemaAt(sEntry.id) : undefined;
    const schema =
      indexedSchema && foldName(indexedSchema.schema_name) === schemaName
        ? indexedSchema
        : (await versionsAt<SchemaRecord>(view, s, Kind.schema, ValueKind.schema)).find(
            (x) => foldName(x.schema_name) === schemaName,
          );
    if (!schema)
      throw new NotFound(`schema ${quoteName(ref.schema ?? "main")} does not exist at snapshot ${s}`);
    const tEntry = await nameEntry(view, NameSpace.relation, schema.schema_id, ref.name);
    const indexed = tEntry?.kind === "table" ? await tableAtId(tEntry.id) : undefined;
    table =
      indexed && indexed.schema_id === schema.schema_id && foldName(indexed.table_name) === tableName
        ? indexed
        : (await versionsAt<TableRecord>(view, s, Kind.table, ValueKind.table)).find(
            (t) => t.schema_id === schema.schema_id && foldName(t.table_name) === tableName,
          );
    if (!table) throw new NotFound(`table ${quoteName(ref.name)} does not exist at snapshot ${s}`);
  }
  const found = table;
  const schema = await schemaAt(found.schema_id);
  if (!schema) throw new NotFound(`schema id ${found.schema_id} does not exist at snapshot ${s}`);
  return { table: found, schema };
}

/** One page of a table's data files: ids after `afterFileId`, at most `limit` of them. */
export interface FilePage {
  afterFileId?: number;
  limit: number;
}

type Versions = AsyncIterator<{ key: Uint8Array; value: Uint8Array }>;

/**
 * Data files visible at s with ids after `after`, in id order, reading only as far as the page needs:
 * current and history records are both keyed table id → file id, so two ordered range scans merged by
 * id stop as soon as `limit` visible files are found.
 */
async function dataFilesPage(
  view: ReadView,
  s: number,
  t: number,
  after: number,
  limit: number,
): Promise<{ files: DataFileRecord[]; more: boolean }> {
  const from = after + 1;
  const open = (prefix: Uint8Array, start: Uint8Array): Versions =>
    view.scan({ prefix, start })[Symbol.asyncIterator]();
  const streams = [
    open(keys.current(Kind.dataFile, t), keys.current(Kind.dataFile, t, from)),
    open(keys.historyPrefix(Kind.dataFile, t), keys.historyPrefix(Kind.dataFile, t, from)),
  ];
  const heads: (DataFileRecord | undefined)[] = [];
  const advance = async (i: number): Promise<void> => {
    const r = await (streams[i] as Versions).next();
    heads[i] = r.done
      ? undefined
      : decodeValue<DataFileRecord>(ValueKind.dataFile, r.value.value, "data file");
  };
  await Promise.all([advance(0), advance(1)]);
  const files: DataFileRecord[] = [];
  try {
    for (;;) {
      const [a, b] = heads;
      if (a === undefined && b === undefined) return { files, more: false };
      if (files.length === limit) return { files, more: true };
      const i = b === undefined || (a !== undefined && a.data_file_id <= b.data_file_id) ? 0 : 1;
      const rec = heads[i] as DataFileRecord;
      if (visibleAt(rec, s)) files.push(rec);
      await advance(i);
    }
  } finally {
    await Promise.all(streams.map((st) => st.return?.()));
  }
}

/**
 * A table's scan plan at snapshot s. With `page`, only that page of data files is read (and inlined rows
 * come with the first page only); `next_after_file_id` says where the next page starts.
 */
export async function tableFilesAt(
  view: ReadView,
  ref: number | RelationRef,
  snapshotId?: number,
  page?: FilePage,
): Promise<ScanPlan> {
  // Cold, every lookup below is a round trip and most depend on the one before (head → snapshot → names
  // → table → files): name their ranges first so a reader fetches the blocks together, once for the
  // lookups and once for the table's own ranges (plan-prefetch.ts).
  const firstPage = page?.afterFileId === undefined;
  const knownId = typeof ref === "number" ? ref : "id" in ref ? ref.id : undefined;
  await view.prefetch?.([
    ...lookupRanges(ref, snapshotId),
    // A reference by id names the table's own ranges now: the whole plan in one round of blocks.
    ...(knownId === undefined ? [] : tableRanges(knownId, page?.afterFileId, firstPage)),
  ]);
  const snap = await resolveSnapshot(view, snapshotId);
  const s = snap.snapshot_id;
  // The reads below depend only on the snapshot and the table, so they are issued together: cold, each
  // costs R2 round trips, and one after another they would add up.
  const [{ table, schema }, rawGlobal] = await Promise.all([
    tableAt(view, s, ref),
    view.get(keys.current(Kind.option, OptionScope.global, 0)),
  ]);
  const t = table.table_id;
  if (knownId === undefined) await view.prefetch?.(tableRanges(t, page?.afterFileId, firstPage));
  const global =
    rawGlobal === undefined ? undefined : decodeValue<OptionRecord>(ValueKind.option, rawGlobal, "option");
  const dataPath = global?.values.data_path ?? "";
  const tablePath = tableDirOf(dataPath, schema, table);
  const resolve = (path: string, relative: boolean) => (relative ? joinPath(tablePath, path) : path);
  const [deletes, inlinedDeleteRecords, paged, inlineRows, columnRecords] = await Promise.all([
    versionsAt<DeleteFileRecord>(view, s, Kind.deleteFile, ValueKind.deleteFile, t),
    scanAll<InlineFileDeleteRecord>(
      view,
      keys.inlineFileDeletePrefix(t),
      ValueKind.inlineFileDelete,
      "inlined delete",
    ),
    page
      ? dataFilesPage(view, s, t, page.afterFileId ?? -1, page.limit)
      : versionsAt<DataFileRecord>(view, s, Kind.dataFile, ValueKind.dataFile, t).then((files) => ({
          files,
          more: false,
        })),
    firstPage ? inlineRowRecords(view, t) : Promise.resolve([] as InlineRowRecord[]),
    // Columns are keyed table id first, so this is one short range, however many other tables exist.
    versionsAt<ColumnRecord>(view, s, Kind.column, ValueKind.column, t),
  ]);
  const inlinedDeletes = inlinedDeleteRecords.filter((d) => d.begin_snapshot <= s);
  const lastId = paged.files.at(-1)?.data_file_id;
  const files = paged.files
    .sort((a, b) => a.data_file_id - b.data_file_id)
    .map((f): PlannedFile => {
      // A merged delete file is backdated to its oldest delete while the file it replaced is still visible
      // at older snapshots: the newest one holds every delete (with per-row snapshots), so it wins.
      const del = deletes
        .filter((d) => d.data_file_id === f.data_file_id)
        .sort((a, b) => b.delete_file_id - a.delete_file_id)[0];
      const delMax = del ? (del.partial_max ?? del.x_max_snapshot ?? null) : null;
      return {
        ...f,
        resolved_path: resolve(f.path, f.path_is_relative),
        snapshot_filter: f.partial_max !== null && f.partial_max > s ? s : null,
        delete_file: del
          ? {
              ...del,
              resolved_path: resolve(del.path, del.path_is_relative),
              snapshot_filter: delMax !== null && delMax > s ? s : null,
            }
          : null,
        inlined_deleted_positions: inlinedDeletes
          .filter((d) => d.file_id === f.data_file_id)
          .map((d) => d.row_id)
          .sort((a, b) => a - b),
      };
    });
  const rows = inlineRows
    .filter((r) => visibleAt(r, s))
    .map((r) => ({
      row_id: r.row_id,
      begin_snapshot: r.begin_snapshot,
      schema_version: r.schema_version,
      values: r.values,
    }));
  const columns = columnRecords.sort((a, b) => a.column_order - b.column_order);
  return {
    snapshot_id: s,
    schema_version: snap.schema_version,
    table,
    schema,
    columns,
    files,
    inlined_rows: rows,
    next_after_file_id: paged.more && lastId !== undefined ? lastId : null,
  };
}
