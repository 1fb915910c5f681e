/**
 * The key index rebuilt from the lake when lost (docs/decisions/0315-key-index-rebuild.md): a keyed table
 * with rows in a Parquet file and inlined, its index keys deleted from the store, then upserts and deletes
 * of existing keys flushed — the rows stay exactly one per key, as a model map says.
 */
import { describe, expect, it } from "vitest";
import { readRows } from "../../catalog/index.ts";
import { ingestKeys } from "../../catalog/ingest/keys.ts";
import { drainRowLog } from "../../maintenance/rows-flush.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import { bucket, createEvents, durableLake, settle } from "./support.ts";

const T = { schema: "main", name: "events" };
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);

async function rig(tag: string) {
  const { lake, store, commit } = await durableLake(tag);
  const files = dataObjectReader(bucket(), lake);
  const drain = () =>
    drainRowLog({
      lake,
      bucket: bucket(),
      view: () => store.snapshot(),
      commit,
      now: Date.now,
      message: "flush",
      files,
    });
  const rows = async () =>
    (await readRows(store.snapshot(), T, {}, files)).rows.sort((a, b) => Number(a.id) - Number(b.id));
  /** Deletes every key of the table's index, marker included (a lost index). */
  const loseIndex = async (tableId: number) => {
    const keys: Uint8Array[] = [];
    for await (const kv of store.snapshot().scan({ prefix: ingestKeys.keyIndexPrefix(tableId) }))
      keys.push(kv.key);
    expect(keys.length).toBeGreaterThan(1);
    await settle(store, store.write(keys.map((key) => ({ key, value: undefined }))).durable);
  };
  return { store, commit, drain, rows, loseIndex };
}

describe("key index rebuild", () => {
  it("a lost index is rebuilt from the Parquet file and inlined rows before upserts are flushed", async () => {
    const { commit, drain, rows, loseIndex } = await rig("keyidx");
    const created = await commit({ verbs: createEvents(true) });
    const tableId = Number(created.assigned[0]?.tableId);
    const upserts = (ids: number[], v: string) => ({
      verbs: [
        {
          op: "rows_write" as const,
          table: T,
          ops: ids.map((id) => ({ op: "upsert" as const, row: { id, v } })),
        },
      ],
    });
    const model = new Map<number, string>();
    const apply = (ids: number[], v: string) => {
      for (const id of ids) model.set(id, v);
    };
    // 30 rows in a Parquet file, then 5 inlined.
    await commit(upserts(range(0, 30), "a"));
    apply(range(0, 30), "a");
    await drain();
    await commit(upserts(range(30, 5), "b"));
    apply(range(30, 5), "b");
    await drain();
    await loseIndex(tableId);
    // Upserts of keys living in the file and inlined, a delete of each kind, and new keys.
    await commit({
      verbs: [
        {
          op: "rows_write",
          table: T,
          ops: [
            ...[1, 2, 31].map((id) => ({ op: "upsert" as const, row: { id, v: "c" } })),
            { op: "delete" as const, key: { id: 3 } },
            { op: "delete" as const, key: { id: 32 } },
            { op: "upsert" as const, row: { id: 99, v: "c" } },
          ],
        },
      ],
    });
    apply([1, 2, 31, 99], "c");
    model.delete(3);
    model.delete(32);
    await drain();
    const want = [...model].sort((a, b) => a[0] - b[0]).map(([id, v]) => ({ id, v }));
    expect(await rows()).toEqual(want);
    // The rebuilt index keeps working: another round of upserts replaces, never duplicates.
    await commit(upserts([0, 1, 34], "d"));
    apply([0, 1, 34], "d");
    await drain();
    expect(await rows()).toEqual([...model].sort((a, b) => a[0] - b[0]).map(([id, v]) => ({ id, v })));
  });
});
