/**
 * Cost, asserted by counting R2 calls on a 100k-key table in real R2: point reads, scans, the bloom
 * filter and the open path. Bounds are stated in the test names.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LruCache } from "../../../storage/cache.ts";
import { DEFAULT_BLOCK_BYTES } from "../../../storage/sst/builder.ts";
import { ReadCounters } from "../../../storage/sst/counters.ts";
import { MAX_COALESCE_BLOCKS, SCAN_READAHEAD, SstReader } from "../../../storage/sst/reader.ts";
import { type SstInfo, writeSst } from "../../../storage/sst/writer.ts";
import { bucket, collect, numberedEntries, te } from "./helpers.ts";

const N = 100_000;
const key = (i: number) => te(`k/${String(i).padStart(8, "0")}`);
let info: SstInfo;

/** Deterministic spread of indexes over [0, N). */
const spread = (count: number, salt: number): number[] =>
  Array.from({ length: count }, (_, j) => (j * 7919 + salt * 104729) % N);

beforeAll(async () => {
  info = await writeSst(bucket, { lake: "cost", epoch: 1, id: 1 }, numberedEntries(N, "k/", 11));
});

describe("sorted table cost on 100k keys", () => {
  it("the table is many blocks of at most the target size", () => {
    expect(info.entries).toBe(N);
    expect(info.blocks).toBeGreaterThan(100);
    expect(info.metaOffset / info.blocks).toBeLessThanOrEqual(DEFAULT_BLOCK_BYTES);
  });

  it("a point read costs exactly 1 GET after open, and a cold open + read 2 GETs (open from SstInfo)", async () => {
    const counters = new ReadCounters();
    const reader = await SstReader.open(bucket, info.key, {
      counters,
      size: info.size,
      metaOffset: info.metaOffset,
    });
    expect(counters.r2Gets).toBe(1);
    for (const i of spread(200, 1)) {
      const before = counters.snapshot();
      const got = await reader.get(key(i));
      expect(got?.key).toEqual(key(i));
      expect(counters.r2Gets - before.r2Gets).toBe(1);
      expect(counters.bytesRead - before.bytesRead).toBeLessThanOrEqual(DEFAULT_BLOCK_BYTES);
    }
    for (const i of spread(10, 2)) {
      const cold = new ReadCounters();
      const r = await SstReader.open(bucket, info.key, {
        counters: cold,
        size: info.size,
        metaOffset: info.metaOffset,
      });
      await r.get(key(i));
      expect(cold.r2Gets).toBe(2);
    }
  });

  it("an open without SstInfo costs 2 GETs here (64 KiB suffix, then the rest of the metadata)", async () => {
    expect(info.size - info.metaOffset).toBeGreaterThan(64 * 1024);
    const counters = new ReadCounters();
    const reader = await SstReader.open(bucket, info.key, { counters });
    expect(counters.r2Gets).toBe(2);
    expect(counters.bytesRead).toBe(info.size - info.metaOffset);
    expect(reader.metaOffset).toBe(info.metaOffset);
  });

  it("with a cache, a second read of the same block and a reopen cost 0 GETs", async () => {
    const cache = new LruCache(8 << 20);
    const counters = new ReadCounters();
    const a = await SstReader.open(bucket, info.key, { counters, cache });
    await a.get(key(500));
    const gets = counters.r2Gets;
    const b = await SstReader.open(bucket, info.key, { counters, cache });
    expect((await b.get(key(501)))?.key).toEqual(key(501));
    expect(counters.r2Gets).toBe(gets);
  });

  it("missing keys inside the key range cost ≤ 3% GETs (bloom ~0.8%); outside it 0 GETs", async () => {
    const counters = new ReadCounters();
    const reader = await SstReader.open(bucket, info.key, {
      counters,
      size: info.size,
      metaOffset: info.metaOffset,
    });
    counters.reset();
    const lookups = 3000;
    for (const i of spread(lookups, 3)) {
      expect(await reader.get(te(`k/${String(i).padStart(8, "0")}-missing`))).toBeUndefined();
    }
    expect(counters.r2Gets).toBeLessThanOrEqual(lookups * 0.03);
    for (const k of ["a", "k/", "k/99999999", "z"]) expect(await reader.get(te(k))).toBeUndefined();
    expect(counters.r2Gets).toBeLessThanOrEqual(lookups * 0.03);
  });

  it("a 100k-key scan without coalescing holds at most 2 blocks (1 without readahead) and GETs each block once", async () => {
    for (const readahead of [1, 0]) {
      const counters = new ReadCounters();
      const reader = await SstReader.open(bucket, info.key, { counters, readahead, coalesceBlocks: 1 });
      counters.reset();
      let n = 0;
      for await (const _ of reader.scan({})) n++;
      expect(n).toBe(N);
      expect(counters.maxBlocksResident).toBe(readahead + 1);
      expect(counters.blocksResident).toBe(0);
      expect(counters.r2Gets).toBe(info.blocks);
    }
  });

  it("a 100k-key scan with the layers' settings coalesces blocks into few range GETs, bounded in memory", async () => {
    const counters = new ReadCounters();
    const reader = await SstReader.open(bucket, info.key, {
      counters,
      readahead: SCAN_READAHEAD,
      coalesceBlocks: MAX_COALESCE_BLOCKS,
    });
    counters.reset();
    let n = 0;
    for await (const _ of reader.scan({})) n++;
    expect(n).toBe(N);
    expect(counters.blocksRead).toBe(info.blocks);
    // Requests of 1, 2, 4, then 8 blocks: one GET per 8 blocks once the scan is long.
    expect(counters.r2Gets).toBeLessThanOrEqual(Math.ceil(info.blocks / MAX_COALESCE_BLOCKS) + 3);
    expect(counters.maxBlocksResident).toBeLessThanOrEqual((1 + SCAN_READAHEAD) * MAX_COALESCE_BLOCKS);
    expect(counters.blocksResident).toBe(0);
  });

  it("a 1k-key range scan costs ≤ 6 GETs and returns exactly the range", async () => {
    const counters = new ReadCounters();
    const reader = await SstReader.open(bucket, info.key, {
      counters,
      size: info.size,
      metaOffset: info.metaOffset,
    });
    counters.reset();
    const got = await collect(reader.scan({ start: key(40_000), limit: 1000 }));
    expect(got.length).toBe(1000);
    expect(got[0]?.key).toEqual(key(40_000));
    expect(got[999]?.key).toEqual(key(40_999));
    expect(counters.r2Gets).toBeLessThanOrEqual(6);
    counters.reset();
    const prefixed = await collect(reader.scan({ prefix: te("k/0007") }));
    expect(prefixed.length).toBe(10_000);
    expect(counters.maxBlocksResident).toBeLessThanOrEqual(2);
  });
});
