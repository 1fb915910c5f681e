/**
 * The sorted layers a manifest names, as `SortedSource`s ready to merge beneath a memtable or WAL tail.
 * Shared by the writer (after open, memtable flush and compaction) and the stateless readers.
 *
 * Opening is lazy: no bucket call happens here. A table's metadata is fetched (one exact range GET, or
 * none when `cache` holds it) the first time a read falls inside its key range, so reopening costs no
 * table GETs and a point read touches only tables whose [minKey, maxKey] contains the key.
 */
import type { Bucket, Bytes, ScanRange, SortedEntry, SortedSource } from "./api.ts";
import { compareBytes, rangeBounds } from "./bytes.ts";
import type { ObjectCache } from "./cache.ts";
import type { Manifest } from "./manifest.ts";
import { ReadCounters } from "./sst/counters.ts";
import type { ByteWindow } from "./sst/fences.ts";
import { MAX_COALESCE_BLOCKS, SCAN_READAHEAD, SstReader } from "./sst/reader.ts";
import { assertRunsDisjoint, manifestTables, runsOf, type TableRef } from "./table-record.ts";

export interface LayerOptions {
  /** Holds table metadata and blocks by immutable key (shared across reopenings to save GETs). */
  cache?: ObjectCache;
  /** Where GETs, bytes and resident blocks are counted. */
  counters?: ReadCounters;
  /**
   * Bytes of blocks `prefetch` may hold for these layers' reads (storage/prefetch.ts), shared by every
   * table of the cut. Omitted (the writer): prefetch does nothing, so a long-lived writer holds no
   * prefetched blocks.
   */
  prefetchBytes?: number;
}

/** What is left of one cut's prefetch allowance (LayerOptions.prefetchBytes). */
export interface PrefetchBudget {
  left: number;
}

/**
 * The layers of `manifest`, newest first: each L0 table (newest → oldest), then each sorted run (newest →
 * oldest), a run's partitions as ONE layer (they do not overlap, so a read consults at most one of them). Put the
 * memtable / WAL tail in front of these when merging. Never does I/O itself; Corruption if a record is
 * malformed or the run's partitions overlap.
 */
export function layersFromManifest(
  bucket: Bucket,
  lake: string,
  manifest: Manifest,
  options: LayerOptions = {},
): SortedSource[] {
  const counters = options.counters ?? new ReadCounters();
  const { l0, run } = manifestTables(lake, manifest.sortedTables);
  const budget: PrefetchBudget | undefined =
    options.prefetchBytes === undefined ? undefined : { left: options.prefetchBytes };
  const open = (t: TableRef): LazyTable => new LazyTable(bucket, t, options.cache, counters, budget);
  const layers: SortedSource[] = l0.map(open);
  // Runs newest first (docs/decisions/0162-tiered-runs.md); within one run, partitions never overlap.
  const runs = runsOf(run);
  assertRunsDisjoint(lake, manifest.version, runs);
  for (const r of runs) layers.push(new RunLayer(r.parts.map(open)));
  return layers;
}

const max = (a: Bytes | undefined, b: Bytes | undefined): Bytes | undefined =>
  a === undefined ? b : b === undefined ? a : compareBytes(a, b) >= 0 ? a : b;

/**
 * Largest table an open fetches whole, metadata and blocks in one GET (docs/decisions/0188-small-tables-whole.md):
 * four 16 KiB blocks, the size of the suffix an open without a manifest's extents reads anyway. L0 tables of
 * single-row commits are ~13 KiB; a whole GET of one costs what its metadata GET costs in round trips.
 */
export const WHOLE_TABLE_BYTES_MAX = 64 * 1024;
/**
 * Largest table a prefetch fetches whole when it wants a fence window but the wave of six connections has
 * none left for it (storage/prefetch.ts): the window's blocks then come in the metadata's own GET instead
 * of a round after it, for at most this many bytes (docs/decisions/0188-small-tables-whole.md). L0 tables
 * of a lake under 16 writers are ~100–250 KiB.
 */
export const WINDOWLESS_WHOLE_BYTES_MAX = 256 * 1024;

/** One table, opened on first use; reads outside its key range (or below `mergedBelow`) never open it. */
export class LazyTable implements SortedSource {
  private reader: Promise<SstReader> | undefined;
  /** The reader once its open resolved (no metadata GET left to overlap). */
  private opened: SstReader | undefined;
  /** Whether the record's fences agree with the index (checked once, when a window is adopted). */
  private fencesOk: boolean | undefined;

