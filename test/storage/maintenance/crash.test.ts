/**
 * Crash sweeps over memtable flush, compaction and GC: for every N, the bucket client crashes after N more
 * writes (put or delete) while the operation runs; a new writer on a healthy client must see exactly the
 * same logical state, every object that state needs must still be there, and finishing all maintenance
 * afterwards must leave no table behind that no manifest accounts for.
 */
import { describe, expect, it } from "vitest";
import { sealDue } from "../../../storage/gc-ledger.ts";
import { gcPrefix } from "../../../storage/keys.ts";
import { ledgerRefs } from "../../../storage/manifest.ts";
import { sstPrefix } from "../../../storage/sst/key.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, objectKeys, realBucket } from "../helpers.ts";
import { accountedKeys, Clock, expectNeededObjectsPresent, GRACE, openLake } from "./support.ts";

type State = Record<string, string>;

/** Writes `n` keys starting at `from` (value tagged by round) as one batch. */
function writeRound(st: LakeStore, state: State, round: number, from: number, n: number): void {
  const muts = [];
  for (let i = from; i < from + n; i++) {
    const k = `key${String(i).padStart(4, "0")}`;
    if (i % 7 === round % 7) {
      muts.push({ key: b(k), value: undefined });
      delete state[k];
    } else {
      const v = `r${round}-${i}`;
      muts.push({ key: b(k), value: b(v) });
      state[k] = v;
    }
  }
  st.write(muts);
}

/**
 * Every table and GC ledger in the bucket is accounted for by the manifest (as a table, a ledger, or a
 * record awaiting deletion, inline or in a ledger).
 */
async function expectNoLeakedTables(st: LakeStore, lake: string): Promise<void> {
  const accounted = await accountedKeys(realBucket(), lake, st.manifest);
  const prefixes = [sstPrefix(lake), gcPrefix(lake)].map((p) => p.slice(`lakes/${lake}/`.length));
  for (const k of await objectKeys(realBucket(), lake)) {
    if (prefixes.some((p) => k.startsWith(p))) expect(accounted.has(`lakes/${lake}/${k}`), k).toBe(true);
  }
}

async function sweep(
  tag: string,
  setup: (st: LakeStore, clock: Clock) => Promise<State>,
  act: (st: LakeStore) => Promise<unknown>,
): Promise<{ interrupted: number; points: number }> {
  let interrupted = 0;
  let n = 0;
  for (; n < 60; n++) {
    const lake = lakeName(`${tag}-${n}`);
    const clock = new Clock();
    const fb = faultBucket();
    const st = await openLake(fb, lake, clock);
    const state = await setup(st, clock);
    await st.flush();
    fb.crashAfterWrites(n);
    const ok = await act(st).then(
      () => true,
      () => false,
    );
    const crashed = fb.crashed;
    if (crashed) interrupted++;
    else expect(ok).toBe(true);
    await st.close().catch(() => {});

    const re = await openLake(faultBucket(), lake, clock);
    expect(await dump(re.snapshot())).toEqual(state);
    await expectNeededObjectsPresent(realBucket(), lake);
    // Finish everything the crash interrupted, collect, and check nothing needed went.
    await re.flushMemtable();
    for (;;) {
      const r = await re.compact({ force: true });
      if (r === undefined || r.finished) break;
    }
    for (let i = 0; i < 2; i++) {
      clock.advance(GRACE + 1);
      await re.collectGarbage();
    }
    expect(await dump(re.snapshot())).toEqual(state);
    await expectNeededObjectsPresent(realBucket(), lake);
    await expectNoLeakedTables(re, lake);
    await re.close();
    const last = await openLake(faultBucket(), lake, clock);
    expect(await dump(last.snapshot())).toEqual(state);
    await last.close();
    if (!crashed) break;
  }
  return { interrupted, points: n + 1 };
}

