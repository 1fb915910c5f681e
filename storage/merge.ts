/**
 * The k-way merge of sorted layers, newest first: for each key the entry from the lowest-index source
 * wins and the older ones are skipped. Tombstones (`value: undefined`) are kept by `mergeNewestFirst` so
 * compaction can carry them; `visibleEntries` drops them for reads. Read path and compaction share this.
 */
import type { Bytes, KeyValue, SortedEntry } from "./api.ts";
import { compareBytes } from "./bytes.ts";
import { yieldToEventLoop } from "./maintenance.ts";

/**
 * A scan gives the event loop a macrotask turn after every this many entries it steps over, visible or
 * tombstones (docs/decisions/0181-scan-yields.md). A commit's own scans (a table's columns, a few records)
 * stay far below it and never pause; a walk over the tombstones an inlined-row flush leaves behind is cut
 * into stretches of this many entries, a few milliseconds each.
 */
export const SCAN_YIELD_EVERY_ENTRIES = 4096;

/**
 * The turn a scan takes every `SCAN_YIELD_EVERY_ENTRIES` entries: in production always `yieldToEventLoop`
 * (a macrotask); a parameter so a test can count the turns instead of racing a timer against the scan.
 */
export type ScanPause = () => Promise<void>;

interface Head {
  entry: SortedEntry;
  source: number;
  it: AsyncIterator<SortedEntry>;
}

/** Heap order: smaller key first; on equal keys the newer (lower-index) source first. */
function less(a: Head, b: Head): boolean {
  const c = compareBytes(a.entry.key, b.entry.key);
  return c < 0 || (c === 0 && a.source < b.source);
}

class MinHeap {
  readonly items: Head[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): Head | undefined {
    return this.items[0];
  }
  push(h: Head): void {
    const a = this.items;
    a.push(h);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): Head | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Merges sources that are each sorted by key with unique keys. `sources[0]` is the newest. Yields one
 * entry per key (the newest), tombstones included. Sources are pulled lazily; iterators are closed when
 * the consumer stops early.
 */
export async function* mergeNewestFirst(
  sources: readonly AsyncIterable<SortedEntry>[],
): AsyncGenerator<SortedEntry> {
  const heap = new MinHeap();
  const its: AsyncIterator<SortedEntry>[] = [];
  try {
    for (const src of sources) its.push(src[Symbol.asyncIterator]());
    // Every source's first entry at once: cold, each may cost a metadata and a block GET, and waiting for
    // them one after another would make a scan's first round trips as many as its layers.
    const firsts = await Promise.all(its.map((it) => it.next()));
    firsts.forEach((r, s) => {
      if (!r.done) heap.push({ entry: r.value, source: s, it: its[s] as AsyncIterator<SortedEntry> });
    });
    let lastKey: Bytes | undefined;
    while (heap.size > 0) {
      const h = heap.pop()!;
      if (lastKey === undefined || compareBytes(h.entry.key, lastKey) !== 0) {
        lastKey = h.entry.key;
        yield h.entry;
      }
      const r = await h.it.next();
      if (!r.done) heap.push({ entry: r.value, source: h.source, it: h.it });
    }
  } finally {
    await Promise.all(its.map((it) => it.return?.()));
  }
}

/** Drops tombstones and stops after `limit` live entries, pausing every `SCAN_YIELD_EVERY_ENTRIES` entries. */
export async function* visibleEntries(
  entries: AsyncIterable<SortedEntry>,
  limit?: number,
  pause: ScanPause = yieldToEventLoop,
): AsyncGenerator<KeyValue> {
  if (limit !== undefined && limit <= 0) return;
  let n = 0;
  let walked = 0;
  for await (const e of entries) {
    // A walk over memtable entries and cached blocks resolves only microtasks, so without this turn a scan
    // stepping over many tombstones held the event loop (and every commit) until it ended
    // (docs/decisions/0181-scan-yields.md).
    if (++walked % SCAN_YIELD_EVERY_ENTRIES === 0) await pause();
    if (e.value === undefined) continue;
    yield { key: e.key, value: e.value };
    if (limit !== undefined && ++n >= limit) return;
  }
}
