/**
 * Row ingestion through the real lake writer: concurrent writers (dense sequence numbers, every
 * acknowledged row in lake + tail, none duplicated by a flush), transactions alone in their batch, and a
 * crash at the one write boundary of an append, a flush (fold + watermark + trim are one segment PUT) and
 * a truncate — each proven to have fired — after which an idempotent retry lands exactly once.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readRows } from "../../catalog/index.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import { openLatest } from "../../storage/index.ts";
import { afterAbort, COLS, lakeName, realBucket, rigLake, stub, unwrap } from "./support.ts";

const T = { name: "events" };
const code = (e: Envelope<unknown>): string => (e.ok ? "ok" : e.error.code);
const insert = (id: number) => [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id } }] }];

/** lake + tail as a stateless reader of R2 sees it (a reader never fences the writer). */
async function idsInR2(lake: string): Promise<number[]> {
  const view = await openLatest(realBucket(), lake);
  return (await readRows(view, T, {}, dataObjectReader(realBucket(), lake))).rows
    .map((r) => Number(r.id))
    .sort((a, b) => a - b);
}

async function newLake(tag: string) {
  const lake = lakeName(tag);
  const rig = rigLake(lake);
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(await s.commit(lake, [{ op: "create_table", name: "events", columns: COLS }]));
  return { lake, rig, s };
}

const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);

describe("row ingestion in the lake writer", () => {
  it("64 concurrent writers: dense sequence numbers, all rows in lake + tail, none duplicated after flush", async () => {
    const { lake, s } = await newLake("ing-conc");
    const acks = await Promise.all(range(0, 64).map((i) => s.commit(lake, insert(i))));
    const seqs = acks.map((a) => Number(unwrap(a).assigned[0]?.firstSeq)).sort((a, b) => a - b);
    expect(seqs).toEqual(range(1, 64));
    expect(await idsInR2(lake)).toEqual(range(0, 64));
    // Writes keep landing while the flusher drains: the second wave races the flush.
    const [flushed, ...more] = await Promise.all([
      s.flushRows(lake),
      ...range(64, 64).map((i) => s.commit(lake, insert(i))),
    ]);
    expect(code(flushed as Envelope<unknown>)).toBe("ok");
    for (const m of more) expect(code(m)).toBe("ok");
    expect(await idsInR2(lake)).toEqual(range(0, 128));
    const f2 = unwrap(await s.flushRows(lake));
    expect(f2.pending).toBe(0);
    expect(await idsInR2(lake)).toEqual(range(0, 128));
  });

  it("a transaction is answered from a batch no other write shares", async () => {
    const { lake, s } = await newLake("ing-tx");
    const txs = range(0, 4).map((i) => s.transaction(lake, insert(100 + i)));
    const writes = range(0, 12).map((i) => s.commit(lake, insert(i)));
    const all = await Promise.all([...txs, ...writes]);
    for (const a of all) expect(code(a)).toBe("ok");
    const positions = new Map<number, number>();
    for (const a of all) {
      const p = unwrap(a).position;
      positions.set(p, (positions.get(p) ?? 0) + 1);
    }
    for (const t of txs) expect(positions.get(unwrap(await t).position)).toBe(1);
    expect(await idsInR2(lake)).toEqual([...range(0, 12), ...range(100, 4)]);
  });

  for (const op of ["append", "flush", "truncate"] as const) {
    it(`a crash at the ${op}'s segment PUT leaves nothing partial, and the retry lands once`, async () => {
      const { lake, rig, s } = await newLake(`ing-crash-${op}`);
      unwrap(await s.commit(lake, insert(1), { idempotencyKey: "w-1" }));
      rig.bucket.crashAfterWrites(0);
      const attempt =
        op === "append"
          ? await s.commit(lake, insert(2), { idempotencyKey: "w-2" })
          : op === "flush"
            ? await s.flushRows(lake)
            : await s.commit(lake, [{ op: "rows_truncate", table: T }], { idempotencyKey: "t-1" });
      expect(code(attempt)).toBe("CommitOutcomeUnknown");
      expect(rig.aborts).toHaveLength(1);
      rigLake(lake);
      await afterAbort(lake, (x) => x.head(lake));
      expect(await idsInR2(lake)).toEqual([1]);
      const retry =
        op === "append"
          ? await stub(lake).commit(lake, insert(2), { idempotencyKey: "w-2" })
          : op === "flush"
            ? await stub(lake).flushRows(lake)
            : await stub(lake).commit(lake, [{ op: "rows_truncate", table: T }], { idempotencyKey: "t-1" });
      expect(code(retry)).toBe("ok");
      const again = await stub(lake).commit(lake, insert(2), { idempotencyKey: "w-2" });
      expect(code(again)).toBe("ok");
      const expected = op === "truncate" ? [2] : [1, 2];
      expect(await idsInR2(lake)).toEqual(expected);
      unwrap(await stub(lake).flushRows(lake));
      await evictDurableObject(stub(lake));
      expect(await idsInR2(lake)).toEqual(expected);
    });
  }
});

describe("the flusher on the writer's alarm", () => {
  it("drains the log on the alarm once due, and not at all when flushIntervalMs is 0 (on demand)", async () => {
    const { lake, s } = await newLake("ing-alarm");
    unwrap(await s.commit(lake, [{ op: "set_ingest_settings", flushIntervalMs: 0 }]));
    unwrap(await s.commit(lake, insert(1)));
    await runDurableObjectAlarm(s);
    let view = await openLatest(realBucket(), lake);
    expect((await readRows(view, T, {})).drained).toBe(0);
    // An interval the wall clock never reaches during the test, so the alarm cannot fire on its own
    // (a 1 ms interval raced the runtime's own alarm, which left none pending to run here).
    unwrap(await s.commit(lake, [{ op: "set_ingest_settings", flushIntervalMs: 3_600_000 }]));
    unwrap(await s.commit(lake, insert(2)));
    await runInDurableObject(s, (instance) => instance.alarmsScheduled());
    // Due without waiting on the clock: a restarted writer does not know when the flush was armed, so its
    // alarm treats the flush as due at once (never later than the interval; durable-objects/writer.ts).
    await evictDurableObject(s);
    expect(await runDurableObjectAlarm(s)).toBe(true);
    view = await openLatest(realBucket(), lake);
    const r = await readRows(view, T, {});
    expect(r.drained).toBe(2);
    expect(r.rows.map((x) => x.id)).toEqual([1, 2]);
  });
});
