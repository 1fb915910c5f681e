/**
 * The store with WAL flushes, memtable flushes, compaction steps, GC passes and reopenings interleaved at
 * random, against a plain in-memory model: every read, every scan, every conflict and the recovered state
 * agree. Transactions and snapshots span memtable flushes and compactions (conflict detection keeps
 * working; old cuts keep reading); the clock jumps past the grace period only when none is held.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReadView, Transaction } from "../../../storage/api.ts";
import { TransactionConflict } from "../../../storage/errors.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { assertProperty } from "../../support/property.ts";
import { b, dump, faultBucket, lakeName, s } from "../helpers.ts";
import { Clock, expectNeededObjectsPresent, GRACE, openLake, TINY } from "./support.ts";

const key = fc.integer({ min: 0, max: 59 }).map((i) => `k${String(i).padStart(2, "0")}`);
const value = fc.option(
  fc.integer({ min: 0, max: 999 }).map((i) => `v${i}-${"x".repeat(i % 40)}`),
  { nil: null },
);

type Op =
  | { t: "write"; muts: { k: string; v: string | null }[] }
  | { t: "begin" }
  | { t: "txput"; i: number; k: string; v: string | null }
  | { t: "commit"; i: number }
  | { t: "get"; k: string }
  | { t: "scan"; from: string; limit: number }
  | { t: "flush" }
  | { t: "flushMemtable" }
  | { t: "compact"; budget: number }
  | { t: "maintain" }
  | { t: "gc" }
  | { t: "age" }
  | { t: "snap" }
  | { t: "reopen" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("write" as const),
      muts: fc.array(fc.record({ k: key, v: value }), { minLength: 1, maxLength: 10 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ t: "begin" as const }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("txput" as const), i: fc.nat(3), k: key, v: value }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("commit" as const), i: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("get" as const), k: key }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("scan" as const),
      from: key,
      limit: fc.integer({ min: 1, max: 30 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ t: "flush" as const }) },
  { weight: 4, arbitrary: fc.constant({ t: "flushMemtable" as const }) },
  {
    weight: 5,
    arbitrary: fc.record({ t: fc.constant("compact" as const), budget: fc.integer({ min: 1, max: 600 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ t: "maintain" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "gc" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "age" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "snap" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "reopen" as const }) },
);

type Model = Map<string, string>;
const obj = (m: Model): Record<string, string> =>
  Object.fromEntries([...m].sort(([x], [y]) => (x < y ? -1 : 1)));

interface TxPair {
  real: Transaction;
  begin: number;
  writes: Map<string, string | null>;
}

/**
 * Without partition cuts, and with cuts plus an append-only log (every write also appends `m<seq>`, the
 * shape of a catalog's snapshot log), so run merges move partitions (docs/decisions/0186-partition-moves.md).
 */
const VARIANTS = [
  { name: "no partition cuts", cuts: undefined, log: false },
  { name: "partition cuts and an append-only log", cuts: ["k30", "m"], log: true },
];

