/**
 * The row-id floor of a table's inlined rows (docs/decisions/0182-inlined-row-floor.md): the lowest row
 * id any key under `keys.inlineRowPrefix(t)` may have, kept in the table's meta record
 * (`TableMetaRecord.x_inlined_floor`; absent ⇒ 0, so lakes written before it stay valid).
 *
 * Why: a flush deletes the rows it moves into a file outright, and a deleted key stays a tombstone in the
 * store's sorted runs until compaction reaches the bottom run (docs/decisions/0162-tiered-runs.md). A scan
 * that starts at the prefix steps over every row ever flushed, so under sustained single-row inserts the
 * CPU of every flush plan, scan plan and flush grew with the lake's history (decision 0180, "What
 * remains"). Starting at the floor, a scan steps over the live rows only.
 *
 * Invariant: no key under `inlineRowPrefix(t)` has a row id below the table's floor, in any cut (the
 * floor and the rows change in the same batch). This file is its one home:
 * - where every scan of a table's inlined rows starts: `scanInlineRows` / `inlineRowRecords`, which read
 *   the floor from the view they scan (a reader pinned to an older cut reads that cut's floor; time
 *   travel reads the current cut, whose rows below the floor are gone from it too);
 * - how every write of an inlined-row key lowers it: `writeInlinedRows`;
 * - how a flush raises it: `settleInlineFloor`, to the lowest row id still held;
 * - the check at commit, in production: `checkInlineFloors` refuses a member that stages an inlined row
 *   below the floor it stages with it (`InlineFloorViolation`), so a writer that bypassed
 *   `writeInlinedRows` cannot break the invariant silently.
 */
import type { Bytes, KeyValue, ReadView, ScanRange } from "../storage/api.ts";
import { decodeValue, encodeValue, ValueKind } from "./codec.ts";
import { InlineFloorViolation } from "./errors.ts";
import { InlineKind, Kind, key, keyIds, keys, Subspace } from "./keys.ts";
import type { InlineRowRecord, TableMetaRecord } from "./records.ts";
import type { Staging } from "./staging.ts";
import type { VerbContext } from "./verbs/context.ts";

/** The bytes every inlined-row key begins with (subspace, kind), before its table and row ids. */
const INLINE_ROW_SUBSPACE: Bytes = key([Subspace.inline, InlineKind.row]);

/** What the floor's readers need of a view: a cut, a transaction, or a commit's staging overlay. */
export type RowSource = Pick<ReadView, "get" | "scan">;

/** The floor a table's meta record holds (absent record or field ⇒ 0: scan from the prefix start). */
export function inlineFloorOf(meta: TableMetaRecord | undefined): number {
  return meta?.x_inlined_floor ?? 0;
}

/** Reads table `t`'s floor from `view`: the same view the caller then scans. */
export async function readInlineFloor(view: Pick<ReadView, "get">, tableId: number): Promise<number> {
  const raw = await view.get(keys.current(Kind.tableMeta, tableId));
  if (raw === undefined) return 0;
  return inlineFloorOf(decodeValue<TableMetaRecord>(ValueKind.tableMeta, raw, "table meta"));
}

/**
 * Every table's floor, from one scan of the meta records (a pass over every table, as the flush plan makes,
 * costs one read for all of them, not one per table); tables without a floor are absent (floor 0).
 */
export async function readInlineFloors(view: Pick<ReadView, "scan">): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for await (const kv of view.scan({ prefix: keys.current(Kind.tableMeta) })) {
    const meta = decodeValue<TableMetaRecord>(ValueKind.tableMeta, kv.value, "table meta");
    if (meta.x_inlined_floor !== undefined) out.set(meta.table_id, meta.x_inlined_floor);
  }
  return out;
}

/** Optional narrowing of a scan of one table's inlined rows, by row id (both inclusive). */
export interface InlineRowBounds {
  from?: number;
  through?: number;
  limit?: number;
}

/**
 * The store range of table `t`'s inlined rows at floor `floor`: from `max(floor, from)` (an earlier
 * version's key, `keys.inlineRowVersion`, sorts right after its row's key, so it is inside), through row
 * id `through` and its versions.
 */
export function inlineRowRange(tableId: number, floor: number, bounds: InlineRowBounds = {}): ScanRange {
  const range: ScanRange = { prefix: keys.inlineRowPrefix(tableId) };
  const start = Math.max(floor, bounds.from ?? 0);
  if (start > 0) range.start = keys.inlineRow(tableId, start);
  if (bounds.through !== undefined) range.end = keys.inlineRow(tableId, bounds.through + 1);
  if (bounds.limit !== undefined) range.limit = bounds.limit;
  return range;
}

/** Every key of table `t`'s inlined rows (within `bounds`), from its floor as `view` holds it. */
export async function* scanInlineRows(
  view: RowSource,
  tableId: number,
  bounds: InlineRowBounds = {},
): AsyncIterable<KeyValue> {
  const floor = await readInlineFloor(view, tableId);
  yield* view.scan(inlineRowRange(tableId, floor, bounds));
}

