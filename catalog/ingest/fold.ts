/**
 * The pure half of the flusher's fold (docs/decisions/0311-flusher.md), shared by the verb that applies a
 * flush batch (`row-flush.ts`) and the planner that writes its Parquet file before the commit
 * (`flush-plan.ts`), so both see exactly the same surviving rows in the same order: the file the planner
 * wrote holds row k of the fold at position k, and the verb checks the count before registering it.
 */
import type { InlineValue } from "../records.ts";
import type { LogRecord, RowValues } from "./records.ts";
import { keyText } from "./state.ts";

export interface PendingRow {
  row: RowValues;
  /** Upserts: the key the row is indexed under once it lands. */
  key?: InlineValue[];
}

export interface TableFold {
  /** A truncate or drop tombstone is in the batch: the table's lake rows are emptied first. */
  truncated: boolean;
  /** The rows this batch appends, in log order. */
  kept: PendingRow[];
  /** Keys an upsert or delete replaces that no row of this batch held: the lake row (if any) goes. */
  lakeKeys: InlineValue[][];
}

/** Folds one table's records of a batch (sequence order): last write in log order wins. */
export function foldTable(records: readonly LogRecord[]): TableFold {
  let from = 0;
  let truncated = false;
  records.forEach((r, i) => {
    if (r.kind === "truncate" || r.kind === "drop") {
      from = i + 1;
      truncated = true;
    }
  });
  const pending: (PendingRow | null)[] = [];
  const pendingByKey = new Map<string, number>();
  const lakeLooked = new Set<string>();
  const lakeKeys: InlineValue[][] = [];
  for (const r of records.slice(from)) {
    if (r.kind === "insert") {
      pending.push({ row: r.row ?? {} });
      continue;
    }
    const key = r.key ?? [];
    const kt = keyText(key);
    const at = pendingByKey.get(kt);
    if (at !== undefined) {
      pending[at] = null;
      pendingByKey.delete(kt);
    } else if (!lakeLooked.has(kt)) {
      // Once per key: a later record of the same key finds the row this batch appended instead.
      lakeLooked.add(kt);
      if (!truncated) lakeKeys.push(key);
    }
    if (r.kind === "upsert") {
      pendingByKey.set(kt, pending.length);
      pending.push({ row: r.row ?? {}, key });
    }
  }
  return { truncated, kept: pending.filter((p): p is PendingRow => p !== null), lakeKeys };
}

/** Groups a batch's records by table, each list in sequence order. */
export function byTable(records: readonly LogRecord[]): Map<number, LogRecord[]> {
  const out = new Map<number, LogRecord[]>();
  for (const r of records) {
    const list = out.get(r.table_id);
    if (list) list.push(r);
    else out.set(r.table_id, [r]);
  }
  return out;
}
