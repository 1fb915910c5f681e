import { describe, expect, it } from "vitest";
import type { Bucket, BucketListOptions, BucketListResult } from "../../../storage/api.ts";
import { LruCache } from "../../../storage/cache.ts";
import { InvalidArgument, LakeDeleted } from "../../../storage/errors.ts";
import { walPrefix } from "../../../storage/keys.ts";
import { markLakeDeleted } from "../../../storage/lakes.ts";
import { WHOLE_TABLE_BYTES_MAX } from "../../../storage/layers.ts";
import { CutNotYetVisible, LakeNotFound, openLatest, ReaderCounters } from "../../../storage/reader/index.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, DelegatingBucket, dump, faultBucket, lakeName, open, realBucket, s } from "../helpers.ts";

const NO_WRITES = { put: 0, delete: 0, head: 0 };

async function writer(lake: string): Promise<LakeStore> {
  return (await open(faultBucket(), lake)) as unknown as LakeStore;
}

/** A real bucket whose first WAL listing runs `hook` before returning (the head it returns is then stale). */
class HookedBucket extends DelegatingBucket {
  private fired = false;
  constructor(
    inner: Bucket,
    private readonly hook: () => Promise<void>,
  ) {
    super(inner);
  }
  override list = async (o?: BucketListOptions): Promise<BucketListResult> => {
    const r = await this.inner.list(o);
    if (!this.fired && o?.prefix?.includes("/wal/")) {
      this.fired = true;
      await this.hook();
    }
    return r;
  };
}

