/**
 * A staged commit authored before a schema change that landed since its transaction read (decision
 * docs/decisions/0614-staged-schema-race.md). DuckLake's server-side commit rebases such a commit like any
 * other: its conflict check (`CheckForConflicts`) refuses it only where the schema change dropped or altered
 * a table it writes. Here: an insert into or a delete from such a table answers DuckLake's own text; a flush
 * or compaction of one is refused by name (stock has no conflict for it, but the translation reads the
 * premise's layout); any other schema change lets the commit go on to the conflict matrix (`conflict.ts`).
 */
import type { ChangeSet } from "../../changes.ts";
import { isNull, stagedReader } from "./staged-literals.ts";
import type { StagedBatch, StagedRow } from "./staged-parse.ts";

const { int } = stagedReader("staged commit");
const INLINED_DATA = /^ducklake_inlined_data_(\d+)_\d+$/;

/** DuckLake's conflict text (`ConflictCheck` in ducklake_transaction_state.cpp), in its wording. */
function duckLakeConflict(action: string, table: number, theirs: string): string {
  return `Transaction conflict - attempting to ${action} with index "${table}" - but another transaction has ${theirs}`;
}

/** The refusal for a commit whose tables a schema change since `base` dropped or altered, or null. */
export function schemaRaceConflict(batch: StagedBatch, base: number, theirs: ChangeSet): string | null {
  const rows = batch.rows;
  const ids = (list: readonly StagedRow[]): number[] => list.map((r) => int(r.table_id, "table_id"));
  // DuckLake's sets: a new file without a begin snapshot is an insert (one with it is a flush's).
  const inserted = [
    ...ids(rows.data_file.filter((f) => isNull(f.begin_snapshot) && isNull(f.compaction_id))),
    ...ids(rows.inlined_data),
  ];
  const deleted = [
    ...ids(rows.tables_deleted_from),
    ...ids(rows.delete_file),
    ...ids(rows.inlined_delete),
    ...ids(rows.inlined_file_delete),
  ];
  const rewritten = [
    ...ids(rows.compaction),
    ...rows.flushed_inlined.flatMap((f) => {
      const m = f.inlined_table_name?.k === "str" ? INLINED_DATA.exec(f.inlined_table_name.v) : null;
      return m ? [Number(m[1])] : [];
    }),
  ];
  const dropped = (t: number) => theirs.droppedTables.includes(t);
  const altered = (t: number) => theirs.alteredTable.includes(t);
  for (const [action, tables] of [
    ["insert into table", inserted],
    ["delete from table", deleted],
  ] as const) {
    for (const t of [...new Set(tables)].sort((a, b) => a - b)) {
      if (dropped(t)) return duckLakeConflict(action, t, "dropped it");
      if (altered(t)) return duckLakeConflict(action, t, "altered it");
    }
  }
  for (const t of new Set(rewritten)) {
    if (dropped(t) || altered(t)) {
      return `table ${t} was dropped or altered after snapshot ${base}, which this flush or compaction read: it is not rebased`;
    }
  }
  return null;
}

/**
 * DuckLake's conflict check for a staged compaction (merge_adjacent or rewrite_delete) racing commits since
 * its transaction read: a table another commit dropped, deleted from or compacted is refused with its text,
 * whatever else changed (decision docs/decisions/0731-flush-into-delete-file.md).
 */
export function compactionRaceConflict(batch: StagedBatch, theirs: ChangeSet): string | null {
  const typed = (type: string): number[] =>
    [
      ...new Set(
        batch.rows.compaction
          .filter((c) => c.compaction_type?.k === "str" && c.compaction_type.v === type)
          .map((c) => int(c.table_id, "table_id")),
      ),
    ].sort((a, b) => a - b);
  for (const t of [...typed("merge_adjacent"), ...typed("rewrite_delete")]) {
    if (theirs.droppedTables.includes(t)) return duckLakeConflict("compact table", t, "dropped it");
    if (theirs.deletedFromTable.includes(t)) return duckLakeConflict("compact table", t, "deleted from it");
    if (theirs.mergeAdjacent.includes(t) || theirs.rewriteDelete.includes(t))
      return duckLakeConflict("compact table", t, "compacted it");
  }
  return null;
}
