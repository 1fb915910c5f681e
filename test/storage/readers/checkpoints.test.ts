import { describe, expect, it } from "vitest";
import { LruCache } from "../../../storage/cache.ts";
import { checkpointKey, checkpointTombstoneKey } from "../../../storage/checkpoint-format.ts";
import {
  checkpointPinnedKeys,
  listPublishedCheckpoints,
  liveCheckpointRefs,
  NO_EXPIRY,
} from "../../../storage/checkpoints.ts";
import { Fenced, InvalidArgument, LakeDeleted, StoreClosed } from "../../../storage/errors.ts";
import type { FaultBucket } from "../../../storage/fault-bucket.ts";
import { manifestKey, walKey } from "../../../storage/keys.ts";
import { markLakeDeleted } from "../../../storage/lakes.ts";
import {
  CheckpointExpired,
  CheckpointNotFound,
  InvalidCheckpointId,
  openCheckpoint,
} from "../../../storage/reader/index.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, objectKeys, open, realBucket, s } from "../helpers.ts";

const ID = /^[1-9][0-9]*-[0-9a-f]{32}$/;

async function writer(lake: string, now?: () => number): Promise<LakeStore> {
  return (await open(faultBucket(), lake, now ? { now } : {})) as unknown as LakeStore;
}

/** The real bucket behind a wrapper that rejects every write and every list (and counts attempts). */
function readOnlyBucket(): FaultBucket {
  const fb = faultBucket();
  fb.fail({ op: ["put", "delete", "list"], probability: 1 });
  return fb;
}

