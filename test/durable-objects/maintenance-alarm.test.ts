/**
 * The writer's alarm re-arms for an idle lake (decision docs/decisions/0324-maintenance-alarm.md): once
 * a retention (job 4) or a grace (job 5) ends with no commit since, the alarm still wakes the lake, even
 * an evicted object, and runs the due job. The clock is injected and moved; the alarm is run by the test.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listSnapshots } from "../../catalog/index.ts";
import type { LakeRecord } from "../../durable-objects/registry.ts";
import { openLatest } from "../../storage/index.ts";
import { dataObjectKey } from "../../storage/keys.ts";
import { createTable, lakeName, realBucket, rigLake, stub, unwrap } from "./support.ts";

const HOUR = 3600_000;
const objectKey = (lake: string, file: string) => dataObjectKey(lake, `main/t/${file}`);
const register = (path: string) => [
  { op: "register_data_file", table: { name: "t" }, file: { path, recordCount: 1, fileSizeBytes: 101 } },
];

async function snapshotIds(lake: string): Promise<number[]> {
  return (await listSnapshots(await openLatest(realBucket(), lake))).map((x) => x.snapshot_id);
}

/** The object's alarm as set now (ms since the epoch, real time), or null. */
async function alarmAt(lake: string): Promise<number | null> {
  return runInDurableObject(stub(lake), (_i, state) => state.storage.getAlarm());
}

/** The maintenance due time the object keeps in its registry (its wall clock, ms), if any. */
async function dueAt(lake: string): Promise<number | undefined> {
  return runInDurableObject(
    stub(lake),
    async (_i, state) => (await state.storage.kv.get<LakeRecord>("lake"))?.maintenanceDueAt,
  );
}

/** The alarm is armed no later than the due time (`skew`: the writer's clock minus real time). */
async function expectArmedBy(lake: string, due: number, skew: number): Promise<void> {
  const at = await alarmAt(lake);
  expect(at).not.toBeNull();
  // Earliest wins: the store may have asked for an earlier wake of its own.
  expect(at as number).toBeLessThanOrEqual(due - skew + 1);
}

describe("the alarm of an idle lake", () => {
  it("wakes an evicted lake when the retention ends, expires, and wakes again when the grace ends", async () => {
    const lake = lakeName("mt-idle");
    let skew = 0;
    rigLake(lake, { now: () => Date.now() + skew });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(
      await s.commit(lake, [
        { op: "set_option", name: "expire_older_than", value: "1 hour" },
        { op: "set_option", name: "delete_older_than", value: "1 hour" },
      ]),
    );
    unwrap(await s.commit(lake, createTable("t")));
    await realBucket().put(objectKey(lake, "a.parquet"), new Uint8Array(101));
    unwrap(await s.commit(lake, register("a.parquet")));
    unwrap(await s.commit(lake, [{ op: "expire_data_file", table: { name: "t" }, dataFileId: 0 }]));
    const before = await snapshotIds(lake);
    expect(before.length).toBeGreaterThan(2);

    // The pass after the commits: nothing is an hour old yet, so nothing expires, but the alarm is set
    // for when the oldest snapshot's retention ends, not left to the next commit.
    expect(await runDurableObjectAlarm(s)).toBe(true);
    expect(await snapshotIds(lake)).toEqual(before);
    const oldest = (await listSnapshots(await openLatest(realBucket(), lake)))[0];
    const first = await dueAt(lake);
    expect(first).toBe(Math.floor(Number(oldest?.snapshot_time) / 1000) + HOUR);
    await expectArmedBy(lake, first as number, skew);

    // No commit, the object evicted, the retention over: the alarm wakes the lake and expires.
    await evictDurableObject(s);
    skew += HOUR + 60_000;
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect(await snapshotIds(lake)).toEqual([before.at(-1)]);
    expect(await realBucket().head(objectKey(lake, "a.parquet"))).not.toBeNull();
    // File a, seen by no remaining snapshot, is scheduled: the alarm is set for its grace's end.
    const second = await dueAt(lake);
    expect(second).toBeGreaterThan(Date.now() + skew + HOUR - 60_000);
    expect(second).toBeLessThanOrEqual(Date.now() + skew + HOUR);
    await expectArmedBy(lake, second as number, skew);

    await evictDurableObject(stub(lake));
    skew += HOUR + 60_000;
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect(await realBucket().head(objectKey(lake, "a.parquet"))).toBeNull();
    // Nothing else waits on time.
    expect(await dueAt(lake)).toBeUndefined();
  });

  it("wakes an evicted lake when a marked orphan's grace ends and deletes it (decision 0331)", async () => {
    const lake = lakeName("mt-idle-orphan");
    let skew = 0;
    rigLake(lake, { now: () => Date.now() + skew });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    // No retention: only the orphan's grace waits on time.
    unwrap(await s.commit(lake, [{ op: "set_option", name: "delete_older_than", value: "1 hour" }]));
    unwrap(await s.commit(lake, createTable("t")));
    // An object under the data prefix that no commit ever registered (a PUT whose commit never came).
    await realBucket().put(objectKey(lake, "orphan.parquet"), new Uint8Array(101));
    unwrap(await s.commit(lake, createTable("u")));

    // The pass after the commits marks the orphan; its grace counts from this pass's clock.
    const passFrom = Date.now() + skew;
    expect(await runDurableObjectAlarm(s)).toBe(true);
    const passTo = Date.now() + skew;
    const due = await dueAt(lake);
    expect(due).toBeGreaterThanOrEqual(passFrom + HOUR);
    expect(due).toBeLessThanOrEqual(passTo + HOUR);
    await expectArmedBy(lake, due as number, skew);

    // A minute before the grace ends, the evicted lake's alarm keeps the orphan and the due time.
    await evictDurableObject(stub(lake));
    skew += HOUR - 60_000;
    await runDurableObjectAlarm(stub(lake));
    expect(await realBucket().head(objectKey(lake, "orphan.parquet"))).not.toBeNull();
    expect(await dueAt(lake)).toBe(due);

    // The grace over, no commit since: the alarm wakes the lake and the orphan is deleted.
    await evictDurableObject(stub(lake));
    skew += 2 * 60_000;
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect(await realBucket().head(objectKey(lake, "orphan.parquet"))).toBeNull();
    expect(await dueAt(lake)).toBeUndefined();
  });

  it("an idle lake with no retention set is not woken", async () => {
    const lake = lakeName("mt-idle-none");
    rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("t")));
    expect(await runDurableObjectAlarm(s)).toBe(true);
    expect(await dueAt(lake)).toBeUndefined();
  });
});
