/**
 * Which inlined keys a flush covers (docs/decisions/0183-flush-row-versions.md): the one home for the
 * flush plan (`maintenance/inline-flush-plan.ts`, which chooses `throughRowId`) and the flush verb
 * (`verbs/ops/inline.ts` `flushRows`, which moves the keys), so the two cannot disagree.
 *
 * A flush through row id R covers every key of the table's inlined rows from its floor (decision 0182)
 * through R, and every version of each of those rows: an UPDATE of a still-inlined row keeps its row id,
 * its earlier version moves to `keys.inlineRowVersion` (which sorts right after the row's own key), and
 * both versions go into the flushed file, the earlier one marked deleted at its end snapshot by the delete
 * file, as stock DuckLake's flush writes every version still in the inlined table (ORDER BY row_id,
 * begin_snapshot). So time travel to a snapshot before the update still reads the earlier value.
 *
 * The plan's run is therefore a prefix of the scan from the floor that ends at a row boundary: a row's
 * versions are never split between two flushes.
 */
import type { Bytes } from "../storage/api.ts";
import { decodeValue, ValueKind } from "./codec.ts";
import { type RowSource, scanInlineRows } from "./inline-floor.ts";
import type { InlineRowRecord } from "./records.ts";

/** One key a flush covers and the row version it holds. */
export interface CoveredRow {
  key: Bytes;
  record: InlineRowRecord;
}

/** Every key a flush of table `t` through row id `throughRowId` covers (every version), in key order. */
export async function flushCoveredRows(
  view: RowSource,
  tableId: number,
  throughRowId: number,
): Promise<CoveredRow[]> {
  const out: CoveredRow[] = [];
  for await (const kv of scanInlineRows(view, tableId, { through: throughRowId })) {
    out.push({
      key: kv.key,
      record: decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row"),
    });
  }
  return out;
}

/** A flush run: the row versions in the order the file holds them, and the row id the flush goes through. */
export interface FlushRunResult {
  /** Row by row in row-id order, each row's versions by begin snapshot (stock DuckLake's order). */
  rows: InlineRowRecord[];
  throughRowId: number;
}

/**
 * Builds the plan's run from the keys of a scan from the floor (fed in key order, through `offer`):
 * whole rows of consecutive row ids, every version written at or after `shapeSince` (the newest column
 * version: older rows have another shape and stay inlined), at most `maxKeys` keys — except that a first
 * row with more versions than that is taken whole, else its table could never flush (a row's versions are
 * bounded by MAX_INLINED_ROWS_PER_TABLE, as every inlined key is). Because the run starts at the floor,
 * ends at a row boundary and skips nothing, its keys are exactly `flushCoveredRows(throughRowId)`.
 */
export class FlushRun {
  private readonly rows: InlineRowRecord[] = [];
  /** The keys of the row being read (its own key, then its earlier versions). */
  private pending: InlineRowRecord[] = [];
  private done = false;

  constructor(
    private readonly shapeSince: number,
    private readonly maxKeys: number,
  ) {}

  /** True once the run is complete: later keys are not its. */
  get ended(): boolean {
    return this.done;
  }

  /** Offers the scan's next key; returns false once the run has ended (the key is not in it). */
  offer(r: InlineRowRecord): boolean {
    if (this.done) return false;
    const current = this.pending[0];
    if (current !== undefined && r.row_id === current.row_id) {
      this.pending.push(r);
      return true;
    }
    // A new row id: the row before it is complete.
    this.closeRow();
    if (this.done) return false;
    const prev = this.rows.at(-1);
    if (prev !== undefined && r.row_id !== prev.row_id + 1) {
      this.done = true;
      return false;
    }
    this.pending = [r];
    return true;
  }

  /** The run, once the scan ended or the run did; null when not even the floor's row may flush. */
  finish(): FlushRunResult | null {
    if (!this.done) this.closeRow();
    this.done = true;
    const last = this.rows.at(-1);
    return last === undefined ? null : { rows: this.rows, throughRowId: last.row_id };
  }

  private closeRow(): void {
    const row = this.pending;
    this.pending = [];
    if (row.length === 0) return;
    const oldShape = row.some((v) => v.begin_snapshot < this.shapeSince);
    const fits = this.rows.length === 0 || this.rows.length + row.length <= this.maxKeys;
    if (oldShape || !fits) {
      this.done = true;
      return;
    }
    row.sort((a, b) => a.begin_snapshot - b.begin_snapshot);
    this.rows.push(...row);
    if (this.rows.length >= this.maxKeys) this.done = true;
  }
}
