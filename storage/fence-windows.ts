/**
 * Prefetch windows from block fences: for a table whose metadata is not in hand yet, the manifest's
 * fences turn a hinted range into a byte window of its data region, fetched in the same round as the
 * metadata GET instead of the round after it (docs/decisions/0175-block-fences.md). The reader adopts
 * the window's blocks by its real index once open (SstReader.adoptWindow); whatever a window misses is
 * fetched the ordinary way by prefetch.ts.
 *
 * Bounds: a window counts against its range's PREFETCH_RANGE_BYTES_MAX per layer and the cut's prefetch
 * budget like the blocks it stands for; the windows of one call use only the connections the metadata
 * GETs in flight (and the caller's own calls) leave of PREFETCH_CONNECTIONS, windows of one table
 * merging across their smallest gaps first, and past that the last ones are dropped.
 */
import type { Bytes, PrefetchRange } from "./api.ts";
import { compareBytes } from "./bytes.ts";
import { mergeSmallestGaps } from "./gap-merge.ts";
import type { LazyTable, PrefetchBudget } from "./layers.ts";
import { type ByteWindow, fenceWindow } from "./sst/fences.ts";

/** One window to fetch: a table and a byte range of its data region. */
export interface PlannedWindow {
  table: LazyTable;
  window: ByteWindow;
}

const max = (a: Bytes | undefined, b: Bytes | undefined): Bytes | undefined =>
  a === undefined ? b : b === undefined ? a : compareBytes(a, b) >= 0 ? a : b;

/**
 * The windows for `reach` (per range and layer, its tables in key order) over the tables in `windowed`,
 * at most `connections` GETs, each range at most `rangeBytes` per layer, charged to the tables'
 * budgets as planned.
 */
export function planWindows(
  reach: readonly { range: PrefetchRange; tables: readonly LazyTable[] }[],
  windowed: ReadonlySet<LazyTable>,
  connections: number,
  rangeBytes: number,
): PlannedWindow[] {
  if (connections <= 0 || windowed.size === 0) return [];
  const perTable = new Map<LazyTable, ByteWindow[]>();
  for (const { range, tables } of reach) {
    let left = rangeBytes;
    for (const t of tables) {
      if (!windowed.has(t) || left <= 0) continue;
      const start = max(range.start, t.ref.mergedBelow);
      const w = fenceWindow(
        t.ref.fences ?? [],
        t.ref.record.metaOffset,
        start === undefined ? range : { ...range, start },
        left,
      );
      if (w === undefined) continue;
      left -= w.length;
      const list = perTable.get(t) ?? [];
      list.push(w);
      perTable.set(t, list);
    }
  }
  // One table's windows that overlap or touch become one.
  let out: PlannedWindow[] = [];
  for (const [table, list] of perTable) {
    list.sort((a, b) => a.offset - b.offset);
    let cur: ByteWindow | undefined;
    for (const w of list) {
      if (cur !== undefined && w.offset <= cur.offset + cur.length) {
        cur.length = Math.max(cur.length, w.offset + w.length - cur.offset);
        continue;
      }
      cur = { ...w };
      out.push({ table, window: cur });
    }
  }
  out = mergeToFit(out, connections, rangeBytes);
  // Charge the budget (shared by a cut's tables) in range order; a window it cannot pay is cut or dropped.
  const kept: PlannedWindow[] = [];
  for (const p of out) {
    const budget = p.table.prefetchBudget as PrefetchBudget;
    if (budget.left <= 0) continue;
    const length = Math.min(p.window.length, budget.left);
    budget.left -= length;
    kept.push({ table: p.table, window: { offset: p.window.offset, length } });
  }
  return kept;
}

/**
 * Merges windows of one table across their smallest gap (never into one longer than `maxBytes`: a merge
 * must not turn into a read of the whole table) until at most `n` remain, then drops the rest.
 */
function mergeToFit(windows: PlannedWindow[], n: number, maxBytes: number): PlannedWindow[] {
  const out = mergeSmallestGaps(windows, n, {
    gap: (a, b) => {
      if (a.table !== b.table) return undefined;
      if (b.window.offset + b.window.length - a.window.offset > maxBytes) return undefined;
      return b.window.offset - (a.window.offset + a.window.length);
    },
    join: (a, b) => ({
      ...a,
      window: { offset: a.window.offset, length: b.window.offset + b.window.length - a.window.offset },
    }),
  });
  // Different tables cannot share a GET: past the connections left, the remaining windows are not
  // fetched (their ranges take the ordinary path, one round later).
  return out.slice(0, n);
}
