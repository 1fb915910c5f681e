import { describe, expect, it } from "vitest";
import { Corruption } from "../../storage/errors.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { manifestKey, walKey, walPrefix } from "../../storage/keys.ts";
import { RECOVERY_CONCURRENCY } from "../../storage/recovery.ts";
import { b, dump, faultBucket, lakeName, open, realBucket } from "./helpers.ts";

async function lakeWithTail(segments: number): Promise<string> {
  const lake = lakeName("tail");
  const st = await open(faultBucket(), lake);
  for (let i = 2; i <= segments; i++) {
    st.write([{ key: b(`k${String(i).padStart(3, "0")}`), value: b(String(i)) }]);
    await st.flush();
  }
  await st.close();
  return lake;
}

describe("recovery", () => {
  it("replays the whole tail in id order, fetching at most six segments at once", async () => {
    const lake = await lakeWithTail(20);
    const fb = new FaultBucket(realBucket());
    // Segment GETs are held until as many as recovery may run at once are in flight, then let go.
    const gate = fb.hold({ op: "get", prefix: walPrefix(lake) });
    let inFlight = 0;
    let max = 0;
    const get = fb.get.bind(fb);
    fb.get = async (...args) => {
      inFlight++;
      max = Math.max(max, inFlight);
      try {
        return await get(...args);
      } finally {
        inFlight--;
      }
    };
    const opening = open(fb, lake);
    // The open fetches the tail while it reads the manifest (storage/tail-prefetch.ts): one connection of
    // the six goes to the manifest GET, so at most five segments are in flight at once.
    const segmentsAtOnce = RECOVERY_CONCURRENCY - 1;
    await gate.whenHeld(segmentsAtOnce);
    expect(inFlight).toBe(segmentsAtOnce);
    gate.release();
    const st = await opening;
    expect(max).toBeLessThanOrEqual(RECOVERY_CONCURRENCY);
    expect(RECOVERY_CONCURRENCY).toBe(6);
    expect(st.position).toBe(19);
    expect(Object.keys(await dump(st.snapshot()))).toHaveLength(19);
    // list manifests + WAL, get manifest + the 19 segments with batches (the genesis fence is empty: its
    // listed summary stands in, docs/decisions/0184-cold-round-packing.md), put manifest + fence.
    expect(fb.counts()).toEqual({ put: 2, get: 20, head: 0, list: 2, delete: 0 });
  });

  it("a gap in the tail is Corruption, and the open writes no fence", async () => {
    const lake = await lakeWithTail(6);
    await realBucket().delete(walKey(lake, 3));
    const fb = faultBucket();
    await expect(open(fb, lake)).rejects.toThrow(/gap: expected segment 3 but found 4/);
    expect(fb.count({ op: "put", prefix: walPrefix(lake) })).toBe(0);
  });

  it("a torn or corrupted segment is Corruption, never skipped", async () => {
    const lake = await lakeWithTail(4);
    const key = walKey(lake, 3);
    const body = new Uint8Array(await (await realBucket().get(key))!.arrayBuffer());
    await realBucket().delete(key);
    await realBucket().put(key, body.slice(0, body.length - 3));
    await expect(open(faultBucket(), lake)).rejects.toBeInstanceOf(Corruption);
    await realBucket().delete(key);
    const flipped = body.slice();
    flipped[flipped.length - 1] = flipped[flipped.length - 1]! ^ 1;
    await realBucket().put(key, flipped);
    await expect(open(faultBucket(), lake)).rejects.toThrow(/body checksum mismatch/);
  });

  it("a corrupted newest manifest is Corruption", async () => {
    const lake = await lakeWithTail(2);
    await open(faultBucket(), lake);
    const key = manifestKey(lake, 2);
    const body = new Uint8Array(await (await realBucket().get(key))!.arrayBuffer());
    await realBucket().delete(key);
    body[body.length - 5] = body[body.length - 5]! ^ 4;
    await realBucket().put(key, body);
    await expect(open(faultBucket(), lake)).rejects.toBeInstanceOf(Corruption);
  });

  it("reports a takeover by a different identity to the host", async () => {
    const lake = lakeName("takeover");
    await open(faultBucket(), lake, { identity: "deploy-a", now: () => 1000 });
    const same = await open(faultBucket(), lake, { identity: "deploy-a" });
    expect(same.takeover).toBeUndefined();
    const other = await open(faultBucket(), lake, { identity: "deploy-b" });
    expect(other.takeover).toMatchObject({ identity: "deploy-a", epoch: 2 });
  });
});
