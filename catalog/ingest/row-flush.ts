/**
 * The flusher's fold: drain up to N log records into one DuckLake commit (docs/decisions/0311-flusher.md).
 * Per table, in sequence order: the newest tombstone voids every earlier record and empties the table's
 * lake rows; inserts append; an upsert or delete removes the row its key names — the pending row from
 * this batch, or the lake row the key index points at (never a table scan) — and an upsert appends its
 * row. Deletes land as DuckLake inlined deletes, rows as inlined rows, the key index follows the new row
 * ids, and the drained records are trimmed and the drained watermark written — all in the member's one
 * store batch, so a crash anywhere leaves either all of it or none, and a retried flush finds nothing
 * left to drain. Records of a table that no longer exists are void (it was dropped).
 */

import { decodeValue, ValueKind } from "../codec.ts";
import { CodedError, FlushPlanStale, InvalidRequest, Unsupported } from "../errors.ts";
import { scanInlineRows } from "../inline-floor.ts";
import { Kind, keys } from "../keys.ts";
import type { DataFileRecord, InlineRowRecord, InlineValue, TableRecord } from "../records.ts";
import { MAX_FLUSH_RECORDS } from "../row-log-limits.ts";
import type { VerbContext } from "../verbs/context.ts";
import { liveDeleteFilesOf, registerDataFile } from "../verbs/ops/files.ts";
import { canonicalRow, inlineDelete, inlineInsert } from "../verbs/ops/inline.ts";
import type { VerbOf } from "../verbs/schema.ts";
import { tableShape } from "../verbs/shape-memo.ts";
import { byTable, foldTable } from "./fold.ts";
import { writeIndexMarker } from "./key-index.ts";
import { ingestKeys } from "./keys.ts";
import type { LogRecord } from "./records.ts";
import {
  keyText,
  readIngestHead,
  readIngestTable,
  readKeyBucket,
  readTail,
  trimRecords,
  writeIngestHead,
  writeKeyBucket,
} from "./state.ts";

export interface FlushResult {
  /** The drained watermark after this flush. */
  drained: number;
  /** Records this flush drained (0: nothing to do). */
  records: number;
  inserted: number;
  deleted: number;
  /** A planned batch found the log drained past its plan: nothing applied, its files are unreferenced. */
  stale: boolean;
}

async function liveTable(ctx: VerbContext, tableId: number): Promise<TableRecord | undefined> {
  try {
    return await ctx.table({ id: tableId });
  } catch (e) {
    if (e instanceof CodedError && e.code === "NotFound") return undefined;
    throw e;
  }
}

/** Where a DuckLake row id lives now: an inlined row, or a position in a live Parquet file. */
type Located = { rowId: number } | { dataFileId: number; position: number } | undefined;

class RowLocator {
  private files: DataFileRecord[] | undefined;
  constructor(
    private readonly ctx: VerbContext,
    private readonly tableId: number,
  ) {}
  async locate(rowId: number): Promise<Located> {
    const t = this.tableId;
    const inl = await this.ctx.read<InlineRowRecord>(
      keys.inlineRow(t, rowId),
      ValueKind.inlineRow,
      "inlined row",
    );
    if (inl) return inl.end_snapshot === null ? { rowId } : undefined;
    this.files ??= await this.ctx.scan<DataFileRecord>(
      keys.current(Kind.dataFile, t),
      ValueKind.dataFile,
      "data file",
    );
    const f = this.files.find(
      (d) => !d.x_row_ids_in_file && rowId >= d.row_id_start && rowId < d.row_id_start + d.record_count,
    );
    if (!f) {
      // A compacted or flushed file that carries its own row ids (decisions 0322, 0617) may hold this id at
      // any position: finding it needs the file read, which the flusher does not do yet. Refused, never guessed.
      const own = this.files.find((d) => d.x_row_ids_in_file && rowId >= d.row_id_start);
      if (own) {
        throw new Unsupported(
          `row id ${rowId} of table ${t} may lie in data file ${own.data_file_id} (compacted or flushed), whose rows carry their own ids; deleting it through the rows API is not supported yet`,
        );
      }
      return undefined;
    }
    const position = rowId - f.row_id_start;
    if (await this.ctx.st.get(keys.inlineFileDelete(t, f.data_file_id, position))) return undefined;
    return { dataFileId: f.data_file_id, position };
  }
}

/**
 * A tombstone's effect on the lake: every live inlined row is deleted (inlined deletes) and every live
 * data file is ended, with its delete files — the whole file goes, as DuckLake drops a file all of whose
 * rows a delete removes, so a file that already has a delete file needs no merge of positions. The key
 * index is cleared.
 */
