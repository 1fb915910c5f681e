/**
 * DuckLake's per-table inlined tables as rows, the way a stock catalog holds them when snapshot S is the
 * head: `ducklake_inlined_data_<table>_<schema_version>` (row_id, begin_snapshot, end_snapshot, then the
 * table's top-level columns as of the schema version that created it, typed as DuckDB spells them) and
 * `ducklake_inlined_delete_<table>` (file_id, row_id, begin_snapshot) once an inlined file delete made it.
 * Flushed rows and merged deletes are gone here as they are in DuckLake (they now live in files).
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { InvalidRequest, NotFound, quoteName } from "../errors.ts";
import { resolveSnapshot } from "../head.ts";
import { inlineRowRecords, scanInlineRows } from "../inline-floor.ts";
import { Kind, keys } from "../keys.ts";
import type {
  ColumnRecord,
  InlinedTableRecord,
  InlineFileDeleteRecord,
  InlineRowRecord,
  TableMetaRecord,
} from "../records.ts";
import { duckdbTypeName, type TypeNode } from "../types.ts";
import { columnTree, type StoredValue } from "../values/index.ts";
import { scanAll, versionsAt } from "./versions.ts";

/** One row of an inlined table: values in their stored (JSON) form, catalog/values/ renders them. */
export type InlinedRow = Record<string, StoredValue>;

export interface InlinedTable {
  /** `[name, DuckDB type]` in declaration order. */
  columns: [string, string][];
  /** The DuckLake type of each column, in the same order (for catalog/values/ `toText`). */
  types: TypeNode[];
  rows: InlinedRow[];
}

/** The top-level columns as type trees, in declaration order. */
export function topLevel(cols: ColumnRecord[]): TypeNode[] {
  return cols
    .filter((c) => c.parent_column === null)
    .sort((a, b) => a.column_order - b.column_order)
    .map((c) => columnTree(cols, c));
}

const BIGINT = "BIGINT";
const INT64: TypeNode = { name: "", type: "int64", children: [] };
const int64s = (names: string[]): TypeNode[] => names.map((name) => ({ ...INT64, name }));

/** Every inlined-data and inlined-delete table that existed at S (default: head), keyed by table name. */
export async function inlinedTablesAt(
  view: ReadView,
  snapshotId?: number,
): Promise<Record<string, InlinedTable>> {
  const snap = await resolveSnapshot(view, snapshotId);
  const s = snap.snapshot_id;
  const out: Record<string, InlinedTable> = {};
  const registered = (
    await scanAll<InlinedTableRecord>(
      view,
      keys.current(Kind.inlinedTable),
      ValueKind.inlinedTable,
      "inlined table",
    )
  ).filter((r) => r.schema_version <= snap.schema_version);
  const rowsByTable = new Map<number, InlineRowRecord[]>();
  for (const rec of registered) {
    let rows = rowsByTable.get(rec.table_id);
    if (!rows) {
      rows = await inlineRowsOf(view, rec.table_id);
      rowsByTable.set(rec.table_id, rows);
    }
    out[rec.table_name] = await inlinedDataTableOf(view, rec, s, rows);
  }
  const metas = await scanAll<TableMetaRecord>(
    view,
    keys.current(Kind.tableMeta),
    ValueKind.tableMeta,
    "table meta",
  );
  for (const meta of metas) {
    const table = await inlinedDeleteTableOf(view, meta, s);
    if (table) out[`ducklake_inlined_delete_${meta.table_id}`] = table;
  }
  return out;
}

/** A table's inlined rows (every version), from its row-id floor (decision 0182). */
function inlineRowsOf(view: ReadView, tableId: number): Promise<InlineRowRecord[]> {
  return inlineRowRecords(view, tableId);
}

