/**
 * A block's checksum runs once per byte array that enters the isolate (storage/sst/verified-blocks.ts,
 * docs/decisions/0185-verified-blocks.md): hits on the in-memory LRU return the very bytes already checked
 * and skip it; bytes from anywhere else (R2, a cache that hands back copies) are always checked, and a
 * corrupted copy is refused. Counted with ReadCounters.blockChecksums, never timed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Bytes } from "../../../storage/api.ts";
import { LruCache, type ObjectCache } from "../../../storage/cache.ts";
import { Corruption } from "../../../storage/errors.ts";
import { ReadCounters } from "../../../storage/sst/counters.ts";
import { SstReader } from "../../../storage/sst/reader.ts";
import { type SstInfo, writeSst } from "../../../storage/sst/writer.ts";
import { bucket, numberedEntries, te } from "./helpers.ts";

const N = 5_000;
const HITS = 50;
const key = (i: number): Bytes => te(`k/${String(i).padStart(8, "0")}`);
let info: SstInfo;

beforeAll(async () => {
  info = await writeSst(bucket, { lake: "verified-blocks", epoch: 1, id: 1 }, numberedEntries(N));
});

const openWith = (counters: ReadCounters, cache?: ObjectCache): Promise<SstReader> =>
  SstReader.open(bucket, info.key, {
    counters,
    size: info.size,
    metaOffset: info.metaOffset,
    ...(cache ? { cache } : {}),
  });

/** An ObjectCache like the Workers cache: what it returns is a copy, never the bytes it was given. */
class CopyingCache implements ObjectCache {
  readonly map = new Map<string, Bytes>();
  async get(k: string): Promise<Bytes | undefined> {
    const v = this.map.get(k);
    return v === undefined ? undefined : v.slice();
  }
  async put(k: string, value: Bytes): Promise<void> {
    this.map.set(k, value.slice());
  }
}

describe("block checksums", () => {
  it("run once for N hits of one block through the in-memory LRU, across readers sharing it", async () => {
    const cache = new LruCache(8 * 1024 * 1024);
    const counters = new ReadCounters();
    for (let i = 0; i < HITS; i++) {
      // A new reader each time (the writer's reopenings, a reader per request): only the cache is shared.
      const reader = await openWith(counters, cache);
      expect((await reader.get(key(123)))?.value).toEqual(te(`value-123-${"x".repeat(123 % 40)}`));
    }
    expect(counters.r2Gets).toBe(2); // the metadata and the block, once each
    expect(counters.cacheHits).toBeGreaterThanOrEqual(HITS - 1);
    expect(counters.blockChecksums).toBe(1);
    expect(counters.blockChecksumsSkipped).toBe(HITS - 1);
  });

  it("run on every read of bytes from outside: each R2 GET, each copy another cache hands back", async () => {
    const fromR2 = new ReadCounters();
    for (let i = 0; i < 5; i++) await (await openWith(fromR2)).get(key(7));
    expect(fromR2.r2Gets).toBe(10);
    expect(fromR2.blockChecksums).toBe(5);
    expect(fromR2.blockChecksumsSkipped).toBe(0);

    const copies = new CopyingCache();
    const counters = new ReadCounters();
    for (let i = 0; i < 5; i++) await (await openWith(counters, copies)).get(key(7));
    expect(counters.blockChecksums).toBe(5);
    expect(counters.blockChecksumsSkipped).toBe(0);
  });

  it("refuse a corrupted copy from a cache, however often the original passed", async () => {
    const copies = new CopyingCache();
    const counters = new ReadCounters();
    await (await openWith(counters, copies)).get(key(9));
    const blockKey = [...copies.map.keys()].find((k) => !k.endsWith("#meta")) as string;
    const bad = (copies.map.get(blockKey) as Bytes).slice();
    bad[3] = (bad[3] as number) ^ 0xff;
    copies.map.set(blockKey, bad);
    await expect((await openWith(counters, copies)).get(key(9))).rejects.toThrow(Corruption);
    await expect((await openWith(counters, copies)).get(key(9))).rejects.toThrow(
      /checksum mismatch in cached copy/,
    );
  });
});
