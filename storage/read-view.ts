/**
 * A consistent cut: a frozen memtable clone plus the sorted layers beneath it at the moment the cut was
 * taken, merged newest first. The store hands these out from `snapshot()`; transactions read through one.
 */
import type {
  Bytes,
  KeyValue,
  Position,
  PrefetchRange,
  ReadView,
  ScanRange,
  SortedEntry,
  SortedSource,
} from "./api.ts";
import { rangeBounds } from "./bytes.ts";
import type { LazyTable } from "./layers.ts";
import { asAsync, type MemTree, memEntries } from "./memtable.ts";
import { mergeNewestFirst, visibleEntries } from "./merge.ts";
import { openAll, prefetchLayers } from "./prefetch.ts";

export class Cut implements ReadView {
  constructor(
    readonly position: Position,
    private readonly mem: MemTree,
    /** Newest first. */
    private readonly layers: readonly SortedSource[],
    /**
     * Tables to open with the cut's first read (a reader's `prefetchTables`), all at once by a first get
     * or scan; a first prefetch opens the tables its ranges reach, then only as many of the rest as its
     * fence windows leave connections for (docs/decisions/0184-cold-round-packing.md).
     */
    private warm: readonly LazyTable[] = [],
  ) {}

  /** The warm tables, handed out once (to the first read). */
  private takeWarm(): readonly LazyTable[] {
    const w = this.warm;
    this.warm = [];
    return w;
  }

  async get(key: Bytes): Promise<Bytes | undefined> {
    const e = await this.lookup(key);
    return e?.value;
  }

  /** The newest entry for `key` across layers, tombstones included; undefined when no layer knows it. */
  async lookup(key: Bytes): Promise<SortedEntry | undefined> {
    openAll(this.takeWarm());
    const v = this.mem.get(key);
    if (v !== undefined) return { key, value: v ?? undefined };
    // Open every layer that may hold the key at once (one round of metadata GETs, cold), then look newest
    // first: with several L0 tables and runs, opening them one after another would cost a round each.
    if (this.layers.length > 1) {
      await Promise.all(this.layers.map((l) => l.prepare?.(key).catch(() => {})));
    }
    for (const layer of this.layers) {
      const e = await layer.get(key);
      if (e !== undefined) return e;
    }
    return undefined;
  }

  /** Fetches the blocks reads of `ranges` will need, together (storage/prefetch.ts); only a hint. */
  prefetch(ranges: readonly PrefetchRange[]): Promise<void> {
    // The first hint opens the tables it reaches, then the warm ones in the connections left over.
    return prefetchLayers(this.layers, ranges, { warm: this.takeWarm() });
  }

  scan(range: ScanRange): AsyncIterable<KeyValue> {
    return visibleEntries(this.entries(range), range.limit);
  }

  /** Merged entries within the range (limit ignored), tombstones included. */
  entries(range: ScanRange): AsyncIterable<SortedEntry> {
    openAll(this.takeWarm());
    const b = rangeBounds(range);
    const mem = asAsync(memEntries(this.mem, b));
    if (this.layers.length === 0) return mem;
    const unlimited: ScanRange = { ...range, limit: undefined };
    return mergeNewestFirst([mem, ...this.layers.map((l) => l.scan(unlimited))]);
  }
}
