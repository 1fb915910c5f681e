import { describe, expect, it } from "vitest";
import type { Store } from "../../storage/api.ts";
import { Fenced, OpenRaced } from "../../storage/errors.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { manifestPrefix, walPrefix } from "../../storage/keys.ts";
import type { LakeStore } from "../../storage/store.ts";
import { b, dump, faultBucket, lakeName, objectKeys, open, realBucket } from "./helpers.ts";

const asLake = (st: Store): LakeStore => st as LakeStore;

async function timelineStart(lake: string): Promise<{ a: Store; fa: FaultBucket }> {
  const fa = faultBucket();
  const a = await open(fa, lake, { identity: "writer-a" });
  a.write([{ key: b("k1"), value: b("v1") }]);
  await a.flush();
  return { a, fa };
}

describe("fencing: newest writer wins", () => {
  it("A's flush after B opens is Fenced, lands nothing, and the bucket matches the timeline where A never woke", async () => {
    const lakeX = lakeName("fenceX");
    const lakeY = lakeName("fenceY");
    const x = await timelineStart(lakeX);
    await timelineStart(lakeY); // A wakes never again in this timeline
    const bx = await open(faultBucket(), lakeX, { identity: "writer-b" });
    const by = await open(faultBucket(), lakeY, { identity: "writer-b" });

    const before = x.fa.log.length;
    const h = x.a.write([{ key: b("k2"), value: b("lost") }]);
    await expect(x.a.flush()).rejects.toBeInstanceOf(Fenced);
    await expect(h.durable).rejects.toBeInstanceOf(Fenced);
    const aCalls = x.fa.log.slice(before);
    expect(aCalls.filter((r) => r.op === "put" && r.outcome === "ok")).toEqual([]);
    expect(aCalls.filter((r) => r.op === "put")).toHaveLength(1);
    // Terminal: later writes and manifest writes throw without touching the bucket.
    const after = x.fa.log.length;
    expect(() => x.a.write([{ key: b("k3"), value: b("x") }])).toThrow(Fenced);
    await expect(asLake(x.a).writeManifest((m) => m)).rejects.toBeInstanceOf(Fenced);
    await expect(x.a.flush()).rejects.toBeInstanceOf(Fenced);
    expect(x.fa.log.length).toBe(after);

    expect(await objectKeys(realBucket(), lakeX)).toEqual(await objectKeys(realBucket(), lakeY));
    expect(await dump(bx.snapshot())).toEqual(await dump(by.snapshot()));
    expect(await dump(bx.snapshot())).toEqual({ k1: "v1" });
    expect(bx.position).toBe(by.position);
    expect(bx.epoch).toBe(2);
  });

  it("A's manifest write after B opens is Fenced and lands nothing", async () => {
    const lakeX = lakeName("fenceMX");
    const lakeY = lakeName("fenceMY");
    const x = await timelineStart(lakeX);
    await timelineStart(lakeY);
    const bx = await open(faultBucket(), lakeX);
    await open(faultBucket(), lakeY);
    const before = x.fa.log.length;
    await expect(asLake(x.a).writeManifest((m) => m)).rejects.toBeInstanceOf(Fenced);
    expect(x.fa.log.slice(before).filter((r) => r.op === "put" && r.outcome === "ok")).toEqual([]);
    expect(await objectKeys(realBucket(), lakeX)).toEqual(await objectKeys(realBucket(), lakeY));
    // B is unaffected and keeps writing.
    bx.write([{ key: b("k2"), value: b("v2") }]);
    await bx.flush();
    await asLake(bx).writeManifest((m) => m);
    expect(await dump(bx.snapshot())).toEqual({ k1: "v1", k2: "v2" });
  });

  it("a fence that collides with an older writer's fresh segment replays it and fences the next id", async () => {
    const lake = lakeName("collide");
    const fa = faultBucket();
    const a = await open(fa, lake);
    a.write([{ key: b("k1"), value: b("v1") }]);
    await a.flush();
    // A's next segment lands exactly between B's WAL listing and B's fence PUT.
    const fb = faultBucket();
    let injected = false;
    const ack = a.write([{ key: b("acked"), value: b("yes") }]);
    const origList = fb.list.bind(fb);
    fb.list = async (o) => {
      const r = await origList(o);
      if (!injected && o?.prefix === walPrefix(lake)) {
        injected = true;
        await a.flush();
      }
      return r;
    };
    const bst = await open(fb, lake);
    await ack.durable;
    expect(await dump(bst.snapshot())).toEqual({ k1: "v1", acked: "yes" });
    expect(bst.position).toBe(2);
    a.write([{ key: b("late"), value: b("no") }]);
    await expect(a.flush()).rejects.toBeInstanceOf(Fenced);
    const reopened = await open(faultBucket(), lake);
    expect(await dump(reopened.snapshot())).toEqual({ k1: "v1", acked: "yes" });
  });

  it("concurrent first opens of an empty lake make exactly one genesis", async () => {
    const lake = lakeName("genesis");
    const buckets = [1, 2, 3, 4].map((i) => new FaultBucket(realBucket(), { seed: i }));
    const results = await Promise.allSettled(buckets.map((fb, i) => open(fb, lake, { identity: `w${i}` })));
    const ok = results.filter((r) => r.status === "fulfilled");
    const raced = results.filter((r) => r.status === "rejected");
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of raced) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(OpenRaced);
    const genesisPuts = buckets.map((fb) =>
      fb.count({ op: "put", prefix: `${manifestPrefix(lake)}99999999999999999998` }),
    );
    expect(genesisPuts.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(1);
    const manifests = (await objectKeys(realBucket(), lake)).filter((k) => k.startsWith("manifest/"));
    expect(manifests.filter((k) => k === "manifest/99999999999999999998.json")).toHaveLength(1);
    // Re-opening a loser resolves the race.
    const again = await open(buckets[3]!, lake);
    again.write([{ key: b("x"), value: b("y") }]);
    await again.flush();
  });
});

