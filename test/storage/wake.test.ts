/**
 * A writer open overlaps its WAL listing and tail reads with its manifest read (storage/tail-prefetch.ts):
 * a wake at the held epoch costs 3 serial round trips (the two listings, then the manifest and tail GETs
 * together, then the fence PUT) whatever the tail, up to five segments; a longer tail puts its fence
 * beside its remaining GETs (docs/decisions/0174-wake-tail-overlap.md).
 */
import { describe, expect, it } from "vitest";
import { WHOLE_TABLE_BYTES_MAX, WINDOWLESS_WHOLE_BYTES_MAX } from "../../storage/layers.ts";
import { WRITER_WAKE_PREFETCH_BYTES_MAX } from "../../storage/prefetch.ts";
import type { LakeStore } from "../../storage/store.ts";
import { WAKE_TAIL_GETS_IN_FLIGHT } from "../../storage/tail-prefetch.ts";
import { b, dump, faultBucket, lakeName, open } from "./helpers.ts";

/** A lake written by one writer: `segments` single-key WAL segments (k0…), closed. Its epoch and state. */
async function writtenLake(
  tag: string,
  segments: number,
  beforeClose: (st: LakeStore) => Promise<unknown> = async () => {},
): Promise<{ lake: string; epoch: number; want: Record<string, string> }> {
  const lake = lakeName(tag);
  const st = (await open(faultBucket(), lake)) as LakeStore;
  for (let i = 0; i < segments; i++) {
    st.write([{ key: b(`k${i}`), value: b(`v${i}`) }]);
    await st.flush();
  }
  await beforeClose(st);
  const epoch = st.epoch;
  const want = await dump(st.snapshot());
  await st.close();
  return { lake, epoch, want };
}

/** The object sizes of the tables `st`'s manifest names. */
const sizes = (st: LakeStore): number[] =>
  (st.manifest.sortedTables as unknown as { size: number }[]).map((t) => t.size);

