/**
 * Reads one sorted table from the bucket as a SortedSource.
 *
 * Open fetches the metadata region (index, bloom filter, properties, footer) once: with the size and
 * metaOffset a manifest records it is one exact range GET; without them one suffix GET of `tailBytes`
 * usually covers it, and a second GET fetches only the part of the index the tail missed. The region is
 * parsed once per reader and cached as bytes in the optional ObjectCache, so a reopen can cost 0 GETs.
 *
 * A point read checks the key range, then the bloom filter, then the index, and range-GETs exactly one
 * block (or none). A scan walks blocks forward, holding the current block and at most `readahead`
 * prefetched ones. Every block passes its checksum before it is decoded (verified-blocks.ts): bytes from
 * R2, a prefetch or a fence window always; a block the in-memory cache hands back as the very bytes this
 * isolate already checked, not again.
 */

import type {
  Bucket,
  BucketRange,
  Bytes,
  PrefetchRange,
  ScanRange,
  SortedEntry,
  SortedSource,
} from "../api.ts";
import { compareBytes, rangeBounds } from "../bytes.ts";
import type { ObjectCache } from "../cache.ts";
import { Corruption } from "../errors.ts";
import { BlockCursor } from "./block.ts";
import { type BlockIndex, decodeIndex } from "./block-index.ts";
import { Bloom } from "./bloom.ts";
import { ReadCounters } from "./counters.ts";
import { crc32c } from "./crc32c.ts";
import { SstNotFound } from "./errors.ts";
import type { ByteWindow, Fence } from "./fences.ts";
import { decodeFooter, FOOTER_BYTES, type Footer, type Section } from "./footer.ts";
import { decodeProps, type Props } from "./props.ts";
import { checkedBlock } from "./verified-blocks.ts";

/** Default suffix fetched by an open that does not know the metadata size: covers ~40k keys' bloom. */
export const DEFAULT_TAIL_BYTES = 64 * 1024;

export interface SstOpenOptions {
  /** Cache for the metadata region and blocks; keys are `<object key>#meta` and `<object key>#<offset>`. */
  cache?: ObjectCache;
  /** Where to count cost; pass one instance to many readers to aggregate. */
  counters?: ReadCounters;
  /** Object size and metadata offset from the manifest's SstInfo: open becomes one exact GET. */
  size?: number;
  metaOffset?: number;
  /** Suffix size for an open without size/metaOffset. */
  tailBytes?: number;
  /**
   * Most requests a scan has in flight beyond the one it is reading, 0..MAX_READAHEAD (default 1; the
   * store's layers use SCAN_READAHEAD). The window starts at one and doubles with every block consumed,
   * so a short scan costs what it did with one block of readahead and a long one keeps several GETs going.
   */
  readahead?: number;
  /**
   * Most consecutive blocks one scan GET fetches, 1..MAX_COALESCE_BLOCKS (default 1; the store's layers
   * use MAX_COALESCE_BLOCKS). A scan's requests start at one block and double as it goes on, so a long
   * scan moves whole runs of blocks per round trip while a short one reads what it did. A scan holds at
   * most (readahead + 1) × coalesceBlocks blocks.
   */
  coalesceBlocks?: number;
  /**
   * Fetch the whole object in one GET when it is at most this many bytes (`size` and `metaOffset` known,
   * metadata not in the cache): metadata and every block in one round trip instead of two
   * (docs/decisions/0188-small-tables-whole.md). Each block is verified and put in the cache; one that
   * fails its checksum is dropped, so the read that needs it fetches it and reports the corruption as
   * before. Default 0: never.
   */
  wholeBytesMax?: number;
  /**
   * Asked once before a whole fetch with the data region's byte count: whether this reader may hold the
   * blocks itself (e.g. charged to a cut's prefetch budget). Without that, and without a cache to put them
   * in, the open fetches the metadata only. Default: no.
   */
  holdWhole?: (dataBytes: number) => boolean;
}

/** Scan readahead of the store's layers: four requests ahead (plus the current) stay under six connections. */
export const SCAN_READAHEAD = 4;
/** Upper bound of `readahead`: the six-connection limit of a Durable Object, less the block being read. */
export const MAX_READAHEAD = 5;
/** Most blocks one coalesced scan GET covers: 8 × 16 KiB = 128 KiB; a layer scan holds ≤ 40 blocks (640 KiB). */
export const MAX_COALESCE_BLOCKS = 8;