/** Table `t`'s inlined rows (every version), decoded, from its floor. */
export async function inlineRowRecords(view: RowSource, tableId: number): Promise<InlineRowRecord[]> {
  const out: InlineRowRecord[] = [];
  for await (const kv of scanInlineRows(view, tableId)) {
    out.push(decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row"));
  }
  return out;
}

// --- writers --------------------------------------------------------------------------------------------

/** One inlined-row key to write: the row's own key, or an earlier version's (`keys.inlineRowVersion`). */
export interface InlineRowWrite {
  record: InlineRowRecord;
  /** Written as an earlier version of its row, keyed by the record's own begin_snapshot. */
  asVersion?: boolean;
}

/** The write of a key read from a scan of the table's rows, in place (a version key stays one). */
export function inlineRowWriteAt(tableId: number, k: Bytes, record: InlineRowRecord): InlineRowWrite {
  const ids = keyIds(k, INLINE_ROW_SUBSPACE.length);
  if (ids[0] !== tableId || ids[1] !== record.row_id) {
    throw new Error(`inlined row ${record.row_id} of table ${tableId} rewritten at another row's key`);
  }
  return ids.length > 2 ? { record, asVersion: true } : { record };
}

/** Lowers table `t`'s floor to `rowId` if it is above it (a table without a meta record has floor 0). */
async function lowerInlineFloor(ctx: VerbContext, tableId: number, rowId: number): Promise<void> {
  const k = keys.current(Kind.tableMeta, tableId);
  const meta = await ctx.read<TableMetaRecord>(k, ValueKind.tableMeta, "table meta");
  if (!meta || inlineFloorOf(meta) <= rowId) return;
  ctx.write(k, ValueKind.tableMeta, { ...meta, x_inlined_floor: rowId } satisfies TableMetaRecord);
}

/**
 * The one way to write inlined-row keys of table `t` (inline_insert, an UPDATE's preserving insert and
 * the version it moves aside, DuckLake's rows over Quack, an end snapshot or a rewrite in place): the
 * floor comes down to the lowest row id written, in the same batch, so the invariant holds whatever the
 * writer. The commit checks it (`checkInlineFloors`).
 */
export async function writeInlinedRows(
  ctx: VerbContext,
  tableId: number,
  writes: readonly InlineRowWrite[],
): Promise<void> {
  if (writes.length === 0) return;
  let lowest = Number.POSITIVE_INFINITY;
  for (const w of writes) if (w.record.row_id < lowest) lowest = w.record.row_id;
  await lowerInlineFloor(ctx, tableId, lowest);
  for (const { record, asVersion } of writes) {
    const k = asVersion
      ? keys.inlineRowVersion(tableId, record.row_id, record.begin_snapshot)
      : keys.inlineRow(tableId, record.row_id);
    ctx.st.put(k, encodeValue(ValueKind.inlineRow, record));
  }
}

/**
 * After a flush removed inlined rows of table `t`: the floor rises to the row id of the lowest key still
 * held, or to `past` when none is left. The probe starts at `clearedBelow` when the caller removed every
 * key below it (the flush verb: a row-id range from the floor), else at the floor (DuckLake's flush over
 * Quack, which deletes by schema version and snapshot), and reads one key. It steps over the tombstones
 * between its start and that key once, so they stay below the floor for every later scan: an UPDATE of a
 * flushed row brings the floor down to that row, and the flush that moves it out again lifts the floor
 * past the rows flushed before it, not only past itself.
 */
export async function settleInlineFloor(
  ctx: VerbContext,
  tableId: number,
  opts: { past: number; clearedBelow?: number },
): Promise<void> {
  let next = opts.past;
  for await (const kv of scanInlineRows(ctx.st, tableId, { from: opts.clearedBelow ?? 0, limit: 1 })) {
    next = keyIds(kv.key, INLINE_ROW_SUBSPACE.length)[1] ?? next;
  }
  const k = keys.current(Kind.tableMeta, tableId);
  const meta = await ctx.read<TableMetaRecord>(k, ValueKind.tableMeta, "table meta");
  if (!meta || inlineFloorOf(meta) >= next) return;
  ctx.write(k, ValueKind.tableMeta, { ...meta, x_inlined_floor: next } satisfies TableMetaRecord);
}

// --- the commit's check ---------------------------------------------------------------------------------

/**
 * Refuses a member whose own layer stages an inlined-row key below the floor its table has once the
 * member's writes are applied (read through the same layer). Runs once per member in the commit core
 * (`commit/group.ts`): one pass over the member's inlined-row writes and one get of each written table's
 * meta record, which its writer already read, so it is a cache hit.
 */
export async function checkInlineFloors(layer: Staging): Promise<void> {
  const lowest = new Map<number, number>();
  for (const k of layer.stagedPutKeys(INLINE_ROW_SUBSPACE)) {
    const [tableId, rowId] = keyIds(k, INLINE_ROW_SUBSPACE.length);
    if (tableId === undefined || rowId === undefined) continue;
    const known = lowest.get(tableId);
    if (known === undefined || rowId < known) lowest.set(tableId, rowId);
  }
  for (const [tableId, rowId] of lowest) {
    const floor = await readInlineFloor(layer, tableId);
    if (rowId < floor) {
      throw new InlineFloorViolation(
        `a commit staged inlined row ${rowId} of table ${tableId} below the table's row-id floor ${floor}; every writer of inlined rows must lower the floor (catalog/inline-floor.ts writeInlinedRows)`,
      );
    }
  }
}