describe("writer wake", () => {
  it("opens in 3 serial round trips at the held epoch and 4 with a new epoch, replaying the same tail", async () => {
    const { lake, epoch, want } = await writtenLake("wake", 4);

    const held = faultBucket();
    const re = (await open(held, lake, { heldEpoch: epoch })) as LakeStore;
    expect(await dump(re.snapshot())).toEqual(want);
    expect(held.count({ op: "put" })).toBe(1);
    // The four data segments; the empty genesis fence comes from its listed summary
    // (docs/decisions/0184-cold-round-packing.md).
    expect(held.count({ op: "get", prefix: `lakes/${lake}/wal/` })).toBe(4);
    expect(held.serialRounds()).toBe(3);
    await re.close();

    const fresh = faultBucket();
    const next = (await open(fresh, lake)) as LakeStore;
    expect(await dump(next.snapshot())).toEqual(want);
    expect(next.epoch).toBe(epoch + 1);
    expect(fresh.count({ op: "put" })).toBe(2);
    expect(fresh.serialRounds()).toBe(4);
    await next.close();
  });

  it("a wake after a memtable flush reads no WAL segment: the empty publish segment's listed summary stands in", async () => {
    const { lake, epoch, want } = await writtenLake("wake-empty-tail", 3, (st) =>
      st.maintain({ forceFlush: true }),
    );

    // The tail after the manifest is its publish segment: empty and built on that manifest, so it needs
    // no GET (docs/decisions/0184-cold-round-packing.md). Before: 1 WAL GET.
    const fb = faultBucket();
    const re = (await open(fb, lake, { heldEpoch: epoch })) as LakeStore;
    expect(await dump(re.snapshot())).toEqual(want);
    expect(fb.count({ op: "get", prefix: `lakes/${lake}/wal/` })).toBe(0);
    expect(fb.count({ op: "put" })).toBe(1);
    re.write([{ key: b("after"), value: b("x") }]);
    await re.flush();
    await re.close();
    // The next wake reads the one segment with a batch, and only it (the publish and fence segments are
    // still empty ones built on the same manifest).
    const again = faultBucket();
    const next = (await open(again, lake, { heldEpoch: epoch })) as LakeStore;
    expect(await dump(next.snapshot())).toEqual({ ...want, after: "x" });
    expect(again.count({ op: "get", prefix: `lakes/${lake}/wal/` })).toBe(1);
    await next.close();
  });

  it("a long tail's fence goes beside its GETs: 1 + ⌈tail / 5⌉ rounds at the held epoch, not one more", async () => {
    const lake = lakeName("wake-long-tail");
    const st = (await open(faultBucket(), lake)) as LakeStore;
    const SEGMENTS = 12;
    for (let i = 0; i < SEGMENTS; i++) {
      st.write([{ key: b(`k${i}`), value: b(`v${i}`) }]);
      await st.flush();
    }
    const epoch = st.epoch;
    const want = await dump(st.snapshot());
    await st.close();

    const fb = faultBucket();
    const re = (await open(fb, lake, { heldEpoch: epoch })) as LakeStore;
    expect(await dump(re.snapshot())).toEqual(want);
    // The genesis fence and the 12 writes: 13 segments; the empty fence comes from its listed summary
    // (docs/decisions/0184-cold-round-packing.md), the 12 others are read ≤ WAKE_TAIL_GETS_IN_FLIGHT at a time.
    const tail = SEGMENTS;
    expect(fb.count({ op: "get", prefix: `lakes/${lake}/wal/` })).toBe(tail);
    expect(fb.count({ op: "put" })).toBe(1);
    // The listings, then ⌈12 / 5⌉ = 3 rounds of tail GETs (the manifest beside the first, the fence
    // beside the second): the fence adds no round of its own.
    expect(fb.serialRounds()).toBe(1 + Math.ceil(tail / WAKE_TAIL_GETS_IN_FLIGHT));
    re.write([{ key: b("after"), value: b("wake") }]);
    await re.flush();
    await re.close();
    // The next open replays the fence and the write that followed it.
    const again = await open(faultBucket(), lake);
    expect(await dump(again.snapshot())).toEqual({ ...want, after: "wake" });
    await again.close();
  });

  it("a wake's prefetch hint lands in the metadata round (block fences): the first commit is 3 rounds + its PUT", async () => {
    const lake = lakeName("wake-prefetch");
    const st = (await open(faultBucket(), lake, {
      maintenance: { partitionBytes: 128 * 1024, l0CompactionTrigger: 100 },
    })) as LakeStore;
    const value = new Uint8Array(120).fill(5);
    for (let i = 0; i < 3000; i += 500)
      st.write(
        Array.from({ length: 500 }, (_, j) => ({ key: b(`k${String(i + j).padStart(5, "0")}`), value })),
      );
    st.write([{ key: b("z-head"), value: b("k02500") }]);
    await st.flush();
    let r = await st.maintain({ forceFlush: true, forceCompaction: true });
    while (r.more || r.compaction?.finished === false) r = await st.maintain();
    const epoch = st.epoch;
    await st.close();

    // A chain of dependent lookups (each key named by the value before): without the hint each is a
    // round of its own after the open's three; with it, the blocks' fence windows come beside the
    // metadata GETs and the fence PUT (docs/decisions/0175-block-fences.md), then the commit's PUT.
    const chain = async (
      fb: ReturnType<typeof faultBucket>,
      prefetch: boolean,
    ): Promise<{ rounds: number; bytes: number }> => {
      const re = await open(fb, lake, {
        heldEpoch: epoch,
        ...(prefetch ? { prefetch: [{ prefix: b("z-") }, { prefix: b("k025") }] } : {}),
      });
      const view = re.snapshot();
      const next = await view.get(b("z-head"));
      expect(next).toBeDefined();
      expect(await view.get(next as Uint8Array)).toEqual(value);
      const rounds = fb.serialRounds({ prefix: `lakes/${lake}/` });
      const bytes = (re as LakeStore).readCounters.bytesRead;
      re.write([{ key: b("z-head"), value: b("k02501") }]);
      await re.flush();
      expect(fb.serialRounds({ prefix: `lakes/${lake}/` })).toBe(rounds + 1);
      await re.close();
      return { rounds, bytes };
    };
    // Partitions past WHOLE_TABLE_BYTES_MAX: a small one would come whole, windows unneeded (the next test).
    expect(sizes(st).every((size) => size > WHOLE_TABLE_BYTES_MAX)).toBe(true);
    const without = await chain(faultBucket(), false);
    const fb = faultBucket();
    const withHint = await chain(fb, true);
    expect(without.rounds).toBeGreaterThanOrEqual(5);
    // list → manifest + tail → metadata + windows + fence (then the commit's segment PUT).
    expect(withHint.rounds).toBe(3);
    expect(fb.count({ op: "get", prefix: `lakes/${lake}/sst/` })).toBeLessThanOrEqual(
      st.manifest.sortedTables.length + 6,
    );
    // The windows stay inside the wake's prefetch budget: never a whole table's blocks.
    const tables = st.manifest.sortedTables as unknown as { size: number; metaOffset: number }[];
    const metadata = tables.reduce((n, t) => n + t.size - t.metaOffset, 0);
    const data = tables.reduce((n, t) => n + t.metaOffset, 0);
    const sstBytes = withHint.bytes;
    expect(sstBytes).toBeLessThanOrEqual(metadata + WRITER_WAKE_PREFETCH_BYTES_MAX);
    expect(sstBytes - metadata).toBeLessThan(data / 2);
  });
  it.each([
    ["small (≤ WHOLE_TABLE_BYTES_MAX): whole by size", 8, 0, WHOLE_TABLE_BYTES_MAX],
    [
      "mid-size: whole when no connection is left for its window",
      1000,
      WHOLE_TABLE_BYTES_MAX,
      WINDOWLESS_WHOLE_BYTES_MAX,
    ],
  ])("a wake over six L0 tables is 3 rounds + its commit's PUT, %s", async (_, valueBytes, above, upTo) => {
    // The shape of a crash after the host ran its passes: flushes waiting for an L0 merge, each spanning
    // the keyspace, and a few WAL segments since. Six tables' metadata and the fence PUT fill a wave of
    // six connections, so a window had no connection left and one table's block took a round of its own
    // (docs/decisions/0188-small-tables-whole.md).
    const lake = lakeName("wake-l0");
    const st = (await open(faultBucket(), lake, { maintenance: { l0CompactionTrigger: 100 } })) as LakeStore;
    const pad = "x".repeat(valueBytes);
    for (let t = 0; t < 6; t++) {
      st.write(
        Array.from({ length: 100 }, (_, j) => ({
          key: b(`k${String(j * 6 + t).padStart(4, "0")}`),
          value: b(`t${t}${pad}`),
        })),
      );
      st.write([{ key: b("z-head"), value: b(`k${String(t * 97).padStart(4, "0")}`) }]);
      await st.flush();
      await st.flushMemtable();
    }
    for (let i = 0; i < 3; i++) {
      st.write([{ key: b(`tail${i}`), value: b("x") }]);
      await st.flush();
    }
    expect(st.manifest.sortedTables.filter((t) => t.level === 0)).toHaveLength(6);
    expect(sizes(st).every((size) => size > above && size <= upTo)).toBe(true);
    const epoch = st.epoch;
    await st.close();

    const fb = faultBucket();
    const re = (await open(fb, lake, {
      heldEpoch: epoch,
      prefetch: [{ prefix: b("z-") }, { prefix: b("k04") }],
    })) as LakeStore;
    const view = re.snapshot();
    const next = await view.get(b("z-head"));
    expect(new TextDecoder().decode(next)).toBe("k0485");
    expect(await view.get(next as Uint8Array)).toEqual(b(`t5${pad}`));
    // list → manifest + tail → the tables (whole or beside their windows) + the fence PUT.
    expect(fb.serialRounds({ prefix: `lakes/${lake}/` })).toBe(3);
    expect(re.readCounters.wholeTables).toBe(above === 0 ? 6 : 1);
    expect(re.readCounters.fenceFallbacks).toBe(0);
    re.write([{ key: b("z-head"), value: b("k0001") }]);
    await re.flush();
    expect(fb.serialRounds({ prefix: `lakes/${lake}/` })).toBe(4);
    await re.close();
  });
});
