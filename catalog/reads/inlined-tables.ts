/**
 * DuckLake's per-table inlined tables as rows, the way a stock catalog holds them when snapshot S is the
 * head: `ducklake_inlined_data_<table>_<schema_version>` (row_id, begin_snapshot, end_snapshot, then the
 * table's top-level columns as of the schema version that created it, typed as DuckDB spells them) and
 * `ducklake_inlined_delete_<table>` (file_id, row_id, begin_snapshot) once an inlined file delete made it.
 * Flushed rows and merged deletes are gone here as they are in DuckLake (they now live in files).
 */
import type { ReadView } from "../../storage/api.ts";
import { ValueKind } from "../codec.ts";
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
    const since = rec.x_begin_snapshot ?? s;
    const cols = await versionsAt<ColumnRecord>(view, since, Kind.column, ValueKind.column, rec.table_id);
    const top = typeTree(cols, null);
    let rows = rowsByTable.get(rec.table_id);
    if (!rows) {
      rows = await scanAll<InlineRowRecord>(
        view,
        keys.inlineRowPrefix(rec.table_id),
        ValueKind.inlineRow,
        "inlined row",
      );
      rowsByTable.set(rec.table_id, rows);
    }
    out[rec.table_name] = {
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
  const metas = await scanAll<TableMetaRecord>(
    view,
    keys.current(Kind.tableMeta),
    ValueKind.tableMeta,
    "table meta",
  );
  for (const meta of metas) {
    if (meta.x_inlined_delete_since === undefined || meta.x_inlined_delete_since > s) continue;
    const deletes = await scanAll<InlineFileDeleteRecord>(
      view,
      keys.inlineFileDeletePrefix(meta.table_id),
      ValueKind.inlineFileDelete,
      "inlined delete",
    );
    out[`ducklake_inlined_delete_${meta.table_id}`] = {
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
  return out;
}
