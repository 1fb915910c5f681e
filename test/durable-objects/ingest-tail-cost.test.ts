/**
 * What a lake + tail read costs (issue 13: "a tail read cost bounded by the flush interval, not by the
 * log's history"): the log values the store yields to one `readRows` are counted through a counting
 * view. Each append is one stored run of records (docs/decisions/0318-packed-log-runs.md), so a read
 * visits each of the tail's appends once (twice the appends, twice the values, whatever their size), and
 * after a flush only the appends written since — the drained history, trimmed by the flush, is never
 * visited.
 */
import { describe, expect, it } from "vitest";
import { readRows } from "../../catalog/index.ts";
import { ingestKeys } from "../../catalog/ingest/keys.ts";
import type { Bytes, KeyValue, ReadView, ScanRange } from "../../storage/api.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import { openLatest } from "../../storage/index.ts";
import { COLS, lakeName, realBucket, rigLake, stub, unwrap } from "./support.ts";

const T = { name: "events" };
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
const RECORDS = ingestKeys.recordPrefix();

function isRecord(key: Bytes): boolean {
  return key.length >= RECORDS.length && RECORDS.every((b, i) => key[i] === b);
}

/** A view that counts the log values (and log gets) the store hands to a reader. */
function counting(view: ReadView): { view: ReadView; records: () => number } {
  let n = 0;
  return {
    records: () => n,
    view: {
      position: view.position,
      get: async (key) => {
        if (isRecord(key)) n++;
        return view.get(key);
      },
      scan: (range: ScanRange): AsyncIterable<KeyValue> => ({
        async *[Symbol.asyncIterator]() {
          for await (const kv of view.scan(range)) {
            if (isRecord(kv.key)) n++;
            yield kv;
          }
        },
      }),
    },
  };
}

async function recordsRead(lake: string, snapshot?: number): Promise<{ records: number; rows: number }> {
  const c = counting(await openLatest(realBucket(), lake));
  const r = await readRows(
    c.view,
    T,
    snapshot === undefined ? {} : { snapshot },
    dataObjectReader(realBucket(), lake),
  );
  return { records: c.records(), rows: r.rows.length };
}

describe("a lake + tail read's cost", () => {
  it("is the tail's appends, each read once, and not the log's history", async () => {
    const lake = lakeName("tail-cost");
    rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, [{ op: "create_table", name: "events", columns: COLS }]));
    const write = async (ids: number[]) =>
      unwrap(
        await s.commit(lake, [
          { op: "rows_write", table: T, ops: ids.map((id) => ({ op: "insert", row: { id, v: "x" } })) },
        ]),
      );
    for (let i = 0; i < 4; i++) await write(range(i * 50, 50));
    // Four appends of 50 records: four stored runs.
    expect(await recordsRead(lake)).toEqual({ records: 4, rows: 200 });
    for (let i = 4; i < 8; i++) await write(range(i * 50, 50));
    expect(await recordsRead(lake)).toEqual({ records: 8, rows: 400 });
    // Flushed: the history is in the lake and trimmed from the log; a new tail of one append costs one.
    const f = unwrap(await s.flushRows(lake));
    expect(f.pending).toBe(0);
    await write(range(1000, 10));
    expect(await recordsRead(lake)).toEqual({ records: 1, rows: 410 });
    // The lake-only view reads no log records at all.
    const snap = f.snapshots.at(-1) as number;
    expect(await recordsRead(lake, snap)).toEqual({ records: 0, rows: 400 });
  });
});
