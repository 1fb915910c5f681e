/**
 * The names of the tables a snapshot's changes refer to by id (issue 30 item 9): DuckLake's
 * `changes_made` and `ducklake_snapshots()` name a table by id once it exists, which a person cannot read.
 * Each id is named as the table was at that snapshot (renamed by it: the new name; dropped by it: its
 * name before the drop), from the table's and its schema's version rows (docs/decisions/0651-api-snapshot-time-and-names.md).
 */
import type { ReadView } from "../../storage/api.ts";
import { type ChangeSet, parseChangesMade } from "../changes.ts";
import { Unsupported } from "../errors.ts";
import type { SchemaRecord, TableRecord, Versioned } from "../records.ts";
import { schemaVersionRowsOf, tableVersionsOf } from "./by-table.ts";
import type { SnapshotInfo } from "./snapshots.ts";
import { visibleAt } from "./versions.ts";

/** Distinct table ids one snapshot page may name (each costs a read of the table's and its schema's versions). */
export const MAX_NAMED_TABLES_PER_PAGE = 10_000;

/** Every table id a change set refers to (created tables carry their names already). */
export function changedTableIds(set: ChangeSet): number[] {
  return [
    ...new Set([
      ...set.droppedTables,
      ...set.alteredTable,
      ...set.insertedIntoTable,
      ...set.deletedFromTable,
      ...set.inlinedInsert,
      ...set.inlinedDelete,
      ...set.inlineFlush,
      ...set.mergeAdjacent,
      ...set.rewriteDelete,
      ...set.compactedTable,
    ]),
  ].sort((a, b) => a - b);
}

/** The version of a record as of snapshot `s`: visible then, else the one that ended at `s` (dropped by it). */
function versionAt<T extends Versioned>(rows: T[], s: number): T | undefined {
  return rows.find((r) => visibleAt(r, s)) ?? rows.find((r) => r.end_snapshot === s);
}

/**
 * Names tables by id per snapshot: `wanted` lists, per snapshot id, the table ids to name. Answers
 * `schema.table` per id (an id whose records are gone — expired history — is left out). Version rows are
 * read once per table and schema, however many snapshots of the page name them.
 */
export async function tableNamesAt(
  view: ReadView,
  wanted: { snapshotId: number; tableIds: number[] }[],
): Promise<Map<number, Record<string, string>>> {
  const ids = new Set(wanted.flatMap((w) => w.tableIds));
  if (ids.size > MAX_NAMED_TABLES_PER_PAGE) {
    throw new Unsupported(
      `a page of snapshots names ${ids.size} tables, above MAX_NAMED_TABLES_PER_PAGE (${MAX_NAMED_TABLES_PER_PAGE}); ask for fewer snapshots (limit)`,
    );
  }
  const tables = new Map<number, TableRecord[]>();
  await Promise.all([...ids].map(async (id) => tables.set(id, await tableVersionsOf(view, id))));
  const schemaIds = new Set([...tables.values()].flat().map((t) => t.schema_id));
  const schemas = new Map<number, SchemaRecord[]>();
  await Promise.all([...schemaIds].map(async (id) => schemas.set(id, await schemaVersionRowsOf(view, id))));
  const out = new Map<number, Record<string, string>>();
  for (const w of wanted) {
    const names: Record<string, string> = {};
    for (const id of w.tableIds) {
      const t = versionAt(tables.get(id) ?? [], w.snapshotId);
      const sc = t && versionAt(schemas.get(t.schema_id) ?? [], w.snapshotId);
      if (t && sc) names[String(id)] = `${sc.schema_name}.${t.table_name}`;
    }
    out.set(w.snapshotId, names);
  }
  return out;
}

/** A snapshot with the names of the tables its changes refer to by id. */
export type NamedSnapshot = SnapshotInfo & { table_names: Record<string, string> };

/** Adds `table_names` (id → `schema.table` at that snapshot) to each snapshot of a page. */
export async function withTableNames(view: ReadView, page: SnapshotInfo[]): Promise<NamedSnapshot[]> {
  const names = await tableNamesAt(
    view,
    page.map((s) => ({
      snapshotId: s.snapshot_id,
      tableIds: changedTableIds(parseChangesMade(s.changes_made)),
    })),
  );
  return page.map((s) => ({ ...s, table_names: names.get(s.snapshot_id) ?? {} }));
}