async function emptyTable(ctx: VerbContext, table: TableRecord): Promise<number> {
  const t = table.table_id;
  const rowIds: number[] = [];
  for await (const kv of scanInlineRows(ctx.st, t)) {
    const r = decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row");
    if (r.end_snapshot === null) rowIds.push(r.row_id);
  }
  const files = await ctx.scan<DataFileRecord>(
    keys.current(Kind.dataFile, t),
    ValueKind.dataFile,
    "data file",
  );
  let deleted = 0;
  for (const f of files) {
    const dels = await liveDeleteFilesOf(ctx, t, f.data_file_id);
    ctx.endVersion(Kind.dataFile, [t, f.data_file_id], ValueKind.dataFile, f);
    for (const d of dels) ctx.endVersion(Kind.deleteFile, [t, d.delete_file_id], ValueKind.deleteFile, d);
    ctx.deletedDataFileIds.add(f.data_file_id);
    deleted += f.record_count - dels.reduce((n, d) => n + d.delete_count, 0);
  }
  if (files.length > 0) {
    ctx.change("deletedFromTable", t);
    ctx.touch(t);
  }
  for await (const kv of ctx.st.scan({ prefix: ingestKeys.keyIndexPrefix(t) })) ctx.st.delete(kv.key);
  // The emptied index is complete, as far as the marker of a keyed table says (decision 0315).
  if ((await readIngestTable(ctx.st, t))?.key_columns.length) writeIndexMarker(ctx.st, t);
  if (rowIds.length > 0) {
    await inlineDelete(ctx, { op: "inline_delete", table: { id: t }, rowIds });
  }
  return deleted + rowIds.length;
}

/** The Parquet file the writer PUT for one table of the batch (its rows are the fold's, in order). */
export type PlannedTableFile = NonNullable<VerbOf<"rows_flush">["files"]>[number];

/** Folds one table's records of this batch into its DuckLake rows. */
async function flushTable(
  ctx: VerbContext,
  table: TableRecord,
  records: LogRecord[],
  file: PlannedTableFile | undefined,
): Promise<{ inserted: number; deleted: number }> {
  const t = table.table_id;
  const fold = foldTable(records);
  let deleted = fold.truncated ? await emptyTable(ctx, table) : 0;
  const lakeDeletes: number[] = [];
  const unindex: InlineValue[][] = [];
  for (const key of fold.lakeKeys) {
    const bucket = await readKeyBucket(ctx.st, t, key);
    const hit = bucket.entries.find((e) => keyText(e.key) === keyText(key));
    if (hit) {
      lakeDeletes.push(hit.row_id);
      unindex.push(key);
    }
  }
  if (lakeDeletes.length > 0) {
    const locator = new RowLocator(ctx, t);
    const rowIds: number[] = [];
    const byFile = new Map<number, number[]>();
    for (const id of lakeDeletes) {
      const at = await locator.locate(id);
      if (at === undefined) continue;
      if ("rowId" in at) rowIds.push(at.rowId);
      else {
        const list = byFile.get(at.dataFileId);
        if (list) list.push(at.position);
        else byFile.set(at.dataFileId, [at.position]);
      }
    }
    const fileDeletes = [...byFile].map(([dataFileId, positions]) => ({ dataFileId, positions }));
    if (rowIds.length > 0 || fileDeletes.length > 0) {
      await inlineDelete(ctx, {
        op: "inline_delete",
        table: { id: t },
        ...(rowIds.length > 0 ? { rowIds } : {}),
        ...(fileDeletes.length > 0 ? { fileDeletes } : {}),
      });
      deleted += rowIds.length + fileDeletes.reduce((n, f) => n + f.positions.length, 0);
    }
  }
  for (const key of unindex) {
    const b = await readKeyBucket(ctx.st, t, key);
    writeKeyBucket(ctx.st, t, key, { entries: b.entries.filter((e) => keyText(e.key) !== keyText(key)) });
  }
  const kept = fold.kept;
  if (kept.length === 0) {
    if (file)
      throw new FlushPlanStale(`the planned file of table ${t} holds rows this batch no longer keeps`);
    return { inserted: 0, deleted };
  }
  let start: number;
  if (file) {
    // The file holds the fold's rows under the columns it was planned against: any change since (an
    // ALTER between the PUT and this commit) leaves the file unregistered and the batch to a new plan.
    const now = (await ctx.columns(t)).map((c) => c.column_id).sort((a, b) => a - b);
    if (file.file.recordCount !== kept.length || now.join(",") !== file.columnIds.join(",")) {
      throw new FlushPlanStale(
        `the planned file of table ${t} no longer matches its batch (${file.file.recordCount} rows planned, ${kept.length} kept; columns ${file.columnIds.join(",")} planned, ${now.join(",")} now)`,
      );
    }
    // The rows meet the table's rules now exactly as inlined rows would (NOT NULL added since the append,
    // say): a record that fails is the same poison on both paths (docs/decisions/0314-dead-letters.md).
    const shape = tableShape(t, await ctx.columns(t));
    for (const [i, p] of kept.entries()) canonicalRow(shape, p.row, `log row ${i} of table ${t}`);
    const a = await registerDataFile(ctx, { op: "register_data_file", table: { id: t }, file: file.file });
    start = a.rowIdStart as number;
  } else {
    // Values of a column dropped since the append are gone, as DuckLake drops a dropped column's data.
    const live = new Set((await ctx.columns(t)).map((c) => c.column_name));
    const rows = kept.map((p) => Object.fromEntries(Object.entries(p.row).filter(([k]) => live.has(k))));
    const a = await inlineInsert(ctx, { op: "inline_insert", table: { id: t }, rows });
    start = a.rowIdStart as number;
  }
  for (const [j, p] of kept.entries()) {
    if (!p.key) continue;
    const b = await readKeyBucket(ctx.st, t, p.key);
    const kt = keyText(p.key);
    writeKeyBucket(ctx.st, t, p.key, {
      entries: [...b.entries.filter((e) => keyText(e.key) !== kt), { key: p.key, row_id: start + j }],
    });
  }
  return { inserted: kept.length, deleted };
}

