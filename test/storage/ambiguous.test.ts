import { describe, expect, it } from "vitest";
import { OutcomeUnknown, StoreUnavailable } from "../../storage/errors.ts";
import { walKey, walPrefix } from "../../storage/keys.ts";
import { b, dump, faultBucket, lakeName, objectKeys, open, realBucket } from "./helpers.ts";

describe("ambiguous writes are resolved, not guessed", () => {
  it("a PUT that landed but reported an error is durable after resolution, not failed", async () => {
    const lake = lakeName("amb-landed");
    const fb = faultBucket();
    const st = await open(fb, lake);
    fb.fail({ op: "put", prefix: walPrefix(lake), kind: "ambiguous", nth: 1 });
    const h = st.write([{ key: b("k"), value: b("v") }]);
    await st.flush();
    await h.durable;
    const segPuts = fb.log.filter((r) => r.op === "put" && r.key === walKey(lake, 2)).map((r) => r.outcome);
    expect(segPuts).toEqual(["ambiguous", "null"]);
    expect(fb.count({ op: "get", prefix: walKey(lake, 2) })).toBe(1);
    const keys = await objectKeys(realBucket(), lake);
    expect(keys.filter((k) => k.startsWith("wal/"))).toHaveLength(2);
    const again = await open(faultBucket(), lake);
    expect(await dump(again.snapshot())).toEqual({ k: "v" });
  });

  it("a PUT that did not land is retried and lands once", async () => {
    const lake = lakeName("amb-lost");
    const fb = faultBucket();
    const st = await open(fb, lake);
    fb.fail({ op: "put", prefix: walPrefix(lake), kind: "error", nth: 1 });
    const h = st.write([{ key: b("k"), value: b("v") }]);
    await st.flush();
    await h.durable;
    expect(fb.log.filter((r) => r.op === "put" && r.key === walKey(lake, 2)).map((r) => r.outcome)).toEqual([
      "error",
      "ok",
    ]);
    expect((await objectKeys(realBucket(), lake)).filter((k) => k.startsWith("wal/"))).toHaveLength(2);
    // The next flush uses the next id: nothing was skipped or written twice.
    st.write([{ key: b("k2"), value: b("v2") }]);
    await st.flush();
    expect((await objectKeys(realBucket(), lake)).filter((k) => k.startsWith("wal/"))).toHaveLength(3);
  });

  it("an unreachable bucket past the bound is OutcomeUnknown: terminal, no rollback, the id never reused", async () => {
    const lake = lakeName("amb-unknown");
    const fb = faultBucket();
    const st = await open(fb, lake);
    const durable = st.write([{ key: b("before"), value: b("1") }]);
    await st.flush();
    await durable.durable;
    const remove = fb.fail({ op: ["put", "get"], prefix: walPrefix(lake), kind: "ambiguous" });
    const h = st.write([{ key: b("k"), value: b("v") }]);
    await expect(st.flush()).rejects.toBeInstanceOf(OutcomeUnknown);
    await expect(h.durable).rejects.toBeInstanceOf(OutcomeUnknown);
    remove();
    const calls = fb.log.length;
    expect(() => st.write([{ key: b("x"), value: b("y") }])).toThrow(OutcomeUnknown);
    expect(() => st.begin()).toThrow(OutcomeUnknown);
    await expect(st.flush()).rejects.toBeInstanceOf(OutcomeUnknown);
    expect(fb.log.length).toBe(calls);
    // Visible state is not rolled back in the terminal handle.
    expect(await dump(st.snapshot())).toEqual({ before: "1", k: "v" });
    // The write did land (ambiguous = reached the bucket): recovery finds it.
    const again = await open(faultBucket(), lake);
    expect(await dump(again.snapshot())).toEqual({ before: "1", k: "v" });
  });

  it("an unknown outcome that never landed is simply absent after reopening", async () => {
    const lake = lakeName("amb-unknown-lost");
    const fb = faultBucket();
    const st = await open(fb, lake);
    fb.fail({ op: ["put", "get"], prefix: walPrefix(lake), kind: "error" });
    st.write([{ key: b("k"), value: b("v") }]);
    await expect(st.flush()).rejects.toBeInstanceOf(OutcomeUnknown);
    expect(fb.count({ op: "put", prefix: walPrefix(lake), outcome: "error" })).toBe(4);
    const again = await open(faultBucket(), lake);
    expect(await dump(again.snapshot())).toEqual({});
  });

  it("an unreachable bucket during open is StoreUnavailable and writes nothing", async () => {
    const lake = lakeName("unavail");
    const fb = faultBucket();
    fb.fail({ op: "list" });
    await expect(open(fb, lake)).rejects.toBeInstanceOf(StoreUnavailable);
    expect(fb.count({ op: "put" })).toBe(0);
    // The manifest listing and the overlapped WAL listing (storage/tail-prefetch.ts), 4 tries each.
    expect(fb.count({ op: "list" })).toBe(2 * 4);
  });
});
