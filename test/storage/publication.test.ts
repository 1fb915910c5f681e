import { describe, expect, it } from "vitest";
import { walPrefix } from "../../storage/keys.ts";
import { publishedHead } from "../../storage/recovery.ts";
import { retryPolicy } from "../../storage/retry.ts";
import type { LakeStore } from "../../storage/store.ts";
import { b, faultBucket, lakeName, objectKeys, open, realBucket } from "./helpers.ts";

describe("publication: the newest segment names the newest cut", () => {
  it("one list call learns the head; every manifest write is followed by a publish segment", async () => {
    const lake = lakeName("publish");
    const st = (await open(faultBucket(), lake)) as LakeStore;
    const fb = faultBucket();
    const policy = retryPolicy({});
    let head = await publishedHead(fb, lake, policy);
    expect(fb.counts()).toEqual({ put: 0, get: 0, head: 0, list: 1, delete: 0 });
    expect(head).toMatchObject({
      segmentId: 1,
      manifestVersion: 1,
      tailStart: 1,
      batchCount: 0,
      lastPosition: -1,
    });
    st.write([{ key: b("a"), value: b("1") }]);
    st.write([{ key: b("b"), value: b("2") }]);
    await st.flush();
    head = await publishedHead(fb, lake, policy);
    expect(head).toMatchObject({
      segmentId: 2,
      manifestVersion: 1,
      batchCount: 2,
      lastPosition: 2,
      epoch: 1,
    });
    const m = await st.writeManifest((x) => x);
    expect(m.version).toBe(2);
    expect(m.writer).toEqual({
      epoch: st.epoch,
      identity: "",
      instance: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    head = await publishedHead(fb, lake, policy);
    expect(head).toMatchObject({ segmentId: 3, manifestVersion: 2, batchCount: 0 });
    expect(await objectKeys(realBucket(), lake)).toEqual([
      "manifest/99999999999999999997.json",
      "manifest/99999999999999999998.json",
      "wal/99999999999999999996.wal",
      "wal/99999999999999999997.wal",
      "wal/99999999999999999998.wal",
    ]);
    // Flush with nothing pending writes nothing; one flush is one PUT.
    const puts = fb.count({ op: "put" });
    await st.flush();
    st.write([{ key: b("c"), value: b("3") }]);
    await st.flush();
    expect(fb.count({ op: "put" })).toBe(puts);
    expect((await objectKeys(realBucket(), lake)).filter((k) => k.startsWith("wal/"))).toHaveLength(4);
    expect(await publishedHead(realBucket(), `${lake}-none`, policy)).toBeUndefined();
  });

  it("a flush called while a PUT is in flight waits for it and then writes the rest: one PUT in flight", async () => {
    const lake = lakeName("inflight");
    const fb = faultBucket();
    const st = await open(fb, lake);
    let inFlight = 0;
    let maxInFlight = 0;
    const put = fb.put.bind(fb);
    fb.put = async (...args) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return await put(...args);
      } finally {
        inFlight--;
      }
    };
    const gate = fb.hold({ op: "put", nth: 1 });
    fb.resetCounters();
    st.write([{ key: b("k0"), value: b("v") }]);
    const flushes: Promise<void>[] = [st.flush()];
    // The first segment PUT is held in flight; pile up more batches and flushes behind it, then let it go.
    await gate.reached;
    expect(inFlight).toBe(1);
    for (let i = 1; i < 10; i++) {
      st.write([{ key: b(`k${i}`), value: b("v") }]);
      flushes.push(st.flush());
    }
    gate.release();
    await Promise.all(flushes);
    expect(maxInFlight).toBe(1);
    expect(st.durablePosition).toBe(10);
    // The first flush took one batch; everything queued behind it coalesced into one more segment.
    expect(fb.count({ op: "put", prefix: walPrefix(lake) })).toBe(2);
  });
});
