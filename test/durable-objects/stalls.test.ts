/**
 * A bucket that never answers: the writer names where commits are parked, gives the slot-holding batch
 * up as an unknown outcome at the bound, answers every pending caller, releases the slot and aborts.
 */
import { describe, expect, it } from "vitest";
import { afterAbort, createTable, lakeName, rigLake, stub, until, unwrap } from "./support.ts";

describe("a bucket that never answers", () => {
  it("reports stalls, answers CommitOutcomeUnknown after the bound, releases the slot and aborts", async () => {
    const lake = lakeName("never");
    const rig = rigLake(lake, {
      tunables: { slotBoundMs: 400, stallReportMs: 50, maxUnflushedBatches: 1 },
    });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, createTable("warm")));
    // Every PUT is held and never let through (until the test clears the faults).
    const gate = rig.bucket.hold({ op: "put" });
    // The first commit is applied and waits on a segment PUT that never returns; the second cannot be
    // admitted to the store past the capacity limit, so it holds the slot until the bound.
    const first = s.commit(lake, createTable("a"));
    await until(lake, () => gate.held > 0, "the first commit's segment PUT in flight");
    const second = s.commit(lake, createTable("b"));
    const [a, b] = await Promise.all([first, second]);
    expect(a.ok ? "ok" : a.error.code).toBe("CommitOutcomeUnknown");
    expect(b.ok ? "ok" : b.error.code).toBe("CommitOutcomeUnknown");
    expect(b.ok ? "" : b.error.message).toMatch(/bound/);
    expect(rig.aborts).toHaveLength(1);
    const stats = rig.aborts[0]?.stats;
    expect(stats?.slotHeld).toBe(false);
    expect(stats?.terminal).toBe("CommitOutcomeUnknown");
    expect(stats?.stalls.durability ?? 0).toBeGreaterThan(0);
    expect(stats?.stalls.submission ?? 0).toBeGreaterThan(0);
    // The instance is gone; a fresh one (with a bucket that answers again) recovers and serves.
    rig.bucket.clearFaults();
    const after = unwrap(await afterAbort(lake, (x) => x.commit(lake, createTable("c"))));
    expect(after.snapshotId).toBeGreaterThan(1);
    expect(rig.aborts).toHaveLength(1);
  });
});