export class SstReader implements SortedSource {
  readonly counters: ReadCounters;
  private readonly inflight = new Map<string, Promise<Uint8Array>>();
  /** Blocks fetched by `prefetchRun` (verified on arrival), by block number, for this reader's reads. */
  private readonly resident = new Map<number, Uint8Array>();
  /** Blocks a `prefetchRun` is fetching now: a read of one awaits that GET instead of starting its own. */
  private readonly arriving = new Map<number, Promise<void>>();
  /** Set by `adoptWhole`. */
  private whole = false;

  private constructor(
    private readonly bucket: Bucket,
    readonly key: string,
    private readonly footer: Footer,
    private readonly index: BlockIndex,
    private readonly bloom: Bloom,
    private readonly props: Props,
    private readonly cache: ObjectCache | undefined,
    counters: ReadCounters,
    private readonly readahead: number,
    private readonly coalesce: number,
  ) {
    this.counters = counters;
  }

  static async open(bucket: Bucket, key: string, options: SstOpenOptions = {}): Promise<SstReader> {
    const counters = options.counters ?? new ReadCounters();
    const readahead = options.readahead ?? 1;
    if (!Number.isInteger(readahead) || readahead < 0 || readahead > MAX_READAHEAD)
      throw new RangeError(`readahead must be an integer 0..${MAX_READAHEAD}, got ${readahead}`);
    const coalesce = options.coalesceBlocks ?? 1;
    if (!Number.isInteger(coalesce) || coalesce < 1 || coalesce > MAX_COALESCE_BLOCKS)
      throw new RangeError(`coalesceBlocks must be an integer 1..${MAX_COALESCE_BLOCKS}, got ${coalesce}`);
    const what = `sorted table ${key}`;
    const metaKey = `${key}#meta`;
    let meta: Uint8Array | undefined;
    if (options.cache) {
      meta = await options.cache.get(metaKey);
      if (meta === undefined) counters.cacheMisses++;
      else counters.cacheHits++;
    }
    const fromCache = meta !== undefined;
    // A small table's blocks come with its metadata (wholeBytesMax); `whole` is the object's bytes.
    let whole: Uint8Array | undefined;
    let holdBlocks = false;
    if (meta === undefined) {
      const plan = wholePlan(options);
      if (plan !== undefined) {
        holdBlocks = plan.hold;
        whole = await wholeGet(bucket, key, plan.size, counters, what);
        meta = whole.subarray(plan.metaOffset);
      }
    }
    meta ??= await fetchMeta(bucket, key, options, counters, what);
    const objectSize = footerObjectSize(meta, what);
    if (options.size !== undefined && options.size !== objectSize) {
      throw new Corruption(`${what}: manifest says ${options.size} bytes, footer says ${objectSize}`);
    }
    const footer = decodeFooter(meta, objectSize, what);
    const metaOffset = objectSize - meta.length;
    if (footer.index.offset !== metaOffset) {
      throw new Corruption(`${what}: metadata starts at ${footer.index.offset}, fetched from ${metaOffset}`);
    }
    const section = (s: Section, name: string): Uint8Array => {
      const bytes = meta.subarray(s.offset - metaOffset, s.offset - metaOffset + s.length);
      if (crc32c(bytes) !== s.crc)
        throw new Corruption(`${what}: ${name} checksum mismatch; restore or rebuild it`);
      return bytes;
    };
    const index = decodeIndex(
      section(footer.index, "block index"),
      metaOffset,
      footer.blockCount,
      footer.entries,
      what,
    );
    const bloom = new Bloom(section(footer.bloom, "bloom filter"));
    if (!bloom.valid) throw new Corruption(`${what}: bloom filter header is invalid`);
    const props = decodeProps(section(footer.props, "properties"), what);
    const firstBlock = index.blocks[0];
    const lastBlock = index.blocks[index.length - 1];
    if (
      firstBlock === undefined ||
      lastBlock === undefined ||
      compareBytes(firstBlock.firstKey, props.minKey) !== 0 ||
      compareBytes(lastBlock.lastKey, props.maxKey) !== 0
    ) {
      throw new Corruption(`${what}: key range in properties disagrees with the block index`);
    }
    if (options.cache && !fromCache) await options.cache.put(metaKey, meta);
    const reader = new SstReader(
      bucket,
      key,
      footer,
      index,
      bloom,
      props,
      options.cache,
      counters,
      readahead,
      coalesce,
    );
    if (whole !== undefined) await reader.adoptWhole(whole, holdBlocks);
    return reader;
  }

