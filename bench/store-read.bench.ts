/**
 * store-read, phase 1: the read cost of one sorted table as it grows (1k / 10k / 100k / 1M keys;
 * --quick stops at 100k), in Miniflare's R2 through the fault-injecting bucket, which counts every GET.
 *
 * Per size: build throughput; open cost (from the manifest's SstInfo); R2 GETs and bytes per point read
 * (cold = fresh reader, no cache, open excluded; warm = reader with an LRU that has seen the key once);
 * per missing-key lookup (bloom); per 1k-key range scan, cold and warm; and a full scan's GETs and peak
 * resident blocks. The point is the slope: per-read cost must stay flat as unrelated keys are added.
 * Phase 2 rows (`phase: store`, store-read-maintenance.ts): compaction throughput and write
 * amplification, partitions rewritten by small updates, reopen cost.
 */

import type { SortedEntry } from "../storage/api.ts";
import { LruCache } from "../storage/cache.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { buildSst } from "../storage/sst/builder.ts";
import { ReadCounters } from "../storage/sst/counters.ts";
import { sstKey } from "../storage/sst/key.ts";
import { SstReader } from "../storage/sst/reader.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";
import { maintenanceRows } from "./store-read-maintenance.ts";

const enc = new TextEncoder();
const KEY_PREFIX = enc.encode("t/00042/row/");
/** `t/00042/row/<i, 10 digits>` written digit by digit (TextEncoder would dominate the build timing). */
function keyOf(i: number): Uint8Array {
  const k = new Uint8Array(KEY_PREFIX.length + 10);
  k.set(KEY_PREFIX);
  for (let p = k.length - 1, v = i; p >= KEY_PREFIX.length; p--, v = Math.floor(v / 10))
    k[p] = 0x30 + (v % 10);
  return k;
}

/** 256 prebuilt 40–80 byte values, so the timed build measures the builder rather than the generator. */
const VALUES = Array.from({ length: 256 }, (_, v) =>
  Uint8Array.from({ length: 40 + (v % 41) }, (_, j) => (v * 31 + j * 7) & 0xff),
);

/** Catalog-like rows: a 23-byte key and a 40–80 byte value; every 16th entry a tombstone. */
function* entries(n: number): Generator<SortedEntry> {
  for (let i = 0; i < n; i++) {
    yield { key: keyOf(i), value: i % 16 === 15 ? undefined : VALUES[(i * 37) & 255] };
  }
}

