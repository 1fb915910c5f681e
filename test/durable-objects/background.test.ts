/** The alarm: idempotency keys honoured across restarts and swept once expired; deleted lakes removed. */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LakeRecord } from "../../durable-objects/registry.ts";
import { createTable, lakeName, realBucket, rigLake, stub, unwrap } from "./support.ts";

describe("background work", () => {
  it("honours an idempotency key across a restart, and the alarm sweeps it once expired", async () => {
    const lake = lakeName("idem");
    let skew = 0;
    rigLake(lake, { now: () => Date.now() + skew, tunables: { idempotencyTtlMs: 60_000 } });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    const first = unwrap(await s.commit(lake, createTable("t"), { idempotencyKey: "k1" }));
    await evictDurableObject(s);
    const replay = unwrap(await stub(lake).commit(lake, createTable("t"), { idempotencyKey: "k1" }));
    expect(replay).toMatchObject({ snapshotId: first.snapshotId, replayed: true });
    const reused = await stub(lake).commit(lake, createTable("other"), { idempotencyKey: "k1" });
    expect(reused.ok ? "ok" : reused.error.code).toBe("IdempotencyKeyReused");
    skew = 61_000;
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    const status = unwrap(await stub(lake).status(lake));
    expect(status.writer?.sweptKeys).toBe(1);
    // Swept: the key is free again and names a new commit.
    const fresh = unwrap(await stub(lake).commit(lake, createTable("other"), { idempotencyKey: "k1" }));
    expect(fresh.replayed ?? false).toBe(false);
  });

  it("removes a deleted lake's objects once the grace period has passed, then frees the name", async () => {
    const lake = lakeName("gone");
    let skew = 0;
    rigLake(lake, { now: () => Date.now() + skew, tunables: { deleteGraceMs: 3_600_000 } });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("t")));
    unwrap(await s.deleteLake(lake));
    // Within the grace period the alarm removes nothing.
    await runDurableObjectAlarm(s);
    expect((await realBucket().list({ prefix: `lakes/${lake}/` })).objects.length).toBeGreaterThan(0);
    skew = 3_600_001;
    // Past the grace period: the next alarm pass removes every object, the deletion marker last.
    await runInDurableObject(s, (_i, state) => state.storage.setAlarm(Date.now() + 3_600_000));
    expect(await runDurableObjectAlarm(s)).toBe(true);
    expect((await realBucket().list({ prefix: `lakes/${lake}/` })).objects).toHaveLength(0);
    const rec = await runInDurableObject(s, (_i, state) => state.storage.kv.get<LakeRecord>("lake"));
    expect(rec).toBeUndefined();
    await evictDurableObject(s);
    const again = unwrap(await stub(lake).createLake(lake, {}));
    expect(again.snapshotId).toBe(0);
  });
});

describe("checkpoints and store maintenance through the writer", () => {
  it("mints, lists and deletes a named checkpoint of the durable cut", async () => {
    const lake = lakeName("ckpt");
    rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    const c = unwrap(await s.commit(lake, createTable("t")));
    const cp = unwrap(await s.createCheckpoint(lake, { lifetimeMs: 60_000 }));
    expect(cp.position ?? Number.POSITIVE_INFINITY).toBeGreaterThanOrEqual(c.position);
    expect(cp.expiresAt).not.toBeNull();
    expect(unwrap(await s.listCheckpoints(lake)).map((x) => x.id)).toContain(cp.id);
    unwrap(await s.deleteCheckpoint(lake, cp.id));
    expect(unwrap(await s.listCheckpoints(lake)).map((x) => x.id)).not.toContain(cp.id);
    const again = await s.deleteCheckpoint(lake, cp.id);
    expect(again.ok ? "ok" : again.error.code).toBe("CheckpointNotFound");
    const bad = await s.createCheckpoint(lake, { lifetimeMs: -1 });
    expect(bad.ok ? "ok" : bad.error.code).toBe("InvalidRequest");
  });

  it("the alarm runs the store's memtable flush once its WAL tail is long, and a wake then reads less", async () => {
    const lake = lakeName("maint");
    const rig = rigLake(lake, { tunables: { storeMaintenance: { flushAfterSegments: 4 } } });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    for (let i = 0; i < 6; i++) unwrap(await s.commit(lake, createTable(`t${i}`)));
    rig.bucket.resetCounters();
    expect(await runDurableObjectAlarm(s)).toBe(true);
    expect(rig.bucket.count({ op: "put", prefix: `lakes/${lake}/sst/`, outcome: "ok" })).toBeGreaterThan(0);
    await evictDurableObject(s);
    rig.bucket.resetCounters();
    const h = unwrap(await stub(lake).head(lake));
    expect(h.snapshotId).toBe(6);
    // The wake replays only the short tail after the flush, not all eight segments.
    expect(rig.bucket.count({ op: "get", prefix: `lakes/${lake}/wal/` })).toBeLessThan(4);
  });
});