describe("maintenance crash sweeps", () => {
  it("memtable flush: every crash point keeps the state and leaks nothing", async () => {
    const r = await sweep(
      "cflush",
      async (st) => {
        const state: State = {};
        for (let round = 0; round < 3; round++) {
          writeRound(st, state, round, round * 5, 20);
          await st.flush();
        }
        // A first table, so the flush below also lists a table beneath the new one.
        await st.flushMemtable();
        writeRound(st, state, 3, 10, 20);
        return state;
      },
      (st) => st.flushMemtable(),
    );
    expect(r.interrupted).toBeGreaterThanOrEqual(3);
  });

  it("compaction of L0 (multi-step, into a new run above an existing one): every crash point keeps the state and leaks nothing", async () => {
    const r = await sweep(
      "ccompact",
      async (st) => {
        const state: State = {};
        writeRound(st, state, 0, 0, 40);
        await st.flushMemtable();
        await st.compact({ force: true, budgetBytes: 1 << 20 });
        for (let round = 1; round < 4; round++) {
          writeRound(st, state, round, round * 9, 25);
          await st.flushMemtable();
        }
        return state;
      },
      async (st) => {
        for (;;) {
          const step = await st.compact({ force: true });
          if (step === undefined || step.finished) return;
        }
      },
    );
    expect(r.interrupted).toBeGreaterThanOrEqual(4);
  });

  it("run merge (multi-step, overlapping runs into the oldest): every crash point keeps the state and leaks nothing", async () => {
    const r = await sweep(
      "crunmerge",
      async (st) => {
        // Four runs over overlapping keys (each L0 merge makes a new run), deletes included.
        const state: State = {};
        for (let round = 0; round < 4; round++) {
          writeRound(st, state, round, round * 12, 48);
          await st.flushMemtable();
          const step = await st.compact({ force: true, budgetBytes: 1 << 20 });
          expect(step?.kind).toBe("l0");
        }
        return state;
      },
      async (st) => {
        let runSteps = 0;
        for (;;) {
          const step = await st.compact({ force: true });
          if (step === undefined) break;
          expect(step.kind).toBe("runs");
          runSteps++;
        }
        // The act really was a multi-step run merge (the sweep proves each of its writes interrupted).
        expect(runSteps).toBeGreaterThan(1);
      },
    );
    expect(r.interrupted).toBeGreaterThanOrEqual(4);
  });

  it("GC: every crash point keeps the state and deletes nothing the lake needs", async () => {
    const r = await sweep(
      "cgc",
      async (st, clock) => {
        const state: State = {};
        for (let round = 0; round < 4; round++) {
          writeRound(st, state, round, round * 6, 20);
          await st.flushMemtable();
        }
        await st.compact({ force: true, budgetBytes: 1 << 20 });
        writeRound(st, state, 9, 0, 10);
        await st.flushMemtable();
        clock.advance(GRACE + 1);
        return state;
      },
      async (st) => {
        const first = await st.collectGarbage();
        expect(first.deleted).toBeGreaterThan(0);
        await st.collectGarbage();
      },
    );
    expect(r.interrupted).toBeGreaterThanOrEqual(2);
  });

  /** Rounds of write + memtable flush (no maintain(), so nothing seals) until a seal is due. */
  async function untilSealDue(st: LakeStore, state: State): Promise<void> {
    for (let round = 0; !sealDue(st.manifest); round++) {
      writeRound(st, state, round, (round * 3) % 40, 6);
      await st.flushMemtable();
      if (round % 3 === 2) {
        for (;;) {
          const step = await st.compact({ force: true });
          if (step === undefined || step.finished) break;
        }
      }
    }
  }

  it("GC ledger seal: every crash point keeps the state and leaks nothing", async () => {
    const r = await sweep(
      "cseal",
      async (st) => {
        const state: State = {};
        await untilSealDue(st, state);
        return state;
      },
      async (st) => {
        await st.maintain();
        expect(ledgerRefs(st.manifest)).toHaveLength(1);
      },
    );
    expect(r.interrupted).toBeGreaterThanOrEqual(2);
  });

  it("GC through ledgers: every crash point keeps the state and deletes nothing the lake needs", async () => {
    const r = await sweep(
      "cgcl",
      async (st, clock) => {
        const state: State = {};
        await untilSealDue(st, state);
        await st.maintain();
        expect(ledgerRefs(st.manifest).length).toBeGreaterThan(0);
        writeRound(st, state, 99, 0, 10);
        await st.flushMemtable();
        clock.advance(GRACE + 1);
        return state;
      },
      async (st) => {
        const first = await st.collectGarbage();
        expect(first.deleted).toBeGreaterThan(0);
        expect(ledgerRefs(st.manifest)).toHaveLength(0);
        await st.collectGarbage();
      },
    );
    expect(r.interrupted).toBeGreaterThanOrEqual(2);
  });
});
