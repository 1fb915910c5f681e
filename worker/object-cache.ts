/**
 * The Worker's immutable-object cache: an in-isolate LRU in front of the Workers cache (`caches.default`).
 * Every key names bytes that never change (manifests, WAL segments, table blocks, checkpoint descriptors),
 * so entries never need invalidation; the head lookup never comes here (storage/ guarantees that).
 *
 * One exception bounds every entry's life: a deleted lake's name can be created again once its objects
 * are removed, and the new lake reuses the same keys. Entries therefore live at most CACHE_LIFETIME_MS,
 * which the lake writer's deletion grace period (24 h) comfortably exceeds.
 */
import type { Bytes } from "../storage/api.ts";
import { LruCache, type ObjectCache } from "../storage/cache.ts";

/** 32 MiB per isolate: a few lakes' manifests, tails and hot blocks, well inside a Worker's 128 MB. */
const ISOLATE_BYTES = 32 * 1024 * 1024;
/** Objects above this skip the Workers cache (one small PUT per object is the point). */
const EDGE_MAX_BYTES = 8 * 1024 * 1024;
const EDGE_ORIGIN = "https://object-cache.ducklake-edge.internal/";
export const CACHE_LIFETIME_MS = 60 * 60 * 1000;

const isolate = new LruCache(ISOLATE_BYTES);

class EdgeCache implements ObjectCache {
  constructor(private readonly cache: Cache) {}

  private url(key: string): string {
    return EDGE_ORIGIN + encodeURIComponent(key);
  }

  async get(key: string): Promise<Bytes | undefined> {
    const hit = await this.cache.match(this.url(key));
    return hit ? new Uint8Array(await hit.arrayBuffer()) : undefined;
  }

  async put(key: string, value: Bytes): Promise<void> {
    if (value.byteLength > EDGE_MAX_BYTES) return;
    const res = new Response(value, {
      headers: {
        "cache-control": `public, max-age=${CACHE_LIFETIME_MS / 1000}`,
        "content-type": "application/octet-stream",
      },
    });
    await this.cache.put(this.url(key), res);
  }
}

class TwoTier implements ObjectCache {
  constructor(
    private readonly near: LruCache,
    private readonly far: ObjectCache | undefined,
  ) {}

  /** Isolate entries are keyed by the lifetime window they were stored in, so older ones stop matching. */
  private nearKey(key: string): string {
    return `${Math.floor(Date.now() / CACHE_LIFETIME_MS)}:${key}`;
  }

  async get(key: string): Promise<Bytes | undefined> {
    const near = this.near.getSync(this.nearKey(key));
    if (near !== undefined || !this.far) return near;
    const far = await this.far.get(key).catch(() => undefined);
    if (far !== undefined) this.near.putSync(this.nearKey(key), far);
    return far;
  }

  async put(key: string, value: Bytes): Promise<void> {
    this.near.putSync(this.nearKey(key), value);
    // The edge cache is best effort: a failed put costs a later GET, never correctness.
    await this.far?.put(key, value).catch(() => undefined);
  }
}

/** The cache reads use; `caches.default` when the runtime has it. */
export function workerObjectCache(): ObjectCache {
  const edge = typeof caches !== "undefined" ? new EdgeCache(caches.default) : undefined;
  return new TwoTier(isolate, edge);
}
