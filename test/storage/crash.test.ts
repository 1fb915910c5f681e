/**
 * Crash sweeps: for each operation, crash the bucket client after N writes for every N from 0 to the
 * operation's write count, reopen on a healthy client, and check the state is exactly the durable prefix.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../storage/api.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import type { LakeStore } from "../../storage/store.ts";
import { b, dump, faultBucket, lakeName, open, realBucket } from "./helpers.ts";

async function reopenState(lake: string): Promise<{ state: Record<string, string>; position: number }> {
  const st = await open(faultBucket(), lake);
  const state = await dump(st.snapshot());
  // The reopened lake must be writable again.
  st.write([{ key: b("__probe"), value: b("1") }]);
  await st.flush();
  await st.close();
  return { state, position: st.durablePosition - 1 };
}

/** Opens `lake` through a client that crashes after `n` writes; says whether the open got through. */
async function openCrashingAfter(lake: string, n: number): Promise<{ fb: FaultBucket; ok: boolean }> {
  const fb = new FaultBucket(realBucket());
  fb.crashAfterWrites(n);
  const ok = await open(fb, lake).then(
    () => true,
    () => false,
  );
  return { fb, ok };
}

describe("crash sweeps", () => {
  it("open of an empty lake (genesis manifest, fence): every crash point recovers to an empty lake", async () => {
    let interrupted = 0;
    for (let n = 0; n <= 2; n++) {
      const lake = lakeName(`crash-genesis-${n}`);
      const { fb, ok } = await openCrashingAfter(lake, n);
      if (!ok) interrupted++;
      expect(fb.crashed).toBe(!ok);
      const r = await reopenState(lake);
      expect(r.state).toEqual({});
      expect(r.position).toBe(0);
    }
    expect(interrupted).toBe(2);
  });

  it("open of a lake with data (manifest, fence): every crash point keeps exactly the durable data", async () => {
    let interrupted = 0;
    for (let n = 0; n <= 2; n++) {
      const lake = lakeName(`crash-open-${n}`);
      const first = await open(faultBucket(), lake);
      first.write([{ key: b("a"), value: b("1") }]);
      await first.flush();
      first.write([{ key: b("unflushed"), value: b("x") }]);
      const { ok } = await openCrashingAfter(lake, n);
      if (!ok) interrupted++;
      const r = await reopenState(lake);
      expect(r.state).toEqual({ a: "1" });
      expect(r.position).toBe(1);
    }
    expect(interrupted).toBe(2);
  });

  it("commits, flushes and a manifest write: every crash point keeps exactly the acknowledged batches", async () => {
    const WRITES = 5;
    let interrupted = 0;
    for (let n = 0; n <= WRITES; n++) {
      const lake = lakeName(`crash-commit-${n}`);
      const fb = new FaultBucket(realBucket());
      const st: Store = await open(fb, lake);
      fb.crashAfterWrites(n);
      const durable: Record<string, string> = {};
      const step = async (key: string, apply: (s: Store) => void): Promise<boolean> => {
        try {
          apply(st);
          await st.flush();
          durable[key] = key.toUpperCase();
          return true;
        } catch {
          return false;
        }
      };
      const ran =
        (await step("a", (s) => s.write([{ key: b("a"), value: b("A") }]))) &&
        (await step("b", (s) => {
          const t = s.begin();
          t.put(b("b"), b("B"));
          t.commit();
        })) &&
        (await (st as LakeStore)
          .writeManifest((m) => m)
          .then(
            () => true,
            () => false,
          )) &&
        (await step("c", (s) => s.write([{ key: b("c"), value: b("C") }])));
      if (!ran) interrupted++;
      expect(ran).toBe(n >= WRITES);
      const r = await reopenState(lake);
      expect(r.state).toEqual(durable);
      expect(r.position).toBe(Object.keys(durable).length);
    }
    expect(interrupted).toBe(WRITES);
  });

  it("a fencing open crashing at every point: the old writer's durable data survives, whoever wins", async () => {
    let interrupted = 0;
    for (let n = 0; n <= 2; n++) {
      const lake = lakeName(`crash-fence-${n}`);
      const a = await open(faultBucket(), lake);
      a.write([{ key: b("d1"), value: b("1") }]);
      await a.flush();
      a.write([{ key: b("d2"), value: b("2") }]);
      const { ok } = await openCrashingAfter(lake, n);
      if (!ok) interrupted++;
      const aFlushed = await a.flush().then(
        () => true,
        () => false,
      );
      // Only a fence that landed stops A.
      expect(aFlushed).toBe(n < 2);
      const r = await reopenState(lake);
      expect(r.state).toEqual(aFlushed ? { d1: "1", d2: "2" } : { d1: "1" });
    }
    expect(interrupted).toBe(2);
  });
});