describe("cheap activation: the held-epoch shortcut", () => {
  it("costs one PUT and no new manifest when the host still holds the newest epoch", async () => {
    const lake = lakeName("held");
    const st = await open(faultBucket(), lake, { identity: "do-1" });
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    await st.close();
    const fb = faultBucket();
    const again = await open(fb, lake, { identity: "do-1", heldEpoch: st.epoch });
    expect(again.epoch).toBe(st.epoch);
    // list manifests + get manifest, list WAL + get the data segment (the genesis fence is empty: its
    // listed summary stands in, docs/decisions/0184-cold-round-packing.md), fence PUT.
    expect(fb.counts()).toEqual({ put: 1, get: 2, head: 0, list: 2, delete: 0 });
    const full = faultBucket();
    const bumped = await open(full, lake, { identity: "do-1" });
    expect(bumped.epoch).toBe(st.epoch + 1);
    // The manifest and the data segment: both fences in the tail (genesis, the held open's) are empty.
    expect(full.counts()).toEqual({ put: 2, get: 2, head: 0, list: 2, delete: 0 });
    // A stale or foreign claim mints a new epoch.
    const stale = faultBucket();
    expect((await open(stale, lake, { identity: "do-1", heldEpoch: st.epoch })).epoch).toBe(st.epoch + 2);
    const foreign = faultBucket();
    const f = await open(foreign, lake, { identity: "other", heldEpoch: st.epoch + 2 });
    expect(f.epoch).toBe(st.epoch + 3);
    expect(foreign.count({ op: "put", prefix: manifestPrefix(lake) })).toBe(1);
  });

  it("is safe against a still-running instance of the same epoch: it is fenced, nothing durable is lost", async () => {
    const lake = lakeName("heldsafe");
    const old = await open(faultBucket(), lake, { identity: "do-1" });
    const d1 = old.write([{ key: b("a"), value: b("1") }]);
    await old.flush();
    await d1.durable;
    const pending = old.write([{ key: b("b"), value: b("never-durable") }]);
    const fresh = await open(faultBucket(), lake, { identity: "do-1", heldEpoch: old.epoch });
    expect(fresh.epoch).toBe(old.epoch);
    await expect(old.flush()).rejects.toBeInstanceOf(Fenced);
    await expect(pending.durable).rejects.toBeInstanceOf(Fenced);
    expect(await dump(fresh.snapshot())).toEqual({ a: "1" });
    fresh.write([{ key: b("c"), value: b("3") }]);
    await fresh.flush();
    const check = await open(faultBucket(), lake);
    expect(await dump(check.snapshot())).toEqual({ a: "1", c: "3" });
  });

  it("an old same-epoch instance that writes a manifest in the window leaves a complete lake; the loser is Fenced", async () => {
    const lake = lakeName("heldmanifest");
    const old = await open(faultBucket(), lake, { identity: "do-1" });
    old.write([{ key: b("a"), value: b("1") }]);
    await old.flush();
    const fresh = await open(faultBucket(), lake, { identity: "do-1", heldEpoch: old.epoch });
    // The old instance's manifest PUT can land (no newer version exists), but its publish segment collides.
    await expect(asLake(old).writeManifest((m) => m)).rejects.toBeInstanceOf(Fenced);
    fresh.write([{ key: b("b"), value: b("2") }]);
    await fresh.flush();
    // The fresh instance now loses the manifest race: safe (Fenced, nothing written), the host reopens.
    await expect(asLake(fresh).writeManifest((m) => m)).rejects.toBeInstanceOf(Fenced);
    const check = await open(faultBucket(), lake);
    expect(await dump(check.snapshot())).toEqual({ a: "1", b: "2" });
  });
});
