/**
 * The writer under crashes (moraine RFC 0011's writer cases) and interruptions: a submitting task that
 * throws at each of its awaits, an object evicted mid-batch, WAL PUTs that never land or land unseen,
 * takeover and fencing, interrupted and concurrent genesis. After each, every caller has an answer and
 * the lake, reopened from R2, holds whole commits only.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { catalogAt, head, openCatalog } from "../../catalog/index.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import type { SubmitStep } from "../../durable-objects/types.ts";
import { openWriter } from "../../storage/index.ts";
import { afterAbort, createTable, lakeName, realBucket, rigLake, stub, until, unwrap } from "./support.ts";

const code = (e: Envelope<unknown>): string => (e.ok ? "ok" : e.error.code);

/** Answers, including a refused RPC (the object was reset under it), as codes. */
async function answers(ps: Promise<Envelope<unknown>>[]): Promise<string[]> {
  return Promise.all(ps.map((p) => p.then(code, () => "rpc-error")));
}

/** The lake as R2 holds it: head snapshot and the table names live there (a fresh writer, then closed). */
async function reopen(lake: string): Promise<{ snapshot: number; tables: string[] }> {
  const store = await openWriter(realBucket(), lake);
  try {
    const view = store.snapshot();
    const h = await head(view);
    const tables = (await catalogAt(view)).tables.map((t) => t.table_name).sort();
    return { snapshot: h.snapshot_id, tables };
  } finally {
    await store.close();
  }
}

/** Re-drives every commit with its idempotency key on a fresh instance: each lands exactly once. */
async function redrive(lake: string, names: string[]): Promise<void> {
  for (const n of names) {
    const r = await afterAbort(lake, (s) => s.commit(lake, createTable(n), { idempotencyKey: `key-${n}` }));
    expect(code(r)).toBe("ok");
  }
}

describe("the submitting task interrupted", () => {
  for (const step of ["capacity", "commitGroup"] satisfies SubmitStep[]) {
    it(`throwing after its '${step}' await strands no batch-mate and half-applies nothing`, async () => {
      const lake = lakeName(`throw-${step.toLowerCase()}`);
      let armed = false;
      let fired = 0;
      rigLake(lake, {
        afterSubmitStep: (at) => {
          if (armed && at === step && fired === 0) {
            fired++;
            throw new Error(`injected failure after ${at}`);
          }
        },
      });
      const s = stub(lake);
      unwrap(await s.createLake(lake, {}));
      armed = true;
      const names = Array.from({ length: 8 }, (_, i) => `t${i}`);
      const got = await answers(
        names.map((n) => s.commit(lake, createTable(n), { idempotencyKey: `key-${n}` })),
      );
      expect(fired).toBe(1);
      // Everyone is answered; the thrown batch is either known unwritten or reported unknown.
      expect(got.filter((c) => c !== "ok").length).toBeGreaterThan(0);
      for (const c of got) expect(["ok", "Unavailable", "CommitOutcomeUnknown"]).toContain(c);
      await redrive(lake, names);
      await evictDurableObject(stub(lake));
      const state = await reopen(lake);
      expect(state.tables).toEqual([...names].sort());
      expect(state.snapshot).toBe(names.length);
    });
  }

  it("an object evicted mid-batch leaves every caller answered and every commit whole", async () => {
    const lake = lakeName("evict");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("warm"), { idempotencyKey: "key-warm" }));
    // The next segment PUT is held before it reaches the bucket (and never let through): the batch it
    // carries is submitted and in flight, so no caller can have been acknowledged when the object goes.
    const gate = rig.bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
    const names = Array.from({ length: 8 }, (_, i) => `e${i}`);
    const pending = answers(names.map((n) => s.commit(lake, createTable(n), { idempotencyKey: `key-${n}` })));
    await until(lake, () => gate.held > 0, "a segment PUT in flight");
    // The instance is lost now, mid-batch (eviction proper waits for in-flight requests to finish).
    await runInDurableObject(s, (_i, state) => state.abort("evicted mid-batch")).catch(() => {});
    const got = await pending;
    // The interruption happened: a segment was in flight, and not one of the eight was acknowledged.
    expect(gate.held).toBe(1);
    expect(got).toEqual(names.map(() => "rpc-error"));
    await redrive(lake, ["warm", ...names]);
    await evictDurableObject(stub(lake));
    const state = await reopen(lake);
    expect(state.tables).toEqual(["warm", ...names].sort());
    expect(state.snapshot).toBe(names.length + 1);
  });
});