  constructor(
    private readonly bucket: Bucket,
    readonly ref: TableRef,
    private readonly cache: ObjectCache | undefined,
    private readonly counters: ReadCounters,
    /** Shared by the cut's tables; undefined: this table is never prefetched. */
    readonly prefetchBudget?: PrefetchBudget,
  ) {}

  /** Whether a read of `range` may find anything here. */
  overlaps(range: ScanRange): boolean {
    const b = rangeBounds(range);
    const lo = max(b.lo, this.ref.mergedBelow);
    if (b.hi !== undefined && compareBytes(b.hi, this.ref.minKey) <= 0) return false;
    if (lo !== undefined && compareBytes(lo, this.ref.maxKey) > 0) return false;
    return !(lo !== undefined && b.hi !== undefined && compareBytes(lo, b.hi) >= 0);
  }

  /** Whether a read of `key` may find anything here. */
  covers(key: Bytes): boolean {
    const r = this.ref;
    return (
      compareBytes(key, r.minKey) >= 0 &&
      compareBytes(key, r.maxKey) <= 0 &&
      (r.mergedBelow === undefined || compareBytes(key, r.mergedBelow) >= 0)
    );
  }

  async get(key: Bytes): Promise<SortedEntry | undefined> {
    if (!this.covers(key)) return undefined;
    return (await this.open()).get(key);
  }

  async prepare(key: Bytes): Promise<void> {
    if (this.covers(key)) await this.open();
  }

  async *scan(range: ScanRange): AsyncIterable<SortedEntry> {
    if (!this.overlaps(range)) return;
    const b = rangeBounds(range);
    const lo = max(b.lo, this.ref.mergedBelow);
    const reader = await this.open();
    yield* reader.scan({
      ...(lo !== undefined ? { start: lo } : {}),
      ...(b.hi !== undefined ? { end: b.hi } : {}),
      ...(range.limit !== undefined ? { limit: range.limit } : {}),
    });
  }

  /**
   * Whether a fence window would still save a round here: the record has fences, and the metadata is
   * neither open nor in the object cache (then the ordinary path is as fast and reads no extra bytes).
   */
  async wantsWindow(): Promise<boolean> {
    if (this.ref.fences === undefined || this.opened !== undefined || this.comesWhole) return false;
    if (this.cache === undefined) return true;
    return (await this.cache.get(`${this.ref.record.key}#meta`)) === undefined;
  }

  /**
   * Whether an open would fetch this table whole (WHOLE_TABLE_BYTES_MAX): its blocks come with the
   * metadata, so a window beside it would only fetch them twice. Needs somewhere to keep the blocks: the
   * cut's prefetch budget or the cache.
   */
  private get comesWhole(): boolean {
    return this.canFetchWhole(WHOLE_TABLE_BYTES_MAX);
  }

  /** Whether a whole fetch of at most `maxBytes` would apply here and its blocks be kept somewhere. */
  private canFetchWhole(maxBytes: number): boolean {
    const r = this.ref.record;
    if (r.size > maxBytes) return false;
    return this.cache !== undefined || (this.prefetchBudget?.left ?? 0) >= r.metaOffset;
  }

  /**
   * Starts the open as a whole fetch of the table (WINDOWLESS_WHOLE_BYTES_MAX) if it has not started and
   * is small enough: for a table a prefetch wants a window in, when no connection is left for the window.
   * Returns whether it did; otherwise the caller leaves the table to the ordinary path.
   */
  openWhole(): boolean {
    if (this.reader !== undefined || !this.canFetchWhole(WINDOWLESS_WHOLE_BYTES_MAX)) return false;
    this.open(WINDOWLESS_WHOLE_BYTES_MAX).catch(() => {});
    return true;
  }

  /** The reader, once its metadata is in hand (undefined before). */
  get openReader(): SstReader | undefined {
    return this.opened;
  }

  /** Whether the table's metadata is in hand. */
  get isOpen(): boolean {
    return this.opened !== undefined;
  }

  /** Whether the table's metadata GET is in flight (a connection in use). */
  get opening(): boolean {
    return this.reader !== undefined && this.opened === undefined;
  }

