/**
 * A commit group's store reads are the batch's, not its members': k single-row inline inserts into one
 * table read the store as often as one does, however many snapshots the lake already has
 * (docs/decisions/0180-flat-commit-reads.md). Every read of the store's layers costs a block per sorted
 * table, and the number of tables grows with history, so reads per member would make commits slower as
 * the lake ages.
 */
import { describe, expect, it } from "vitest";
import { type CommitRequest, openCatalog } from "../../catalog/index.ts";
import { cols, fresh, ReadCounter, settle } from "./support.ts";

const insert = (id: number): CommitRequest => ({
  verbs: [{ op: "inline_insert", table: { name: "t" }, rows: [{ id, amount: "1.50" }] }],
});

async function groupReads(members: number, history: number): Promise<{ gets: number; scans: number }> {
  const { store, catalog } = await fresh(`greads${members}-${history}`);
  const made = await catalog.commit({ verbs: [{ op: "create_table", name: "t", columns: cols }] });
  await settle(store, made.durable);
  for (let i = 0; i < history; i++) {
    const out = await catalog.commit(insert(i));
    await settle(store, out.durable);
  }
  const counter = new ReadCounter();
  const counted = await openCatalog(counter.wrapStore(store));
  counter.reset();
  const group = await counted.commitGroup(Array.from({ length: members }, (_, i) => insert(history + i)));
  await settle(store, group.durable);
  expect(group.results.every((r) => r.ok)).toBe(true);
  return { gets: counter.gets, scans: counter.scans };
}

describe("commit group reads", () => {
  it("sixteen single-row inserts after 200 snapshots read the store as often as one after a single snapshot", async () => {
    const one = await groupReads(1, 1);
    const sixteen = await groupReads(16, 200);
    expect(sixteen).toEqual(one);
  });
});