  /**
   * Takes every block of `whole` (the object's bytes, fetched with its metadata): verified, put in the
   * cache, and held by this reader when `hold`. A block failing its checksum is left out, for the read
   * that needs it to fetch and report.
   */
  private async adoptWhole(whole: Uint8Array, hold: boolean): Promise<void> {
    this.counters.wholeTables++;
    this.whole = true;
    const blocks = this.index.blocks;
    for (let j = 0; j < blocks.length; j++) {
      const h = blocks[j]!;
      const bytes = whole.subarray(h.offset, h.offset + h.length);
      if (!checkedBlock(bytes, this.counters)) continue;
      if (hold) this.resident.set(j, bytes);
      if (this.cache) await this.cache.put(`${this.key}#${h.offset}`, bytes);
    }
  }

  get size(): number {
    return this.footer.objectSize;
  }
  get metaOffset(): number {
    return this.footer.index.offset;
  }
  get entries(): number {
    return this.footer.entries;
  }
  get tombstones(): number {
    return this.footer.tombstones;
  }
  get blocks(): number {
    return this.footer.blockCount;
  }
  get minKey(): Bytes {
    return this.props.minKey;
  }
  get maxKey(): Bytes {
    return this.props.maxKey;
  }

  async get(key: Bytes): Promise<SortedEntry | undefined> {
    if (compareBytes(key, this.props.minKey) < 0 || compareBytes(key, this.props.maxKey) > 0)
      return undefined;
    if (!this.bloom.mayContain(key)) return undefined;
    const i = this.index.blockFor(key);
    if (i < 0) return undefined;
    this.counters.hold();
    try {
      const cursor = new BlockCursor(await this.loadBlock(i), this.blockName(i));
      if (cursor.seek(key) && compareBytes(cursor.key, key) === 0) return cursor.entry();
      return undefined;
    } finally {
      this.counters.release();
    }
  }

  /**
   * Block numbers a read of `range` touches, in order, at most `maxBytes` of them from the range's start
   * (at least one); with `range.last`, only the block holding the last key below the range's end.
   * Blocks already held are included: the caller filters with `holds`.
   */
  blocksIn(range: PrefetchRange, maxBytes: number): number[] {
    const { lo, hi } = rangeBounds(range);
    if (hi !== undefined && compareBytes(hi, this.props.minKey) <= 0) return [];
    if (lo !== undefined && compareBytes(lo, this.props.maxKey) > 0) return [];
    const blocks = this.index.blocks;
    const first = lo === undefined ? 0 : this.index.firstEndingAtOrAfter(lo);
    // End (exclusive): the first block whose first key is at or past hi.
    let end = blocks.length;
    if (hi !== undefined) {
      let a = first;
      let z = blocks.length;
      while (a < z) {
        const mid = (a + z) >>> 1;
        if (compareBytes(blocks[mid]!.firstKey, hi) < 0) a = mid + 1;
        else z = mid;
      }
      end = a;
    }
    if (first >= end) return [];
    if (range.last === true) return [end - 1];
    const out: number[] = [];
    let bytes = 0;
    for (let i = first; i < end; i++) {
      bytes += blocks[i]!.length;
      if (bytes > maxBytes && out.length > 0) break;
      out.push(i);
    }
    return out;
  }

  /** Bytes of block i as stored. */
  blockBytes(i: number): number {
    return this.index.blocks[i]?.length ?? 0;
  }

  /**
   * Whether the open fetched the whole object (SstOpenOptions.wholeBytesMax): every block is held or in
   * the cache already, so a prefetch has nothing to add (one that failed its checksum is the read's).
   */
  get fetchedWhole(): boolean {
    return this.whole;
  }

  /** Whether block i is already held by this reader (prefetched). */
  holds(i: number): boolean {
    return this.resident.has(i);
  }

  /** Whether block i is on its way (a prefetch run or a fence window in flight). */
  fetching(i: number): boolean {
    return this.arriving.has(i);
  }

