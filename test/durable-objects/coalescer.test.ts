import { describe, expect, it } from "vitest";
import { ManualClock, systemClock } from "../../durable-objects/clock.ts";
import { Coalescer, type Settled } from "../../durable-objects/coalescer.ts";
import { type Parked, type StallReport, StallWatch } from "../../durable-objects/stall.ts";

const parked = (): Parked => ({ phase: "admission", since: 0 });
const tick = () => new Promise<void>((r) => setTimeout(r, 0));

function rig(options: { max?: number; boundMs?: number; clock?: ManualClock } = {}) {
  const clock = options.clock ?? new ManualClock();
  const reports: StallReport[] = [];
  const stall = new StallWatch(clock, 1000, (r) => reports.push(r));
  const submitted: number[][] = [];
  const gates: { release: () => void; fail: (e: unknown) => void }[] = [];
  const abandoned: number[] = [];
  const c = new Coalescer<number, string>(
    (members) => {
      submitted.push(members);
      return new Promise<string>((resolve, reject) => {
        gates.push({ release: () => resolve(`batch${submitted.length}`), fail: reject });
      });
    },
    {
      clock,
      stall,
      maxMembers: options.max ?? 64,
      slotBoundMs: options.boundMs ?? 300_000,
      onAbandoned: (d) => abandoned.push(d.members),
    },
  );
  return { c, clock, stall, reports, submitted, gates, abandoned };
}