describe("openLatest: the newest published cut from one list", () => {
  it("a lake with no segment is LakeNotFound; a deleted lake is LakeDeleted; bad arguments are refused", async () => {
    const fb = faultBucket();
    await expect(openLatest(fb, lakeName("none"))).rejects.toBeInstanceOf(LakeNotFound);
    await expect(openLatest(fb, lakeName("none"))).rejects.toMatchObject({ code: "LakeNotFound" });
    expect(fb.counts()).toMatchObject({ list: 2, get: 0, ...NO_WRITES });
    const lake = lakeName("deleted");
    const st = await writer(lake);
    await st.close();
    await markLakeDeleted(realBucket(), lake, 1);
    await expect(openLatest(fb, lake)).rejects.toBeInstanceOf(LakeDeleted);
    await expect(openLatest(fb, "bad/name")).rejects.toBeInstanceOf(InvalidArgument);
    await expect(openLatest(fb, lake, { after: -1 })).rejects.toBeInstanceOf(InvalidArgument);
  });

  it("costs one list + one manifest + the tail segments; a warm open leaves only the list and replays nothing", async () => {
    const lake = lakeName("cost");
    const st = await writer(lake);
    for (let i = 0; i < 5; i++) {
      st.write([{ key: b(`k${i}`), value: b(`v${i}`) }]);
      st.write([{ key: b(`j${i}`), value: b(`w${i}`) }]);
      await st.flush();
    }
    st.write([{ key: b("k0"), value: undefined }]);
    await st.flush();
    // Tail = fence segment 1 + 6 flushes.
    const fb = faultBucket();
    const counters = new ReaderCounters();
    const cache = new LruCache(1 << 20);
    const r = await openLatest(fb, lake, { counters, cache });
    expect(fb.counts()).toEqual({ list: 1, get: 1 + 7, ...NO_WRITES });
    expect(counters.snapshot().calls).toEqual({ list: 1, get: 8, ...NO_WRITES });
    expect(counters.bytesRead).toBeGreaterThan(0);
    expect(r.cut).toMatchObject({
      lake,
      position: 11,
      manifestVersion: 1,
      epoch: 1,
      wal: { from: 1, to: 7 },
    });
    expect(r.position).toBe(st.durablePosition);
    expect(await r.get(b("k0"))).toBeUndefined();
    expect(s(await r.get(b("k4")))).toBe("v4");
    expect(Object.keys(await dump(r))).toHaveLength(9);
    // Reads of a cut without sorted tables cost nothing more.
    expect(fb.counts().get).toBe(8);

    fb.resetCounters();
    const warm = await openLatest(fb, lake, { cache });
    expect(fb.counts()).toEqual({ list: 1, get: 0, ...NO_WRITES });
    expect(await dump(warm)).toEqual(await dump(r));
    // The manifest only: this isolate remembers the tail it replayed (storage/reader/tail-replays.ts).
    expect(warm.counters.cacheHits).toBe(1);
    expect(warm.counters.mutationsReplayed).toBe(0);
    expect(counters.mutationsReplayed).toBe(11);
  });

  it("a reader keeps its cut while the writer commits, publishes manifests and is replaced", async () => {
    const lake = lakeName("isolated");
    const st = await writer(lake);
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    const r1 = await openLatest(realBucket(), lake);
    st.write([
      { key: b("a"), value: b("2") },
      { key: b("b"), value: b("2") },
    ]);
    await st.flush();
    await st.writeManifest((m) => m);
    // The lake is idle and its last write was a manifest (+ its empty publish segment).
    const r2 = await openLatest(realBucket(), lake);
    expect(r2.cut).toMatchObject({ manifestVersion: 2, position: 2, wal: { from: 1, to: 4 } });
    const st2 = await writer(lake); // fences st; new epoch
    st2.write([{ key: b("c"), value: b("3") }]);
    await st2.flush();
    const r3 = await openLatest(realBucket(), lake);
    expect(await dump(r1)).toEqual({ a: "1" });
    expect(await dump(r2)).toEqual({ a: "2", b: "2" });
    expect(await dump(r3)).toEqual({ a: "2", b: "2", c: "3" });
    expect(r3.cut).toMatchObject({ manifestVersion: 3, epoch: 2, position: 3 });
    r1.close();
    await expect(r1.get(b("a"))).rejects.toThrow(/closed/);
    expect(s(await r2.get(b("a")))).toBe("2");
  });

  it("after: an older head re-lists once and then fails typed (CutNotYetVisible), reading nothing", async () => {
    const lake = lakeName("after-old");
    const st = await writer(lake);
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    const h = st.write([{ key: b("a"), value: b("2") }]); // applied, not durable
    const fb = faultBucket();
    const err = await openLatest(fb, lake, { after: h.position }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CutNotYetVisible);
    expect(err).toMatchObject({ code: "CutNotYetVisible" });
    // The head holds batches, so its position alone shows it is older: two lists, no GET.
    expect(fb.counts()).toEqual({ list: 2, get: 0, ...NO_WRITES });
    await st.flush();
    const r = await openLatest(fb, lake, { after: h.position });
    expect(s(await r.get(b("a")))).toBe("2");
    // A position already covered opens normally with one list.
    fb.resetCounters();
    expect((await openLatest(fb, lake, { after: 1 })).position).toBe(2);
    expect(fb.counts().list).toBe(1);
  });

  it("after: a head that is an empty publish segment is read, re-listed once, then fails typed", async () => {
    const lake = lakeName("after-publish");
    const st = await writer(lake);
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    await st.writeManifest((m) => m); // head = empty publish segment naming version 2
    const h = st.write([{ key: b("a"), value: b("2") }]);
    const fb = faultBucket();
    await expect(openLatest(fb, lake, { after: h.position })).rejects.toBeInstanceOf(CutNotYetVisible);
    // list, manifest + 3 segments, re-list (same head: nothing more read).
    expect(fb.counts()).toEqual({ list: 2, get: 4, ...NO_WRITES });
  });

  it("after: a cut that lands between the first list and the re-list is found by the re-list", async () => {
    const lake = lakeName("after-lands");
    const st = await writer(lake);
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    await st.writeManifest((m) => m);
    const h = st.write([{ key: b("a"), value: b("2") }]);
    const counters = new ReaderCounters();
    const bucket = new HookedBucket(realBucket(), () => st.flush());
    const r = await openLatest(bucket, lake, { after: h.position, counters });
    expect(r.position).toBe(h.position);
    expect(s(await r.get(b("a")))).toBe("2");
    // Two lists; the second cut re-reads nothing the first had (manifest 2, segments 1-3): one new segment.
    expect(counters.snapshot().calls).toEqual({ list: 2, get: 1 + 3 + 1, ...NO_WRITES });
    expect(walPrefix(lake)).toContain("/wal/");
  });

  it("over sorted tables: open costs the same, a point read fetches only table metadata + one block", async () => {
    const lake = lakeName("tables");
    const st = (await open(faultBucket(), lake, {
      maintenance: { flushAfterSegments: 1_000 },
    })) as unknown as LakeStore;
    // 6,000 keys: past WHOLE_TABLE_BYTES_MAX, so the table is not fetched whole (the next test).
    for (let round = 0; round < 3; round++) {
      const muts = [];
      for (let i = 0; i < 6000; i++)
        muts.push({ key: b(`key-${String(i).padStart(5, "0")}`), value: b(`r${round}-${i}`) });
      st.write(muts);
      await st.flush();
      await st.flushMemtable();
    }
    await st.compact({ force: true });
    st.write([{ key: b("key-00007"), value: b("tail") }]);
    await st.flush();
    const fb = faultBucket();
    const counters = new ReaderCounters();
    const r = await openLatest(fb, lake, { counters });
    expect(r.cut.manifestVersion).toBe(st.manifest.version);
    const tail = r.cut.wal.to - r.cut.wal.from + 1;
    expect(fb.counts()).toEqual({ list: 1, get: 1 + tail, ...NO_WRITES });
    fb.resetCounters();
    expect(s(await r.get(b("key-01234")))).toBe("r2-1234");
    expect(s(await r.get(b("key-00007")))).toBe("tail");
    // One partition of the run: its metadata region (1 exact range GET) and the one block holding the key.
    expect(fb.counts()).toEqual({ list: 0, get: 2, ...NO_WRITES });
    expect(counters.tables.blocksRead).toBe(1);
    expect(counters.tables.wholeTables).toBe(0);
    expect(st.manifest.sortedTables[0]?.size).toBeGreaterThan(WHOLE_TABLE_BYTES_MAX);
  });

  it("a small table is fetched whole: metadata and blocks in one GET, held for the cut's later reads", async () => {
    const lake = lakeName("small-table");
    const st = (await open(faultBucket(), lake)) as unknown as LakeStore;
    st.write(
      Array.from({ length: 2000 }, (_, i) => ({
        key: b(`key-${String(i).padStart(5, "0")}`),
        value: b(`v${i}`),
      })),
    );
    await st.flush();
    await st.flushMemtable();
    const [table] = st.manifest.sortedTables as unknown as { size: number; metaOffset: number }[];
    expect(table?.size).toBeLessThanOrEqual(WHOLE_TABLE_BYTES_MAX);
    const fb = faultBucket();
    const counters = new ReaderCounters();
    const r = await openLatest(fb, lake, { counters });
    fb.resetCounters();
    // Reads spread over the table's blocks: one GET in all, the whole object.
    for (const i of [0, 1000, 1999])
      expect(s(await r.get(b(`key-${String(i).padStart(5, "0")}`)))).toBe(`v${i}`);
    expect(fb.counts()).toEqual({ list: 0, get: 1, ...NO_WRITES });
    expect(counters.tables.wholeTables).toBe(1);
    expect(counters.tables.bytesRead).toBe(table?.size);
    // Three reads decoded their blocks from what the one GET brought; none was fetched again.
    expect(counters.tables.blocksRead).toBe(3);
    expect(counters.tables.r2Gets).toBe(1);
    await st.close();
  });

  it("transient bucket failures are retried within the bound; past it the read is StoreUnavailable", async () => {
    const lake = lakeName("flaky");
    const st = await writer(lake);
    for (let i = 0; i < 4; i++) {
      st.write([{ key: b(`k${i}`), value: b(`v${i}`) }]);
      await st.flush();
    }
    const fb = faultBucket(7);
    fb.fail({ op: ["get", "list", "head"], probability: 0.3 });
    const retry = { attempts: 20, backoffMs: 0 };
    const r = await openLatest(fb, lake, { retry });
    expect(await dump(r)).toEqual({ k0: "v0", k1: "v1", k2: "v2", k3: "v3" });
    expect(fb.count({ outcome: "error" })).toBeGreaterThan(0);
    const down = faultBucket();
    down.fail({ op: "get", probability: 1 });
    await expect(openLatest(down, lake, { retry: { attempts: 2, backoffMs: 0 } })).rejects.toMatchObject({
      code: "StoreUnavailable",
    });
  });
});
