/**
 * A pluggable cache for immutable objects and byte ranges of them (sorted-table metadata and blocks;
 * later, manifests and WAL segments). Keys name immutable bytes — an object key plus a range — so an
 * entry never goes stale and needs no invalidation. The one mutable thing in the store, the head lookup
 * (the newest WAL segment / manifest), must never go through this cache: caching it would let a reader
 * miss commits silently. The interface is async so the Worker can later plug in the Workers cache.
 */
import type { Bytes } from "./api.ts";

export interface ObjectCache {
  /** The cached bytes, or undefined. Callers must not mutate what they get. */
  get(key: string): Promise<Bytes | undefined>;
  /** Stores bytes under a key that names immutable content. The cache may decline (too large). */
  put(key: string, value: Bytes): Promise<void>;
}

export interface LruStats {
  hits: number;
  misses: number;
  evictions: number;
  entries: number;
  bytes: number;
}

/**
 * In-memory LRU bounded by the total bytes it holds. An entry larger than the whole budget is not
 * cached. Map iteration order is insertion order, so the first key is always the least recently used.
 */
export class LruCache implements ObjectCache {
  private readonly map = new Map<string, Bytes>();
  private held = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(readonly maxBytes: number) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0)
      throw new RangeError(`maxBytes must be >= 0, got ${maxBytes}`);
  }

  async get(key: string): Promise<Bytes | undefined> {
    return this.getSync(key);
  }

  async put(key: string, value: Bytes): Promise<void> {
    this.putSync(key, value);
  }

  getSync(key: string): Bytes | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.map.delete(key);
    this.map.set(key, v);
    this.hits++;
    return v;
  }

  putSync(key: string, value: Bytes): void {
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      this.held -= old.byteLength;
    }
    if (value.byteLength > this.maxBytes) return;
    this.map.set(key, value);
    this.held += value.byteLength;
    for (const [k, v] of this.map) {
      if (this.held <= this.maxBytes) break;
      this.map.delete(k);
      this.held -= v.byteLength;
      this.evictions++;
    }
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  stats(): LruStats {
    return {
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      entries: this.map.size,
      bytes: this.held,
    };
  }
}
