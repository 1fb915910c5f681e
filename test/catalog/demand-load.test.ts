/** Demand-loaded premise: a commit reads the head, counters and its own dependencies, never the catalog. */
import { describe, expect, it } from "vitest";
import { openCatalog, type Verb } from "../../catalog/index.ts";
import { cols, file, fresh, ReadCounter, settle } from "./support.ts";

async function readsForCommit(tables: number): Promise<{ reads: number; bytes: number }> {
  const { store, catalog } = await fresh(`demand${tables}`);
  for (let start = 0; start < tables; start += 2000) {
    const verbs: Verb[] = [];
    for (let i = start; i < Math.min(tables, start + 2000); i++) {
      verbs.push({ op: "create_table", name: `unrelated_${i}`, columns: [{ name: "x", type: "int32" }] });
    }
    const out = await catalog.commit({ verbs });
    await settle(store, out.durable);
  }
  // A small commit last, so the premise snapshot record (which lists its touched tables) is alike in both.
  const small = await catalog.commit({ verbs: [{ op: "create_table", name: "last", columns: cols }] });
  await settle(store, small.durable);
  const counter = new ReadCounter();
  const counted = await openCatalog(counter.wrapStore(store));
  counter.reset();
  const out = await counted.commit({
    verbs: [
      { op: "create_table", schema: "main", name: "orders", columns: cols },
      { op: "register_data_file", table: { schema: "main", name: "orders" }, file: file("o.parquet", 10) },
    ],
  });
  await settle(store, out.durable);
  return { reads: counter.reads, bytes: counter.bytes };
}

describe("demand-loaded commits", () => {
  it("a name-addressed create_table + register_data_file reads the same keys at 10 and 10,000 tables", async () => {
    const small = await readsForCommit(10);
    const large = await readsForCommit(10_000);
    expect(large.reads).toBe(small.reads);
    expect(small.reads).toBeLessThanOrEqual(12);
    // Bytes differ only by the counters' digits, never by the catalog's size.
    expect(Math.abs(large.bytes - small.bytes)).toBeLessThan(64);
  });
});