describe("RFC 0011 writer crash cases", () => {
  it("CommitNotDurable: a commit whose WAL PUT never landed is invisible after restart", async () => {
    const lake = lakeName("notdurable");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("kept")));
    rig.bucket.crashAfterWrites(0);
    const lost = await s.commit(lake, createTable("lost"), { idempotencyKey: "k-lost" });
    expect(code(lost)).toBe("CommitOutcomeUnknown");
    expect(rig.aborts).toHaveLength(1);
    rigLake(lake);
    const h = unwrap(await afterAbort(lake, (x) => x.head(lake)));
    expect(h.snapshotId).toBe(1);
    // The key was never recorded: a retry commits it for the first time.
    const again = unwrap(await stub(lake).commit(lake, createTable("lost"), { idempotencyKey: "k-lost" }));
    expect(again.replayed ?? false).toBe(false);
    expect(again.snapshotId).toBe(2);
    await evictDurableObject(stub(lake));
    const state = await reopen(lake);
    expect(state).toEqual({ snapshot: 2, tables: ["kept", "lost"] });
  });

  it("CommitDurableNotAcknowledged: present after restart; a retry with its key returns the first result", async () => {
    const lake = lakeName("unacked");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    // The PUT lands, its acknowledgement is lost, and the process dies before it can confirm.
    rig.bucket.fail({ op: "put", prefix: `lakes/${lake}/wal/`, kind: "ambiguous", nth: 1 });
    rig.bucket.crashAfterWrites(1);
    const first = await s.commit(lake, createTable("t"), { idempotencyKey: "k-t" });
    expect(code(first)).toBe("CommitOutcomeUnknown");
    rigLake(lake);
    const retry = unwrap(
      await afterAbort(lake, (x) => x.commit(lake, createTable("t"), { idempotencyKey: "k-t" })),
    );
    expect(retry.replayed).toBe(true);
    expect(retry.snapshotId).toBe(1);
    const h = unwrap(await stub(lake).head(lake));
    expect(h.snapshotId).toBe(1);
  });

  it("GroupCommit: a batch is all or none at every write boundary", async () => {
    let interrupted = 0;
    for (let n = 0; n <= 3; n++) {
      const lake = lakeName(`grp${n}`);
      const rig = rigLake(lake);
      const s = stub(lake);
      unwrap(await s.createLake(lake, {}));
      rig.bucket.crashAfterWrites(n);
      const names = Array.from({ length: 6 }, (_, i) => `g${i}`);
      const got = await answers(names.map((x) => s.commit(lake, createTable(x))));
      if (got.some((c) => c !== "ok")) interrupted++;
      rigLake(lake);
      await afterAbort(lake, (x) => x.head(lake));
      await evictDurableObject(stub(lake));
      const state = await reopen(lake);
      // Whole commits only: the head counts exactly the tables present, and every acknowledged one is.
      expect(state.tables).toHaveLength(state.snapshot);
      names.forEach((x, i) => {
        if (got[i] === "ok") expect(state.tables).toContain(x);
      });
    }
    expect(interrupted).toBeGreaterThan(0);
  });

  it("TakeoverMidCommit: a new writer reads a consistent head and the old one's commit is Fenced", async () => {
    const lake = lakeName("takeover");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("before")));
    // The commit's segment PUT is held at the gate while another writer takes the lake over.
    const gate = rig.bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
    const inFlight = s.commit(lake, createTable("during"));
    await until(lake, () => gate.held > 0, "the commit's segment PUT in flight");
    const other = await openWriter(realBucket(), lake, { identity: "another-deployment" });
    const seen = await head(other.snapshot());
    gate.release();
    const answer = await inFlight;
    expect(code(answer)).toBe("Fenced");
    expect(seen.snapshot_id).toBe(1);
    expect(rig.aborts).toHaveLength(1);
    await other.close();
    rig.bucket.clearFaults();
    // The object's next activation takes the lake back and continues from the durable head.
    const next = unwrap(await afterAbort(lake, (x) => x.commit(lake, createTable("after"))));
    expect(next.snapshotId).toBe(2);
  });

  it("FencedWriterResumes: a fenced writer writes nothing", async () => {
    const lake = lakeName("fenced");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("a")));
    const other = await openWriter(realBucket(), lake, { identity: "another-deployment" });
    const before = (await realBucket().list({ prefix: `lakes/${lake}/` })).objects.map(
      (o) => `${o.key}:${o.etag}`,
    );
    rig.bucket.resetCounters();
    const answer = await s.commit(lake, createTable("b"));
    expect(code(answer)).toBe("Fenced");
    const after = (await realBucket().list({ prefix: `lakes/${lake}/` })).objects.map(
      (o) => `${o.key}:${o.etag}`,
    );
    expect(after).toEqual(before);
    expect(rig.bucket.count({ op: ["put", "delete"], outcome: "ok" })).toBe(0);
    expect(rig.aborts).toHaveLength(1);
    await other.close();
  });

  it("GenesisInterrupted: a crashed create leaves no lake or a whole one, never half of one", async () => {
    let interrupted = 0;
    for (let n = 0; n <= 4; n++) {
      const lake = lakeName(`gen${n}`);
      const rig = rigLake(lake);
      rig.bucket.crashAfterWrites(n);
      const first = await stub(lake)
        .createLake(lake, {})
        .then(code, () => "rpc-error");
      if (first !== "ok") interrupted++;
      // The process dies with the crash: the next request meets a fresh instance and a working bucket.
      await evictDurableObject(stub(lake));
      rigLake(lake);
      const second = await afterAbort(lake, (x) => x.createLake(lake, {}));
      expect(["ok", "AlreadyExists"]).toContain(code(second));
      if (first === "ok") expect(code(second)).toBe("AlreadyExists");
      const h = unwrap(await stub(lake).head(lake));
      expect(h.snapshotId).toBe(0);
      expect(unwrap(await stub(lake).commit(lake, createTable("t"))).snapshotId).toBe(1);
    }
    expect(interrupted).toBeGreaterThan(0);
  });

  it("ConcurrentGenesis: racing creates leave exactly one catalog", async () => {
    const lake = lakeName("cgen");
    rigLake(lake);
    const s = stub(lake);
    const racer = (async () => {
      try {
        const store = await openWriter(realBucket(), lake, { identity: "another-deployment" });
        const cat = await openCatalog(store);
        await store.flush();
        await store.close();
        return cat.bootstrapped ? "bootstrapped" : "adopted";
      } catch (e) {
        return (e as { code?: string }).code ?? "error";
      }
    })();
    const creates = await answers([s.createLake(lake, {}), s.createLake(lake, {}), s.createLake(lake, {})]);
    const r = await racer;
    expect(creates.filter((c) => c === "ok").length).toBeLessThanOrEqual(1);
    for (const c of creates) expect(["ok", "AlreadyExists", "OpenRaced", "Fenced", "rpc-error"]).toContain(c);
    expect(["bootstrapped", "adopted", "OpenRaced", "Fenced"]).toContain(r);
    await evictDurableObject(s).catch(() => {});
    const h = unwrap(await afterAbort(lake, (x) => x.head(lake)));
    expect(h.snapshotId).toBe(0);
    const state = await reopen(lake);
    expect(state.tables).toEqual([]);
    expect(state.snapshot).toBe(0);
  });
});
