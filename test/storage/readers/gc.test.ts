/**
 * Readers against the writer's background work: memtable flushes to L0 tables, compaction into the sorted
 * run, and GC on a fake clock. A checkpoint pins its cut until it is deleted (plus the grace period); a
 * reader on the newest cut is safe for the grace period after its objects stop being referenced.
 */
import { describe, expect, it } from "vitest";
import { checkpointKey, checkpointTombstoneKey } from "../../../storage/checkpoint-format.ts";
import {
  CheckpointNotFound,
  openCheckpoint,
  openLatest,
  ReaderCounters,
} from "../../../storage/reader/index.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, objectKeys, open, realBucket, s } from "../helpers.ts";

const GRACE = 60_000;

async function setup(tag: string): Promise<{ lake: string; st: LakeStore; tick: (ms: number) => void }> {
  const lake = lakeName(tag);
  let clock = 10_000_000;
  const st = (await open(faultBucket(), lake, {
    now: () => clock,
    maintenance: { gcGraceMs: GRACE, flushAfterSegments: 1_000 },
  })) as unknown as LakeStore;
  return {
    lake,
    st,
    tick: (ms) => {
      clock += ms;
    },
  };
}

async function commit(st: LakeStore, entries: Record<string, string | null>): Promise<void> {
  st.write(Object.entries(entries).map(([k, v]) => ({ key: b(k), value: v === null ? undefined : b(v) })));
  await st.flush();
}

const sstKeys = async (lake: string): Promise<string[]> =>
  (await objectKeys(realBucket(), lake)).filter((k) => k.startsWith("sst/"));

describe("readers with memtable flushes, compaction and GC", () => {
  it("a checkpoint reader keeps its cut through commits, compactions and GC; deleted + GC ⇒ refused", async () => {
    const { lake, st, tick } = await setup("cp-gc");
    await commit(st, { a: "1", b: "1", c: "1" });
    await st.flushMemtable();
    await commit(st, { b: "2", d: "2" });
    const cp = await st.createCheckpoint();
    const want = { a: "1", b: "2", c: "1", d: "2" };
    const early = await openCheckpoint(realBucket(), lake, cp.id);
    expect(await dump(early)).toEqual(want);

    // Everything the checkpoint's cut reads is superseded: new tables, a compacted run, GC past the grace.
    await commit(st, { a: null, b: "3", e: "3" });
    await st.flushMemtable();
    await st.compact({ force: true });
    await commit(st, { c: "4" });
    await st.flushMemtable();
    await st.compact({ force: true });
    tick(GRACE + 1);
    const gc = await st.collectGarbage();
    expect(gc.superseded).toBe(false);
    expect(gc.deleted).toBeGreaterThan(0);
    expect(gc.pinned.length).toBeGreaterThan(0);

    const late = await openCheckpoint(realBucket(), lake, cp.id);
    for (const r of [early, late]) {
      expect(await dump(r)).toEqual(want);
      expect(s(await r.get(b("a")))).toBe("1");
      expect(r.position).toBe(cp.position);
    }
    const latest = await openLatest(realBucket(), lake);
    expect(await dump(latest)).toEqual({ b: "3", c: "4", d: "2", e: "3" });

    // Delete, wait out the grace, collect: the descriptor goes, the tombstone stays, the id is refused.
    const before = await sstKeys(lake);
    await st.deleteCheckpoint(cp.id);
    tick(GRACE + 1);
    await st.collectGarbage();
    const keys = await objectKeys(realBucket(), lake);
    expect(keys).not.toContain(checkpointKey(lake, cp.id).slice(`lakes/${lake}/`.length));
    expect(keys).toContain(checkpointTombstoneKey(lake, cp.id).slice(`lakes/${lake}/`.length));
    expect((await sstKeys(lake)).length).toBeLessThan(before.length);
    await expect(openCheckpoint(realBucket(), lake, cp.id)).rejects.toBeInstanceOf(CheckpointNotFound);
    expect(await dump(await openLatest(realBucket(), lake))).toEqual({ b: "3", c: "4", d: "2", e: "3" });
  });

  it("a reader on the newest cut keeps working while GC runs within the grace period (idle lake, last write a manifest)", async () => {
    const { lake, st, tick } = await setup("latest-gc");
    await commit(st, { a: "1", b: "1" });
    await st.flushMemtable();
    await commit(st, { b: "2", c: "2" });
    await st.flushMemtable();
    // Idle: the last write was a manifest (and its empty publish segment). Nothing is cached: the reader
    // opens its tables lazily, on first read, after GC ran.
    const counters = new ReaderCounters();
    const r = await openLatest(realBucket(), lake, { counters });
    expect(r.cut.wal.to - r.cut.wal.from).toBe(0); // only the publish segment in the tail
    const tablesAtOpen = await sstKeys(lake);
    expect(tablesAtOpen).toHaveLength(2);

    // The writer compacts (its two L0 tables become unreferenced) and GC runs inside the grace period.
    await st.compact({ force: true });
    tick(GRACE - 1);
    await st.collectGarbage();
    expect(await sstKeys(lake)).toEqual(expect.arrayContaining(tablesAtOpen));
    expect(await dump(r)).toEqual({ a: "1", b: "2", c: "2" });
    expect(counters.tables.blocksRead).toBeGreaterThan(0);

    // A reader opened now (the last write was the compaction's manifest) reads the run, also after GC
    // collected the replaced tables once the grace passed.
    const r2 = await openLatest(realBucket(), lake);
    tick(2);
    await st.collectGarbage();
    expect(await sstKeys(lake)).not.toEqual(expect.arrayContaining(tablesAtOpen));
    expect(await dump(r2)).toEqual({ a: "1", b: "2", c: "2" });
    expect(await dump(await openLatest(realBucket(), lake))).toEqual({ a: "1", b: "2", c: "2" });
  });
});
