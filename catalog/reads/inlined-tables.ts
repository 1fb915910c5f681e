/**
 * DuckLake's per-table inlined tables as rows, the way a stock catalog holds them when snapshot S is the
 * head: `ducklake_inlined_data_<table>_<schema_version>` (row_id, begin_snapshot, end_snapshot, then the
 * table's top-level columns as of the schema version that created it, typed as DuckDB spells them) and
 * `ducklake_inlined_delete_<table>` (file_id, row_id, begin_snapshot) once an inlined file delete made it.
 * Flushed rows and merged deletes are gone here as they are in DuckLake (they now live in files).
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { resolveSnapshot } from "../head.ts";
import { Kind, keys } from "../keys.ts";
import type {
  ColumnRecord,
  InlinedTableRecord,
  InlineFileDeleteRecord,
  InlineRowRecord,
  TableMetaRecord,
} from "../records.ts";
import { duckdbTypeName, type TypeNode } from "../types.ts";
import type { Row } from "./ducklake-tables.ts";
import { scanAll, versionsAt } from "./versions.ts";

export interface InlinedTable {
  /** `[name, DuckDB type]` in declaration order. */
  columns: [string, string][];
  rows: Row[];
}

export function typeTree(cols: ColumnRecord[], parent: number | null): TypeNode[] {
  return cols
    .filter((c) => c.parent_column === parent)
    .sort((a, b) => a.column_order - b.column_order)
    .map((c) => ({ name: c.column_name, type: c.column_type, children: typeTree(cols, c.column_id) }));
}

const BIGINT = "BIGINT";

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

function inlineRowsOf(view: ReadView, tableId: number): Promise<InlineRowRecord[]> {
  return scanAll<InlineRowRecord>(view, keys.inlineRowPrefix(tableId), ValueKind.inlineRow, "inlined row");
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
  const top = typeTree(cols, null);
  return {
    columns: [
      ["row_id", BIGINT],
      ["begin_snapshot", BIGINT],
      ["end_snapshot", BIGINT],
      ...top.map((c): [string, string] => [c.name, duckdbTypeName(c)]),
    ],
    rows: rows
      .filter((r) => r.schema_version === rec.schema_version && r.begin_snapshot <= s)
      .map((r) => {
        const row: Row = {
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
    rows: deletes
      .filter((d) => d.begin_snapshot <= s)
      .map((d) => ({ file_id: d.file_id, row_id: d.row_id, begin_snapshot: d.begin_snapshot })),
  };
}

const INLINED_DATA_NAME = /^ducklake_inlined_data_(\d+)_(\d+)$/;
const INLINED_DELETE_NAME = /^ducklake_inlined_delete_(\d+)$/;

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
  const data = INLINED_DATA_NAME.exec(name);
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
  const del = INLINED_DELETE_NAME.exec(name);
  if (!del) return null;
  const raw = await view.get(keys.current(Kind.tableMeta, Number(del[1])));
  if (raw === undefined) return null;
  return inlinedDeleteTableOf(view, decodeValue<TableMetaRecord>(ValueKind.tableMeta, raw, "table meta"), s);
}
