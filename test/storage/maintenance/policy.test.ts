/**
 * When maintenance is due and what one maintain() call does: the tail thresholds (segments, bytes), the
 * backstop for a host that never calls maintain(), the L0 compaction trigger (and the bytes it waits for), GC falling due with time,
 * and an idle lake costing nothing. Reopening loads layers from the manifest without reading any table.
 */
import { describe, expect, it } from "vitest";
import {
  PARTITION_CUT_KEY_BYTES_MAX,
  PARTITION_CUTS_MAX,
} from "../../../storage/compaction/partition-writer.ts";
import { L0_MERGE_MAX_FACTOR, L0_MERGE_MIN_FRACTION } from "../../../storage/compaction/plan.ts";
import { InvalidArgument } from "../../../storage/errors.ts";
import { walPrefix } from "../../../storage/keys.ts";
import { listTail, newestManifest } from "../../../storage/recovery.ts";
import { retryPolicy } from "../../../storage/retry.ts";
import { sstPrefix } from "../../../storage/sst/key.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, objectKeys, realBucket, s } from "../helpers.ts";
import { Clock, GRACE, openLake } from "./support.ts";

const policy = retryPolicy({ attempts: 2, backoffMs: 0 });

/** WAL segments after the newest manifest's replay point, as a reader opening now would replay them. */
async function durableTail(lake: string): Promise<number> {
  const m = await newestManifest(realBucket(), lake, policy);
  return (await listTail(realBucket(), lake, m!.wal.replayAfter, policy)).length;
}

async function commit(st: LakeStore, k: string, v: string): Promise<void> {
  st.write([{ key: b(k), value: b(v) }]);
  await st.flush();
}