describe("named checkpoints", () => {
  it("mints a checkpoint of the durable cut, recorded in the next manifest version, listed", async () => {
    const lake = lakeName("mint");
    const st = await writer(lake);
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    st.write([{ key: b("b"), value: b("2") }]); // applied only: the mint flushes it first
    const cp = await st.createCheckpoint();
    expect(cp).toMatchObject({
      manifestVersion: 2,
      walRange: { from: 1, to: 3 },
      position: 2,
      expiresAt: null,
    });
    expect(cp.id).toMatch(ID);
    expect(cp.id.startsWith(`${st.epoch}-`)).toBe(true);
    expect(st.manifest.version).toBe(2);
    expect(st.manifest.checkpoints).toEqual([
      expect.objectContaining({ id: cp.id, manifestVersion: 2, walFrom: 1, walTo: 3, expiresAt: NO_EXPIRY }),
    ]);
    expect(st.listCheckpoints()).toEqual([cp]);
    expect(await listPublishedCheckpoints(realBucket(), lake)).toEqual([cp]);
    expect(await objectKeys(realBucket(), lake)).toContain(`checkpoints/${cp.id}.json`);
    const other = await st.createCheckpoint({ lifetimeMs: 60_000 });
    expect(other.id).not.toBe(cp.id);
    expect(other.expiresAt).toBeGreaterThan(Date.now());
    await expect(st.createCheckpoint({ lifetimeMs: 0 })).rejects.toBeInstanceOf(InvalidArgument);
  });

  it("a checkpoint reader serves its cut after later commits, manifests and a new writer", async () => {
    const lake = lakeName("pinned");
    const st = await writer(lake);
    st.write([
      { key: b("a"), value: b("1") },
      { key: b("gone"), value: b("x") },
    ]);
    st.write([{ key: b("gone"), value: undefined }]);
    const cp = await st.createCheckpoint();
    const early = await openCheckpoint(realBucket(), lake, cp.id);
    st.write([
      { key: b("a"), value: b("2") },
      { key: b("b"), value: b("2") },
    ]);
    await st.flush();
    await st.writeManifest((m) => m);
    const st2 = await writer(lake);
    st2.write([{ key: b("c"), value: b("3") }]);
    await st2.flush();
    const late = await openCheckpoint(realBucket(), lake, cp.id);
    for (const r of [early, late]) {
      expect(await dump(r)).toEqual({ a: "1" });
      expect(r.cut).toMatchObject({ checkpointId: cp.id, position: 2, manifestVersion: 2, epoch: 1 });
    }
    // The new writer carried the record forward and lists it.
    expect(st2.listCheckpoints().map((c) => c.id)).toEqual([cp.id]);
  });

  it("opens, reads and closes against a bucket that rejects every write and list, attempting none", async () => {
    const lake = lakeName("zero-write");
    const st = await writer(lake);
    for (let i = 0; i < 3; i++) {
      st.write([{ key: b(`k${i}`), value: b(`v${i}`) }]);
      await st.flush();
    }
    const cp = await st.createCheckpoint();
    st.write([{ key: b("later"), value: b("x") }]);
    await st.flush();
    const fb = readOnlyBucket();
    const cache = new LruCache(1 << 20);
    const r = await openCheckpoint(fb, lake, cp.id, { cache });
    expect(s(await r.get(b("k1")))).toBe("v1");
    expect(await r.get(b("later"))).toBeUndefined();
    expect(Object.keys(await dump(r))).toEqual(["k0", "k1", "k2"]);
    r.close();
    // Descriptor + manifest + 4 segments (fence + 3 flushes); 2 HEADs: tombstone, deleted-lake marker.
    expect(fb.counts()).toEqual({ get: 1 + 1 + 4, head: 2, put: 0, delete: 0, list: 0 });
    // Warm: only the two HEADs that must never be cached.
    fb.resetCounters();
    const warm = await openCheckpoint(fb, lake, cp.id, { cache });
    expect(await dump(warm)).toEqual({ k0: "v0", k1: "v1", k2: "v2" });
    warm.close();
    expect(fb.counts()).toEqual({ get: 0, head: 2, put: 0, delete: 0, list: 0 });
    expect(warm.counters.snapshot().calls).toEqual({ get: 0, head: 2, put: 0, delete: 0, list: 0 });
    await expect(warm.get(b("k0"))).rejects.toBeInstanceOf(StoreClosed);
  });

  it("refuses malformed ids before any bucket call, and unknown ids with CheckpointNotFound", async () => {
    const lake = lakeName("ids");
    const st = await writer(lake);
    const cp = await st.createCheckpoint();
    const fb = readOnlyBucket();
    const bad = [
      "",
      "x",
      "0-00000000000000000000000000000000",
      `${cp.id}x`,
      cp.id.toUpperCase(),
      `../${cp.id}`,
      `1-${"a".repeat(31)}`,
      `99999999999999999-${"a".repeat(32)}`,
      `${cp.id}.json`,
    ];
    for (const id of bad) {
      const e = await openCheckpoint(fb, lake, id).catch((x: unknown) => x);
      expect(e, id).toBeInstanceOf(InvalidCheckpointId);
      expect(e).toMatchObject({ code: "InvalidCheckpointId" });
    }
    expect(fb.log).toHaveLength(0);
    const unknown = `1-${"0".repeat(32)}`;
    await expect(openCheckpoint(fb, lake, unknown)).rejects.toMatchObject({ code: "CheckpointNotFound" });
    // The id of another lake is unknown here.
    const other = lakeName("ids-other");
    await writer(other);
    await expect(openCheckpoint(fb, other, cp.id)).rejects.toBeInstanceOf(CheckpointNotFound);
    expect(fb.counts()).toMatchObject({ put: 0, delete: 0, list: 0 });
  });

  it("an expired checkpoint is refused, even when its descriptor is cached", async () => {
    const lake = lakeName("expiry");
    let clock = 1_000_000;
    const now = (): number => clock;
    const st = await writer(lake, now);
    st.write([{ key: b("a"), value: b("1") }]);
    const cp = await st.createCheckpoint({ lifetimeMs: 1000 });
    expect(cp.expiresAt).toBe(clock + 1000);
    const cache = new LruCache(1 << 20);
    const r = await openCheckpoint(realBucket(), lake, cp.id, { cache, now });
    expect(s(await r.get(b("a")))).toBe("1");
    clock += 1000;
    const fb = readOnlyBucket();
    const e = await openCheckpoint(fb, lake, cp.id, { cache, now }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CheckpointExpired);
    expect(e).toMatchObject({ code: "CheckpointExpired" });
    // Refused from the cached descriptor: only the uncached HEADs went out.
    expect(fb.counts()).toEqual({ get: 0, head: 2, put: 0, delete: 0, list: 0 });
    await expect(openCheckpoint(realBucket(), lake, cp.id, { now })).rejects.toBeInstanceOf(
      CheckpointExpired,
    );
    // An expired checkpoint is not listed; the next checkpoint edit moves it to unreferenced (since = expiry).
    expect(st.listCheckpoints()).toEqual([]);
    const next = await st.createCheckpoint();
    expect(st.manifest.checkpoints.map((c) => c.id)).toEqual([next.id]);
    expect(st.manifest.unreferenced).toContainEqual(
      expect.objectContaining({ key: checkpointKey(lake, cp.id), since: cp.expiresAt }),
    );
    // GC grace: the expired cut stays pinned for graceMs after its expiry, then not.
    expect(liveCheckpointRefs(st.manifest, clock, 5000).ids.sort()).toEqual([cp.id, next.id].sort());
    expect(liveCheckpointRefs(st.manifest, (cp.expiresAt ?? 0) + 5000, 5000).ids).toEqual([next.id]);
  });

  it("delete: tombstone then manifest edit; refused afterwards (cached or not); open readers keep serving", async () => {
    let clock = 5_000_000;
    const now = (): number => clock;
    const lake = lakeName("delete");
    const st = await writer(lake, now);
    st.write([{ key: b("a"), value: b("1") }]);
    const cp = await st.createCheckpoint();
    const cache = new LruCache(1 << 20);
    const open1 = await openCheckpoint(realBucket(), lake, cp.id, { cache });
    await st.deleteCheckpoint(cp.id);
    expect(st.listCheckpoints()).toEqual([]);
    expect(await listPublishedCheckpoints(realBucket(), lake)).toEqual([]);
    expect(st.manifest.unreferenced).toContainEqual({
      key: checkpointKey(lake, cp.id),
      since: clock,
      checkpoint: { id: cp.id, manifestVersion: 2, walFrom: 1, walTo: 2 },
    });
    const keys = await objectKeys(realBucket(), lake);
    expect(keys).toContain(`checkpoints/${cp.id}.deleted`);
    expect(keys).toContain(`checkpoints/${cp.id}.json`); // garbage for GC, not removed by the delete
    for (const c of [cache, undefined]) {
      const e = await openCheckpoint(realBucket(), lake, cp.id, c ? { cache: c } : {}).catch(
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(CheckpointNotFound);
      expect((e as Error).message).toMatch(/deleted/);
    }
    expect(s(await open1.get(b("a")))).toBe("1");
    // Pinned for the grace period after the delete, then released.
    expect(liveCheckpointRefs(st.manifest, clock + 999, 1000)).toEqual({
      ids: [cp.id],
      manifestVersions: [2],
      walRanges: [{ from: 1, to: 2 }],
    });
    clock += 1000;
    expect(liveCheckpointRefs(st.manifest, clock, 1000).ids).toEqual([]);
    // Once GC has collected the descriptor, the tombstone keeps refusing the id from a cached descriptor.
    await realBucket().delete(checkpointKey(lake, cp.id));
    await expect(openCheckpoint(realBucket(), lake, cp.id, { cache })).rejects.toBeInstanceOf(
      CheckpointNotFound,
    );
    await expect(st.deleteCheckpoint(cp.id)).rejects.toBeInstanceOf(CheckpointNotFound);
    await expect(st.deleteCheckpoint("nope")).rejects.toBeInstanceOf(InvalidCheckpointId);
  });

  it("a delete interrupted after its tombstone still refuses the id; repeating it completes", async () => {
    const lake = lakeName("delete-crash");
    const fb = faultBucket();
    const st = (await open(fb, lake)) as unknown as LakeStore;
    st.write([{ key: b("a"), value: b("1") }]);
    const cp = await st.createCheckpoint();
    fb.fail({ op: "put", prefix: manifestKey(lake, 3), times: 1 });
    // The manifest PUT fails once and is retried: the delete still completes.
    await st.deleteCheckpoint(cp.id);
    expect(st.listCheckpoints()).toEqual([]);
    // A writer that crashes after the tombstone: the id is refused though the manifest still records it.
    const lake2 = lakeName("delete-crash2");
    const fb2 = faultBucket();
    const st2 = (await open(fb2, lake2)) as unknown as LakeStore;
    const cp2 = await st2.createCheckpoint();
    fb2.crashAfterWrites(1);
    await expect(st2.deleteCheckpoint(cp2.id)).rejects.toThrow();
    await expect(openCheckpoint(realBucket(), lake2, cp2.id)).rejects.toBeInstanceOf(CheckpointNotFound);
    const st3 = await writer(lake2);
    expect(st3.listCheckpoints().map((c) => c.id)).toEqual([cp2.id]);
    await st3.deleteCheckpoint(cp2.id);
    expect(st3.listCheckpoints()).toEqual([]);
  });

  it("a mint that never wrote its descriptor leaves a recorded id that readers refuse", async () => {
    const lake = lakeName("mint-crash");
    const fb = faultBucket();
    const st = (await open(fb, lake)) as unknown as LakeStore;
    st.write([{ key: b("a"), value: b("1") }]);
    fb.fail({ op: "put", prefix: `lakes/${lake}/checkpoints/`, probability: 1 });
    await expect(st.createCheckpoint()).rejects.toMatchObject({ code: "OutcomeUnknown" });
    const [rec] = st.listCheckpoints();
    expect(rec).toBeDefined();
    await expect(openCheckpoint(realBucket(), lake, rec!.id)).rejects.toBeInstanceOf(CheckpointNotFound);
  });

  it("a fenced writer refuses to mint and writes no descriptor", async () => {
    const lake = lakeName("fenced");
    const fb = faultBucket();
    const old = (await open(fb, lake)) as unknown as LakeStore;
    old.write([{ key: b("a"), value: b("1") }]);
    await old.flush();
    await writer(lake); // takes over
    await expect(old.createCheckpoint()).rejects.toBeInstanceOf(Fenced);
    await expect(old.createCheckpoint()).rejects.toBeInstanceOf(Fenced);
    expect(fb.count({ op: "put", prefix: `lakes/${lake}/checkpoints/` })).toBe(0);
    expect(old.listCheckpoints()).toEqual([]);
  });

  it("pins: the keys a live checkpoint holds, for GC", async () => {
    const lake = lakeName("pins");
    const st = await writer(lake);
    st.write([{ key: b("a"), value: b("1") }]);
    await st.flush();
    const cp = await st.createCheckpoint();
    st.write([{ key: b("b"), value: b("1") }]);
    await st.flush();
    const keys = await checkpointPinnedKeys(realBucket(), lake, st.manifest, { now: Date.now(), graceMs: 0 });
    expect([...keys].sort()).toEqual(
      [checkpointKey(lake, cp.id), manifestKey(lake, 2), walKey(lake, 1), walKey(lake, 2)].sort(),
    );
    expect(keys.has(checkpointTombstoneKey(lake, cp.id))).toBe(false);
  });

  it("a deleted lake's checkpoints are refused", async () => {
    const lake = lakeName("lake-gone");
    const st = await writer(lake);
    const cp = await st.createCheckpoint();
    await st.close();
    await markLakeDeleted(realBucket(), lake, 1);
    await expect(openCheckpoint(realBucket(), lake, cp.id)).rejects.toBeInstanceOf(LakeDeleted);
  });
});
