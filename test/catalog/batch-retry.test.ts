/**
 * Every catalog retry-on-conflict bound is reached, with its typed error, on the real store: each attempt
 * loses a real race (another batch on the same keys lands inside its window), decision
 * docs/decisions/0660-retry-bounds.md.
 */
import { describe, expect, it } from "vitest";
import { MAX_CATALOG_BATCH_ATTEMPTS, MAX_OPEN_ATTEMPTS, retryOnConflict } from "../../catalog/batch-retry.ts";
import { bootstrapOrAdopt } from "../../catalog/bootstrap.ts";
import { SweepBusy, sweepIdempotencyKeys } from "../../catalog/commit/sweep.ts";
import { CodedError, Corruption } from "../../catalog/errors.ts";
import { keys } from "../../catalog/keys.ts";
import { CleanupBusy, inBatch } from "../../catalog/maintenance/cleanup.ts";
import { ExpireBusy, expireSnapshotsStep } from "../../catalog/maintenance/expire.ts";
import { appendJobRuns, JobHistoryBusy, type JobRun } from "../../catalog/maintenance/runs.ts";
import type { Store } from "../../storage/api.ts";
import { fresh, openStore, racing } from "./support.ts";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const run: JobRun = {
  job: "flush_inlined",
  startedAt: 1,
  durationMs: 1,
  filesIn: 0,
  filesOut: 0,
  rowsIn: 0,
  rowsOut: 0,
  snapshotId: null,
  error: null,
};

/** A store whose transactions each see `interfere` land first, counting the transactions begun. */
function losing(store: Store, interfere: () => Promise<void>): { store: Store; begun: () => number } {
  const r = racing(store, interfere);
  r.arm(Number.MAX_SAFE_INTEGER);
  let begun = 0;
  const counted = new Proxy(r.store, {
    get(target, prop, receiver) {
      if (prop === "begin")
        return () => {
          begun++;
          return target.begin();
        };
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: counted, begun: () => begun };
}

describe("retry-on-conflict bounds", () => {
  it("retryOnConflict stops at its bound with the caller's error, and retries only conflicts", async () => {
    const store = await openStore("retry-helper");
    const k = enc("k");
    const l = losing(store, async () => void store.write([{ key: k, value: enc("theirs") }]));
    class Busy extends CodedError {
      readonly code = "Unavailable";
    }
    await expect(
      retryOnConflict(
        l.store,
        4,
        (bound) => new Busy(`lost ${bound}`),
        async (tx) => {
          await tx.get(k);
          tx.put(k, enc("ours"));
          return tx.commit();
        },
      ),
    ).rejects.toThrow(Busy);
    expect(l.begun()).toBe(4);
    // Any other error ends the loop at once.
    let calls = 0;
    await expect(
      retryOnConflict(
        store,
        4,
        () => new Busy("never"),
        async () => {
          calls++;
          throw new Error("boom");
        },
      ),
    ).rejects.toThrow("boom");
    expect(calls).toBe(1);
    await store.close();
  });

  it("the job history's append: JobHistoryBusy after MAX_CATALOG_BATCH_ATTEMPTS", async () => {
    const store = await openStore("retry-runs");
    const l = losing(store, async () => void (await appendJobRuns(store, [run])));
    const e = await appendJobRuns(l.store, [run]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(JobHistoryBusy);
    expect((e as JobHistoryBusy).code).toBe("Unavailable");
    expect(l.begun()).toBe(MAX_CATALOG_BATCH_ATTEMPTS);
    await store.close();
  });

  it("the idempotency sweep: SweepBusy after MAX_CATALOG_BATCH_ATTEMPTS (it no longer gives up silently)", async () => {
    let now = 1_000_000;
    const { store, catalog } = await fresh("retry-sweep", { now: () => now, idempotencyTtlMs: 1000 });
    await catalog.commit({ verbs: [{ op: "create_schema", name: "s0" }], idempotencyKey: "k" });
    now += 5000;
    let n = 0;
    const l = losing(store, async () => {
      n++;
      await catalog.commit({ verbs: [{ op: "create_schema", name: `s${n}` }] });
    });
    const e = await sweepIdempotencyKeys(l.store, now, 100).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SweepBusy);
    expect(l.begun()).toBe(MAX_CATALOG_BATCH_ATTEMPTS);
    await store.close();
  });

  it("file cleanup's batch: CleanupBusy after MAX_CATALOG_BATCH_ATTEMPTS", async () => {
    const store = await openStore("retry-cleanup");
    const k = enc("cleanup-k");
    const l = losing(store, async () => void store.write([{ key: k, value: enc("theirs") }]));
    const e = await inBatch(l.store, async (tx) => {
      await tx.get(k);
      tx.put(k, enc("ours"));
      return true;
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CleanupBusy);
    expect(l.begun()).toBe(MAX_CATALOG_BATCH_ATTEMPTS);
    await store.close();
  });

  it("a snapshot-expiry step: ExpireBusy after MAX_CATALOG_BATCH_ATTEMPTS", async () => {
    const { store, catalog } = await fresh("retry-expire", { now: () => 1_000 });
    for (const name of ["a", "b", "c"]) await catalog.commit({ verbs: [{ op: "create_schema", name }] });
    let n = 0;
    const l = losing(store, async () => {
      n++;
      await catalog.commit({ verbs: [{ op: "create_schema", name: `s${n}` }] });
    });
    const e = await expireSnapshotsStep(l.store, { now: 1_000_000, olderThanMs: 0, pinned: [] }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ExpireBusy);
    expect(l.begun()).toBe(MAX_CATALOG_BATCH_ATTEMPTS);
    await store.close();
  });

  it("bootstrap: Corruption after MAX_OPEN_ATTEMPTS opens lost the race", async () => {
    const store = await openStore("retry-open");
    // Another open's head lands and is withdrawn inside each attempt's window: the store keeps changing.
    const l = losing(store, async () => {
      store.write([{ key: keys.head(), value: enc("x") }]);
      store.write([{ key: keys.head(), value: undefined }]);
    });
    const e = await bootstrapOrAdopt(l.store, { now: () => 1, dataPath: "data/", uuid: () => "u" }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(Corruption);
    expect(String(e)).toContain(`${MAX_OPEN_ATTEMPTS} attempts`);
    expect(l.begun()).toBe(MAX_OPEN_ATTEMPTS);
    await store.close();
  });
});
