/**
 * Cost by counting, on a 100k-key lake after memtable flushes and a full compaction:
 * - a cold point read costs at most 2 sorted-table GETs (the partition's metadata + one block) and
 *   a repeated one 0, whatever the lake's size; a missing key at most 1 (metadata; the bloom filter
 *   answers); reopening reads no table at all;
 * - compacting one new L0 table of clustered keys into the run rewrites only the partitions those keys
 *   fall in (bytes rewritten counted), not the run;
 * - a full 100k-key scan holds at most 2 blocks per sorted layer at any moment.
 */
import { describe, expect, it } from "vitest";
import { sstPrefix } from "../../../storage/sst/key.ts";
import { MAX_COALESCE_BLOCKS, SCAN_READAHEAD } from "../../../storage/sst/reader.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, faultBucket, lakeName, s } from "../helpers.ts";
import { Clock, openLake } from "./support.ts";

const KEYS = 100_000;
const key = (i: number): string => `user/${String(i).padStart(6, "0")}/name`;
const val = (i: number, round = 0): string => `value-${round}-${i}-${"x".repeat(8)}`;

const POLICY = {
  flushAfterSegments: 10_000,
  forceFlushAfterSegments: 10_000,
  flushAfterBytes: 1 << 30,
  partitionBytes: 256 * 1024,
  stepBytes: 1 << 30,
};

async function load(st: LakeStore): Promise<void> {
  for (let start = 0; start < KEYS; start += 2000) {
    const muts = [];
    for (let i = start; i < start + 2000; i++) muts.push({ key: b(key(i)), value: b(val(i)) });
    st.write(muts);
    if ((start + 2000) % 20_000 === 0) await st.flush();
    if ((start + 2000) % 50_000 === 0) await st.flushMemtable();
  }
}

describe("maintenance cost (100k keys)", () => {
  it("point reads, reopen, partial compaction and a full scan cost what they should", async () => {
    const clock = new Clock();
    const lake = lakeName("cost");
    const st = await openLake(faultBucket(), lake, clock, POLICY);
    await load(st);
    const full = await st.compact({ force: true });
    expect(full?.finished).toBe(true);
    const run = st.manifest.sortedTables;
    expect(run.length).toBeGreaterThan(10);
    const runBytes = run.reduce((n, t) => n + ((t as { size?: number }).size ?? 0), 0);
    await st.close();

    // Reopen with a cold cache: no table read at open, ≤ 2 GETs per cold point read, 0 warm.
    const fb = faultBucket();
    const re = await openLake(fb, lake, clock, POLICY);
    expect(fb.count({ op: "get", prefix: sstPrefix(lake) })).toBe(0);
    const probes = [0, 17, 31_337, 50_000, 77_777, 99_999];
    fb.resetCounters();
    for (const i of probes) expect(s(await re.snapshot().get(b(key(i))))).toBe(val(i));
    expect(fb.count({ op: "get", prefix: sstPrefix(lake) })).toBeLessThanOrEqual(2 * probes.length);
    fb.resetCounters();
    for (const i of probes) expect(s(await re.snapshot().get(b(key(i))))).toBe(val(i));
    expect(fb.count({ op: "get", prefix: sstPrefix(lake) })).toBe(0);
    fb.resetCounters();
    for (const i of probes) expect(await re.snapshot().get(b(`${key(i)}/missing`))).toBeUndefined();
    expect(fb.count({ op: "get", prefix: sstPrefix(lake) })).toBeLessThanOrEqual(probes.length);

    // One L0 table of 200 clustered keys: only the one or two partitions they fall in are rewritten.
    const muts = [];
    for (let i = 60_000; i < 60_200; i++) muts.push({ key: b(key(i)), value: b(val(i, 1)) });
    re.write(muts);
    await re.flushMemtable();
    const step = await re.compact({ force: true });
    expect(step?.finished).toBe(true);
    expect(step!.partitionsReplaced).toBeLessThanOrEqual(2);
    expect(step!.bytesWritten).toBeLessThanOrEqual(3 * POLICY.partitionBytes);
    expect(step!.bytesWritten * 10).toBeLessThan(runBytes);
    expect(re.maintenanceCounters.bytesRewritten).toBe(step!.bytesWritten);
    expect(s(await re.snapshot().get(b(key(60_100))))).toBe(val(60_100, 1));

    // A full scan with one L0 table above the run: at most (readahead + 1) × coalesced blocks per layer
    // resident at once (storage/sst/README.md "Scans").
    re.write([{ key: b(key(5)), value: b("fresh") }]);
    await re.flushMemtable();
    re.readCounters.reset();
    let n = 0;
    for await (const kv of re.snapshot().scan({})) {
      if (n === 5) expect(s(kv.value)).toBe("fresh");
      n++;
    }
    expect(n).toBe(KEYS);
    expect(re.readCounters.maxBlocksResident).toBeLessThanOrEqual(
      2 * (SCAN_READAHEAD + 1) * MAX_COALESCE_BLOCKS,
    );
    expect(re.readCounters.blocksResident).toBe(0);
    await re.close();
  });
});
