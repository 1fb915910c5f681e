/**
 * The store against a plain in-memory model: random plain batches, transactions (interleaved, with flushes
 * between begin and commit), flushes, injected segment-PUT faults and reopenings. The model predicts every
 * read, every conflict, every OutcomeUnknown (and what the writer refuses after it) and, after a reopen,
 * exactly the state that landed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReadView, Store, Transaction } from "../../storage/api.ts";
import { OutcomeUnknown, StoreClosed, TransactionConflict } from "../../storage/errors.ts";
import type { FaultBucket } from "../../storage/fault-bucket.ts";
import { walPrefix } from "../../storage/keys.ts";
import { assertProperty } from "../support/property.ts";
import { b, dump, FAST_ATTEMPTS, faultBucket, lakeName, open, s } from "./helpers.ts";

/**
 * Fixed so every run explores the same 100 cases (the coverage counts at the end hold for it); the model is
 * exact for any seed, so change it to explore others.
 */
const SEED = 1;

type FaultKind = "error" | "ambiguous";

const key = fc.constantFrom("a", "ab", "b", "c", "d\u00ff", "");
const value = fc.option(fc.constantFrom("1", "2", "3", "x"), { nil: null });
const faultKind = fc.constantFrom<FaultKind>("error", "ambiguous");

type Op =
  | { t: "write"; muts: { k: string; v: string | null }[] }
  | { t: "begin" }
  | { t: "txput"; i: number; k: string; v: string | null }
  | { t: "txget"; i: number; k: string }
  | { t: "commit"; i: number }
  | { t: "abort"; i: number }
  | { t: "flush" }
  | { t: "snap" }
  | { t: "fault"; kinds: FaultKind[] }
  | { t: "reopen" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("write" as const),
      muts: fc.array(fc.record({ k: key, v: value }), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ t: "begin" as const }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("txput" as const), i: fc.nat(3), k: key, v: value }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("txget" as const), i: fc.nat(3), k: key }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("commit" as const), i: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("abort" as const), i: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.constant({ t: "flush" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "snap" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "reopen" as const }) },
  // One-shot failures of the next segment PUT calls. They stay armed until a segment PUT (a flush with
  // pending batches, or a reopen's fence) consumes them, one per attempt, so they pile up across ops.
  { weight: 1, arbitrary: fc.record({ t: fc.constant("fault" as const), kinds: faultKind.map((k) => [k]) }) },
  // An outage as long as the retry bound: the PUT that meets it ends in OutcomeUnknown. All-error (nothing
  // lands) and all-ambiguous (it lands) are drawn as often as a mix, so both recoveries are exercised.
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("fault" as const),
      kinds: fc.oneof(
        faultKind.map((k) => Array<FaultKind>(FAST_ATTEMPTS).fill(k)),
        fc.array(faultKind, { minLength: FAST_ATTEMPTS, maxLength: FAST_ATTEMPTS }),
      ),
    }),
  },
);

/**
 * What one put-if-absent (`put-once.ts`) does against the armed faults, which fire first-armed first, one
 * per PUT call: each attempt consumes one; the first attempt that meets none succeeds (a PUT that finds
 * its own earlier bytes reads them back as ours). Attempts all failing ⇒ OutcomeUnknown; the bytes landed
 * iff one of those attempts was ambiguous (it reached the bucket).
 */
function segmentPut(armed: FaultKind[]): { acknowledged: boolean; landed: boolean; failedAttempts: number } {
  let landed = false;
  for (let attempt = 0; attempt < FAST_ATTEMPTS; attempt++) {
    const fault = armed.shift();
    if (fault === undefined) return { acknowledged: true, landed: true, failedAttempts: attempt };
    if (fault === "ambiguous") landed = true;
  }
  return { acknowledged: false, landed, failedAttempts: FAST_ATTEMPTS };
}

/** Injected segment-PUT failures the bucket has fired so far. */
const firedFaults = (bucket: FaultBucket, lake: string): number =>
  bucket.count({ op: "put", prefix: walPrefix(lake), outcome: ["error", "ambiguous"] });

type Model = Map<string, string>;

