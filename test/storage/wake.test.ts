/**
 * A writer open overlaps its WAL listing and tail reads with its manifest read (storage/tail-prefetch.ts):
 * a wake at the held epoch costs 3 serial round trips (the two listings, then the manifest and tail GETs
 * together, then the fence PUT) whatever the tail, up to six segments.
 */
import { describe, expect, it } from "vitest";
import type { LakeStore } from "../../storage/store.ts";
import { b, dump, faultBucket, lakeName, open } from "./helpers.ts";

describe("writer wake", () => {
  it("opens in 3 serial round trips at the held epoch and 4 with a new epoch, replaying the same tail", async () => {
    const lake = lakeName("wake");
    const st = (await open(faultBucket(), lake)) as LakeStore;
    for (let i = 0; i < 4; i++) {
      st.write([{ key: b(`k${i}`), value: b(`v${i}`) }]);
      await st.flush();
    }
    const epoch = st.epoch;
    const want = await dump(st.snapshot());
    await st.close();

    const held = faultBucket();
    const re = (await open(held, lake, { heldEpoch: epoch })) as LakeStore;
    expect(await dump(re.snapshot())).toEqual(want);
    expect(held.count({ op: "put" })).toBe(1);
    expect(held.count({ op: "get", prefix: `lakes/${lake}/wal/` })).toBe(5);
    expect(held.serialRounds()).toBe(3);
    await re.close();

    const fresh = faultBucket();
    const next = (await open(fresh, lake)) as LakeStore;
    expect(await dump(next.snapshot())).toEqual(want);
    expect(next.epoch).toBe(epoch + 1);
    expect(fresh.count({ op: "put" })).toBe(2);
    expect(fresh.serialRounds()).toBe(4);
    await next.close();
  });
});
