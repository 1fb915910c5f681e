/**
 * What a one-row INSERT costs the Worker's reads at many tables (issue 11; storage/reader/tail-replays.ts):
 * DuckLake's single-row INSERT sends three reads (head snapshot, the table's stats, its inlined table)
 * after the previous commit, each opening the newest published cut. Every open used to re-read and
 * replay the whole WAL tail since the last memtable flush, which holds every table created since: at 10k
 * tables about a second per request. Now an isolate extends the tail it last replayed, so the opens after
 * a one-row insert replay that insert's segment only: the same store reads and the same replayed
 * mutations at 3 tables as at 40. Counts only, never times.
 */
import { describe, expect, it } from "vitest";
import { openLatest, ReaderCounters } from "../../../storage/index.ts";
import { COLS, lakeName, realBucket, rigLake, stub, unwrap } from "../../durable-objects/support.ts";

interface Committer {
  commit(lake: string, verbs: unknown): Promise<{ ok: boolean; value?: { position: number } }>;
}

async function commit(lake: string, verbs: unknown): Promise<number> {
  const r = await (stub(lake) as unknown as Committer).commit(lake, verbs);
  return unwrap(r as Parameters<typeof unwrap<{ position: number }>>[0]).position;
}

/** Store reads and replayed mutations of the three opens DuckLake's next one-row INSERT makes. */
async function insertReadCost(tables: number): Promise<{ gets: number; bytes: number; replayed: number }> {
  const lake = lakeName(`insert-cost-${tables}`);
  rigLake(lake);
  unwrap(await stub(lake).createLake(lake, {}));
  // Every table in one commit, still in the WAL tail (no memtable flush in between).
  await commit(
    lake,
    Array.from({ length: tables }, (_, i) => ({ op: "create_table", name: `t${i}`, columns: COLS })),
  );
  const bucket = realBucket();
  // The catalog load of the ATTACH: this isolate replays the tail once.
  await openLatest(bucket, lake);
  const position = await commit(lake, [
    { op: "inline_insert", table: { name: "t0" }, rows: [{ id: 1, v: "a" }] },
  ]);
  const counters = new ReaderCounters();
  for (let i = 0; i < 3; i++) {
    const view = await openLatest(bucket, lake, { counters, after: position });
    expect(view.position).toBe(position);
  }
  return { gets: counters.calls.get, bytes: counters.bytesRead, replayed: counters.mutationsReplayed };
}

describe("a one-row INSERT's reads do not grow with the table count", () => {
  it("the opens after a one-row insert read and replay the same at 3 and 40 tables", async () => {
    const small = await insertReadCost(3);
    const large = await insertReadCost(40);
    // Only the insert's own segment is replayed, once (the second and third opens replay nothing).
    expect(large.replayed).toBe(small.replayed);
    expect(small.replayed).toBeGreaterThan(0);
    expect(large.gets).toBe(small.gets);
  });
});
