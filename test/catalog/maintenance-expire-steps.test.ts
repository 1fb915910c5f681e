/**
 * Expiry steps are bounded (decision docs/decisions/0325-paced-maintenance.md): a step runs in the writer's
 * submission slot, so no appender commits while it runs. A backlog longer than
 * MAX_EXPIRED_SNAPSHOTS_PER_STEP is expired over several steps, none expiring more than the bound. Counting only.
 */
import { describe, expect, it } from "vitest";
import { listSnapshots } from "../../catalog/index.ts";
import { expireSnapshotsStep, MAX_EXPIRED_SNAPSHOTS_PER_STEP } from "../../catalog/maintenance/expire.ts";
import { fresh, settle } from "./support.ts";

/** Old snapshots: one more than a step takes, so the backlog needs two steps. */
const COMMITS = MAX_EXPIRED_SNAPSHOTS_PER_STEP + 1;
/** Commits awaited durable together (each is still its own snapshot). */
const SETTLE_EVERY = 64;

describe("bounded expiry steps", () => {
  it(`expires a backlog of ${COMMITS} snapshots in steps of at most MAX_EXPIRED_SNAPSHOTS_PER_STEP (${MAX_EXPIRED_SNAPSHOTS_PER_STEP})`, async () => {
    const { store, catalog } = await fresh("mtl-expire-steps");
    const commit = (verbs: unknown[]) => catalog.commit({ verbs } as never);
    await settle(
      store,
      (await commit([{ op: "create_table", name: "t", columns: [{ name: "id", type: "int64" }] }])).durable,
    );
    let pending: Promise<void>[] = [];
    for (let i = 0; i < COMMITS; i++) {
      pending.push(
        (await commit([{ op: "inline_insert", table: { name: "t" }, rows: [{ id: i }] }])).durable,
      );
      if (pending.length === SETTLE_EVERY || i === COMMITS - 1) {
        await settle(
          store,
          Promise.all(pending).then(() => undefined),
        );
        pending = [];
      }
    }
    const before = (await listSnapshots(store.snapshot())).length;
    // Every snapshot but the head is older than the cutoff (now + 1 h, retention 1 ms).
    const options = { now: Date.now() + 3_600_000, olderThanMs: 1, pinned: [] };
    const sizes: number[] = [];
    // As the job runs it: each step starts after the last snapshot the previous step decided.
    let after: number | undefined;
    for (let step = 0; step < 4; step++) {
      const r = await expireSnapshotsStep(store, { ...options, ...(after !== undefined ? { after } : {}) });
      await settle(store, r.durable);
      sizes.push(r.expired.length);
      if (r.through !== null) after = r.through;
      if (!r.more && r.expired.length === 0) break;
    }
    for (const n of sizes) expect(n).toBeLessThanOrEqual(MAX_EXPIRED_SNAPSHOTS_PER_STEP);
    expect(sizes[0]).toBe(MAX_EXPIRED_SNAPSHOTS_PER_STEP);
    const expired = sizes.reduce((a, b) => a + b, 0);
    expect(expired).toBe(before - 1);
    expect(await listSnapshots(store.snapshot())).toHaveLength(1);
  });
});
