/**
 * ducklake_flush_inlined_data (docs/decisions/0240-quack-flush-inlined-data.md): the inlined rows a
 * flush removes, the data files and delete files that carry them, and inlined deletes a delete file
 * carries (docs/decisions/0245-quack-flush-inlined-deletes.md).
 */
import { decodeValue, ValueKind } from "../../../codec.ts";
import { Unsupported } from "../../../errors.ts";
import { scanInlineRows, settleInlineFloor } from "../../../inline-floor.ts";
import { keys } from "../../../keys.ts";
import type { DeleteFileRecord, InlineFileDeleteRecord, InlineRowRecord } from "../../../records.ts";
import type { RowOp } from "../parse.ts";
import { type Batch, type Flush, summarise } from "./batch.ts";
import { bad, type Cells, INLINED_DATA, INLINED_DELETE, int, intOrNull } from "./cells.ts";
import { liveTable } from "./checks.ts";

/** The inlined rows `DELETE FROM ducklake_inlined_data_<t>_<sv> WHERE begin_snapshot <= N` names. */
async function flushedRows(
  batch: Batch,
  op: Extract<RowOp, { op: "flush_inlined" }>,
): Promise<[Uint8Array, InlineRowRecord][]> {
  const m = INLINED_DATA.exec(op.table);
  if (!m) throw bad(`${op.table} is not an inlined data table`);
  const [t, sv] = [Number(m[1]), Number(m[2])];
  const out: [Uint8Array, InlineRowRecord][] = [];
  for await (const kv of scanInlineRows(batch.ctx.st, t)) {
    const rec = decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row");
    if (rec.schema_version === sv && rec.begin_snapshot <= op.upTo) out.push([kv.key, rec]);
  }
  return out;
}

/**
 * Before any statement runs: the rows each flush of this batch removes, so the data file that carries
 * them (inserted earlier in the batch than the DELETE) is checked against them.
 */
export async function collectFlushes(batch: Batch): Promise<void> {
  if (batch.snap === undefined) return;
  for (const op of batch.ops) {
    if (op.op !== "flush_inlined") continue;
    if (op.upTo > batch.premise.snapshot_id)
      throw bad(
        `a flush removes inlined rows up to snapshot ${op.upTo}, past the head ${batch.premise.snapshot_id}`,
      );
    const t = Number(INLINED_DATA.exec(op.table)?.[1]);
    const f = batch.flushes.get(op.table) ?? { t, keys: [], rows: [], carried: 0, fileIds: [], ended: 0 };
    for (const [k, rec] of await flushedRows(batch, op)) {
      f.keys.push(k);
      f.rows.push(rec);
    }
    batch.flushes.set(op.table, f);
  }
}

/**
 * A data file a flush writes: back-dated to its first row's snapshot, `partial_max` its last's, holding
 * flushed rows with their own ids, registered from the lowest. One file holds all of a flush's rows; a
 * partitioned table's flush writes one file per partition value, whose ids interleave (decision
 * docs/decisions/0617-partitioned-flush.md). Undefined when this batch flushes nothing of `t`; otherwise
 * whether the file's ids are other than `row_id_start` onward by position (then they are read from it).
 */
export function flushedInto(
  batch: Batch,
  t: number,
  id: number,
  begin: number,
  r: Cells,
): { idsInFile: boolean } | undefined {
  const open = [...batch.flushes.values()].filter((f) => f.t === t && f.carried < f.rows.length);
  if (open.length === 0) return undefined;
  const start = int(r.row_id_start, "row_id_start");
  const records = int(r.record_count, "record_count");
  const partialMax = intOrNull(r.partial_max, "partial_max");
  const partitioned = intOrNull(r.partition_id, "partition_id") !== null;
  const m = open.find((f) => {
    const e = summarise(f);
    if (f.carried === 0 && records === f.rows.length)
      // Every version goes into the file (an updated row's versions share its row id), ended ones included.
      return begin === e.first && partialMax === e.last && start === e.lo && e.hi - e.lo <= f.rows.length;
    // One partition's file: its first and last snapshots and lowest id are those of flushed rows.
    return (
      partitioned &&
      records > 0 &&
      f.carried + records <= f.rows.length &&
      partialMax !== null &&
      begin <= partialMax &&
      e.snapshots.has(begin) &&
      e.snapshots.has(partialMax) &&
      e.ids.has(start)
    );
  });
  if (!m) {
    const f = open[0] as Flush;
    const e = summarise(f);
    throw bad(
      `table ${t}: a flushed file must begin at snapshot ${e.first} with partial_max ${e.last} and hold the ${f.rows.length - f.carried} flushed rows from row id ${e.lo}, or, of a partitioned table, a partition's share of them`,
    );
  }
  m.carried += records;
  m.fileIds.push(id);
  // Ids by position hold only for a file of all the rows, one version each, without gaps.
  const e = summarise(m);
  const contiguous = records === m.rows.length && e.ids.size === records && e.hi - start === records;
  return { idsInFile: !contiguous };
}

