/**
 * Which per-table inlined tables exist at snapshot S and their columns, without their rows: what a
 * catalog listing (DuckDB's `duckdb_tables()` over a stock metadata database) shows. Same rules as
 * `inlinedTablesAt` (which also reads every row); this one reads only the registry, the column versions
 * and the table metas — each kind in one range scan, never one scan per table, so a catalog load costs
 * the same number of reads at 10 or 10k tables (docs/decisions/0250-quack-catalog-load-cost.md).
 */
import type { ReadView } from "../../storage/api.ts";
import { ValueKind } from "../codec.ts";
import { resolveSnapshot } from "../head.ts";
import { Kind, keys } from "../keys.ts";
import type { ColumnRecord, InlinedTableRecord, TableMetaRecord } from "../records.ts";
import { duckdbTypeName } from "../types.ts";
import { topLevel } from "./inlined-tables.ts";
import { allVersions, scanAll, visibleAt } from "./versions.ts";

/** Table name → `[column name, DuckDB type]` in declaration order. */
export async function inlinedDeclarationsAt(
  view: ReadView,
  snapshotId?: number,
): Promise<Record<string, [string, string][]>> {
  const snap = await resolveSnapshot(view, snapshotId);
  const s = snap.snapshot_id;
  const out: Record<string, [string, string][]> = {};
  // The three kinds are independent range scans: read together (the column kind is read whole, even when
  // nothing is registered, so the cost never depends on what the lake holds).
  const [registeredAll, columns, metas] = await Promise.all([
    scanAll<InlinedTableRecord>(
      view,
      keys.current(Kind.inlinedTable),
      ValueKind.inlinedTable,
      "inlined table",
    ),
    allVersions<ColumnRecord>(view, Kind.column, ValueKind.column),
    scanAll<TableMetaRecord>(view, keys.current(Kind.tableMeta), ValueKind.tableMeta, "table meta"),
  ]);
  const registered = registeredAll.filter((r) => r.schema_version <= snap.schema_version);
  const columnsOf = new Map<number, ColumnRecord[]>();
  for (const c of columns) {
    const list = columnsOf.get(c.table_id);
    if (list) list.push(c);
    else columnsOf.set(c.table_id, [c]);
  }
  for (const rec of registered) {
    const since = rec.x_begin_snapshot ?? s;
    const cols = (columnsOf.get(rec.table_id) ?? []).filter((c) => visibleAt(c, since));
    out[rec.table_name] = [
      ["row_id", "BIGINT"],
      ["begin_snapshot", "BIGINT"],
      ["end_snapshot", "BIGINT"],
      ...topLevel(cols).map((c): [string, string] => [c.name, duckdbTypeName(c)]),
    ];
  }
  for (const meta of metas) {
    if (meta.x_inlined_delete_since === undefined || meta.x_inlined_delete_since > s) continue;
    out[`ducklake_inlined_delete_${meta.table_id}`] = [
      ["file_id", "BIGINT"],
      ["row_id", "BIGINT"],
      ["begin_snapshot", "BIGINT"],
    ];
  }
  return out;
}
