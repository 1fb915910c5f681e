/**
 * Round trip against a sorted in-memory model: random maps (binary keys with shared prefixes and 0x00 /
 * 0xff edges, tombstones, empty and oversized values) -> table in real R2 -> point reads and scans with
 * start / end / prefix / limit equal the model. Block size and open path (exact, suffix, suffix + second
 * GET, cached) vary per run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Bytes, ScanRange, SortedEntry } from "../../../storage/api.ts";
import { bytesEqual } from "../../../storage/bytes.ts";
import { LruCache } from "../../../storage/cache.ts";
import { ReadCounters } from "../../../storage/sst/counters.ts";
import { SstReader } from "../../../storage/sst/reader.ts";
import { writeSst } from "../../../storage/sst/writer.ts";
import { assertProperty } from "../../support/property.ts";
import { bucket, collect, modelScan, show, sortedModel } from "./helpers.ts";

const byteArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0x00, 0x01, 0x61, 0x62, 0xfe, 0xff) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) },
);
const keyArb: fc.Arbitrary<Bytes> = fc.array(byteArb, { maxLength: 10 }).map((a) => Uint8Array.from(a));
const valueArb: fc.Arbitrary<Bytes | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.uint8Array({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 300, maxLength: 900 }) },
);
const entriesArb = fc.array(
  fc.record({ key: keyArb, value: valueArb }).map((e): SortedEntry => ({ key: e.key, value: e.value })),
  { minLength: 1, maxLength: 250 },
);
const rangeArb = (keys: readonly Bytes[]): fc.Arbitrary<ScanRange> => {
  const bound = keys.length > 0 ? fc.oneof(keyArb, fc.constantFrom(...keys)) : keyArb;
  return fc.record(
    {
      start: bound,
      end: bound,
      prefix: fc.oneof(
        keyArb.map((k) => k.subarray(0, 2)),
        bound.map((k) => k.subarray(0, 1)),
      ),
      limit: fc.integer({ min: 0, max: 40 }),
    },
    { requiredKeys: [] },
  );
};

let nextId = 1;

describe("sorted table round trip", () => {
  it("point reads and scans equal the model (≤ 1 GET per point read after open)", async () => {
    await assertProperty(
      fc.asyncProperty(
        entriesArb.chain((raw) => {
          const model = sortedModel(raw);
          return fc.record({
            model: fc.constant(model),
            blockBytes: fc.integer({ min: 64, max: 600 }),
            openMode: fc.constantFrom("exact", "suffix", "small-suffix"),
            probes: fc.array(keyArb, { maxLength: 20 }),
            ranges: fc.array(rangeArb(model.map((e) => e.key)), { minLength: 1, maxLength: 8 }),
          });
        }),
        async ({ model, blockBytes, openMode, probes, ranges }) => {
          const info = await writeSst(bucket, { lake: "roundtrip", epoch: 1, id: nextId++ }, model, {
            blockBytes,
          });
          expect(info.entries).toBe(model.length);
          expect(info.tombstones).toBe(model.filter((e) => e.value === undefined).length);
          expect(bytesEqual(info.minKey, model[0]!.key)).toBe(true);
          expect(bytesEqual(info.maxKey, model[model.length - 1]!.key)).toBe(true);
          const counters = new ReadCounters();
          const reader = await SstReader.open(bucket, info.key, {
            counters,
            ...(openMode === "exact" ? { size: info.size, metaOffset: info.metaOffset } : {}),
            ...(openMode === "small-suffix" ? { tailBytes: 100 } : {}),
          });
          const tail = openMode === "small-suffix" ? 100 : 65536;
          expect(counters.r2Gets).toBe(openMode === "exact" || info.size - info.metaOffset <= tail ? 1 : 2);
          expect(reader.entries).toBe(model.length);

          for (const e of model) {
            const before = counters.r2Gets;
            const got = await reader.get(e.key);
            expect(counters.r2Gets - before).toBe(1);
            expect(show([got])).toEqual(show([e]));
          }
          for (const k of probes) {
            const before = counters.r2Gets;
            const want = model.find((e) => bytesEqual(e.key, k));
            expect(show([await reader.get(k)])).toEqual(show([want]));
            expect(counters.r2Gets - before).toBeLessThanOrEqual(1);
          }
          expect(show(await collect(reader.scan({})))).toEqual(show(model));
          for (const range of ranges) {
            expect(show(await collect(reader.scan(range)))).toEqual(show(modelScan(model, range)));
          }
          expect(counters.blocksResident).toBe(0);
          expect(counters.maxBlocksResident).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("a cached reader answers identically, and a warm reopen and re-read cost 0 GETs", async () => {
    const model = sortedModel(
      Array.from({ length: 2000 }, (_, i) => ({
        key: Uint8Array.of(i >> 8, i & 0xff, 7),
        value: i % 5 === 0 ? undefined : Uint8Array.of(i & 0xff),
      })),
    );
    const info = await writeSst(bucket, { lake: "roundtrip-cache", epoch: 2, id: 1 }, model, {
      blockBytes: 512,
    });
    const cache = new LruCache(1 << 20);
    const counters = new ReadCounters();
    const cold = await SstReader.open(bucket, info.key, { cache, counters });
    expect(show(await collect(cold.scan({ limit: 3000 })))).toEqual(show(model));
    const afterColdScan = counters.r2Gets;
    expect(afterColdScan).toBe(1 + info.blocks);

    const warm = await SstReader.open(bucket, info.key, { cache, counters });
    for (const e of model.slice(0, 300)) expect(show([await warm.get(e.key)])).toEqual(show([e]));
    const range = { start: model[100]!.key, end: model[1500]!.key };
    expect(show(await collect(warm.scan(range)))).toEqual(show(modelScan(model, range)));
    expect(counters.r2Gets).toBe(afterColdScan);
    expect(counters.cacheHits).toBeGreaterThan(300);
  });

  it("an early break from a scan releases its blocks", async () => {
    const model = sortedModel(
      Array.from({ length: 1000 }, (_, i) => ({
        key: Uint8Array.of(i >> 8, i & 0xff),
        value: Uint8Array.of(1),
      })),
    );
    const info = await writeSst(bucket, { lake: "roundtrip-break", epoch: 1, id: 1 }, model, {
      blockBytes: 128,
    });
    const reader = await SstReader.open(bucket, info.key);
    let seen = 0;
    for await (const _ of reader.scan({})) {
      if (++seen === 50) break;
    }
    expect(seen).toBe(50);
    expect(reader.counters.blocksResident).toBe(0);
    expect(reader.counters.maxBlocksResident).toBe(2);
  });
});