  /**
   * Fetches `window` of the data region now, beside the metadata GET (started here if need be), and
   * hands it to the reader once open (SstReader.adoptWindow, docs/decisions/0175-block-fences.md).
   * Resolves with the blocks held (0 when anything failed, the fences disagree with the index, or the
   * table could not be opened): a hint, the reads fetch what is missing.
   */
  fetchWindow(window: ByteWindow): Promise<number> {
    const body = SstReader.fetchWindow(this.bucket, this.ref.record.key, window, this.counters);
    body.catch(() => {});
    return this.open().then(
      (reader) => {
        if (this.fencesOk === undefined) {
          this.fencesOk = reader.fencesAgree(this.ref.fences ?? []);
          if (!this.fencesOk) this.counters.fenceMismatches++;
        }
        if (!this.fencesOk) return 0;
        return reader.adoptWindow(window, body);
      },
      () => 0,
    );
  }

  /** Opens the table (once); a table of at most `wholeBytesMax` comes whole, blocks with its metadata. */
  open(wholeBytesMax = WHOLE_TABLE_BYTES_MAX): Promise<SstReader> {
    if (this.reader === undefined) {
      const r = this.ref.record;
      const p = SstReader.open(this.bucket, r.key, {
        size: r.size,
        metaOffset: r.metaOffset,
        counters: this.counters,
        // Long scans (a table's file list) move runs of blocks per GET, several GETs at a time.
        readahead: SCAN_READAHEAD,
        coalesceBlocks: MAX_COALESCE_BLOCKS,
        wholeBytesMax,
        // A cut with a prefetch budget holds a small table's blocks as it holds prefetched ones, paid from
        // the same allowance; the writer's tables keep them in the cache only.
        holdWhole: (bytes) => {
          const budget = this.prefetchBudget;
          if (budget === undefined || budget.left < bytes) return false;
          budget.left -= bytes;
          return true;
        },
        ...(this.cache ? { cache: this.cache } : {}),
      });
      this.reader = p;
      // A transient failure must not stick: the next read tries again.
      p.then(
        (r) => {
          if (this.reader === p) this.opened = r;
        },
        () => {
          if (this.reader === p) this.reader = undefined;
        },
      );
    }
    return this.reader;
  }
}

/** The sorted run: non-overlapping partitions in key order, read as one layer. */
export class RunLayer implements SortedSource {
  constructor(readonly partitions: readonly LazyTable[]) {}

  /** Index of the last partition whose minKey <= key, or -1. */
  private floor(key: Bytes): number {
    let lo = 0;
    let hi = this.partitions.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (compareBytes(this.partitions[mid]!.ref.minKey, key) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  async get(key: Bytes): Promise<SortedEntry | undefined> {
    const p = this.partitions[this.floor(key)];
    return p === undefined ? undefined : p.get(key);
  }

  async prepare(key: Bytes): Promise<void> {
    await this.partitions[this.floor(key)]?.prepare(key);
  }

  async *scan(range: ScanRange): AsyncIterable<SortedEntry> {
    const b = rangeBounds(range);
    let left = range.limit ?? Number.POSITIVE_INFINITY;
    if (left <= 0) return;
    // One partition at a time: a scan holds the blocks of a single table, whatever the range.
    for (let i = b.lo === undefined ? 0 : Math.max(0, this.floor(b.lo)); i < this.partitions.length; i++) {
      const p = this.partitions[i]!;
      if (b.hi !== undefined && compareBytes(p.ref.minKey, b.hi) >= 0) return;
      // An unbounded-count scan will reach the next partition: open it (its metadata GET) meanwhile.
      const next = this.partitions[i + 1];
      if (
        range.limit === undefined &&
        next !== undefined &&
        (b.hi === undefined || compareBytes(next.ref.minKey, b.hi) < 0)
      )
        next.open().catch(() => {});
      for await (const e of p.scan({ ...range, limit: undefined })) {
        yield e;
        if (--left <= 0) return;
      }
    }
  }
}

/**
 * The most tables a reader with `prefetchTables` or an opening writer opens at once (metadata GETs): 12
 * is two rounds of six connections, ~40 KiB each at the default partition size; a cut with more tables
 * is opened lazily, table by table, as reads reach them.
 */
export const PREFETCH_TABLES_MAX = 12;

/** Every table of `layers` (L0 tables and run partitions). */
export function lazyTables(layers: readonly SortedSource[]): LazyTable[] {
  return layers.flatMap((l) =>
    l instanceof LazyTable ? [l] : l instanceof RunLayer ? [...l.partitions] : [],
  );
}