/** The batch a writer planned (and PUT files for) before committing it. */
export interface FlushBatchPlan {
  /** The drained watermark the plan was made at. */
  expectDrained: number;
  /** The newest sequence number the batch drains. */
  through: number;
  files: PlannedTableFile[];
}

/**
 * Drains up to `max` records after the watermark into the member's commit. With a plan: exactly the
 * planned records, with the planned files registered in place of inlined rows; a plan made at another
 * watermark (a flush ran in between) drains nothing and says so (`stale`), leaving its files unreferenced.
 */
export async function flushLog(ctx: VerbContext, max: number, plan?: FlushBatchPlan): Promise<FlushResult> {
  const head = await readIngestHead(ctx.st);
  if (plan && plan.expectDrained !== head.drained) {
    return { drained: head.drained, records: 0, inserted: 0, deleted: 0, stale: true };
  }
  const limit = plan ? Math.min(max, plan.through - head.drained) : max;
  const records = limit > 0 ? await readTail(ctx.st, head.drained, limit) : [];
  const last = records[records.length - 1];
  if (!last) return { drained: head.drained, records: 0, inserted: 0, deleted: 0, stale: false };
  if (plan && last.seq !== plan.through) {
    throw new FlushPlanStale(`the planned batch ends at ${plan.through}, the log at ${last.seq}`);
  }
  const files = new Map((plan?.files ?? []).map((f) => [f.tableId, f]));
  let inserted = 0;
  let deleted = 0;
  for (const [t, list] of byTable(records)) {
    const table = await liveTable(ctx, t);
    const file = files.get(t);
    files.delete(t);
    if (!table) {
      if (file) throw new FlushPlanStale(`table ${t} of a planned file no longer exists`);
      continue;
    }
    const r = await flushTable(ctx, table, list, file);
    inserted += r.inserted;
    deleted += r.deleted;
  }
  if (files.size > 0) throw new FlushPlanStale(`planned files name tables the batch does not hold`);
  await trimRecords(ctx.st, head.drained, last.seq);
  writeIngestHead(ctx.st, { next_seq: head.next_seq, drained: last.seq });
  return { drained: last.seq, records: records.length, inserted, deleted, stale: false };
}

export async function rowsFlush(ctx: VerbContext, v: VerbOf<"rows_flush">): Promise<Record<string, number>> {
  const plan =
    v.through !== undefined && v.expectDrained !== undefined
      ? { expectDrained: v.expectDrained, through: v.through, files: v.files ?? [] }
      : undefined;
  if (!plan && v.files !== undefined)
    throw new InvalidRequest("rows_flush files need through and expectDrained");
  const r = await flushLog(ctx, v.maxRecords ?? MAX_FLUSH_RECORDS, plan);
  return {
    drained: r.drained,
    records: r.records,
    inserted: r.inserted,
    deleted: r.deleted,
    stale: r.stale ? 1 : 0,
  };
}