/** One registered inlined-data table at S, from its table's inlined rows (every schema version). */
async function inlinedDataTableOf(
  view: ReadView,
  rec: InlinedTableRecord,
  s: number,
  rows: InlineRowRecord[],
): Promise<InlinedTable> {
  const since = rec.x_begin_snapshot ?? s;
  const cols = await versionsAt<ColumnRecord>(view, since, Kind.column, ValueKind.column, rec.table_id);
  const top = topLevel(cols);
  return {
    columns: [
      ["row_id", BIGINT],
      ["begin_snapshot", BIGINT],
      ["end_snapshot", BIGINT],
      ...top.map((c): [string, string] => [c.name, duckdbTypeName(c)]),
    ],
    types: [...int64s(["row_id", "begin_snapshot", "end_snapshot"]), ...top],
    rows: rows
      .filter((r) => r.schema_version === rec.schema_version && r.begin_snapshot <= s)
      .map((r) => {
        const row: InlinedRow = {
          row_id: r.row_id,
          begin_snapshot: r.begin_snapshot,
          end_snapshot: r.end_snapshot !== null && r.end_snapshot <= s ? r.end_snapshot : null,
        };
        for (const c of top) row[c.name] = r.values[c.name] ?? null;
        return row;
      }),
  };
}

/** `ducklake_inlined_delete_<table>` at S, or null when it did not exist then. */
async function inlinedDeleteTableOf(
  view: ReadView,
  meta: TableMetaRecord,
  s: number,
): Promise<InlinedTable | null> {
  if (meta.x_inlined_delete_since === undefined || meta.x_inlined_delete_since > s) return null;
  const deletes = await scanAll<InlineFileDeleteRecord>(
    view,
    keys.inlineFileDeletePrefix(meta.table_id),
    ValueKind.inlineFileDelete,
    "inlined delete",
  );
  return {
    columns: [
      ["file_id", BIGINT],
      ["row_id", BIGINT],
      ["begin_snapshot", BIGINT],
    ],
    types: int64s(["file_id", "row_id", "begin_snapshot"]),
    rows: deletes
      .filter((d) => d.begin_snapshot <= s)
      .map((d) => ({ file_id: d.file_id, row_id: d.row_id, begin_snapshot: d.begin_snapshot })),
  };
}

/** One page of an inlined table, read by key range from a cursor (never the whole table). */
export interface InlinedPage extends InlinedTable {
  /** Cursor for the next page (the last row's key ids), or null at the end. */
  next: number[] | null;
}

const DATA_NAME = /^ducklake_inlined_data_(\d{1,15})_(\d{1,15})$/;
const DELETE_NAME = /^ducklake_inlined_delete_(\d{1,15})$/;

export function isInlinedTableName(name: string): boolean {
  return DATA_NAME.test(name) || DELETE_NAME.test(name);
}

/**
 * Up to `limit` rows of one inlined table at S after `after` (the previous page's `next`): data tables
 * page by row id, delete tables by (file id, position), both in key order. NotFound when the table did
 * not exist at S.
 */