/**
 * The delete file of a flushed file: flushed rows that were ended (deleted, or updated away), back-dated
 * to the first end among them; its rows carry their own snapshots. The ended rows of a flush add up over
 * its files' delete files (checked once the batch is applied).
 */
export function flushDeletes(batch: Batch, t: number, dataFileId: number, begin: number, r: Cells): boolean {
  const f = [...batch.flushes.values()].find((x) => x.t === t && x.fileIds.includes(dataFileId));
  if (!f) return false;
  const ended = summarise(f).ends;
  const count = int(r.delete_count, "delete_count");
  const sole = f.fileIds.length === 1 && f.carried === f.rows.length;
  const fits = sole
    ? ended.every((x) => x >= begin) && ended.includes(begin) && count === ended.length
    : ended.includes(begin) && count > 0;
  if (!fits || f.ended + count > ended.length)
    throw bad(
      `table ${t}: a flushed file's delete file must begin at one of its ended rows' snapshots and hold some of the ${ended.length - f.ended} ended rows left`,
    );
  f.ended += count;
  return true;
}

/**
 * `DELETE FROM ducklake_inlined_delete_<t>`, which DuckLake sends alone before the flush's commit batch
 * (stock removes the deletes before the delete files that carry them are committed). Here it only
 * counts; the commit's delete files remove the deletes they carry (`carriedInlinedDeletes`), so the
 * flush is atomic (docs/decisions/0245-quack-flush-inlined-deletes.md).
 */
export async function flushInlinedDeletes(batch: Batch, table: string): Promise<number> {
  if (batch.snap !== undefined) {
    throw new Unsupported(`removing ${table}'s rows inside a commit batch is not translated yet`);
  }
  const m = INLINED_DELETE.exec(table);
  const t = Number(m?.[1]);
  let n = 0;
  for await (const _ of batch.ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t) })) n++;
  return n;
}

/**
 * A delete file that carries data file `f`'s inlined deletes (the flush of inlined deletes): its
 * partial_max is the newest of them, below this snapshot; it begins at the oldest (or, replacing the
 * file's delete file, at that file's begin) and holds them all (plus the replaced file's). The carried
 * deletes go, without history, as in stock. False when the file carries none.
 */
export async function carriedInlinedDeletes(
  batch: Batch,
  t: number,
  f: number,
  begin: number,
  r: Cells,
  replaced: DeleteFileRecord | undefined,
): Promise<boolean> {
  const partialMax = intOrNull(r.partial_max, "partial_max");
  if (partialMax === null || partialMax >= batch.S) return false;
  const carried: Uint8Array[] = [];
  const snaps: number[] = [];
  for await (const kv of batch.ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t, f) })) {
    const d = decodeValue<InlineFileDeleteRecord>(ValueKind.inlineFileDelete, kv.value, "inlined delete");
    carried.push(kv.key);
    snaps.push(d.begin_snapshot);
  }
  if (carried.length === 0) return false;
  const from = replaced ? replaced.begin_snapshot : Math.min(...snaps);
  const count = carried.length + (replaced?.delete_count ?? 0);
  if (partialMax !== Math.max(...snaps) || begin !== from || int(r.delete_count, "delete_count") !== count) {
    throw bad(
      `table ${t}: the delete file flushing data file ${f}'s ${carried.length} inlined deletes must begin at snapshot ${from}, end its partial_max at ${Math.max(...snaps)} and hold ${count} deletes`,
    );
  }
  for (const k of carried) batch.ctx.st.delete(k);
  return true;
}

/**
 * In a commit batch: the flushed rows go (without history, as in stock: the new file answers every
 * snapshot they did). Alone — DuckLake sends the DELETE once before its commit batch too — it only
 * counts: removing rows outside the commit that registers their file would lose them if that commit
 * never came.
 */
export async function flushInlined(
  batch: Batch,
  op: Extract<RowOp, { op: "flush_inlined" }>,
): Promise<number> {
  const t = Number(INLINED_DATA.exec(op.table)?.[1]);
  await liveTable(batch, t);
  const rows = await flushedRows(batch, op);
  if (batch.snap === undefined) return rows.length;
  for (const [k] of rows) batch.ctx.st.delete(k);
  // The rows went by schema version and snapshot, not by a row-id range: the floor rises to the lowest
  // row id still held (decision 0182).
  let past = 0;
  for (const [, r] of rows) past = Math.max(past, r.row_id + 1);
  if (rows.length > 0) await settleInlineFloor(batch.ctx, t, { past });
  return rows.length;
}
