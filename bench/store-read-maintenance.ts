/**
 * store-read, phase 2: the writer-side store with memtable flushes and compaction, at default policy.
 *
 * Per size: load the keys through `LakeStore` (batches of 1000, a WAL flush every 10 batches, a memtable
 * flush every 25k keys), then compact to one sorted run — compaction throughput and write amplification
 * (table bytes written / L0 bytes flushed). Then an incremental round: 1% of the keys updated at random
 * and 200 clustered keys, each flushed and compacted — partitions and bytes rewritten. Then reopen cost
 * (bucket calls of openWriter; table GETs must be 0) and the first point reads after it, cold and warm.
 */
import type { Bucket } from "../storage/api.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { openWriter } from "../storage/open.ts";
import { sstPrefix } from "../storage/sst/key.ts";
import type { LakeStore } from "../storage/store.ts";
import type { Row } from "./report.ts";

const enc = new TextEncoder();
const key = (i: number): Uint8Array => enc.encode(`t/00042/row/${String(i).padStart(10, "0")}`);
const value = (i: number, round: number): Uint8Array =>
  enc.encode(`r${round}:${i}:${"v".repeat(40 + (i % 41))}`);

function picks(n: number, count: number, salt: number): number[] {
  let x = (salt * 2654435761) >>> 0;
  return Array.from({ length: count }, () => {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return x % n;
  });
}

async function compactAll(
  st: LakeStore,
): Promise<{ steps: number; sec: number; bytesIn: number; bytesOut: number; replaced: number }> {
  const t0 = performance.now();
  let steps = 0;
  let bytesIn = 0;
  let bytesOut = 0;
  let replaced = 0;
  for (;;) {
    const r = await st.compact({ force: true });
    if (r === undefined) break;
    steps++;
    bytesIn += r.bytesIn;
    bytesOut += r.bytesWritten;
    replaced += r.partitionsReplaced;
    if (r.finished) break;
  }
  return { steps, sec: (performance.now() - t0) / 1000, bytesIn, bytesOut, replaced };
}

export async function maintenanceRows(raw: Bucket, sizes: readonly number[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const n of sizes) {
    const lake = `bench-maint-${n}`;
    const bucket = new FaultBucket(raw);
    const st = (await openWriter(bucket, lake, {
      maintenance: { forceFlushAfterSegments: 1e9 },
    })) as LakeStore;
    for (let start = 0; start < n; start += 1000) {
      const muts = [];
      for (let i = start; i < Math.min(n, start + 1000); i++) muts.push({ key: key(i), value: value(i, 0) });
      st.write(muts);
      if ((start / 1000) % 10 === 9) await st.flush();
      if ((start + 1000) % 25_000 === 0) await st.flushMemtable();
    }
    await st.flush();
    await st.flushMemtable();
    const flushed = st.maintenanceCounters.bytesFlushed;
    const load = await compactAll(st);

    // 1% random updates, then 200 clustered keys.
    const before = st.maintenanceCounters.bytesFlushed;
    st.write(picks(n, Math.max(1, n / 100), 7).map((i) => ({ key: key(i), value: value(i, 1) })));
    await st.flushMemtable();
    const l0Random = st.maintenanceCounters.bytesFlushed - before;
    const random = await compactAll(st);
    const mid = Math.floor(n / 2);
    const before2 = st.maintenanceCounters.bytesFlushed;
    st.write(
      Array.from({ length: Math.min(200, n) }, (_, j) => ({ key: key((mid + j) % n), value: value(j, 2) })),
    );
    await st.flushMemtable();
    const l0Clustered = st.maintenanceCounters.bytesFlushed - before2;
    const clustered = await compactAll(st);
    const partitions = st.manifest.sortedTables.length;
    await st.close();

    // Reopen: bucket calls of the open itself, then cold and warm point reads.
    bucket.resetCounters();
    const re = (await openWriter(bucket, lake)) as LakeStore;
    const open = bucket.counts(`lakes/${lake}/`);
    const openSstGets = bucket.count({ op: "get", prefix: sstPrefix(lake) });
    const probes = picks(n, 100, 9);
    bucket.resetCounters();
    for (const i of probes) if ((await re.snapshot().get(key(i))) === undefined) throw new Error("missing");
    const cold = bucket.count({ op: "get", prefix: sstPrefix(lake) }) / probes.length;
    bucket.resetCounters();
    for (const i of probes) await re.snapshot().get(key(i));
    const warm = bucket.count({ op: "get", prefix: sstPrefix(lake) }) / probes.length;
    await re.close();

    rows.push({
      phase: "store",
      keys: n,
      l0_MiB: flushed / 2 ** 20,
      run_partitions: partitions,
      compact_steps: load.steps,
      compact_MBps_in: load.bytesIn / 1e6 / load.sec,
      compact_WA: (flushed + load.bytesOut) / flushed,
      upd1pct_L0_KiB: l0Random / 1024,
      upd1pct_parts_rewritten: random.replaced,
      upd1pct_rewritten_MiB: random.bytesOut / 2 ** 20,
      upd200_parts_rewritten: clustered.replaced,
      upd200_rewritten_KiB: clustered.bytesOut / 1024,
      upd200_WA: clustered.bytesOut / Math.max(1, l0Clustered),
      reopen_lists: open.list,
      reopen_gets: open.get,
      reopen_puts: open.put,
      reopen_sst_gets: openSstGets,
      point_cold_gets: cold,
      point_warm_gets: warm,
    });
  }
  return rows;
}
