/**
 * Lake deletion and removal under faults (issue 10 items 9–13, 18): an idempotent replay answers its
 * recorded position across a restart; a create on a deleted name says what is true; a fault at every
 * bucket call of the delete path leaves the lake fully live or fully deleted and a retried delete
 * completes; the delete's drain is bounded; removal and maintenance re-arm with backoff after a failure;
 * alarm scheduling is monotone. Every fault test proves its fault fired.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AlarmScheduler } from "../../durable-objects/alarm.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import type { LakeRecord } from "../../durable-objects/registry.ts";
import type { OpOutcome } from "../../storage/fault-bucket.ts";
import { deletedMarkerKey, lakeState } from "../../storage/lakes.ts";
import { afterAbort, createTable, lakeName, realBucket, rigLake, stub, until, unwrap } from "./support.ts";

const code = (e: Envelope<unknown>): string => (e.ok ? "ok" : e.error.code);

async function r2State(lake: string): Promise<string> {
  return (await lakeState(realBucket(), lake)).state;
}

async function registry(lake: string): Promise<LakeRecord | undefined> {
  return runInDurableObject(stub(lake), (_i, state) => state.storage.kv.get<LakeRecord>("lake"));
}

/** The object's alarm once every scheduling request so far has been applied. */
async function alarmAt(lake: string): Promise<number | null> {
  return runInDurableObject(stub(lake), async (instance, state) => {
    await instance.alarmsScheduled();
    return state.storage.getAlarm();
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an idempotent replay answers the recorded result", () => {
  it("replayed after a restart, a key answers its original position, not the current one", async () => {
    const lake = lakeName("replay-pos");
    rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    const first = unwrap(await s.commit(lake, createTable("t"), { idempotencyKey: "k1" }));
    for (let i = 0; i < 4; i++) unwrap(await s.commit(lake, createTable(`later${i}`)));
    const warm = unwrap(await s.commit(lake, createTable("t"), { idempotencyKey: "k1" }));
    expect(warm).toEqual({ ...first, replayed: true });
    await evictDurableObject(s);
    const cold = unwrap(await stub(lake).commit(lake, createTable("t"), { idempotencyKey: "k1" }));
    expect(cold).toEqual({ ...first, replayed: true });
    expect(unwrap(await stub(lake).head(lake)).position).toBeGreaterThan(first.position);
  });

  it("a group replaying a key it also records in the same batch answers that batch's position", async () => {
    const lake = lakeName("replay-grp");
    rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    const req = { verbs: createTable("g"), idempotencyKey: "kg" };
    const [a, b] = unwrap(await s.commitGroup(lake, [req, req]));
    if (!a?.ok || !b?.ok) throw new Error("expected both members to succeed");
    expect(b.value).toEqual({ ...a.value, replayed: true });
    const again = unwrap(await s.commit(lake, req.verbs, { idempotencyKey: "kg" }));
    expect(again).toEqual({ ...a.value, replayed: true });
  });
});

describe("a create on a deleted lake's name", () => {
  it("answers LakeDeletedPendingRemoval with when its objects become removable, warm and cold", async () => {
    const lake = lakeName("del-put");
    rigLake(lake, { tunables: { deleteGraceMs: 3_600_000 } });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    const d = unwrap(await s.deleteLake(lake));
    const removable = new Date(d.removeAfter).toISOString();
    const warm = await s.createLake(lake, {});
    expect(code(warm)).toBe("LakeDeletedPendingRemoval");
    expect(warm.ok ? "" : warm.error.message).toContain(removable);
    expect(warm.ok ? "" : warm.error.message).toContain(new Date(d.deletedAt).toISOString());
    await evictDurableObject(s);
    const cold = await stub(lake).createLake(lake, {});
    expect(code(cold)).toBe("LakeDeletedPendingRemoval");
    expect(cold.ok ? "" : cold.error.message).toContain(removable);
    // A repeated delete answers what the first did.
    expect(unwrap(await stub(lake).deleteLake(lake))).toEqual(d);
  });
});

type FaultKind = "error" | "ambiguous" | "crash";

interface SweepCase {
  /** The delete path's bucket calls, counted on a clean run. */
  calls: number;
  writes: number;
}

/** A lake with one table; `cold` evicts its object so the delete must open the store first. */
async function prepare(
  tag: string,
  cold: boolean,
): Promise<{ lake: string; rig: ReturnType<typeof rigLake> }> {
  const lake = lakeName(tag);
  const rig = rigLake(lake);
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(await s.commit(lake, createTable("t")));
  if (cold) await evictDurableObject(s);
  rig.bucket.resetCounters();
  return { lake, rig };
}

async function measure(cold: boolean): Promise<SweepCase> {
  const { lake, rig } = await prepare(`dm-${cold ? "c" : "w"}`, cold);
  unwrap(await stub(lake).deleteLake(lake));
  return { calls: rig.bucket.log.length, writes: rig.bucket.count({ op: ["put", "delete"] }) };
}

/**
 * After a faulty delete: R2 says live or deleted, and the object agrees (commits work, or answer
 * NotFound); then a retried delete completes and arms removal.
 */
async function checkAfter(lake: string, answer: string, ended: boolean): Promise<"live" | "deleted"> {
  const state = await r2State(lake);
  expect(["live", "deleted"]).toContain(state);
  if (answer === "ok") expect(state).toBe("deleted");
  // The same instance must agree with R2, unless it ended itself (then its successor must).
  const commit = ended
    ? await afterAbort(lake, (x) => x.commit(lake, createTable("after")))
    : await stub(lake).commit(lake, createTable("after"));
  const head = await stub(lake).head(lake);
  if (state === "live") {
    expect(code(commit)).toBe("ok");
    expect(code(head)).toBe("ok");
  } else {
    expect(code(commit)).toBe("NotFound");
    expect(code(head)).toBe("NotFound");
  }
  const retried = unwrap(await stub(lake).deleteLake(lake));
  expect(await r2State(lake)).toBe("deleted");
  expect((await registry(lake))?.state).toBe("deleted");
  expect((await registry(lake))?.deletedAt).toBe(retried.deletedAt);
  expect(await alarmAt(lake)).not.toBeNull();
  return state as "live" | "deleted";
}

describe("a fault at every bucket call of the delete path", () => {
  for (const cold of [false, true]) {
    const mode = cold ? "cold (the delete opens the store)" : "warm (the writer is open)";
    it(`${mode}: each fault fires, the lake is live or deleted, a retried delete completes`, async () => {
      const clean = await measure(cold);
      expect(clean.calls).toBeGreaterThanOrEqual(cold ? 3 : 1);
      const seen: Record<string, number> = {};
      for (let i = 1; i <= clean.calls; i++) {
        for (const kind of ["error", "ambiguous"] satisfies FaultKind[]) {
          const { lake, rig } = await prepare(`ds-${cold ? "c" : "w"}${i}${kind[0]}`, cold);
          rig.bucket.fail({ nth: i, kind });
          const answer = code(
            await stub(lake)
              .deleteLake(lake)
              .catch(() => ({ ok: false, error: { code: "rpc-error", message: "" } }) as const),
          );
          const outcome: OpOutcome = kind;
          expect(rig.bucket.count({ outcome })).toBe(1);
          rig.bucket.clearFaults();
          const state = await checkAfter(lake, answer, rig.aborts.length > 0);
          seen[`${answer}/${state}`] = (seen[`${answer}/${state}`] ?? 0) + 1;
        }
      }
      for (let w = 0; w < clean.writes; w++) {
        const { lake, rig } = await prepare(`dx-${cold ? "c" : "w"}${w}`, cold);
        rig.bucket.crashAfterWrites(w);
        const answer = code(
          await stub(lake)
            .deleteLake(lake)
            .catch(() => ({ ok: false, error: { code: "rpc-error", message: "" } }) as const),
        );
        expect(rig.bucket.crashed).toBe(true);
        // The process died with the crash: a fresh instance over a working bucket (an instance that
        // ended itself is replaced by the runtime; one that did not is evicted).
        const ended = rig.aborts.length > 0;
        if (!ended) await evictDurableObject(stub(lake));
        rigLake(lake);
        const state = await checkAfter(lake, answer, ended);
        seen[`crash:${answer}/${state}`] = (seen[`crash:${answer}/${state}`] ?? 0) + 1;
      }
      // Both outcomes occur across the sweep: a fault before the marker leaves the lake live, a lost
      // acknowledgement of the marker is resolved to deleted.
      expect(Object.keys(seen).some((k) => k.endsWith("/live"))).toBe(true);
      expect(Object.keys(seen).some((k) => k.endsWith("/deleted"))).toBe(true);
    });
  }

  it("a lost marker acknowledgement that cannot be resolved ends the instance; the next one finds the lake deleted", async () => {
    const { lake, rig } = await prepare("d-unres", false);
    rig.bucket.fail({ op: "put", prefix: `lakes/${lake}/wal/`, kind: "ambiguous", nth: 1 });
    rig.bucket.fail({ op: "list", prefix: `lakes/${lake}/wal/`, nth: 1 });
    const answer = await stub(lake).deleteLake(lake);
    expect(code(answer)).toBe("Unavailable");
    expect(rig.bucket.count({ outcome: "ambiguous" })).toBe(1);
    expect(rig.bucket.count({ outcome: "error" })).toBe(1);
    expect(rig.aborts).toHaveLength(1);
    expect(await r2State(lake)).toBe("deleted");
    rig.bucket.clearFaults();
    await checkAfter(lake, "Unavailable", true);
  });
});

/** Polls the writer's status until a delete is draining (each poll is an RPC, never a sleep). */
async function untilDeleting(lake: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const st = unwrap(await stub(lake).status(lake));
    if (st.writer?.deleting) return;
  }
  throw new Error("the delete never started draining");
}

