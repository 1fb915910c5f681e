import { describe, expect, it } from "vitest";
import { FaultBucket, InjectedFault } from "../../storage/fault-bucket.ts";
import { lakeName, realBucket } from "./helpers.ts";

const absent = { onlyIf: { etagDoesNotMatch: "*" } };

describe("fault-injecting bucket", () => {
  it("counts every call by kind, prefix and outcome", async () => {
    const p = `${lakeName("fb")}/`;
    const fb = new FaultBucket(realBucket());
    await fb.put(`${p}a/1`, "x", absent);
    await fb.put(`${p}a/1`, "x", absent);
    await fb.get(`${p}a/1`);
    await fb.get(`${p}b/none`);
    await fb.head(`${p}a/1`);
    await fb.list({ prefix: `${p}a/` });
    await fb.delete([`${p}a/1`]);
    expect(fb.counts()).toEqual({ put: 2, get: 2, head: 1, list: 1, delete: 1 });
    expect(fb.counts(`${p}b/`)).toEqual({ put: 0, get: 1, head: 0, list: 0, delete: 0 });
    expect(fb.count({ op: "put", outcome: "null" })).toBe(1);
    expect(fb.count({ prefix: `${p}a/` })).toBe(6);
    fb.resetCounters();
    expect(fb.count()).toBe(0);
  });

  it("fails the nth matching call, or a seeded fraction of calls", async () => {
    const p = `${lakeName("fb")}/`;
    const fb = new FaultBucket(realBucket(), { seed: 7 });
    fb.fail({ op: "get", prefix: `${p}x`, nth: 2 });
    await fb.get(`${p}x`);
    await expect(fb.get(`${p}x`)).rejects.toBeInstanceOf(InjectedFault);
    await fb.get(`${p}x`);
    await fb.get(`${p}y`);
    fb.clearFaults();
    const remove = fb.fail({ op: "head", probability: 0.5 });
    let failed = 0;
    for (let i = 0; i < 40; i++) await fb.head(`${p}z`).catch(() => failed++);
    remove();
    expect(failed).toBeGreaterThan(5);
    expect(failed).toBeLessThan(35);
    await fb.head(`${p}z`);
  });

  it("an ambiguous PUT lands but the caller sees an error; an error PUT does not land", async () => {
    const p = `${lakeName("fb")}/`;
    const fb = new FaultBucket(realBucket());
    fb.fail({ op: "put", prefix: `${p}amb`, kind: "ambiguous", times: 1 });
    fb.fail({ op: "put", prefix: `${p}err`, kind: "error", times: 1 });
    await expect(fb.put(`${p}amb`, "1")).rejects.toBeInstanceOf(InjectedFault);
    await expect(fb.put(`${p}err`, "1")).rejects.toBeInstanceOf(InjectedFault);
    expect(await realBucket().head(`${p}amb`)).not.toBeNull();
    expect(await realBucket().head(`${p}err`)).toBeNull();
  });

  it("crashes after N writes: the next write does not land and every later call fails", async () => {
    const p = `${lakeName("fb")}/`;
    const fb = new FaultBucket(realBucket());
    fb.crashAfterWrites(2);
    await fb.put(`${p}1`, "1");
    await fb.get(`${p}1`);
    await fb.put(`${p}2`, "2");
    expect(fb.crashed).toBe(false);
    await expect(fb.put(`${p}3`, "3")).rejects.toThrow(/injected crash/);
    expect(fb.crashed).toBe(true);
    await expect(fb.get(`${p}1`)).rejects.toBeInstanceOf(InjectedFault);
    expect(await realBucket().head(`${p}3`)).toBeNull();
    expect(await realBucket().head(`${p}2`)).not.toBeNull();
    expect(fb.count({ outcome: "crashed" })).toBe(2);
  });

  it("adds latency to matching calls only (counted, not timed)", async () => {
    const p = `${lakeName("fb")}/`;
    const fb = new FaultBucket(realBucket(), { seed: 3 });
    const samples: number[] = [];
    fb.delay({
      op: "put",
      ms: (r) => {
        const ms = 1 + Math.floor(r() * 3);
        samples.push(ms);
        return ms;
      },
    });
    await fb.put(`${p}a`, "1");
    await fb.get(`${p}a`);
    await fb.put(`${p}b`, "1");
    expect(samples).toHaveLength(2);
    for (const ms of samples) expect(ms).toBeGreaterThanOrEqual(1);
  });

  it("a gate holds matching calls before the bucket until released, then lets them through", async () => {
    const p = `${lakeName("fb")}/`;
    const fb = new FaultBucket(realBucket());
    const gate = fb.hold({ op: "put", prefix: `${p}g/`, nth: 2 });
    await fb.put(`${p}g/1`, "x");
    const second = fb.put(`${p}g/2`, "x");
    await gate.reached;
    expect(gate.held).toBe(1);
    // Held before it reached the bucket: nothing is stored yet, and other calls are not held.
    expect(await realBucket().head(`${p}g/2`)).toBeNull();
    await fb.put(`${p}g/3`, "x");
    gate.release();
    expect((await second)?.key).toBe(`${p}g/2`);
    expect(await realBucket().head(`${p}g/2`)).not.toBeNull();
    const all = fb.hold({ op: "get", prefix: `${p}g/` });
    const gets = [fb.get(`${p}g/1`), fb.get(`${p}g/2`)];
    await all.whenHeld(2);
    fb.clearFaults();
    expect((await Promise.all(gets)).map((o) => o?.key)).toEqual([`${p}g/1`, `${p}g/2`]);
  });
});
