/**
 * Rebuilding a table's key index from the lake (docs/decisions/0315-key-index-rebuild.md). The index is
 * complete while its marker — the key at the index range's own prefix, so losing the range loses it too —
 * is present: `set_row_key` writes it (the table is empty then), a truncate keeps it, a rebuild writes it.
 * Without it (lost, or a lake from before the marker) the writer reads the table's live rows at the head
 * (inlined rows and Parquet files, through `read-files.ts`), and commits `rows_key_index` with every
 * key → row id, which replaces the index and writes the marker, before the next flush batch is planned.
 */
import type { ReadView } from "../../storage/api.ts";
import { encodeValue, ValueKind } from "../codec.ts";
import { Constraint } from "../errors.ts";
import { hash53 } from "../keys.ts";
import { tableFilesAt } from "../reads/files-at.ts";
import type { InlineValue } from "../records.ts";
import { MAX_KEY_INDEX_REBUILD_ROWS } from "../row-log-limits.ts";
import type { Staging } from "../staging.ts";
import type { Assigned, VerbContext } from "../verbs/context.ts";
import type { VerbOf } from "../verbs/schema.ts";
import { ingestKeys } from "./keys.ts";
import { fileRows, type LakeRow, lakeDataPath, ReadBudget, type RowFileSource } from "./read-files.ts";
import type { KeyBucketRecord } from "./records.ts";
import { keyText, readIngestTable } from "./state.ts";

type Readable = Pick<ReadView, "get"> | Staging;

/** Marks the table's key index complete (the marker lies inside the index's own key range). */
export function writeIndexMarker(st: Staging, tableId: number): void {
  st.put(ingestKeys.keyIndexPrefix(tableId), encodeValue(ValueKind.ingestKeys, { entries: [] }));
}

export async function indexComplete(st: Readable, tableId: number): Promise<boolean> {
  return (await st.get(ingestKeys.keyIndexPrefix(tableId))) !== undefined;
}

/**
 * The `rows_key_index` verb rebuilding a keyed table's index from its live lake rows at the view's head,
 * or null when the table has no key columns or its index is complete.
 */
export async function planKeyIndexRebuild(
  view: ReadView,
  tableId: number,
  files: RowFileSource,
): Promise<VerbOf<"rows_key_index"> | null> {
  const meta = await readIngestTable(view, tableId);
  if (!meta || meta.key_columns.length === 0 || (await indexComplete(view, tableId))) return null;
  const plan = await tableFilesAt(view, tableId);
  const budget = new ReadBudget();
  budget.addRows(plan.inlined_rows.length);
  const rows: LakeRow[] = plan.inlined_rows.map((r) => ({ row_id: r.row_id, values: r.values }));
  const dataPath = await lakeDataPath(view);
  for (const f of plan.files) rows.push(...(await fileRows(plan, f, files, budget, dataPath)));
  rows.sort((a, b) => a.row_id - b.row_id);
  if (rows.length > MAX_KEY_INDEX_REBUILD_ROWS) {
    throw new Constraint(
      `table ${tableId} holds ${rows.length} live rows, above the ${MAX_KEY_INDEX_REBUILD_ROWS} a key index rebuild takes (MAX_KEY_INDEX_REBUILD_ROWS); its upserts wait`,
    );
  }
  return {
    op: "rows_key_index",
    table: { id: tableId },
    entries: rows.map((r) => ({ key: meta.key_columns.map((c) => r.values[c] ?? null), rowId: r.row_id })),
  };
}

/** Replaces the table's key index with the given entries and marks it complete. */
export async function rowsKeyIndex(ctx: VerbContext, v: VerbOf<"rows_key_index">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  for await (const kv of ctx.st.scan({ prefix: ingestKeys.keyIndexPrefix(t) })) ctx.st.delete(kv.key);
  const buckets = new Map<number, KeyBucketRecord>();
  for (const e of v.entries) {
    const key = e.key as InlineValue[];
    const h = hash53(keyText(key));
    const b = buckets.get(h) ?? { entries: [] };
    // Keys are unique among live rows (upserts replace); should two rows share one, the newer row id wins.
    b.entries = [...b.entries.filter((x) => keyText(x.key) !== keyText(key)), { key, row_id: e.rowId }];
    buckets.set(h, b);
  }
  for (const [h, b] of buckets) {
    ctx.st.put(ingestKeys.keyBucket(t, h), encodeValue(ValueKind.ingestKeys, b));
  }
  writeIndexMarker(ctx.st, t);
  return { tableId: t, entries: v.entries.length };
}
