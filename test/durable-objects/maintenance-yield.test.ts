/**
 * A maintenance job's pause yields to the commits in flight (decision
 * docs/decisions/0326-maintenance-yields-to-commits.md): it returns only once no commit is in flight, or
 * once `maintenanceYieldMaxMs` has passed on the writer's clock. Ordered with a gate on the commit's WAL
 * PUT and a manual clock that reports when the pause arms its bound: no sleeps, no timing. The row
 * flush's paced encode takes the same pause (docs/decisions/0325-paced-maintenance.md, ingestion section).
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../durable-objects/clock.ts";
import { DEFAULT_TUNABLES, type WriterTunables } from "../../durable-objects/options.ts";
import { MemoryRegistry } from "../../durable-objects/registry.ts";
import { Writer } from "../../durable-objects/writer.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { lakeName, realBucket } from "./support.ts";

const CAP_MS = 100;

/**
 * A manual clock that also says when a timer of `ms` is armed: the pause arms exactly one of
 * `maintenanceYieldMaxMs` when it starts to wait (the writer's other timers have other lengths).
 */
class GatedClock extends ManualClock {
  private waiters: { ms: number; resolve: () => void }[] = [];
  override after(ms: number, fn: () => void): () => void {
    for (const w of this.waiters.filter((x) => x.ms === ms)) w.resolve();
    this.waiters = this.waiters.filter((x) => x.ms !== ms);
    return super.after(ms, fn);
  }
  whenArmed(ms: number): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ ms, resolve }));
  }
}

function writerOn(lake: string, bucket: FaultBucket, clock: ManualClock): Writer {
  const tunables: WriterTunables = {
    ...DEFAULT_TUNABLES,
    // No pacing gap between WAL PUTs: the manual clock would otherwise hold every flush.
    flushSpacingMs: 0,
    maintenanceYieldMaxMs: CAP_MS,
    storeRetry: { attempts: 3, backoffMs: 0 },
  };
  return new Writer({
    lake,
    bucket,
    identity: "test",
    registry: new MemoryRegistry(),
    clock,
    now: () => Date.now(),
    tunables,
    abort: (reason) => {
      throw new Error(`writer aborted: ${reason}`);
    },
    scheduleBackground: () => {},
    log: () => {},
  });
}

async function rig(
  tag: string,
): Promise<{ w: Writer; bucket: FaultBucket; clock: GatedClock; lake: string }> {
  const lake = lakeName(tag);
  const bucket = new FaultBucket(realBucket(), { seed: 3 });
  const clock = new GatedClock();
  const w = writerOn(lake, bucket, clock);
  await w.createLake();
  await w.commit({ verbs: [{ op: "create_table", name: "u", columns: [{ name: "id", type: "int64" }] }] });
  return { w, bucket, clock, lake };
}

const oneRow = (id: number) => ({
  verbs: [{ op: "inline_insert", table: { name: "u" }, rows: [{ id: String(id) }] }],
});

describe("a maintenance job's pause yields to the commits in flight", () => {
  it("returns at once on a quiet writer", async () => {
    const { w, clock } = await rig("yield-quiet");
    await w.maintenancePause();
    expect(clock.pending).toBe(0);
  });

  it("waits while a commit is in flight and returns once it has landed", async () => {
    const { w, bucket, clock, lake } = await rig("yield-inflight");
    const gate = bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
    const events: string[] = [];
    const commit = w.commit(oneRow(1)).then(() => events.push("commit landed"));
    await gate.whenHeld(1);
    const armed = clock.whenArmed(CAP_MS);
    const pause = w.maintenancePause().then(() => events.push("pause returned"));
    await armed;
    expect(events).toEqual([]);
    gate.release();
    await Promise.all([commit, pause]);
    expect(events).toEqual(["commit landed", "pause returned"]);
  });

  it("stops waiting at maintenanceYieldMaxMs, so a stream of commits cannot starve the job", async () => {
    const { w, bucket, clock, lake } = await rig("yield-cap");
    const gate = bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
    let landed = false;
    const commit = w.commit(oneRow(2)).then(() => {
      landed = true;
    });
    await gate.whenHeld(1);
    let returned = false;
    const armed = clock.whenArmed(CAP_MS);
    const pause = w.maintenancePause().then(() => {
      returned = true;
    });
    await armed;
    // The bound's timer is the only thing that can end the wait while the PUT is held.
    clock.advance(CAP_MS - 1);
    expect(returned).toBe(false);
    clock.advance(1);
    await pause;
    expect([returned, landed]).toEqual([true, false]);
    gate.release();
    await commit;
  });

  it("the row flush's paced encode waits for a commit in flight too", async () => {
    const { w, bucket, clock, lake } = await rig("yield-rows-flush");
    await w.commit({
      verbs: [{ op: "create_table", name: "events", columns: [{ name: "id", type: "int64" }] }],
    });
    // More rows than one pacing stretch, so the encode pauses at least once.
    const ops = Array.from({ length: 3000 }, (_, i) => ({ op: "insert", row: { id: i } }));
    await w.commit({ verbs: [{ op: "rows_write", table: { name: "events" }, ops }] });
    const gate = bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
    const events: string[] = [];
    const commit = w.commit(oneRow(3)).then(() => events.push("commit landed"));
    await gate.whenHeld(1);
    const armed = clock.whenArmed(CAP_MS);
    const flush = w.flushRows().then((a) => {
      events.push("flush returned");
      return a;
    });
    await armed;
    expect(events).toEqual([]);
    gate.release();
    const [, answer] = await Promise.all([commit, flush]);
    expect(events).toEqual(["commit landed", "flush returned"]);
    expect(answer.records).toBe(3000);
  });
});