describe("maintenance policy", () => {
  it("the segment threshold makes maintenance due; maintain() flushes the memtable and moves the replay point", async () => {
    const clock = new Clock();
    const lake = lakeName("pseg");
    const st = await openLake(faultBucket(), lake, clock, { flushAfterSegments: 4, gcGraceMs: GRACE });
    expect(st.needsMaintenance).toBe(false);
    for (let i = 0; i < 2; i++) await commit(st, `k${i}`, `v${i}`);
    expect(st.needsMaintenance).toBe(false);
    await commit(st, "k2", "v2");
    // Fence segment + 3 commits = 4 segments after the replay point.
    expect(st.needsMaintenance).toBe(true);
    const r = await st.maintain();
    expect(r.memtableFlushed).toBe(true);
    expect(r.more).toBe(false);
    expect(st.needsMaintenance).toBe(false);
    expect(st.manifest.sortedTables).toHaveLength(1);
    expect(await durableTail(lake)).toBe(1); // the publish segment
    await st.close();

    // Reopen: the manifest names the table, the tail is one empty publish segment, which its listed summary
    // stands in for (docs/decisions/0184-cold-round-packing.md); the open starts the table's metadata GET
    // (storage/open.ts, PREFETCH_TABLES_MAX), which the first read shares. The table is small, so that GET
    // is the whole object, its block included (docs/decisions/0188-small-tables-whole.md).
    const fb = faultBucket();
    const re = await openLake(fb, lake, clock);
    expect(fb.count({ op: "get", prefix: walPrefix(lake) })).toBe(0);
    expect(s(await re.snapshot().get(b("k1")))).toBe("v1");
    expect(fb.count({ op: "get", prefix: sstPrefix(lake) })).toBe(1);
    expect(re.readCounters.wholeTables).toBe(1);
    expect(await dump(re.snapshot())).toEqual({ k0: "v0", k1: "v1", k2: "v2" });
    await re.close();
  });

  it("the byte threshold makes maintenance due", async () => {
    const clock = new Clock();
    const lake = lakeName("pbytes");
    const st = await openLake(faultBucket(), lake, clock, { flushAfterBytes: 10_000 });
    await commit(st, "small", "x");
    expect(st.needsMaintenance).toBe(false);
    await commit(st, "big", "y".repeat(12_000));
    expect(st.needsMaintenance).toBe(true);
    expect((await st.maintain()).memtableFlushed).toBe(true);
    expect(st.needsMaintenance).toBe(false);
    await st.close();
  });

  it("a host that never calls maintain() still gets a bounded tail (the store flushes on its own)", async () => {
    const clock = new Clock();
    const lake = lakeName("pbackstop");
    const st = await openLake(faultBucket(), lake, clock, {
      flushAfterSegments: 2,
      forceFlushAfterSegments: 5,
    });
    let maxTail = 0;
    for (let i = 0; i < 40; i++) {
      await commit(st, `k${String(i).padStart(2, "0")}`, `v${i}`);
      maxTail = Math.max(maxTail, await durableTail(lake));
    }
    // The backstop flushed on its own (and compacted once L0 reached twice the trigger).
    expect(st.maintenanceCounters.memtableFlushes).toBeGreaterThan(3);
    // At most the backstop plus the segments written while its flush is in flight.
    expect(maxTail).toBeLessThanOrEqual(8);
    expect(st.backgroundError).toBeUndefined();
    const expected = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`k${String(i).padStart(2, "0")}`, `v${i}`]),
    );
    expect(await dump(st.snapshot())).toEqual(expected);
    await st.close();
    const re = await openLake(faultBucket(), lake, clock);
    expect(await dump(re.snapshot())).toEqual(expected);
    await re.close();
  });

  it("L0 at the trigger merges once it holds half a partition, or at twice the trigger whatever its size", async () => {
    // Small flushes: at the trigger, L0 is too small for its merged partitions to be moved later, so the
    // merge waits (docs/decisions/0187-l0-merges-wait-for-movable-output.md) up to twice the trigger.
    const clock = new Clock();
    const small = await openLake(faultBucket(), lakeName("pl0s"), clock, { l0CompactionTrigger: 3 });
    for (let i = 0; i < L0_MERGE_MAX_FACTOR * 3; i++) {
      expect(small.needsMaintenance).toBe(false);
      await commit(small, `k${i}`, `v${i}`);
      await small.flushMemtable();
    }
    expect(small.needsMaintenance).toBe(true);
    expect((await small.maintain()).compaction?.kind).toBe("l0");
    expect(small.manifest.sortedTables.every((t) => (t as { level?: number }).level === 1)).toBe(true);
    await small.close();
    // Flushes that together hold half a partition merge at the trigger.
    const partitionBytes = 64 * 1024;
    const big = await openLake(faultBucket(), lakeName("pl0b"), clock, {
      l0CompactionTrigger: 3,
      partitionBytes,
    });
    const value = "v".repeat(Math.ceil((partitionBytes * L0_MERGE_MIN_FRACTION) / 3));
    for (let i = 0; i < 2; i++) {
      await commit(big, `k${i}`, value);
      await big.flushMemtable();
    }
    expect(big.needsMaintenance).toBe(false);
    await commit(big, "k2", value);
    await big.flushMemtable();
    expect(big.needsMaintenance).toBe(true);
    expect((await big.maintain()).compaction?.kind).toBe("l0");
    await big.close();
  });

  it("L0 reaching the trigger makes compaction due; GC falls due with time, and nextMaintenanceAt says when", async () => {
    const clock = new Clock();
    const lake = lakeName("pl0");
    // Tiny partitions: three one-key flushes hold half of one, so L0 merges at the trigger.
    const st = await openLake(faultBucket(), lake, clock, {
      l0CompactionTrigger: 3,
      gcGraceMs: GRACE,
      partitionBytes: 256,
    });
    for (let i = 0; i < 3; i++) {
      await commit(st, `k${i}`, `v${i}`);
      await st.flushMemtable();
    }
    expect(st.needsMaintenance).toBe(true);
    const r = await st.maintain();
    expect(r.compaction?.finished).toBe(true);
    expect(r.objectsDeleted).toBe(0);
    expect(st.manifest.sortedTables.every((t) => (t as { level?: number }).level === 1)).toBe(true);
    expect(st.needsMaintenance).toBe(false);
    const at = st.nextMaintenanceAt;
    expect(at).toBe(clock.t + GRACE);
    clock.advance(GRACE - 1);
    expect(st.needsMaintenance).toBe(false);
    clock.advance(1);
    expect(st.needsMaintenance).toBe(true);
    const g = await st.maintain();
    // 3 L0 tables, 3 flushed-past segments per flush, 4 superseded manifests, ... all past the grace.
    expect(g.objectsDeleted).toBeGreaterThan(10);
    expect(await dump(st.snapshot())).toEqual({ k0: "v0", k1: "v1", k2: "v2" });
    await st.close();
  });

  it("partition cuts past their limits refuse the open with InvalidArgument before anything is written", async () => {
    const clock = new Clock();
    const lake = lakeName("pcuts");
    const many = Array.from({ length: PARTITION_CUTS_MAX + 1 }, (_, i) => b(`cut${i}`));
    await expect(openLake(faultBucket(), lake, clock, undefined, { partitionCuts: many })).rejects.toThrow(
      new RegExp(`at most ${PARTITION_CUTS_MAX} partition cuts`),
    );
    await expect(
      openLake(faultBucket(), lake, clock, undefined, { partitionCuts: [new Uint8Array(0)] }),
    ).rejects.toBeInstanceOf(InvalidArgument);
    await expect(
      openLake(faultBucket(), lake, clock, undefined, {
        partitionCuts: [new Uint8Array(PARTITION_CUT_KEY_BYTES_MAX + 1)],
      }),
    ).rejects.toThrow(/1 to 64 bytes/);
    expect(await objectKeys(realBucket(), lake)).toEqual([]);
    // At the limits the open succeeds (duplicates fold into one cut).
    const st = await openLake(faultBucket(), lake, clock, undefined, {
      partitionCuts: [...many.slice(0, PARTITION_CUTS_MAX), b("cut0")],
    });
    await st.close();
  });

  it("maintain() on an idle, fresh lake writes nothing", async () => {
    const clock = new Clock();
    const lake = lakeName("pidle");
    const fb = faultBucket();
    const st = await openLake(fb, lake, clock);
    fb.resetCounters();
    const r = await st.maintain();
    expect(r).toEqual({ memtableFlushed: false, objectsDeleted: 0, more: false });
    expect(fb.count({ op: ["put", "delete"] })).toBe(0);
    await st.close();
  });
});
