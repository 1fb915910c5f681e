/**
 * Block fences (docs/decisions/0175-block-fences.md): the builder's fences agree with the index; a
 * fence window covers every block a range needs; prefetch fetches it beside the metadata (one round
 * less) and never reads past its bounds; records without fences read the ordinary way; fences that
 * disagree with the index are counted and never change an answer.
 */
import { describe, expect, it } from "vitest";
import type { Bytes, PrefetchRange, SortedSource } from "../../../storage/api.ts";
import { layersFromManifest } from "../../../storage/layers.ts";
import type { Manifest } from "../../../storage/manifest.ts";
import { newMemTree } from "../../../storage/memtable.ts";
import {
  PREFETCH_RANGE_BYTES_MAX,
  prefetchLayers,
  READER_PREFETCH_BYTES_MAX,
} from "../../../storage/prefetch.ts";
import { Cut } from "../../../storage/read-view.ts";
import { buildSst } from "../../../storage/sst/builder.ts";
import { ReadCounters } from "../../../storage/sst/counters.ts";
import {
  FENCE_KEY_BYTES_MAX,
  FENCE_SPACING_MIN_BYTES,
  FENCES_PER_TABLE_MAX,
  fenceWindow,
} from "../../../storage/sst/fences.ts";
import { SstReader } from "../../../storage/sst/reader.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, open, realBucket } from "../helpers.ts";

const key = (i: number): string => `k${String(i).padStart(6, "0")}`;
const value = new Uint8Array(100).fill(7);

function entries(n: number): { key: Bytes; value: Bytes }[] {
  return Array.from({ length: n }, (_, i) => ({ key: b(key(i)), value }));
}

/** A lake maintained into one sorted run of a few partitions, plus the writer's final manifest. */
async function lake(keys: number, partitionBytes: number): Promise<{ name: string; manifest: Manifest }> {
  const name = lakeName("fences");
  const st = (await open(faultBucket(), name, {
    maintenance: { partitionBytes, l0CompactionTrigger: 100 },
  })) as LakeStore;
  for (let i = 0; i < keys; i += 500)
    st.write(entries(Math.min(500, keys - i)).map((e, j) => ({ key: b(key(i + j)), value: e.value })));
  await st.flush();
  let r = await st.maintain({ forceFlush: true, forceCompaction: true });
  while (r.more || r.compaction?.finished === false) r = await st.maintain();
  const manifest = st.manifest;
  await st.close();
  return { name, manifest };
}

/** A cut over `manifest`'s tables alone (no tail), as a stateless reader builds it, with its counters. */
function cutOf(
  bucket: ReturnType<typeof faultBucket>,
  name: string,
  manifest: Manifest,
): { cut: Cut; layers: SortedSource[]; counters: ReadCounters } {
  const counters = new ReadCounters();
  const layers = layersFromManifest(bucket, name, manifest, {
    counters,
    prefetchBytes: READER_PREFETCH_BYTES_MAX,
  });
  return { cut: new Cut(0, newMemTree(), layers), layers, counters };
}

/** The sizes a record carries (validated by the store when it wrote them). */
const sizes = (r: unknown): { size: number; metaOffset: number } => r as { size: number; metaOffset: number };

const stripFences = (m: Manifest): Manifest => ({
  ...m,
  sortedTables: m.sortedTables.map((r) => {
    const { fences: _, ...rest } = r as { fences?: unknown };
    return rest as Manifest["sortedTables"][number];
  }),
});

const HINTS: PrefetchRange[] = [
  { start: b(key(100)), end: b(key(140)) },
  { prefix: b("k00"), last: true },
  { start: b(key(7990)), end: b(key(7995)) },
];

