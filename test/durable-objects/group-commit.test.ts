/**
 * The lake writer as callers see it: lifecycle basics, and concurrent commits coalesced into few WAL
 * segments while each still mints its own consecutive snapshot that time travel resolves.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { catalogAt, tableFilesAt } from "../../catalog/index.ts";
import { openWriter } from "../../storage/index.ts";
import {
  appendFile,
  burstBehindFirstPut,
  createTable,
  lakeName,
  realBucket,
  rigLake,
  stub,
  unwrap,
  walPuts,
} from "./support.ts";

describe("lake writer lifecycle", () => {
  it("creates a lake once, commits to it, and refuses a lake that does not exist", async () => {
    const lake = lakeName("life");
    rigLake(lake);
    const s = stub(lake);
    const absent = await s.commit(lake, createTable("t"));
    expect(absent.ok ? "ok" : absent.error.code).toBe("NotFound");
    const created = unwrap(await s.createLake(lake, {}));
    expect(created).toMatchObject({ lake, snapshotId: 0 });
    const again = await s.createLake(lake, {});
    expect(again.ok ? "ok" : again.error.code).toBe("AlreadyExists");
    const c = unwrap(await s.commit(lake, createTable("t"), { author: "a", message: "m" }));
    expect(c.snapshotId).toBe(1);
    expect(c.position).toBeGreaterThan(created.position);
    const h = unwrap(await s.head(lake));
    expect(h).toMatchObject({ snapshotId: 1, position: c.position });
    // A member's own validation error is an answer, not a failure of the writer.
    const dup = await s.commit(lake, createTable("t"));
    expect(dup.ok ? "ok" : dup.error.code).toBe("AlreadyExists");
    const bad = await s.commit(lake, [{ op: "no_such_verb" }]);
    expect(bad.ok ? "ok" : bad.error.code).toBe("InvalidRequest");
    const other = await s.commit("some-other-lake", createTable("x"));
    expect(other.ok ? "ok" : other.error.code).toBe("InvalidRequest");
  });

  it("concurrent first requests share one open", async () => {
    const lake = lakeName("open");
    const rig = rigLake(lake);
    unwrap(await stub(lake).createLake(lake, {}));
    await evictDurableObject(stub(lake));
    rig.bucket.resetCounters();
    const s = stub(lake);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.commit(lake, createTable(`t${i}`))),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    // One open: one manifest listing, one manifest read and one WAL listing, however many callers
    // woke the object (the held epoch also spares the manifest PUT).
    expect(rig.bucket.count({ op: "list", prefix: `lakes/${lake}/manifest/` })).toBe(1);
    expect(rig.bucket.count({ op: "get", prefix: `lakes/${lake}/manifest/` })).toBe(1);
    expect(rig.bucket.count({ op: "list", prefix: `lakes/${lake}/wal/` })).toBe(1);
    expect(rig.bucket.count({ op: "put", prefix: `lakes/${lake}/manifest/` })).toBe(0);
  });

  it("deletes a lake: its name answers NotFound and cannot be re-created during the grace period", async () => {
    const lake = lakeName("del");
    rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("t")));
    const d = unwrap(await s.deleteLake(lake));
    expect(d.removeAfter).toBeGreaterThan(d.deletedAt);
    const after = await s.commit(lake, createTable("u"));
    expect(after.ok ? "ok" : after.error.code).toBe("NotFound");
    await evictDurableObject(s);
    const cold = await stub(lake).head(lake);
    expect(cold.ok ? "ok" : cold.error.code).toBe("NotFound");
    const recreate = await stub(lake).createLake(lake, {});
    expect(recreate.ok ? "ok" : recreate.error.code).toBe("LakeDeletedPendingRemoval");
  });
});

describe("group commit through the object", () => {
  it("64 concurrent commits land in at most 2 WAL segments, each its own consecutive snapshot", async () => {
    const lake = lakeName("g64");
    // No pacing window: the first segment PUT is held until all 64 are applied (an explicit gate), so
    // the grouping does not depend on how fast the calls arrive on a loaded machine.
    const rig = rigLake(lake, { tunables: { flushSpacingMs: 0 } });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.head(lake));
    rig.bucket.resetCounters();
    const n = 64;
    const results = await burstBehindFirstPut(
      rig,
      lake,
      Array.from({ length: n }, (_, i) => () => s.commit(lake, createTable(`t${i}`))),
    );
    expect(walPuts(rig.bucket, lake)).toBeLessThanOrEqual(2);
    const snaps = results.map((r) => r.snapshotId ?? -1).sort((a, b) => a - b);
    expect(snaps).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    // Every acknowledged commit is in R2: a fresh writer (after the object is gone) resolves each
    // member's snapshot to exactly the tables created up to it.
    await evictDurableObject(s);
    const store = await openWriter(realBucket(), lake);
    const view = store.snapshot();
    const created = new Map(results.map((r, i) => [r.snapshotId ?? -1, `t${i}`]));
    for (const sid of [1, 2, 17, 32, 33, 63, 64]) {
      const names = (await catalogAt(view, sid)).tables.map((t) => t.table_name).sort();
      const expected = [...created]
        .filter(([k]) => k <= sid)
        .map(([, v]) => v)
        .sort();
      expect(names).toEqual(expected);
    }
    await store.close();
  });

  it("64 writers appending to one table all land, ≤ 2 segments, row ids dense across the batch", async () => {
    const lake = lakeName("a64");
    const rig = rigLake(lake, { tunables: { flushSpacingMs: 0 } });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("events")));
    rig.bucket.resetCounters();
    const n = 64;
    const results = await burstBehindFirstPut(
      rig,
      lake,
      Array.from(
        { length: n },
        (_, i) => () => s.commit(lake, appendFile("events", `f${i}.parquet`, 10 + i)),
      ),
    );
    expect(walPuts(rig.bucket, lake)).toBeLessThanOrEqual(2);
    const snaps = results.map((r) => r.snapshotId ?? -1).sort((a, b) => a - b);
    expect(snaps).toEqual(Array.from({ length: n }, (_, i) => i + 2));
    await evictDurableObject(s);
    const store = await openWriter(realBucket(), lake);
    const view = store.snapshot();
    const plan = await tableFilesAt(view, { name: "events" });
    expect(plan.files).toHaveLength(n);
    const ranges = plan.files
      .map((f) => [f.row_id_start, f.record_count] as const)
      .sort((a, b) => a[0] - b[0]);
    let next = 0;
    for (const [start, count] of ranges) {
      expect(start).toBe(next);
      next += count;
    }
    // Time travel: at each member's snapshot the table holds exactly the files up to it.
    for (const sid of [2, 3, 40, 65]) {
      expect((await tableFilesAt(view, { name: "events" }, sid)).files).toHaveLength(sid - 1);
    }
    await store.close();
  });
});