interface TxPair {
  real: Transaction;
  begin: number;
  cut: Model;
  writes: Map<string, string | null>;
}

/**
 * The reported failure (seed 21 of the old test, shrunk): four one-shot faults pile up before the first
 * segment PUT, which spends all FAST_ATTEMPTS on them and ends in OutcomeUnknown.
 */
const PILED_UP_FAULTS: Op[] = [
  { t: "fault", kinds: ["error"] },
  { t: "fault", kinds: ["error"] },
  { t: "fault", kinds: ["error"] },
  { t: "write", muts: [{ k: "a", v: null }] },
  { t: "begin" },
  { t: "fault", kinds: ["error"] },
  { t: "flush" },
  { t: "txput", i: 0, k: "a", v: null },
  { t: "txget", i: 0, k: "a" },
];

const obj = (m: Model): Record<string, string> =>
  Object.fromEntries([...m].sort(([x], [y]) => (x < y ? -1 : 1)));

describe("store vs in-memory model", () => {
  it("agrees on reads, conflicts, positions, OutcomeUnknown and recovered state", async () => {
    // Paths the fixed seed must reach, so the property keeps exploring what it claims to.
    const seen = { retriedPuts: 0, lostFlushes: 0, landedFlushes: 0, failedOpens: 0, refusedOps: 0 };

    await assertProperty(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 50 }), async (ops) => {
        const lake = lakeName("model");
        const bucket = faultBucket();
        let st: Store = await open(bucket, lake);
        let applied: Model = new Map();
        let position = 0;
        // Acknowledged by the store (st.durablePosition) ...
        let durablePosition = 0;
        // ... and what a reopen recovers: more than that when an unacknowledged segment landed anyway.
        let recovered: Model = new Map();
        let recoveredPosition = 0;
        // The writer stopped with OutcomeUnknown: it keeps its visible state and writes nothing more.
        let stopped = false;
        const armed: FaultKind[] = [];
        let fired = 0;
        // Durability handles of the batches applied since the last acknowledged segment.
        let unacked: Promise<void>[] = [];
        const lastWrite = new Map<string, number>();
        let txs: TxPair[] = [];
        const snaps: { view: ReadView; model: Model }[] = [];

        const applyModel = (muts: { k: string; v: string | null }[]): void => {
          position++;
          for (const m of muts) {
            if (m.v === null) applied.delete(m.k);
            else applied.set(m.k, m.v);
            lastWrite.set(m.k, position);
          }
        };

        const putSegment = (): { acknowledged: boolean; landed: boolean } => {
          const r = segmentPut(armed);
          fired += r.failedAttempts;
          if (r.acknowledged && r.failedAttempts > 0) seen.retriedPuts++;
          return r;
        };

        for (const o of ops) {
          switch (o.t) {
            case "write": {
              const muts = o.muts.map((m) => ({ key: b(m.k), value: m.v === null ? undefined : b(m.v) }));
              if (stopped) {
                expect(() => st.write(muts)).toThrow(OutcomeUnknown);
                seen.refusedOps++;
                break;
              }
              const h = st.write(muts);
              applyModel(o.muts);
              expect(h.position).toBe(position);
              unacked.push(h.durable);
              break;
            }
            case "begin":
              if (stopped) {
                expect(() => st.begin()).toThrow(OutcomeUnknown);
                seen.refusedOps++;
                break;
              }
              txs.push({ real: st.begin(), begin: position, cut: new Map(applied), writes: new Map() });
              break;
            case "txput": {
              const tx = txs[o.i % Math.max(1, txs.length)];
              if (!tx) break;
              if (o.v === null) tx.real.delete(b(o.k));
              else tx.real.put(b(o.k), b(o.v));
              tx.writes.set(o.k, o.v);
              break;
            }
            case "txget": {
              const tx = txs[o.i % Math.max(1, txs.length)];
              if (!tx) break;
              const expected = tx.writes.has(o.k) ? (tx.writes.get(o.k) ?? undefined) : tx.cut.get(o.k);
              expect(s(await tx.real.get(b(o.k)))).toBe(expected);
              const merged = new Map(tx.cut);
              for (const [k, v] of tx.writes) v === null ? merged.delete(k) : merged.set(k, v);
              expect(await dump(tx.real)).toEqual(obj(merged));
              break;
            }
            case "commit": {
              const idx = o.i % Math.max(1, txs.length);
              const tx = txs[idx];
              if (!tx) break;
              txs.splice(idx, 1);
              const conflict = [...tx.writes.keys()].some((k) => (lastWrite.get(k) ?? 0) > tx.begin);
              if (tx.writes.size === 0) {
                expect(tx.real.commit().position).toBe(tx.begin);
              } else if (stopped) {
                // A stopped writer refuses before it looks for conflicts: it will apply nothing more.
                expect(() => tx.real.commit()).toThrow(OutcomeUnknown);
                seen.refusedOps++;
              } else if (conflict) {
                expect(() => tx.real.commit()).toThrow(TransactionConflict);
              } else {
                const h = tx.real.commit();
                applyModel([...tx.writes].map(([k, v]) => ({ k, v })));
                expect(h.position).toBe(position);
                unacked.push(h.durable);
              }
              break;
            }
            case "abort": {
              const idx = o.i % Math.max(1, txs.length);
              const tx = txs[idx];
              if (!tx) break;
              txs.splice(idx, 1);
              tx.real.abort();
              break;
            }
            case "flush": {
              if (stopped) {
                await expect(st.flush()).rejects.toBeInstanceOf(OutcomeUnknown);
                seen.refusedOps++;
                break;
              }
              // Nothing pending ⇒ no PUT, so armed faults stay armed.
              const r = position > durablePosition ? putSegment() : { acknowledged: true, landed: true };
              if (r.acknowledged) {
                await st.flush();
                for (const d of unacked) await d;
                durablePosition = position;
                recovered = new Map(applied);
                recoveredPosition = position;
              } else {
                await expect(st.flush()).rejects.toBeInstanceOf(OutcomeUnknown);
                for (const d of unacked) await expect(d).rejects.toBeInstanceOf(OutcomeUnknown);
                stopped = true;
                if (r.landed) {
                  recovered = new Map(applied);
                  recoveredPosition = position;
                  seen.landedFlushes++;
                } else {
                  seen.lostFlushes++;
                }
              }
              unacked = [];
              break;
            }
            case "fault":
              for (const kind of o.kinds) {
                bucket.fail({ op: "put", prefix: walPrefix(lake), kind, times: 1 });
                armed.push(kind);
              }
              break;
            case "snap":
              snaps.push({ view: st.snapshot(), model: new Map(applied) });
              break;
            case "reopen":
              await st.close();
              for (const d of unacked) await expect(d).rejects.toBeInstanceOf(StoreClosed);
              unacked = [];
              // The fence PUT meets the armed faults too; a host whose open ends in OutcomeUnknown opens
              // again (an unconfirmed fence is empty: it changes no state, and its id is skipped or replayed).
              while (!putSegment().acknowledged) {
                await expect(open(bucket, lake)).rejects.toBeInstanceOf(OutcomeUnknown);
                seen.failedOpens++;
              }
              st = await open(bucket, lake);
              applied = new Map(recovered);
              position = recoveredPosition;
              durablePosition = recoveredPosition;
              stopped = false;
              txs = [];
              snaps.length = 0;
              lastWrite.clear();
              break;
          }
          expect(st.position).toBe(position);
          expect(st.durablePosition).toBe(durablePosition);
          expect(firedFaults(bucket, lake)).toBe(fired);
        }
        // A stopped writer still serves its visible state, including batches that never became durable.
        expect(await dump(st.snapshot())).toEqual(obj(applied));
        for (const sn of snaps) expect(await dump(sn.view)).toEqual(obj(sn.model));
        await st.close();
        bucket.clearFaults();
        const check = await open(bucket, lake);
        expect(check.position).toBe(recoveredPosition);
        expect(await dump(check.snapshot())).toEqual(obj(recovered));
        await check.close();
      }),
      { numRuns: 100, seed: SEED, examples: [[PILED_UP_FAULTS]] },
    );

    for (const [path, n] of Object.entries(seen)) expect(n, path).toBeGreaterThan(0);
  });
});
