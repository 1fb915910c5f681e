/**
 * Transient R2 failures through the fault-injecting bucket: they surface as the bucket's error (never as
 * Corruption), leave nothing cached or stuck, and the reader's own GET count agrees with the bucket's.
 */
import { describe, expect, it } from "vitest";
import { LruCache } from "../../../storage/cache.ts";
import { Corruption } from "../../../storage/errors.ts";
import { FaultBucket, InjectedFault } from "../../../storage/fault-bucket.ts";
import { ReadCounters } from "../../../storage/sst/counters.ts";
import { SstReader } from "../../../storage/sst/reader.ts";
import { writeSst } from "../../../storage/sst/writer.ts";
import { bucket, collect, numberedEntries, te } from "./helpers.ts";

const key = (i: number) => te(`k/${String(i).padStart(8, "0")}`);

describe("sorted table reads under injected faults", () => {
  it("a failed block GET is the bucket's error, is not cached, and the retry succeeds", async () => {
    const info = await writeSst(bucket, { lake: "faults", epoch: 1, id: 1 }, numberedEntries(3000), {
      blockBytes: 1024,
    });
    const fb = new FaultBucket(bucket);
    const counters = new ReadCounters();
    const cache = new LruCache(1 << 20);
    const reader = await SstReader.open(fb, info.key, {
      counters,
      cache,
      size: info.size,
      metaOffset: info.metaOffset,
    });
    fb.fail({ op: "get", nth: 1 });
    const err = await reader.get(key(1234)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InjectedFault);
    expect(err).not.toBeInstanceOf(Corruption);
    expect((await reader.get(key(1234)))?.key).toEqual(key(1234));
    expect(counters.blocksResident).toBe(0);
    expect(counters.r2Gets).toBe(fb.count({ op: "get" }));
  });

  it("a failed prefetch surfaces in the scan that needs it; an abandoned one is harmless", async () => {
    const info = await writeSst(bucket, { lake: "faults", epoch: 1, id: 2 }, numberedEntries(3000), {
      blockBytes: 1024,
    });
    const fb = new FaultBucket(bucket);
    const reader = await SstReader.open(fb, info.key);
    fb.resetCounters();
    fb.fail({ op: "get", nth: 4 });
    await expect(collect(reader.scan({}))).rejects.toBeInstanceOf(InjectedFault);
    expect(reader.counters.blocksResident).toBe(0);

    // Break after the first entry while block 2's prefetch is failing: nothing leaks or throws later.
    fb.fail({ op: "get", nth: 2 });
    for await (const _ of reader.scan({})) break;
    expect(reader.counters.blocksResident).toBe(0);
    expect((await collect(reader.scan({}))).length).toBe(3000);
  });

  it("reader and bucket agree on GET counts over a mixed workload", async () => {
    const info = await writeSst(bucket, { lake: "faults", epoch: 1, id: 3 }, numberedEntries(5000), {
      blockBytes: 2048,
    });
    const fb = new FaultBucket(bucket);
    const counters = new ReadCounters();
    const reader = await SstReader.open(fb, info.key, { counters, tailBytes: 200 });
    for (let i = 0; i < 5000; i += 97) await reader.get(key(i));
    await collect(reader.scan({ start: key(100), end: key(2100) }));
    await collect(reader.scan({ prefix: te("k/0000"), limit: 10 }));
    expect(counters.r2Gets).toBe(fb.count({ op: "get" }));
    expect(fb.count({ op: ["put", "delete", "list", "head"] })).toBe(0);
  });
});
