/**
 * readers: what a stateless reader costs, counted (Miniflare's R2 through the fault-injecting bucket, which
 * counts every call) and timed. Per lake size (keys in a compacted sorted run) and WAL tail length:
 * `openLatest` cold (no cache) and warm (shared LRU), a point read cold and warm, and `openCheckpoint`
 * cold and warm. The point is that an open costs 1 list + 1 manifest + tail segments whatever the size,
 * and a point read touches one partition's metadata and one block.
 */
import type { Mutation } from "../storage/api.ts";
import { LruCache } from "../storage/cache.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { openWriter } from "../storage/open.ts";
import { openCheckpoint, openLatest } from "../storage/reader/index.ts";
import type { LakeStore } from "../storage/store.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

const enc = new TextEncoder();
const keyOf = (i: number): Uint8Array => enc.encode(`t/00042/row/${String(i).padStart(10, "0")}`);
const rowValue = (i: number): Uint8Array => enc.encode(`value-${i}-${"x".repeat(40 + (i % 41))}`);

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const v = await fn();
  return [v, performance.now() - t];
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const sizes = opts.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const tails = [0, 4, 8];
  const { bucket: raw, dispose } = await localBucket();
  const rows: Row[] = [];
  try {
    for (const n of sizes) {
      const lake = `bench-readers-${n}`;
      const st = (await openWriter(raw, lake, { maintenance: { flushAfterSegments: 1_000 } })) as LakeStore;
      for (let from = 0; from < n; from += 5_000) {
        const muts: Mutation[] = [];
        for (let i = from; i < Math.min(n, from + 5_000); i++)
          muts.push({ key: keyOf(i), value: rowValue(i) });
        st.write(muts);
        await st.flush();
        await st.flushMemtable();
      }
      await st.compact({ force: true });
      let segmentsWritten = 0;
      for (const tail of tails) {
        // Grow the tail (one segment per flush) up to `tail` segments after the manifest's replay point.
        while (segmentsWritten < tail) {
          st.write([{ key: keyOf(segmentsWritten), value: enc.encode(`tail-${segmentsWritten}`) }]);
          await st.flush();
          segmentsWritten++;
        }
        const cp = await st.createCheckpoint();
        const fb = new FaultBucket(raw);
        const cache = new LruCache(64 << 20);
        const probe = keyOf(Math.floor(n / 2) + 1);

        const [cold, openMs] = await timed(() => openLatest(fb, lake));
        const openCalls = fb.counts();
        const openKiB = cold.counters.bytesRead / 1024;
        fb.resetCounters();
        const [, pointMs] = await timed(() => cold.get(probe));
        const pointGets = fb.counts().get;
        const pointKiB = cold.counters.bytesRead / 1024 - openKiB;

        await (await openLatest(fb, lake, { cache })).get(probe);
        fb.resetCounters();
        const [warm, warmMs] = await timed(() => openLatest(fb, lake, { cache }));
        const warmOpen = fb.counts();
        fb.resetCounters();
        await warm.get(probe);
        const warmPointGets = fb.counts().get;

        fb.resetCounters();
        const [, cpMs] = await timed(() => openCheckpoint(fb, lake, cp.id));
        const cpCold = fb.counts();
        await openCheckpoint(fb, lake, cp.id, { cache });
        fb.resetCounters();
        const [, cpWarmMs] = await timed(() => openCheckpoint(fb, lake, cp.id, { cache }));
        const cpWarm = fb.counts();

        rows.push({
          keys: n,
          tables: st.manifest.sortedTables.length,
          tail: cold.cut.wal.to - cold.cut.wal.from + 1,
          "open list/get": `${openCalls.list}/${openCalls.get}`,
          "open KiB": openKiB,
          "open ms": openMs,
          "warm open list/get": `${warmOpen.list}/${warmOpen.get}`,
          "warm ms": warmMs,
          "point GETs cold/warm": `${pointGets}/${warmPointGets}`,
          "point KiB": pointKiB,
          "point ms": pointMs,
          "cp open get/head cold": `${cpCold.get}/${cpCold.head}`,
          "cp ms": cpMs,
          "cp get/head warm": `${cpWarm.get}/${cpWarm.head}`,
          "cp warm ms": cpWarmMs,
        });
      }
      await st.close();
    }
  } finally {
    await dispose();
  }
  return { name: "readers", params: { sizes, tails, quick: opts.quick }, rows };
}