describe("maintenance vs in-memory model", () => {
  it.each(VARIANTS)(
    "flushes, memtable flushes, compactions, GC and reopenings keep the store equal to the model ($name)",
    async ({ cuts, log }) => {
      const extra = cuts === undefined ? {} : { partitionCuts: cuts.map(b) };
      let logSeq = 0;
      let moved = 0;
      let compactions = 0;
      let deleted = 0;
      let partial = 0;
      let runMerges = 0;
      await assertProperty(
        fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 60, size: "max" }), async (ops) => {
          const lake = lakeName("mmodel");
          const bucket = faultBucket();
          const clock = new Clock();
          let st: LakeStore = await openLake(bucket, lake, clock, TINY, extra);
          const applied: Model = new Map();
          let position = 0;
          const lastWrite = new Map<string, number>();
          let txs: TxPair[] = [];
          let snaps: { view: ReadView; model: Model }[] = [];

          const applyModel = (muts: { k: string; v: string | null }[]): void => {
            position++;
            for (const m of muts) {
              if (m.v === null) applied.delete(m.k);
              else applied.set(m.k, m.v);
              lastWrite.set(m.k, position);
            }
          };

          for (const o of ops) {
            switch (o.t) {
              case "write": {
                const muts = log
                  ? [...o.muts, { k: `m${String(logSeq++).padStart(6, "0")}`, v: "entry" }]
                  : o.muts;
                st.write(muts.map((m) => ({ key: b(m.k), value: m.v === null ? undefined : b(m.v) })));
                applyModel(muts);
                break;
              }
              case "begin":
                txs.push({ real: st.begin(), begin: position, writes: new Map() });
                break;
              case "txput": {
                const tx = txs[o.i % Math.max(1, txs.length)];
                if (!tx) break;
                if (o.v === null) tx.real.delete(b(o.k));
                else tx.real.put(b(o.k), b(o.v));
                tx.writes.set(o.k, o.v);
                break;
              }
              case "commit": {
                const idx = o.i % Math.max(1, txs.length);
                const tx = txs[idx];
                if (!tx) break;
                txs.splice(idx, 1);
                if (tx.writes.size === 0) {
                  tx.real.commit();
                } else if ([...tx.writes.keys()].some((k) => (lastWrite.get(k) ?? 0) > tx.begin)) {
                  expect(() => tx.real.commit()).toThrow(TransactionConflict);
                } else {
                  expect(tx.real.commit().position).toBe(position + 1);
                  applyModel([...tx.writes].map(([k, v]) => ({ k, v })));
                }
                break;
              }
              case "get":
                expect(s(await st.snapshot().get(b(o.k)))).toBe(applied.get(o.k));
                break;
              case "scan": {
                const got: string[] = [];
                for await (const kv of st.snapshot().scan({ start: b(o.from), limit: o.limit }))
                  got.push(s(kv.key)!);
                const want = [...applied.keys()]
                  .filter((k) => k >= o.from)
                  .sort()
                  .slice(0, o.limit);
                expect(got).toEqual(want);
                break;
              }
              case "flush":
                await st.flush();
                break;
              case "flushMemtable":
                await st.flushMemtable();
                break;
              case "compact": {
                const r = await st.compact({ force: true, budgetBytes: o.budget });
                if (r) compactions++;
                if (r && !r.finished) partial++;
                if (r?.kind === "runs") runMerges++;
                moved += r?.partitionsMoved ?? 0;
                break;
              }
              case "maintain":
                await st.maintain();
                break;
              case "gc":
                deleted += (await st.collectGarbage()).deleted;
                break;
              case "age":
                // Cuts older than the grace period are not promised to keep reading: drop them first.
                for (const tx of txs) tx.real.abort();
                txs = [];
                snaps = [];
                clock.advance(GRACE + 1);
                deleted += (await st.collectGarbage()).deleted;
                break;
              case "snap":
                snaps.push({ view: st.snapshot(), model: new Map(applied) });
                break;
              case "reopen":
                await st.flush();
                await st.close();
                st = await openLake(bucket, lake, clock, TINY, extra);
                txs = [];
                snaps = [];
                lastWrite.clear();
                expect(st.position).toBe(position);
                break;
            }
            expect(st.position).toBe(position);
          }
          expect(await dump(st.snapshot())).toEqual(obj(applied));
          for (const sn of snaps) expect(await dump(sn.view)).toEqual(obj(sn.model));
          await st.flush();
          await st.close();
          await expectNeededObjectsPresent(bucket, lake);
          const check = await openLake(bucket, lake, clock, TINY, extra);
          expect(await dump(check.snapshot())).toEqual(obj(applied));
          // Everything compacts and collects to the same state.
          await check.flushMemtable();
          while ((await check.compact({ force: true })) !== undefined) {}
          clock.advance(GRACE + 1);
          await check.collectGarbage();
          expect(await dump(check.snapshot())).toEqual(obj(applied));
          await check.close();
          const last = await openLake(bucket, lake, clock, TINY, extra);
          expect(await dump(last.snapshot())).toEqual(obj(applied));
          await last.close();
        }),
        { numRuns: 15 },
      );
      // The runs exercised what they claim to.
      expect(compactions).toBeGreaterThan(10);
      // Whether random budgets stop a step part-way depends on the seed (FC_SEED=789944970 reaches none); the
      // model checks partial steps whenever they happen, and the test below reaches one deterministically.
      void partial;
      // Tiered runs (docs/decisions/0162-tiered-runs.md): forced steps with L0 empty merge every run. Whether
      // random ops reach one also depends on the seed (FC_SEED=789944970 reaches none); the model checks run
      // merges whenever they happen, and the crash sweep "run merge …" proves them step by step.
      void runMerges;
      expect(deleted).toBeGreaterThan(10);
      // Whether random ops reach a move depends on the seed (FC_SEED=1479759668 reaches none); the model
      // checks moves whenever they happen, and runs-cost.test.ts proves deterministically that they do.
      void moved;
    },
  );

  it("a compaction step under a small budget stops part-way, reads stay exact, and the next steps finish it", async () => {
    const clock = new Clock();
    const lake = lakeName("mpartial");
    const bucket = faultBucket();
    const st = await openLake(bucket, lake, clock);
    const model = new Map<string, string>();
    // Several L0 tables of overlapping keys, each bigger than TINY's partition size.
    for (let round = 0; round < 4; round++) {
      const muts = Array.from({ length: 40 }, (_, i) => {
        const k = `k${String(i).padStart(2, "0")}`;
        const v = `r${round}-${"x".repeat(20)}`;
        model.set(k, v);
        return { key: b(k), value: b(v) };
      });
      st.write(muts);
      await st.flush();
      expect(await st.flushMemtable()).toBe(true);
    }
    const first = await st.compact({ force: true, budgetBytes: 1 });
    expect(first?.finished).toBe(false);
    expect(await dump(st.snapshot())).toEqual(Object.fromEntries([...model].sort()));
    let steps = 0;
    while ((await st.compact({ force: true })) !== undefined) expect(++steps).toBeLessThan(100);
    expect(await dump(st.snapshot())).toEqual(Object.fromEntries([...model].sort()));
    await st.flush();
    await st.close();
    await expectNeededObjectsPresent(bucket, lake);
    const again = await openLake(bucket, lake, clock);
    expect(await dump(again.snapshot())).toEqual(Object.fromEntries([...model].sort()));
    await again.close();
  });

  it("a run merge whose keys lie below the target's first partition, around a moved partition, writes each target partition once", async () => {
    // The shape the model found (FC_SEED=-459628849): the target run holds only keys above every input key,
    // and a movable input partition (b1) lies between two stretches of merged keys. Merging the keys below
    // the target's first partition into it ended the round at the move, and the next round merged that
    // partition again: two run-1 partitions both held `d`, and the manifest was refused as overlapping.
    const clock = new Clock();
    const lake = lakeName("mbelow");
    const bucket = faultBucket();
    const extra = { partitionCuts: [b("b"), b("c")] };
    const st = await openLake(bucket, lake, clock, TINY, extra);
    const model = new Map<string, string>();
    const layer = async (keys: string[]): Promise<void> => {
      st.write(keys.map((k) => ({ key: b(k), value: b(`${k}-value`) })));
      for (const k of keys) model.set(k, `${k}-value`);
      await st.flush();
      expect(await st.flushMemtable()).toBe(true);
      // L0 into a new run, in one step.
      expect((await st.compact({ force: true }))?.finished).toBe(true);
    };
    await layer(["d"]); // run 1: [d]
    await layer(["a1", "a3", "b1", "c1", "c3"]); // run 2: [a1 a3] [b1] [c1 c3] (cut at b and c)
    await layer(["a2", "a4", "c2"]); // run 3: [a2 a4] [c2]
    const merge = await st.compact({ force: true });
    expect(merge?.kind).toBe("runs");
    expect(merge?.finished).toBe(true);
    expect(merge?.partitionsMoved).toBe(1);
    expect(await dump(st.snapshot())).toEqual(Object.fromEntries([...model].sort()));
    await st.flush();
    await st.close();
    const again = await openLake(bucket, lake, clock, TINY, extra);
    expect(await dump(again.snapshot())).toEqual(Object.fromEntries([...model].sort()));
    await again.close();
  });

  it("a transaction that began before a memtable flush and a compaction still detects its conflict", async () => {
    const clock = new Clock();
    const lake = lakeName("mconflict");
    const st = await openLake(faultBucket(), lake, clock);
    st.write([{ key: b("k"), value: b("0") }]);
    const tx = st.begin();
    expect(s(await tx.get(b("k")))).toBe("0");
    st.write([{ key: b("k"), value: b("1") }]);
    await st.flush();
    expect(await st.flushMemtable()).toBe(true);
    await st.compact({ force: true });
    // The memtable that held both writes is gone; the conflict index is not.
    expect(st.manifest.sortedTables.length).toBeGreaterThan(0);
    expect(s(await tx.get(b("k")))).toBe("0");
    tx.put(b("k"), b("2"));
    expect(() => tx.commit()).toThrow(TransactionConflict);
    const ok = st.begin();
    ok.put(b("k"), b("3"));
    ok.commit();
    expect(s(await st.snapshot().get(b("k")))).toBe("3");
    await st.close();
  });
});
