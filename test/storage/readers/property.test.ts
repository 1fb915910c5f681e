/**
 * Readers against a model: a writer runs random commits, WAL flushes, memtable flushes, compactions, GC
 * passes (on a fake clock, grace 1 s), reopenings and checkpoint mints/deletes. At random points a reader
 * opened on the newest cut must see exactly the durable prefix as of its cut, and a checkpoint reader
 * exactly the state at its checkpoint — also after everything that happened later. Readers on the newest
 * cut are re-checked at the end while still within the grace period.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Mutation } from "../../../storage/api.ts";
import {
  CheckpointNotFound,
  type LakeReader,
  openCheckpoint,
  openLatest,
} from "../../../storage/reader/index.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { assertProperty } from "../../support/property.ts";
import { b, dump, faultBucket, lakeName, open, realBucket } from "../helpers.ts";

const KEYS = 8;
const GRACE = 1000;

type Op =
  | { t: "write"; muts: [number, string | null][] }
  | { t: "flush" }
  | { t: "flushMemtable" }
  | { t: "compact" }
  | { t: "gc" }
  | { t: "tick"; ms: number }
  | { t: "reopen" }
  | { t: "latest" }
  | { t: "checkpoint" }
  | { t: "openCheckpoint"; pick: number }
  | { t: "deleteCheckpoint"; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("write" as const),
      muts: fc.array(fc.tuple(fc.nat(KEYS - 1), fc.option(fc.string({ maxLength: 6 }), { nil: null })), {
        minLength: 1,
        maxLength: 3,
      }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ t: "flush" as const }) },
  { weight: 2, arbitrary: fc.constant({ t: "flushMemtable" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "compact" as const }) },
  { weight: 2, arbitrary: fc.constant({ t: "gc" as const }) },
  {
    weight: 4,
    arbitrary: fc.record({ t: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 1500 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ t: "reopen" as const }) },
  { weight: 3, arbitrary: fc.constant({ t: "latest" as const }) },
  { weight: 2, arbitrary: fc.constant({ t: "checkpoint" as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("openCheckpoint" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("deleteCheckpoint" as const), pick: fc.nat() }) },
);

type State = Map<string, string>;

const plain = (m: State): Record<string, string> =>
  Object.fromEntries([...m].sort(([a], [c]) => (a < c ? -1 : 1)));

async function run(ops: Op[]): Promise<void> {
  const lake = lakeName("prop");
  let clock = 1_000_000;
  const now = (): number => clock;
  const options = { now, maintenance: { gcGraceMs: GRACE, flushAfterSegments: 1_000 } };
  const bucket = faultBucket();
  let st = (await open(bucket, lake, options)) as unknown as LakeStore;
  /** states[p] = the lake after the batch at position p. */
  const states: State[] = [new Map()];
  const latest: { reader: LakeReader; openedAt: number }[] = [];
  const cps: { id: string; position: number; reader: LakeReader; deleted: boolean }[] = [];

  const check = async (r: LakeReader): Promise<void> => {
    const want = states[r.position];
    expect(want, `state at position ${r.position}`).toBeDefined();
    expect(await dump(r)).toEqual(plain(want!));
    const probe = r.position % KEYS;
    const got = await r.get(b(`k${probe}`));
    expect(got === undefined ? undefined : new TextDecoder().decode(got)).toBe(want!.get(`k${probe}`));
  };

  for (const op of ops) {
    switch (op.t) {
      case "write": {
        const muts: Mutation[] = op.muts.map(([k, v]) => ({
          key: b(`k${k}`),
          value: v === null ? undefined : b(v),
        }));
        const h = st.write(muts);
        const next = new Map(states[states.length - 1]);
        for (const [k, v] of op.muts) {
          if (v === null) next.delete(`k${k}`);
          else next.set(`k${k}`, v);
        }
        states.push(next);
        expect(h.position).toBe(states.length - 1);
        break;
      }
      case "flush":
        await st.flush();
        break;
      case "flushMemtable":
        await st.flush();
        await st.flushMemtable();
        break;
      case "compact":
        await st.compact({ force: true });
        break;
      case "gc":
        await st.collectGarbage();
        break;
      case "tick":
        clock += op.ms;
        break;
      case "reopen": {
        const durable = st.durablePosition;
        await st.close();
        states.length = durable + 1; // unflushed batches die with the writer
        st = (await open(bucket, lake, options)) as unknown as LakeStore;
        expect(st.position).toBe(durable);
        break;
      }
      case "latest": {
        const r = await openLatest(realBucket(), lake);
        expect(r.position).toBe(st.durablePosition);
        await check(r);
        latest.push({ reader: r, openedAt: clock });
        break;
      }
      case "checkpoint": {
        const cp = await st.createCheckpoint();
        expect(cp.position).toBe(st.durablePosition);
        const reader = await openCheckpoint(realBucket(), lake, cp.id);
        await check(reader);
        cps.push({ id: cp.id, position: cp.position ?? -1, reader, deleted: false });
        break;
      }
      case "openCheckpoint": {
        const live = cps.filter((c) => !c.deleted);
        const c = live[op.pick % Math.max(1, live.length)];
        if (c === undefined) break;
        const r = await openCheckpoint(realBucket(), lake, c.id);
        expect(r.position).toBe(c.position);
        await check(r);
        break;
      }
      case "deleteCheckpoint": {
        const live = cps.filter((c) => !c.deleted);
        const c = live[op.pick % Math.max(1, live.length)];
        if (c === undefined) break;
        await st.deleteCheckpoint(c.id);
        c.deleted = true;
        break;
      }
    }
  }
  // Whatever happened later, every checkpoint reader still serves its cut and live ids still open.
  await st.collectGarbage();
  for (const c of cps) {
    if (!c.deleted) await check(c.reader);
    if (c.deleted)
      await expect(openCheckpoint(realBucket(), lake, c.id)).rejects.toBeInstanceOf(CheckpointNotFound);
    else await check(await openCheckpoint(realBucket(), lake, c.id));
  }
  // Readers on the newest cut keep working within the grace period.
  for (const l of latest) if (clock < l.openedAt + GRACE) await check(l.reader);
  coverage.gcDeletes += bucket.count({ op: "delete" });
  coverage.checkpoints += cps.length;
  await st.close();
}

/** Guards against a generator that stops exercising GC or checkpoints (not a result of the store). */
const coverage = { gcDeletes: 0, checkpoints: 0 };

describe("readers see exactly the durable prefix as of their cut", () => {
  it("random commits, flushes, compactions, GC, reopenings and checkpoints", async () => {
    await assertProperty(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40 }), (ops) => run(ops)),
      { numRuns: 40, seed: 424242 },
    );
    expect(coverage.gcDeletes).toBeGreaterThan(0);
    expect(coverage.checkpoints).toBeGreaterThan(0);
  });
});