export async function inlinedTablePage(
  view: ReadView,
  name: string,
  snapshotId: number | undefined,
  after: number[] | undefined,
  limit: number,
): Promise<InlinedPage> {
  const snap = await resolveSnapshot(view, snapshotId);
  const s = snap.snapshot_id;
  const data = DATA_NAME.exec(name);
  if (data) {
    const tableId = Number(data[1]);
    const sv = Number(data[2]);
    const rec = (
      await scanAll<InlinedTableRecord>(
        view,
        keys.current(Kind.inlinedTable, tableId),
        ValueKind.inlinedTable,
        "inlined table",
      )
    ).find((r) => r.schema_version === sv && r.schema_version <= snap.schema_version);
    if (!rec) throw new NotFound(`${quoteName(name)} did not exist at snapshot ${s}`);
    const cols = await versionsAt<ColumnRecord>(
      view,
      rec.x_begin_snapshot ?? s,
      Kind.column,
      ValueKind.column,
      tableId,
    );
    const top = topLevel(cols);
    const rows: InlinedRow[] = [];
    let next: number[] | null = null;
    // From the page's cursor or the table's row-id floor, whichever is higher (decision 0182).
    const from = after?.[0] !== undefined ? { from: after[0] + 1 } : {};
    for await (const kv of scanInlineRows(view, tableId, from)) {
      const r = decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row");
      if (r.schema_version !== sv || r.begin_snapshot > s) continue;
      if (rows.length === limit) {
        next = [rows.length > 0 ? Number(rows[rows.length - 1]?.row_id) : r.row_id - 1];
        break;
      }
      const row: InlinedRow = {
        row_id: r.row_id,
        begin_snapshot: r.begin_snapshot,
        end_snapshot: r.end_snapshot !== null && r.end_snapshot <= s ? r.end_snapshot : null,
      };
      for (const c of top) row[c.name] = r.values[c.name] ?? null;
      rows.push(row);
    }
    return {
      columns: [
        ["row_id", BIGINT],
        ["begin_snapshot", BIGINT],
        ["end_snapshot", BIGINT],
        ...top.map((c): [string, string] => [c.name, duckdbTypeName(c)]),
      ],
      types: [...int64s(["row_id", "begin_snapshot", "end_snapshot"]), ...top],
      rows,
      next,
    };
  }
  const del = DELETE_NAME.exec(name);
  if (!del) throw new InvalidRequest(`${quoteName(name)} is not an inlined table name`);
  const tableId = Number(del[1]);
  const meta = await view.get(keys.current(Kind.tableMeta, tableId));
  const m = meta ? decodeValue<TableMetaRecord>(ValueKind.tableMeta, meta, "table meta") : undefined;
  if (m?.x_inlined_delete_since === undefined || m.x_inlined_delete_since > s)
    throw new NotFound(`${quoteName(name)} did not exist at snapshot ${s}`);
  const rows: InlinedRow[] = [];
  let next: number[] | null = null;
  const [afterFile, afterPos] = after ?? [];
  const start =
    afterFile !== undefined && afterPos !== undefined
      ? keys.inlineFileDelete(tableId, afterFile, afterPos + 1)
      : undefined;
  for await (const kv of view.scan({
    prefix: keys.inlineFileDeletePrefix(tableId),
    ...(start ? { start } : {}),
  })) {
    const d = decodeValue<InlineFileDeleteRecord>(ValueKind.inlineFileDelete, kv.value, "inlined delete");
    if (d.begin_snapshot > s) continue;
    if (rows.length === limit) {
      const last = rows[rows.length - 1];
      next = [Number(last?.file_id), Number(last?.row_id)];
      break;
    }
    rows.push({ file_id: d.file_id, row_id: d.row_id, begin_snapshot: d.begin_snapshot });
  }
  return {
    columns: [
      ["file_id", BIGINT],
      ["row_id", BIGINT],
      ["begin_snapshot", BIGINT],
    ],
    types: int64s(["file_id", "row_id", "begin_snapshot"]),
    rows,
    next,
  };
}

/**
 * One inlined-data or inlined-delete table by name at S (default: head), or null when no such table
 * existed then: what `inlinedTablesAt` holds under that name, reading only that table's records.
 */
export async function inlinedTableNamed(
  view: ReadView,
  name: string,
  snapshotId?: number,
): Promise<InlinedTable | null> {
  const snap = await resolveSnapshot(view, snapshotId);
  const s = snap.snapshot_id;
  const data = DATA_NAME.exec(name);
  if (data) {
    const tableId = Number(data[1]);
    const schemaVersion = Number(data[2]);
    if (schemaVersion > snap.schema_version) return null;
    const raw = await view.get(keys.current(Kind.inlinedTable, tableId, schemaVersion));
    if (raw === undefined) return null;
    const rec = decodeValue<InlinedTableRecord>(ValueKind.inlinedTable, raw, "inlined table");
    if (rec.table_name !== name) return null;
    return inlinedDataTableOf(view, rec, s, await inlineRowsOf(view, tableId));
  }
  const del = DELETE_NAME.exec(name);
  if (!del) return null;
  const raw = await view.get(keys.current(Kind.tableMeta, Number(del[1])));
  if (raw === undefined) return null;
  return inlinedDeleteTableOf(view, decodeValue<TableMetaRecord>(ValueKind.tableMeta, raw, "table meta"), s);
}