describe("block fences", () => {
  it("the builder's fences name real block starts, bounded in count, key size and spacing", async () => {
    const { bytes, summary } = await buildSst(entries(20_000));
    const fences = summary.fences;
    expect(fences.length).toBeGreaterThan(0);
    expect(fences.length).toBeLessThanOrEqual(FENCES_PER_TABLE_MAX);
    const bucket = realBucket();
    const k = `lakes/${lakeName("fence-build")}/sst/00000000000000000001-00000000000000000001.sst`;
    await bucket.put(k, bytes);
    const reader = await SstReader.open(bucket, k, { size: summary.size, metaOffset: summary.metaOffset });
    expect(reader.fencesAgree(fences)).toBe(true);
    let last = 0;
    for (const f of fences) {
      expect(f.key.length).toBeLessThanOrEqual(FENCE_KEY_BYTES_MAX);
      expect(f.offset - last).toBeGreaterThanOrEqual(FENCE_SPACING_MIN_BYTES);
      last = f.offset;
    }
    // A table of a couple of blocks needs none: its one window is the whole data region.
    expect((await buildSst(entries(100))).summary.fences).toEqual([]);
  });

  it("a fence window holds every block a range touches (the block of its last key, for `last`)", async () => {
    const { bytes, summary } = await buildSst(entries(20_000));
    const bucket = realBucket();
    const k = `lakes/${lakeName("fence-window")}/sst/00000000000000000001-00000000000000000002.sst`;
    await bucket.put(k, bytes);
    const reader = await SstReader.open(bucket, k, { size: summary.size, metaOffset: summary.metaOffset });
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 400; i++) {
      const a = rnd(21_000);
      const z = a + rnd(3_000) + 1;
      const range: PrefetchRange = {
        ...(i % 5 === 0 ? {} : { start: b(key(a)) }),
        ...(i % 7 === 0 ? {} : { end: b(key(z)) }),
        ...(i % 3 === 0 ? { last: true } : {}),
      };
      const need = reader.blocksIn(range, Number.POSITIVE_INFINITY);
      const w = fenceWindow(summary.fences, summary.metaOffset, range, Number.POSITIVE_INFINITY);
      if (need.length === 0) continue;
      expect(w).toBeDefined();
      const win = w as { offset: number; length: number };
      const first = need[0] as number;
      const lastBlock = need.at(-1) as number;
      // Offsets of blocks tile the data region: block j starts at Σ lengths before it.
      let at = 0;
      const starts: number[] = [];
      for (let j = 0; j < summary.blocks; j++) {
        starts.push(at);
        at += reader.blockBytes(j);
      }
      expect(win.offset).toBeLessThanOrEqual(starts[first] as number);
      expect(win.offset + win.length).toBeGreaterThanOrEqual(
        (starts[lastBlock] as number) + reader.blockBytes(lastBlock),
      );
    }
  });

  it("a cold prefetch fetches the windows beside the metadata: one round, bytes bounded, same answers", async () => {
    const { name, manifest } = await lake(8_000, 256 * 1024);
    expect(manifest.sortedTables.length).toBeGreaterThan(2);
    const plain = cutOf(faultBucket(), name, manifest);
    const expected = await dump(plain.cut);

    const fb = faultBucket();
    const { cut, layers, counters } = cutOf(fb, name, manifest);
    await prefetchLayers(layers, HINTS);
    // The metadata GETs and the windows start together: one round.
    expect(fb.serialRounds()).toBe(1);
    expect(counters.fenceWindows).toBeGreaterThan(0);
    expect(counters.fenceMismatches).toBe(0);
    expect(counters.fenceFallbacks).toBe(0);
    // Bytes: each window is a fence segment or two of one ~256 KiB partition, never a whole table.
    const meta = manifest.sortedTables.reduce((n, r) => n + sizes(r).size - sizes(r).metaOffset, 0);
    const data = manifest.sortedTables.reduce((n, r) => n + sizes(r).metaOffset, 0);
    expect(counters.bytesRead - meta).toBeLessThan(data / 2);
    fb.resetCounters();
    const got: string[] = [];
    for await (const kv of cut.scan({ start: b(key(100)), end: b(key(140)) }))
      got.push(new TextDecoder().decode(kv.key));
    expect(got).toHaveLength(40);
    expect(await cut.get(b(key(7993)))).toBeDefined();
    expect(await cut.get(b(key(7999)))).toBeDefined();
    expect(fb.count({ op: "get" })).toBe(0);
    expect(await dump(cut)).toEqual(expected);
  });

  it("a window over a whole large table stops at PREFETCH_RANGE_BYTES_MAX", async () => {
    const { name, manifest } = await lake(40_000, 16 * 1024 * 1024);
    expect(manifest.sortedTables).toHaveLength(1);
    const rec = sizes(manifest.sortedTables[0]);
    expect(rec.metaOffset).toBeGreaterThan(PREFETCH_RANGE_BYTES_MAX);
    const fb = faultBucket();
    const { layers, counters } = cutOf(fb, name, manifest);
    await prefetchLayers(layers, [{}]);
    expect(counters.fenceWindows).toBe(1);
    expect(counters.bytesRead - (rec.size - rec.metaOffset)).toBeLessThanOrEqual(PREFETCH_RANGE_BYTES_MAX);
  });

  it("records without fences (written before them) read the ordinary way: metadata, then blocks", async () => {
    const { name, manifest } = await lake(8_000, 256 * 1024);
    const old = stripFences(manifest);
    const fb = faultBucket();
    const { cut, layers, counters } = cutOf(fb, name, old);
    await prefetchLayers(layers, HINTS);
    expect(counters.fenceWindows).toBe(0);
    expect(fb.serialRounds()).toBe(2);
    fb.resetCounters();
    expect(await cut.get(b(key(7993)))).toBeDefined();
    expect(fb.count({ op: "get" })).toBe(0);
    expect(await dump(cut)).toEqual(await dump(cutOf(faultBucket(), name, manifest).cut));
  });

  it("a window GET that fails is a fallback, not an error: the ordinary path fetches its blocks", async () => {
    const { name, manifest } = await lake(8_000, 256 * 1024);
    const expected = await dump(cutOf(faultBucket(), name, manifest).cut);
    // A dry run counts the metadata GETs, which start before the windows.
    const dry = cutOf(faultBucket(), name, manifest);
    await prefetchLayers(dry.layers, HINTS);
    const metadataGets = dry.counters.r2Gets - dry.counters.fenceWindows - dry.counters.fenceFallbacks;
    expect(dry.counters.fenceFallbacks).toBe(0);
    const fb = faultBucket();
    fb.fail({ op: "get", prefix: `lakes/${name}/sst/`, nth: metadataGets + 1 });
    const { cut, layers, counters } = cutOf(fb, name, manifest);
    await prefetchLayers(layers, HINTS);
    expect(counters.fenceFallbacks).toBeGreaterThan(0);
    expect(counters.fenceBlocksAdopted).toBeLessThan(dry.counters.fenceBlocksAdopted);
    expect(await dump(cut)).toEqual(expected);
  });

  it("fences that disagree with the index are counted, their windows dropped, answers unchanged", async () => {
    const { name, manifest } = await lake(8_000, 256 * 1024);
    const expected = await dump(cutOf(faultBucket(), name, manifest).cut);
    // Well formed but wrong: every fence's key names a later block's (the offsets stay real block starts).
    const wrong: Manifest = {
      ...manifest,
      sortedTables: manifest.sortedTables.map((r) => {
        const f = (r as { fences?: [string, number][] }).fences ?? [];
        return {
          ...r,
          fences: f.map(([k, o], i): [string, number] => [
            i + 1 < f.length ? (f[i + 1] as [string, number])[0] : `${k}ff`,
            o,
          ]),
        };
      }),
    };
    const fb = faultBucket();
    const { cut, layers, counters } = cutOf(fb, name, wrong);
    await prefetchLayers(layers, HINTS);
    expect(counters.fenceWindows).toBeGreaterThan(0);
    expect(counters.fenceMismatches).toBeGreaterThan(0);
    expect(counters.fenceBlocksAdopted).toBe(0);
    // The ordinary path fetched what the dropped windows were for.
    expect(counters.fenceFallbacks).toBeGreaterThan(0);
    expect(await dump(cut)).toEqual(expected);
  });
});