  /**
   * Fetches blocks first..last with one range GET, verifies each and holds them for this reader's later
   * gets and scans (and puts them in the cache, if any). Who may hold how much: storage/prefetch.ts.
   */
  prefetchRun(first: number, last: number): Promise<void> {
    const p = this.fetchRun(first, last).finally(() => {
      for (let j = first; j <= last; j++) if (this.arriving.get(j) === p) this.arriving.delete(j);
    });
    for (let j = first; j <= last; j++) this.arriving.set(j, p);
    return p;
  }

  private async fetchRun(first: number, last: number): Promise<void> {
    const lo = this.index.blocks[first]!;
    const hi = this.index.blocks[last]!;
    const length = hi.offset + hi.length - lo.offset;
    const body = await rangeGet(this.bucket, this.key, { offset: lo.offset, length }, this.counters);
    if (body.bytes.length !== length || body.size !== this.footer.objectSize) {
      throw new Corruption(
        `${this.blockName(first)}: expected ${length} bytes, got ${body.bytes.length} (object truncated?)`,
      );
    }
    for (let j = first; j <= last; j++) {
      const h = this.index.blocks[j]!;
      const bytes = body.bytes.subarray(h.offset - lo.offset, h.offset - lo.offset + h.length);
      if (!checkedBlock(bytes, this.counters))
        throw new Corruption(`${this.blockName(j)}: checksum mismatch; restore or rebuild the table`);
      this.resident.set(j, bytes);
      if (this.cache) await this.cache.put(`${this.key}#${h.offset}`, bytes);
    }
  }

  /**
   * Fetches a byte window of table `key`'s data region without its metadata (a block fence's window,
   * docs/decisions/0175-block-fences.md), to be handed to `adoptWindow` once the table is open. Counted
   * as a GET of `counters`.
   */
  static fetchWindow(
    bucket: Bucket,
    key: string,
    window: ByteWindow,
    counters: ReadCounters,
  ): Promise<{ bytes: Uint8Array; size: number }> {
    counters.fenceWindows++;
    counters.fenceWindowBytes += window.length;
    return rangeGet(bucket, key, window, counters);
  }

  /**
   * Whether `fences` (from the manifest) agree with this table's index: each names the offset and first
   * key of one of its blocks. A window planned from fences that do not is dropped unused.
   */
  fencesAgree(fences: readonly Fence[]): boolean {
    const blocks = this.index.blocks;
    for (const f of fences) {
      const i = this.firstBlockAtOrAfter(f.offset);
      const b = blocks[i];
      if (b === undefined || b.offset !== f.offset || compareBytes(b.firstKey, f.key) !== 0) return false;
    }
    return true;
  }

  /**
   * Holds every block lying wholly inside `window` once `body` (its bytes, fetched before this reader
   * had its index) arrives: which blocks, and where each starts, come from this reader's own index, and
   * each must pass its checksum, so a window planned from wrong fences can waste bytes but never yields
   * wrong data. A read of such a block meanwhile awaits the window instead of starting its own GET.
   * Resolves (never rejects) once they are held or dropped; returns how many it held.
   */
  adoptWindow(window: ByteWindow, body: Promise<{ bytes: Uint8Array; size: number }>): Promise<number> {
    const blocks = this.index.blocks;
    const end = Math.min(window.offset + window.length, this.metaOffset);
    const inside: number[] = [];
    for (let j = this.firstBlockAtOrAfter(window.offset); j < blocks.length; j++) {
      const h = blocks[j]!;
      if (h.offset + h.length > end) break;
      if (!this.resident.has(j) && !this.arriving.has(j)) inside.push(j);
    }
    if (inside.length === 0) {
      body.catch(() => {});
      return Promise.resolve(0);
    }
    const p = (async (): Promise<number> => {
      let got: { bytes: Uint8Array; size: number };
      try {
        got = await body;
      } catch {
        return 0;
      }
      if (got.size !== this.footer.objectSize || got.bytes.length !== window.length) return 0;
      let held = 0;
      for (const j of inside) {
        const h = blocks[j]!;
        const bytes = got.bytes.subarray(h.offset - window.offset, h.offset - window.offset + h.length);
        if (!checkedBlock(bytes, this.counters)) continue;
        this.resident.set(j, bytes);
        held++;
        if (this.cache) await this.cache.put(`${this.key}#${h.offset}`, bytes).catch(() => {});
      }
      this.counters.fenceBlocksAdopted += held;
      return held;
    })();
    const settled = p.then(() => {});
    for (const j of inside) this.arriving.set(j, settled);
    void settled.finally(() => {
      for (const j of inside) if (this.arriving.get(j) === settled) this.arriving.delete(j);
    });
    return p;
  }

