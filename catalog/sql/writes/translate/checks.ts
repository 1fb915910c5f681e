/**
 * The checks every part applies to a staged row against the premise: begins at this snapshot, no end,
 * fresh catalog and file ids from the new counters' ranges, a live table, and row ids from the table's
 * next_row_id range (checked once the batch is applied).
 */
import { parseChangesMade } from "../../../changes.ts";
import { ValueKind } from "../../../codec.ts";
import { NotFound } from "../../../errors.ts";
import { Kind, keys } from "../../../keys.ts";
import type { TableRecord, TableStatsRecord } from "../../../records.ts";
import { readTableStats } from "../../../verbs/ops/stats-support.ts";
import type { Literal } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, int, strOrNull } from "./cells.ts";

export function checkBegin(batch: Batch, l: Literal | undefined, what: string): void {
  const b = int(l, `${what}.begin_snapshot`);
  if (b !== batch.S) throw bad(`${what} begins at snapshot ${b}, not at the commit's snapshot ${batch.S}`);
}

export function noEnd(l: Literal | undefined, what: string): void {
  if (l?.k !== "null") throw bad(`${what} is inserted with an end_snapshot`);
}

export function catalogId(batch: Batch, id: number, what: string): number {
  const s = batch.snap as NonNullable<Batch["snap"]>;
  if (id < batch.premise.next_catalog_id || id >= s.next_catalog_id || batch.newCatalogIds.has(id)) {
    throw bad(
      `${what} id ${id} is not a fresh id of [${batch.premise.next_catalog_id}, ${s.next_catalog_id})`,
    );
  }
  batch.newCatalogIds.add(id);
  return id;
}

export function fileId(batch: Batch, id: number, what: string): number {
  const s = batch.snap as NonNullable<Batch["snap"]>;
  if (id < batch.premise.next_file_id || id >= s.next_file_id || batch.newFileIds.has(id)) {
    throw bad(`${what} id ${id} is not a fresh id of [${batch.premise.next_file_id}, ${s.next_file_id})`);
  }
  batch.newFileIds.add(id);
  return id;
}

export async function liveTable(batch: Batch, tableId: number): Promise<TableRecord> {
  const t = await batch.ctx.read<TableRecord>(keys.current(Kind.table, tableId), ValueKind.table, "table");
  if (!t) throw new NotFound(`table id ${tableId} does not exist (or was dropped)`);
  batch.touched.add(tableId);
  return t;
}

export async function premiseRowIds(batch: Batch, tableId: number): Promise<void> {
  if (batch.premiseNextRowId.has(tableId)) return;
  // Read before this batch's own stats write (the premise value), or 0 for a table without stats yet.
  const st = await batch.ctx.read<TableStatsRecord>(
    keys.current(Kind.tableStats, tableId),
    ValueKind.tableStats,
    "table stats",
  );
  batch.premiseNextRowId.set(tableId, st?.begin_snapshot === batch.S ? -1 : (st?.next_row_id ?? 0));
}

export function useRowIds(batch: Batch, tableId: number, from: number, count: number): void {
  const list = batch.rowIdsUsed.get(tableId) ?? [];
  list.push([from, from + count]);
  batch.rowIdsUsed.set(tableId, list);
}

export function lineage(batch: Batch, t: number): Set<number> {
  let set = batch.deletedRowIds.get(t);
  if (!set) {
    set = new Set();
    batch.deletedRowIds.set(t, set);
  }
  return set;
}

/**
 * New rows (inlined or in files) take their row ids from [premise next_row_id, staged next_row_id),
 * except an UPDATE's new versions, which keep the row id of a row the same batch deletes.
 */
export async function checkRowIds(batch: Batch): Promise<void> {
  for (const [t, ranges] of batch.rowIdsUsed) {
    const lo = batch.premiseNextRowId.get(t) ?? 0;
    const st = await readTableStats(batch.ctx, t);
    const hi = st?.next_row_id ?? 0;
    const kept = batch.deletedRowIds.get(t);
    for (const [a, b] of ranges) {
      if (lo < 0) continue;
      if (b === a + 1 && kept?.has(a)) continue;
      if (b <= lo && batch.parquetDeletes.has(t)) continue;
      if (a < lo || b > hi) {
        throw bad(
          `table ${t}: row ids [${a}, ${b}) lie outside the range [${lo}, ${hi}) its next_row_id allocates`,
        );
      }
    }
  }
}

/** The batch's `changes_made`, parsed (empty without a snapshot_changes row). */
export function changeSet(batch: Batch): ReturnType<typeof parseChangesMade> {
  const c = batch.changes?.changes_made;
  return parseChangesMade(c === undefined ? null : strOrNull(c, "changes_made"));
}