describe("the delete's drain", () => {
  it("waits for an admitted commit, refuses new ones as Unavailable, and the commit is kept", async () => {
    const lake = lakeName("drain");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    const gate = rig.bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
    const admitted = s.commit(lake, createTable("inflight"));
    await until(lake, () => gate.held > 0, "the WAL PUT to be held");
    const deleting = s.deleteLake(lake);
    await untilDeleting(lake);
    const refused = await s.commit(lake, createTable("late"));
    expect(code(refused)).toBe("Unavailable");
    expect(refused.ok ? "" : refused.error.message).toMatch(/being deleted/);
    gate.release();
    expect(unwrap(await admitted).snapshotId).toBe(1);
    unwrap(await deleting);
    expect(await r2State(lake)).toBe("deleted");
    // The admitted commit's segment landed before the marker was written.
    const puts = rig.bucket.log.filter((r) => r.op === "put" && r.key.startsWith(`lakes/${lake}/wal/`));
    const marker = puts.findIndex((r) => r.key === deletedMarkerKey(lake));
    expect(marker).toBeGreaterThan(0);
    expect(puts.slice(0, marker).every((r) => r.outcome === "ok")).toBe(true);
  });

  it("gives up at its bound with a clear error and leaves the lake live", async () => {
    const lake = lakeName("drain-bound");
    const rig = rigLake(lake, { tunables: { deleteDrainBoundMs: 100 } });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    const gate = rig.bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
    const admitted = s.commit(lake, createTable("slow"));
    await until(lake, () => gate.held > 0, "the WAL PUT to be held");
    const gaveUp = await s.deleteLake(lake);
    expect(code(gaveUp)).toBe("Unavailable");
    expect(gaveUp.ok ? "" : gaveUp.error.message).toMatch(/100 ms drain bound \(deleteDrainBoundMs\)/);
    gate.release();
    expect(unwrap(await admitted).snapshotId).toBe(1);
    expect(await r2State(lake)).toBe("live");
    expect(unwrap(await s.commit(lake, createTable("next"))).snapshotId).toBe(2);
    unwrap(await s.deleteLake(lake));
    expect(await r2State(lake)).toBe("deleted");
  });
});