/** Deterministic pseudo-random indexes in [0, n). */
function picks(n: number, count: number, salt: number): number[] {
  let x = (salt * 2654435761) >>> 0;
  return Array.from({ length: count }, () => {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return x % n;
  });
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const sizes = opts.quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000];
  const storeSizes = opts.quick ? [10_000, 100_000] : [10_000, 100_000, 300_000];
  const pointReads = 100;
  const misses = 1000;
  const scans = 10;
  const { bucket: raw, dispose } = await localBucket();
  const bucket = new FaultBucket(raw);
  const rows: Row[] = [];
  try {
    await buildSst(entries(20_000)); // JIT warm-up, so the 1k row measures the builder, not the compiler
    for (const n of sizes) {
      const t0 = performance.now();
      const { bytes, summary } = await buildSst(entries(n));
      const buildSec = (performance.now() - t0) / 1000;
      const key = sstKey("bench", 1, n);
      await bucket.put(key, bytes, { onlyIf: { etagDoesNotMatch: "*" } });
      const hint = { size: summary.size, metaOffset: summary.metaOffset };

      /** Runs `fn`, returning GETs (counted by the bucket wrapper) and bytes (by the reader). */
      const measure = async (counters: ReadCounters, fn: () => Promise<void>) => {
        const g0 = bucket.count({ op: "get" });
        const b0 = counters.bytesRead;
        const r0 = counters.r2Gets;
        await fn();
        const gets = bucket.count({ op: "get" }) - g0;
        if (gets !== counters.r2Gets - r0)
          throw new Error(`reader counted ${counters.r2Gets - r0} GETs, bucket ${gets}`);
        return { gets, bytes: counters.bytesRead - b0 };
      };

      const openC = new ReadCounters();
      const open = await measure(openC, async () => {
        await SstReader.open(bucket, key, { counters: openC, ...hint });
      });
      const bareC = new ReadCounters();
      const openBare = await measure(bareC, async () => {
        await SstReader.open(bucket, key, { counters: bareC });
      });

      // Cold point reads: a fresh reader per read and no cache; the open is not counted.
      let coldGets = 0;
      let coldBytes = 0;
      for (const i of picks(n, pointReads, 1)) {
        const c = new ReadCounters();
        const r = await SstReader.open(bucket, key, { counters: c, ...hint });
        const m = await measure(c, async () => {
          if ((await r.get(keyOf(i))) === undefined) throw new Error(`key ${i} missing`);
        });
        coldGets += m.gets;
        coldBytes += m.bytes;
      }

      // Warm point reads: one reader with an LRU; first pass fills it, the second pass is measured.
      const cache = new LruCache(256 << 20);
      const wc = new ReadCounters();
      const warmReader = await SstReader.open(bucket, key, { counters: wc, cache, ...hint });
      const warmKeys = picks(n, pointReads, 2);
      for (const i of warmKeys) await warmReader.get(keyOf(i));
      const warm = await measure(wc, async () => {
        for (const i of warmKeys) await warmReader.get(keyOf(i));
      });

      // Missing keys that sort inside the table's range: only bloom false positives cost a GET.
      const mc = new ReadCounters();
      const missReader = await SstReader.open(bucket, key, { counters: mc, ...hint });
      const miss = await measure(mc, async () => {
        for (const i of picks(n, misses, 3)) {
          if (
            (await missReader.get(enc.encode(`t/00042/row/${String(i).padStart(10, "0")}~`))) !== undefined
          ) {
            throw new Error("phantom key");
          }
        }
      });

      // 1k-key range scans from random starts: cold (fresh reader per scan, no cache, open not counted)
      // and warm (one cached reader; the scans run once to fill it, then again measured).
      const starts = picks(Math.max(1, n - 1000), scans, 4);
      const scan1k = async (r: SstReader, s: number) => {
        let got = 0;
        for await (const _ of r.scan({ start: keyOf(s), limit: 1000 })) got++;
        if (got !== Math.min(1000, n - s)) throw new Error(`scan returned ${got}`);
      };
      let scanColdGets = 0;
      let scanColdBytes = 0;
      for (const s of starts) {
        const c = new ReadCounters();
        const r = await SstReader.open(bucket, key, { counters: c, ...hint });
        const m = await measure(c, () => scan1k(r, s));
        scanColdGets += m.gets;
        scanColdBytes += m.bytes;
      }
      const sc = new ReadCounters();
      const scanReader = await SstReader.open(bucket, key, {
        counters: sc,
        cache: new LruCache(256 << 20),
        ...hint,
      });
      for (const s of starts) await scan1k(scanReader, s);
      const scanWarm = await measure(sc, async () => {
        for (const s of starts) await scan1k(scanReader, s);
      });

      // Full scan: GETs equal blocks, and resident blocks stay bounded.
      const fc = new ReadCounters();
      const fullReader = await SstReader.open(bucket, key, { counters: fc, ...hint });
      fc.reset();
      const full = await measure(fc, async () => {
        let got = 0;
        for await (const _ of fullReader.scan({})) got++;
        if (got !== n) throw new Error(`full scan returned ${got}`);
      });

      rows.push({
        keys: n,
        table_MiB: summary.size / 2 ** 20,
        blocks: summary.blocks,
        build_MBps: summary.size / 1e6 / buildSec,
        open_gets: open.gets,
        open_KiB: open.bytes / 1024,
        open_nohint_gets: openBare.gets,
        point_cold_gets: coldGets / pointReads,
        point_cold_KiB: coldBytes / 1024 / pointReads,
        point_warm_gets: warm.gets / pointReads,
        miss_gets_per_1k: (miss.gets / misses) * 1000,
        scan1k_cold_gets: scanColdGets / scans,
        scan1k_cold_KiB: scanColdBytes / 1024 / scans,
        scan1k_warm_gets: scanWarm.gets / scans,
        full_scan_gets: full.gets,
        full_scan_max_blocks: fc.maxBlocksResident,
      });
      bucket.resetCounters();
    }
    rows.push(...(await maintenanceRows(raw, storeSizes)));
  } finally {
    await dispose();
  }
  return {
    name: "store-read",
    params: {
      phase: 1,
      sizes,
      pointReads,
      missingLookups: misses,
      scans1k: scans,
      blockBytes: 16384,
      bloomBitsPerKey: 10,
      counting: "storage/fault-bucket.ts (GETs) + ReadCounters (bytes, resident blocks)",
      storeSizes,
      storePhase:
        "LakeStore at default maintenance policy: load + compaction, 1% and 200-key updates, reopen",
    },
    rows,
  };
}