describe("coalescer", () => {
  it("an uncontended commit submits at once, alone", async () => {
    const { c, submitted, gates } = rig();
    const p = c.join(1, 1, parked());
    await tick();
    expect(submitted).toEqual([[1]]);
    gates[0]?.release();
    expect(await p).toEqual({ kind: "submitted", batch: "batch1", index: 0 });
    expect(c.slotHeld).toBe(false);
  });

  it("callers on their way in together form one batch; arrivals during a submission form the next", async () => {
    const { c, submitted, gates } = rig();
    const first = [1, 2, 3].map((m) => c.join(m, 1, parked(), () => Promise.resolve()));
    await tick();
    expect(submitted).toEqual([[1, 2, 3]]);
    const second = [4, 5, 6, 7].map((m) => c.join(m, 1, parked()));
    await tick();
    expect(submitted).toHaveLength(1);
    gates[0]?.release();
    await tick();
    expect(submitted[1]).toEqual([4, 5, 6, 7]);
    gates[1]?.release();
    const all = await Promise.all([...first, ...second]);
    expect(all.map((s) => (s.kind === "submitted" ? `${s.batch}:${s.index}` : s.kind))).toEqual([
      "batch1:0",
      "batch1:1",
      "batch1:2",
      "batch2:0",
      "batch2:1",
      "batch2:2",
      "batch2:3",
    ]);
  });

  it("an alone member (a row transaction) rides a batch of its own; standalone writes around it coalesce", async () => {
    const { c, submitted, gates } = rig();
    const hold = c.join(0, 1, parked());
    await tick();
    // While batch 1 is in flight: two writes, a transaction, two more writes, another transaction.
    const queued = [
      c.join(1, 1, parked()),
      c.join(2, 1, parked()),
      c.join(100, 1, parked(), undefined, true),
      c.join(3, 1, parked()),
      c.join(4, 1, parked()),
      c.join(101, 1, parked(), undefined, true),
    ];
    for (let i = 0; i < 6; i++) {
      await tick();
      gates[i]?.release();
    }
    await Promise.all([hold, ...queued]);
    expect(submitted).toEqual([[0], [1, 2], [100], [3, 4], [101]]);
  });

  it("a batch does not seal while a caller is still being admitted", async () => {
    const { c, submitted, gates } = rig();
    let admitSlow!: () => void;
    const slow = new Promise<void>((r) => {
      admitSlow = r;
    });
    const a = c.join(1, 1, parked(), () => slow);
    const b = c.join(2, 1, parked(), () => Promise.resolve());
    await tick();
    expect(submitted).toHaveLength(0);
    admitSlow();
    await tick();
    expect(submitted).toEqual([[2, 1]]);
    gates[0]?.release();
    await Promise.all([a, b]);
  });

  it("seals at the member cap, counting a caller's own group by its weight", async () => {
    const { c, submitted, gates } = rig({ max: 64 });
    const ps = Array.from({ length: 130 }, (_, i) => c.join(i, 1, parked(), () => Promise.resolve()));
    await tick();
    for (let i = 0; i < 3; i++) {
      gates[i]?.release();
      await tick();
    }
    await Promise.all(ps);
    expect(submitted.map((b) => b.length)).toEqual([64, 64, 2]);
    // Weighted: a 40-request group and a 30-request group cannot share a 64 batch.
    const w = rig({ max: 64 });
    const g1 = w.c.join(100, 40, parked(), () => Promise.resolve());
    const g2 = w.c.join(200, 30, parked(), () => Promise.resolve());
    await tick();
    w.gates[0]?.release();
    await tick();
    w.gates[1]?.release();
    await Promise.all([g1, g2]);
    expect(w.submitted).toEqual([[100], [200]]);
  });

  it("a thrown submission answers its members and still releases the slot", async () => {
    const { c, submitted, gates } = rig();
    const a = c.join(1, 1, parked());
    await tick();
    const b = c.join(2, 1, parked());
    gates[0]?.fail(new Error("boom"));
    const sa = await a;
    expect(sa.kind).toBe("threw");
    await tick();
    expect(submitted[1]).toEqual([2]);
    gates[1]?.release();
    expect((await b).kind).toBe("submitted");
  });

  it("a submission past the bound is abandoned as unknown, the slot released, the host told", async () => {
    const { c, clock, submitted, gates, abandoned } = rig({ boundMs: 5000 });
    const a = c.join(1, 1, parked(), () => Promise.resolve());
    const b = c.join(2, 1, parked(), () => Promise.resolve());
    await tick();
    expect(submitted).toEqual([[1, 2]]);
    const c3 = c.join(3, 1, parked());
    await tick();
    clock.advance(5000);
    const sa: Settled<string> = await a;
    expect(sa).toEqual({ kind: "abandoned", boundMs: 5000 });
    expect((await b).kind).toBe("abandoned");
    expect(abandoned).toEqual([2]);
    await tick();
    expect(submitted[1]).toEqual([3]);
    // The abandoned write finishing late changes nothing for its members.
    gates[0]?.release();
    gates[1]?.release();
    expect((await c3).kind).toBe("submitted");
  });

  it("shutdown drops what was never submitted and refuses new members", async () => {
    const { c, submitted, gates } = rig();
    const a = c.join(1, 1, parked());
    await tick();
    const b = c.join(2, 1, parked());
    await tick();
    c.shutdown(new Error("stopping"));
    expect(await b).toMatchObject({ kind: "dropped" });
    expect(await c.join(3, 1, parked())).toMatchObject({ kind: "dropped" });
    gates[0]?.release();
    expect((await a).kind).toBe("submitted");
    expect(submitted).toHaveLength(1);
  });

  it("a failed admission is dropped without holding back the others", async () => {
    const { c, gates } = rig();
    const bad = c.join(1, 1, parked(), () => Promise.reject(new Error("open failed")));
    const good = c.join(2, 1, parked(), () => Promise.resolve());
    await tick();
    gates[0]?.release();
    expect(await bad).toMatchObject({ kind: "dropped" });
    expect(await good).toMatchObject({ kind: "submitted", index: 0 });
  });

  it("exclusive tasks take the slot in turn with batches", async () => {
    const { c, submitted, gates } = rig();
    const order: string[] = [];
    const a = c.join(1, 1, parked());
    await tick();
    const t = c.exclusive(async () => {
      order.push(`task sees ${submitted.length} batch(es)`);
      return 7;
    });
    const b = c.join(2, 1, parked());
    await tick();
    gates[0]?.release();
    expect(await t).toBe(7);
    await tick();
    gates[1]?.release();
    await Promise.all([a, b]);
    expect(order).toEqual(["task sees 1 batch(es)"]);
    expect(submitted).toEqual([[1], [2]]);
  });

  it("names the phase a commit is parked in while it runs long", async () => {
    const clock = new ManualClock();
    const { c, reports, gates } = rig({ clock });
    const p = parked();
    const a = c.join(1, 1, p);
    await tick();
    const q = parked();
    const b = c.join(2, 1, q);
    await tick();
    clock.advance(1000);
    expect(reports).toEqual([
      { phase: "submission", commits: 1, oldestMs: 1000 },
      { phase: "open", commits: 1, oldestMs: 1000 },
    ]);
    clock.advance(1000);
    expect(reports).toHaveLength(4);
    gates[0]?.release();
    await a;
    await tick();
    gates[1]?.release();
    await b;
    expect(systemClock.now()).toBeGreaterThan(0);
  });
});
