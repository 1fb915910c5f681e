import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { StoreUnavailable } from "../../storage/errors.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { LakeDeleted, openWriter } from "../../storage/index.ts";
import {
  deletedMarkerKey,
  lakeState,
  listLakeNames,
  markLakeDeleted,
  removeDeletedLake,
} from "../../storage/lakes.ts";

const HOUR = 3_600_000;

async function keysUnder(prefix: string): Promise<string[]> {
  return (await env.BUCKET.list({ prefix })).objects.map((o) => o.key);
}

describe("lake registry", () => {
  it("a lake is absent until its writer first opens, then live", async () => {
    expect(await lakeState(env.BUCKET, "reg-a")).toEqual({ state: "absent" });
    const store = await openWriter(env.BUCKET, "reg-a");
    await store.close();
    expect(await lakeState(env.BUCKET, "reg-a")).toEqual({ state: "live" });
  });

  it("marking deleted is idempotent and keeps the first time", async () => {
    await (await openWriter(env.BUCKET, "reg-b")).close();
    expect(await markLakeDeleted(env.BUCKET, "reg-b", 1000)).toBe(1000);
    expect(await markLakeDeleted(env.BUCKET, "reg-b", 5000)).toBe(1000);
    expect(await lakeState(env.BUCKET, "reg-b")).toEqual({ state: "deleted", deletedAt: 1000 });
  });

  it("a deleted lake cannot be reopened as a writer, and one list tells that it is deleted", async () => {
    await (await openWriter(env.BUCKET, "reg-e")).close();
    await markLakeDeleted(env.BUCKET, "reg-e", 42);
    await expect(openWriter(env.BUCKET, "reg-e")).rejects.toBeInstanceOf(LakeDeleted);
    const first = (await env.BUCKET.list({ prefix: "lakes/reg-e/wal/", limit: 1 })).objects[0];
    expect(first?.key).toBe(deletedMarkerKey("reg-e"));
  });

  it("removal waits out the grace period, then deletes everything, the marker last, in bounded steps", async () => {
    await (await openWriter(env.BUCKET, "reg-c")).close();
    for (let i = 0; i < 7; i++) await env.BUCKET.put(`lakes/reg-c/data/f${i}.parquet`, "x");
    // A neighbour whose name shares the prefix must be untouched.
    await (await openWriter(env.BUCKET, "reg-cc")).close();
    const neighbour = await keysUnder("lakes/reg-cc/");
    await markLakeDeleted(env.BUCKET, "reg-c", 0);

    expect(await removeDeletedLake(env.BUCKET, "reg-c", { now: HOUR - 1, graceMs: HOUR })).toEqual({
      deletedObjects: 0,
      done: false,
    });
    const total = (await keysUnder("lakes/reg-c/")).length;
    expect(total).toBeGreaterThan(8);

    let steps = 0;
    let removed = 0;
    for (;;) {
      const p = await removeDeletedLake(env.BUCKET, "reg-c", { now: HOUR, graceMs: HOUR, maxObjects: 3 });
      steps++;
      removed += p.deletedObjects;
      expect(p.deletedObjects).toBeLessThanOrEqual(3);
      if (!p.done) expect(await keysUnder(deletedMarkerKey("reg-c"))).toHaveLength(1);
      if (p.done) break;
      expect(steps).toBeLessThan(20);
    }
    expect(removed).toBe(total - 1);
    expect(await keysUnder("lakes/reg-c/")).toEqual([]);
    expect(await lakeState(env.BUCKET, "reg-c")).toEqual({ state: "absent" });
    expect(await keysUnder("lakes/reg-cc/")).toEqual(neighbour);
  });

  it("removal refuses a live lake", async () => {
    await (await openWriter(env.BUCKET, "reg-d")).close();
    const before = await keysUnder("lakes/reg-d/");
    expect(await removeDeletedLake(env.BUCKET, "reg-d", { now: 10 * HOUR, graceMs: 0 })).toEqual({
      deletedObjects: 0,
      done: false,
    });
    expect(await keysUnder("lakes/reg-d/")).toEqual(before);
  });

  it("lists lake names a page at a time", async () => {
    for (const l of ["reg-l1", "reg-l2", "reg-l3"]) await (await openWriter(env.BUCKET, l)).close();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listLakeNames(env.BUCKET, { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.lakes.length).toBeLessThanOrEqual(2);
      seen.push(...page.lakes);
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual(expect.arrayContaining(["reg-l1", "reg-l2", "reg-l3"]));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("a failed bucket call in removal or marking is StoreUnavailable, and a resumed removal finishes", async () => {
    const lake = "reg-fault";
    const store = await openWriter(env.BUCKET, lake);
    await store.close();
    const fb = new FaultBucket(env.BUCKET);
    fb.fail({ op: "put", nth: 1 });
    await expect(markLakeDeleted(fb, lake, 10)).rejects.toBeInstanceOf(StoreUnavailable);
    expect(fb.count({ outcome: "error" })).toBe(1);
    expect(await lakeState(env.BUCKET, lake)).toEqual({ state: "live" });
    expect(await markLakeDeleted(fb, lake, 10)).toBe(10);
    for (const op of ["list", "delete"] as const) {
      fb.fail({ op, nth: 1 });
      await expect(removeDeletedLake(fb, lake, { now: 10 + HOUR, graceMs: HOUR })).rejects.toBeInstanceOf(
        StoreUnavailable,
      );
      expect(fb.count({ op, outcome: "error" })).toBe(1);
    }
    expect(await removeDeletedLake(fb, lake, { now: 10 + HOUR, graceMs: HOUR })).toMatchObject({
      done: true,
    });
    expect(await lakeState(env.BUCKET, lake)).toEqual({ state: "absent" });
  });
});