  /** The first block whose offset is ≥ `offset` (== blocks if none). */
  private firstBlockAtOrAfter(offset: number): number {
    const blocks = this.index.blocks;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (blocks[mid]!.offset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** `limit` counts entries yielded, tombstones included. */
  async *scan(range: ScanRange): AsyncIterable<SortedEntry> {
    const limit = range.limit ?? Number.POSITIVE_INFINITY;
    const { lo: lower, hi: upper } = rangeBounds(range);
    if (limit <= 0) return;
    if (lower !== undefined && upper !== undefined && compareBytes(lower, upper) >= 0) return;
    if (upper !== undefined && compareBytes(upper, this.props.minKey) <= 0) return;
    if (lower !== undefined && compareBytes(lower, this.props.maxKey) > 0) return;
    const blocks = this.index.blocks;
    const wanted = (j: number): boolean =>
      j < blocks.length && (upper === undefined || compareBytes(blocks[j]!.firstKey, upper) < 0);
    let held = 0;
    let i = lower === undefined ? 0 : this.index.firstEndingAtOrAfter(lower);
    let emitted = 0;
    // Blocks i, i+1, ... already requested, in order, and the first block of each request still ahead.
    const queue: Promise<Uint8Array>[] = [];
    const starts: number[] = [];
    let requested = i;
    let window = Math.min(1, this.readahead);
    let run = 1;
    const request = (): void => {
      let n = 1;
      while (n < run && wanted(requested + n)) n++;
      for (let k = 0; k < n; k++) this.counters.hold();
      held += n;
      const blocks = this.loadRun(requested, n);
      // A prefetch the consumer abandons must not surface as an unhandled rejection.
      for (const b of blocks) b.catch(() => {});
      queue.push(...blocks);
      starts.push(requested);
      requested += n;
      if (this.readahead > 0) run = Math.min(this.coalesce, run * 2);
    };
    const topUp = (): void => {
      while (starts.length > 0 && (starts[0] as number) <= i) starts.shift();
      if (queue.length === 0 && wanted(requested)) {
        request();
        starts.shift();
      }
      while (starts.length < window && wanted(requested)) request();
    };
    try {
      topUp();
      while (queue.length > 0) {
        const block = await (queue.shift() as Promise<Uint8Array>);
        window = Math.min(this.readahead, Math.max(1, window * 2));
        if (this.readahead > 0) topUp();
        const cursor = new BlockCursor(block, this.blockName(i));
        let ok = lower === undefined ? cursor.next() : cursor.seek(lower);
        while (ok) {
          if (upper !== undefined && compareBytes(cursor.key, upper) >= 0) return;
          yield cursor.entry();
          if (++emitted >= limit) return;
          ok = cursor.next();
        }
        this.counters.release();
        held--;
        i++;
        topUp();
      }
    } finally {
      for (; held > 0; held--) this.counters.release();
    }
  }

  /**
   * Blocks first .. first + count - 1, one promise each: cached blocks from the cache, the rest with one
   * range GET spanning the missing ones (each block verified and cached on its own).
   */
  private loadRun(first: number, count: number): Promise<Uint8Array>[] {
    if (count === 1) return [this.loadBlock(first)];
    const idx = Array.from({ length: count }, (_, k) => first + k);
    const all = (async (): Promise<Uint8Array[]> => {
      this.counters.blocksRead += count;
      const out: (Uint8Array | undefined)[] = await Promise.all(idx.map((j) => this.cachedBlock(j)));
      const missing = idx.filter((_, k) => out[k] === undefined);
      if (missing.length === 0) return out as Uint8Array[];
      const lo = this.index.blocks[missing[0] as number]!;
      const hi = this.index.blocks[missing.at(-1) as number]!;
      const length = hi.offset + hi.length - lo.offset;
      const body = await rangeGet(this.bucket, this.key, { offset: lo.offset, length }, this.counters);
      if (body.bytes.length !== length || body.size !== this.footer.objectSize) {
        throw new Corruption(
          `${this.blockName(missing[0] as number)}: expected ${length} bytes, got ${body.bytes.length} (object truncated?)`,
        );
      }
      for (let k = 0; k < count; k++) {
        if (out[k] !== undefined) continue;
        const h = this.index.blocks[first + k]!;
        const bytes = body.bytes.subarray(h.offset - lo.offset, h.offset - lo.offset + h.length);
        if (!checkedBlock(bytes, this.counters))
          throw new Corruption(
            `${this.blockName(first + k)}: checksum mismatch; restore or rebuild the table`,
          );
        if (this.cache) await this.cache.put(`${this.key}#${h.offset}`, bytes);
        out[k] = bytes;
      }
      return out as Uint8Array[];
    })();
    return idx.map((_, k) => all.then((blocks) => blocks[k] as Uint8Array));
  }

  /** Block j from the cache (verified), or undefined; counts the hit or miss. */
  private async cachedBlock(j: number): Promise<Uint8Array | undefined> {
    await this.arriving.get(j)?.catch(() => {});
    const held = this.resident.get(j);
    if (held !== undefined) return held;
    if (!this.cache) return undefined;
    const hit = await this.cache.get(`${this.key}#${this.index.blocks[j]!.offset}`);
    if (hit === undefined) {
      this.counters.cacheMisses++;
      return undefined;
    }
    this.counters.cacheHits++;
    if (!checkedBlock(hit, this.counters))
      throw new Corruption(`${this.blockName(j)}: checksum mismatch in cached copy`);
    return hit;
  }

  private blockName(i: number): string {
    return `sorted table ${this.key} block ${i}`;
  }

  /** The verified bytes of block i, from the cache or one range GET (concurrent loads share the GET). */
  private async loadBlock(i: number): Promise<Uint8Array> {
    const h = this.index.blocks[i]!;
    const cacheKey = `${this.key}#${h.offset}`;
    this.counters.blocksRead++;
    await this.arriving.get(i)?.catch(() => {});
    const held = this.resident.get(i);
    if (held !== undefined) return held;
    if (this.cache) {
      const hit = await this.cache.get(cacheKey);
      if (hit !== undefined) {
        this.counters.cacheHits++;
        if (!checkedBlock(hit, this.counters))
          throw new Corruption(`${this.blockName(i)}: checksum mismatch in cached copy`);
        return hit;
      }
      this.counters.cacheMisses++;
    }
    let pending = this.inflight.get(cacheKey);
    if (pending === undefined) {
      pending = this.fetchBlock(i, cacheKey).finally(() => this.inflight.delete(cacheKey));
      this.inflight.set(cacheKey, pending);
    }
    return pending;
  }

  private async fetchBlock(i: number, cacheKey: string): Promise<Uint8Array> {
    const h = this.index.blocks[i]!;
    const what = this.blockName(i);
    const body = await rangeGet(this.bucket, this.key, { offset: h.offset, length: h.length }, this.counters);
    if (body.bytes.length !== h.length || body.size !== this.footer.objectSize) {
      throw new Corruption(
        `${what}: expected ${h.length} bytes, got ${body.bytes.length} (object truncated?)`,
      );
    }
    if (!checkedBlock(body.bytes, this.counters))
      throw new Corruption(`${what}: checksum mismatch; restore or rebuild the table`);
    if (this.cache) await this.cache.put(cacheKey, body.bytes);
    return body.bytes;
  }
}

async function rangeGet(
  bucket: Bucket,
  key: string,
  range: BucketRange,
  counters: ReadCounters,
): Promise<{ bytes: Uint8Array; size: number }> {
  counters.r2Gets++;
  const obj = await bucket.get(key, { range });
  if (obj === null) {
    throw new SstNotFound(
      `sorted table ${key} is not in the bucket; if this reader's cut is old, reopen on a newer one`,
    );
  }
  const bytes = new Uint8Array(await obj.arrayBuffer());
  counters.bytesRead += bytes.length;
  return { bytes, size: obj.size };
}

/**
 * A suffix GET that turns R2's "range not satisfiable" on an empty (or vanished) object into the typed
 * answer, at the cost of one HEAD on that error path only.
 */
async function suffixGet(
  bucket: Bucket,
  key: string,
  suffix: number,
  counters: ReadCounters,
  what: string,
): Promise<{ bytes: Uint8Array; size: number }> {
  try {
    return await rangeGet(bucket, key, { suffix }, counters);
  } catch (e) {
    if (e instanceof SstNotFound) throw e;
    counters.r2Heads++;
    const head = await bucket.head(key);
    if (head === null) throw new SstNotFound(`sorted table ${key} is not in the bucket`, { cause: e });
    if (head.size < FOOTER_BYTES) {
      throw new Corruption(`${what}: object is ${head.size} bytes, shorter than the footer (truncated)`, {
        cause: e,
      });
    }
    throw e;
  }
}

/** Whether an open fetches the whole object (SstOpenOptions.wholeBytesMax), and if its reader holds the blocks. */
function wholePlan(options: SstOpenOptions): { size: number; metaOffset: number; hold: boolean } | undefined {
  const { size, metaOffset, wholeBytesMax = 0 } = options;
  if (size === undefined || metaOffset === undefined || size > wholeBytesMax) return undefined;
  if (metaOffset < 0 || metaOffset + FOOTER_BYTES > size) return undefined;
  const hold = options.holdWhole?.(metaOffset) ?? false;
  // Blocks neither held nor cached would be fetched again by the reads: the metadata alone is cheaper.
  if (!hold && options.cache === undefined) return undefined;
  return { size, metaOffset, hold };
}

/** The whole object in one GET (no range: a truncated object answers with what is there, and the size check names it). */
async function wholeGet(
  bucket: Bucket,
  key: string,
  size: number,
  counters: ReadCounters,
  what: string,
): Promise<Uint8Array> {
  counters.r2Gets++;
  const obj = await bucket.get(key);
  if (obj === null) {
    throw new SstNotFound(
      `sorted table ${key} is not in the bucket; if this reader's cut is old, reopen on a newer one`,
    );
  }
  const bytes = new Uint8Array(await obj.arrayBuffer());
  counters.bytesRead += bytes.length;
  if (obj.size !== size || bytes.length !== size)
    throw new Corruption(
      `${what}: manifest says ${size} bytes, the object has ${obj.size} (${bytes.length} read)`,
    );
  return bytes;
}

/** The object size recorded in a footer (validated later by decodeFooter). */
function footerObjectSize(meta: Uint8Array, what: string): number {
  if (meta.length < FOOTER_BYTES) {
    throw new Corruption(
      `${what}: ${meta.length} bytes is shorter than the ${FOOTER_BYTES}-byte footer (truncated)`,
    );
  }
  const dv = new DataView(meta.buffer, meta.byteOffset + meta.length - FOOTER_BYTES + 64, 8);
  return dv.getUint32(4, true) * 0x1_0000_0000 + dv.getUint32(0, true);
}

/** Fetches the metadata region [metaOffset, size): one GET if its extent is known or fits the tail. */
async function fetchMeta(
  bucket: Bucket,
  key: string,
  options: SstOpenOptions,
  counters: ReadCounters,
  what: string,
): Promise<Uint8Array> {
  const { size, metaOffset } = options;
  if (
    size !== undefined &&
    metaOffset !== undefined &&
    metaOffset >= 0 &&
    metaOffset + FOOTER_BYTES <= size
  ) {
    // A suffix rather than an offset range: on a truncated object an offset past the end is a range
    // error, while a suffix still returns what is there and the size check below names the problem.
    const got = await suffixGet(bucket, key, size - metaOffset, counters, what);
    if (got.size !== size)
      throw new Corruption(`${what}: manifest says ${size} bytes, the object has ${got.size}`);
    if (got.bytes.length !== size - metaOffset) throw new Corruption(`${what}: metadata region truncated`);
    return got.bytes;
  }
  const tailBytes = options.tailBytes ?? DEFAULT_TAIL_BYTES;
  const tail = await suffixGet(bucket, key, Math.max(FOOTER_BYTES, tailBytes), counters, what);
  const total = tail.size;
  const tailStart = total - tail.bytes.length;
  if (tailStart < 0 || tail.bytes.length !== Math.min(total, Math.max(FOOTER_BYTES, tailBytes))) {
    throw new Corruption(`${what}: suffix read returned ${tail.bytes.length} bytes of ${total}`);
  }
  const footer = decodeFooter(tail.bytes, total, what);
  const start = footer.index.offset;
  if (start >= tailStart) return tail.bytes.slice(start - tailStart);
  const head = await rangeGet(bucket, key, { offset: start, length: tailStart - start }, counters);
  if (head.bytes.length !== tailStart - start || head.size !== total) {
    throw new Corruption(`${what}: metadata region changed size between reads`);
  }
  const meta = new Uint8Array(total - start);
  meta.set(head.bytes);
  meta.set(tail.bytes, head.bytes.length);
  return meta;
}