describe("background work re-arms with backoff after a failure", () => {
  for (const op of ["list", "delete"] as const) {
    it(`removal of a deleted lake survives a failed R2 ${op}: re-armed, logged, then completes`, async () => {
      const lake = lakeName(`rm-${op}`);
      let skew = 0;
      const rig = rigLake(lake, {
        now: () => Date.now() + skew,
        tunables: { deleteGraceMs: 60_000, backgroundRetryBaseMs: 5_000, backgroundRetryMaxMs: 12_000 },
      });
      const s = stub(lake);
      unwrap(await s.createLake(lake, {}));
      unwrap(await s.commit(lake, createTable("t")));
      unwrap(await s.deleteLake(lake));
      skew = 60_001;
      const warn = vi.spyOn(console, "warn");
      const delays: number[] = [];
      for (let failure = 1; failure <= 3; failure++) {
        rig.bucket.fail({ op, prefix: `lakes/${lake}/`, nth: 1 });
        const before = Date.now();
        expect(await runDurableObjectAlarm(s)).toBe(true);
        expect(rig.bucket.count({ op, outcome: "error" })).toBe(failure);
        const at = await alarmAt(lake);
        expect(at).not.toBeNull();
        expect((await registry(lake))?.backgroundFailures).toBe(failure);
        delays.push((at ?? 0) - before);
      }
      // 5 s, 10 s, then capped at 12 s (each measured from just before its pass: at least the delay).
      expect(delays[0]).toBeGreaterThanOrEqual(5_000);
      expect(delays[0]).toBeLessThan(10_000);
      expect(delays[1]).toBeGreaterThanOrEqual(10_000);
      expect(delays[1]).toBeLessThan(12_000 + 5_000);
      expect(delays[2]).toBeGreaterThanOrEqual(12_000);
      expect(delays[2]).toBeLessThan(20_000);
      const logged = warn.mock.calls
        .map((c) => String(c[0]))
        .filter((l) => l.includes("re-armed with backoff"));
      expect(logged).toHaveLength(3);
      expect(await objectsOf(lake)).toBeGreaterThan(0);
      expect(await runDurableObjectAlarm(s)).toBe(true);
      expect(await objectsOf(lake)).toBe(0);
      expect(await registry(lake)).toBeUndefined();
      // The name is free again, in the same instance.
      expect(unwrap(await stub(lake).createLake(lake, {})).snapshotId).toBe(0);
    });
  }

  it("a live lake's pass that cannot open the store re-arms, and the next pass succeeds and resets", async () => {
    const lake = lakeName("bg-open");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("t")));
    await evictDurableObject(s);
    // Every WAL list fails until cleared: the open overlaps two lists (storage/tail-prefetch.ts), so a
    // fault limited to N calls could be split between them and absorbed by their retries.
    rig.bucket.fail({ op: "list", prefix: `lakes/${lake}/wal/` });
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect(rig.bucket.count({ op: "list", outcome: "error" })).toBeGreaterThanOrEqual(3);
    expect((await registry(lake))?.backgroundFailures).toBe(1);
    expect(await alarmAt(lake)).not.toBeNull();
    rig.bucket.clearFaults();
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect((await registry(lake))?.backgroundFailures).toBe(0);
    expect(unwrap(await stub(lake).head(lake)).snapshotId).toBe(1);
  });
});

describe("alarm scheduling is monotone", () => {
  it("of two interleaved requests the earlier alarm wins, whatever order they land in", async () => {
    const lake = lakeName("alarm");
    rigLake(lake);
    unwrap(await stub(lake).createLake(lake, {}));
    const at = await runInDurableObject(stub(lake), async (_i, state) => {
      await state.storage.deleteAlarm();
      const base = Date.now() + 3_600_000;
      const sched = new AlarmScheduler(
        state.storage,
        () => base,
        () => {},
      );
      sched.schedule(60_000);
      sched.schedule(1_000);
      sched.schedule(30_000);
      await sched.settled();
      return (await state.storage.getAlarm()) === base + 1_000;
    });
    expect(at).toBe(true);
  });
});

async function objectsOf(lake: string): Promise<number> {
  return (await realBucket().list({ prefix: `lakes/${lake}/` })).objects.length;
}
