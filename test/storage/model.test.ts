/**
 * The store against a plain in-memory model: random plain batches, transactions (interleaved, with flushes
 * between begin and commit), flushes and reopenings. The model predicts every read, every conflict and,
 * after a reopen, exactly the flushed state.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReadView, Store, Transaction } from "../../storage/api.ts";
import { TransactionConflict } from "../../storage/errors.ts";
import { walPrefix } from "../../storage/keys.ts";
import { b, dump, faultBucket, lakeName, open, s } from "./helpers.ts";

const key = fc.constantFrom("a", "ab", "b", "c", "d\u00ff", "");
const value = fc.option(fc.constantFrom("1", "2", "3", "x"), { nil: null });

type Op =
  | { t: "write"; muts: { k: string; v: string | null }[] }
  | { t: "begin" }
  | { t: "txput"; i: number; k: string; v: string | null }
  | { t: "txget"; i: number; k: string }
  | { t: "commit"; i: number }
  | { t: "abort"; i: number }
  | { t: "flush" }
  | { t: "snap" }
  | { t: "fault"; kind: "error" | "ambiguous" }
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
  // A one-shot failure of the next segment PUT: flushes must resolve it and stay exact.
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("fault" as const),
      kind: fc.constantFrom("error" as const, "ambiguous" as const),
    }),
  },
);

type Model = Map<string, string>;

interface TxPair {
  real: Transaction;
  begin: number;
  cut: Model;
  writes: Map<string, string | null>;
}

const obj = (m: Model): Record<string, string> =>
  Object.fromEntries([...m].sort(([x], [y]) => (x < y ? -1 : 1)));

describe("store vs in-memory model", () => {
  it("agrees on reads, conflicts, positions and recovered state", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 50 }), async (ops) => {
        const lake = lakeName("model");
        const bucket = faultBucket();
        let st: Store = await open(bucket, lake);
        let applied: Model = new Map();
        let durable: Model = new Map();
        let position = 0;
        let durablePosition = 0;
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

        for (const o of ops) {
          switch (o.t) {
            case "write": {
              const h = st.write(
                o.muts.map((m) => ({ key: b(m.k), value: m.v === null ? undefined : b(m.v) })),
              );
              applyModel(o.muts);
              expect(h.position).toBe(position);
              break;
            }
            case "begin":
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
              } else if (conflict) {
                expect(() => tx.real.commit()).toThrow(TransactionConflict);
              } else {
                const h = tx.real.commit();
                applyModel([...tx.writes].map(([k, v]) => ({ k, v })));
                expect(h.position).toBe(position);
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
            case "flush":
              await st.flush();
              durable = new Map(applied);
              durablePosition = position;
              expect(st.durablePosition).toBe(position);
              break;
            case "fault":
              bucket.fail({ op: "put", prefix: walPrefix(lake), kind: o.kind, times: 1 });
              break;
            case "snap":
              snaps.push({ view: st.snapshot(), model: new Map(applied) });
              break;
            case "reopen":
              await st.close();
              st = await open(bucket, lake);
              applied = new Map(durable);
              position = durablePosition;
              txs = [];
              snaps.length = 0;
              lastWrite.clear();
              expect(st.position).toBe(position);
              break;
          }
          expect(st.position).toBe(position);
        }
        expect(await dump(st.snapshot())).toEqual(obj(applied));
        for (const sn of snaps) expect(await dump(sn.view)).toEqual(obj(sn.model));
        await st.close();
        bucket.clearFaults();
        const check = await open(bucket, lake);
        expect(await dump(check.snapshot())).toEqual(obj(durable));
        await check.close();
      }),
      { numRuns: 100 },
    );
  });
});
