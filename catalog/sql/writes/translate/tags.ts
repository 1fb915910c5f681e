/**
 * `ducklake_tag` and `ducklake_column_tag` (COMMENT ON, tags): entries of a tag container, inserted and
 * ended at this snapshot.
 */
import { ValueKind } from "../../../codec.ts";
import { NotFound, quoteName } from "../../../errors.ts";
import { Kind, keys } from "../../../keys.ts";
import { DUCKLAKE_TABLES } from "../../../reads/ducklake-tables.ts";
import type { ColumnRecord, TagContainer } from "../../../records.ts";
import type { RowOp } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, type Cells, cellsOf, int, str, strOrNull } from "./cells.ts";
import { checkBegin, liveTable, noEnd } from "./checks.ts";

export async function insertTag(batch: Batch, k: Uint8Array, r: Cells, objectId: number): Promise<void> {
  checkBegin(batch, r.begin_snapshot, "tag");
  noEnd(r.end_snapshot, "tag");
  const exists =
    (await batch.ctx.read(keys.current(Kind.schema, objectId), ValueKind.schema, "schema")) ??
    (await batch.ctx.read(keys.current(Kind.table, objectId), ValueKind.table, "table")) ??
    (await batch.ctx.read(keys.current(Kind.view, objectId), ValueKind.view, "view"));
  if (!exists) throw new NotFound(`object id ${objectId} (schema, table or view) does not exist`);
  const key = str(r.key, "key");
  const c = (await batch.ctx.read<TagContainer>(k, ValueKind.tagContainer, "tag")) ?? { entries: [] };
  if (c.entries.some((e) => e.key === key && e.end_snapshot === null)) {
    throw bad(`tag ${quoteName(key)} is still live on object ${objectId}; end it first`);
  }
  const entries = [
    ...c.entries,
    { key, value: strOrNull(r.value, "value"), begin_snapshot: batch.S, end_snapshot: null },
  ];
  batch.ctx.write(k, ValueKind.tagContainer, { entries } satisfies TagContainer);
}

export async function insertColumnTag(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  const c = int(r.column_id, "column_id");
  await liveTable(batch, t);
  // DuckLake's batch writes column tags before new columns (COMMENT ON COLUMN of a column added in the
  // same transaction): a column this batch inserts is one the tag may name (decision 0613).
  if (
    !(await batch.ctx.read<ColumnRecord>(keys.current(Kind.column, t, c), ValueKind.column, "column")) &&
    !insertsColumn(batch, t, c)
  ) {
    throw new NotFound(`column ${c} of table ${t} does not exist`);
  }
  await insertTag(batch, keys.current(Kind.columnTag, t, c), r, t);
}

/** True when this batch inserts column `c` of table `t` (a later statement of it). */
function insertsColumn(batch: Batch, t: number, c: number): boolean {
  return batch.ops.some(
    (op) =>
      op.op === "insert" &&
      op.table === "ducklake_column" &&
      cellsOf(op, DUCKLAKE_TABLES.ducklake_column ?? []).some(
        (r) => int(r.table_id, "table_id") === t && int(r.column_id, "column_id") === c,
      ),
  );
}

export async function endTags(batch: Batch, op: Extract<RowOp, { op: "end_tags" }>): Promise<number> {
  if (op.endSnapshot !== batch.S) throw bad(`tags are ended at snapshot ${op.endSnapshot}, not ${batch.S}`);
  let n = 0;
  for (const row of op.rows) {
    const column = op.table === "ducklake_column_tag";
    const id = int(row[0], "tid");
    const k = column ? keys.current(Kind.columnTag, id, int(row[1], "cid")) : keys.current(Kind.tag, id);
    const key = str(row[column ? 2 : 1], "key");
    const c = await batch.ctx.read<TagContainer>(k, ValueKind.tagContainer, "tag");
    if (!c) continue;
    const live = c.entries.find((e) => e.key === key && e.end_snapshot === null);
    if (!live) continue;
    const entries = c.entries
      .filter((e) => e !== live || e.begin_snapshot !== batch.S)
      .map((e) => (e === live ? { ...e, end_snapshot: batch.S } : e));
    batch.ctx.write(k, ValueKind.tagContainer, { entries } satisfies TagContainer);
    n++;
  }
  return n;
}
