/**
 * Table and column statistics are current rows (docs/decisions/0167-current-row-stats.md): a commit
 * rewrites them in place and leaves no history version, and the history keys lakes written before 0167
 * hold are still read as ended versions and removed by expiry with their table.
 */
import { describe, expect, it } from "vitest";
import { decodeValue, encodeValue, ValueKind } from "../../catalog/codec.ts";
import { type Catalog, ducklakeTable, type Verb } from "../../catalog/index.ts";
import { Kind, keys } from "../../catalog/keys.ts";
import { expireSnapshotsStep } from "../../catalog/maintenance/expire.ts";
import type { TableStatsRecord } from "../../catalog/records.ts";
import type { Mutation, ReadView, Store } from "../../storage/api.ts";
import { fresh, settle } from "./support.ts";

const cols = [
  { name: "id", type: "int64" },
  { name: "v", type: "varchar" },
];

async function countPrefix(view: ReadView, prefix: Uint8Array): Promise<number> {
  let n = 0;
  for await (const _ of view.scan({ prefix })) n++;
  return n;
}

async function statsHistoryKeys(view: ReadView): Promise<number> {
  return (
    (await countPrefix(view, keys.historyPrefix(Kind.tableStats))) +
    (await countPrefix(view, keys.historyPrefix(Kind.tableColumnStats)))
  );
}

/** Commits the verbs, awaits durability, returns the snapshot minted. */
async function commit(catalog: Catalog, store: Store, verbs: Verb[]): Promise<number> {
  const out = await catalog.commit({ verbs });
  await settle(store, out.durable);
  if (out.snapshotId === null) throw new Error("the commit minted no snapshot");
  return out.snapshotId;
}

describe("statistics as current rows", () => {
  it("single-row inserts update both stats tables in place and write no history version", async () => {
    const { store, catalog } = await fresh("stats-current");
    const t = { name: "t" };
    await commit(catalog, store, [{ op: "create_table", name: "t", columns: cols }]);
    const snapshots: number[] = [];
    for (let i = 0; i < 4; i++) {
      snapshots.push(
        await commit(catalog, store, [{ op: "inline_insert", table: t, rows: [{ id: i, v: `r${i}` }] }]),
      );
    }
    const view = store.snapshot();
    expect(await statsHistoryKeys(view)).toBe(0);
    // One row per table and per column, whatever the number of commits, carrying the latest values.
    const head = await ducklakeTable(view, "ducklake_table_stats");
    expect(head.map((r) => [r.record_count, r.next_row_id])).toEqual([[4, 4]]);
    const columns = await ducklakeTable(view, "ducklake_table_column_stats");
    expect(columns.map((r) => [r.column_id, r.min_value, r.max_value])).toEqual([
      [1, "0", "3"],
      [2, "r0", "r3"],
    ]);
    // As on stock DuckLake (no begin/end columns), an earlier snapshot shows the current values of the
    // rows that existed then.
    const first = await ducklakeTable(view, "ducklake_table_stats", snapshots[0]);
    expect(first.map((r) => r.record_count)).toEqual([4]);
    expect(await ducklakeTable(view, "ducklake_table_stats", (snapshots[0] as number) - 1)).toEqual([]);
  });

  it("an old lake's stats history keys are read as ended versions and expire with their dropped table", async () => {
    const { store, catalog } = await fresh("stats-old-history");
    const t = { name: "t" };
    await commit(catalog, store, [{ op: "create_table", name: "t", columns: cols }]);
    const ins = await commit(catalog, store, [{ op: "inline_insert", table: t, rows: [{ id: 1, v: "a" }] }]);
    const tableId = (await ducklakeTable(store.snapshot(), "ducklake_table"))[0]?.table_id as number;
    const kinds = [
      [Kind.tableStats, ValueKind.tableStats, [tableId]],
      [Kind.tableColumnStats, ValueKind.tableColumnStats, [tableId, 1]],
    ] as const;
    const read = async (kind: Kind, vk: ValueKind, ids: readonly number[]): Promise<TableStatsRecord> => {
      const raw = await store.snapshot().get(keys.current(kind, ...ids));
      if (!raw) throw new Error("stats row missing");
      return decodeValue<TableStatsRecord>(vk, raw, "stats");
    };
    const first = await Promise.all(kinds.map(([kind, vk, ids]) => read(kind, vk, ids)));
    const ins2 = await commit(catalog, store, [{ op: "inline_insert", table: t, rows: [{ id: 2, v: "b" }] }]);
    // Rewrite both rows as a lake written before 0167 holds them after the second insert: the first
    // version ended at ins2 under its history key, the current version begun at ins2.
    const oldLake: Mutation[] = [];
    for (const [i, [kind, vk, ids]] of kinds.entries()) {
      const ended = { ...first[i], end_snapshot: ins2 };
      oldLake.push({ key: keys.history(kind, ids, ins2), value: encodeValue(vk, ended) });
      const current = { ...(await read(kind, vk, ids)), begin_snapshot: ins2 };
      oldLake.push({ key: keys.current(kind, ...ids), value: encodeValue(vk, current) });
    }
    await settle(store, store.write(oldLake).durable);
    expect(await statsHistoryKeys(store.snapshot())).toBe(2);
    // Each snapshot shows one version; a later in-place update keeps the current version's begin.
    for (const s of [ins, ins2]) {
      const rows = await ducklakeTable(store.snapshot(), "ducklake_table_stats", s);
      expect(rows).toHaveLength(1);
    }
    const ins3 = await commit(catalog, store, [{ op: "inline_insert", table: t, rows: [{ id: 3, v: "c" }] }]);
    const at = async (s: number) =>
      (await ducklakeTable(store.snapshot(), "ducklake_table_stats", s)).map((r) => r.record_count);
    expect([await at(ins), await at(ins2), await at(ins3)]).toEqual([[1], [3], [3]]);
    expect(await statsHistoryKeys(store.snapshot())).toBe(2);
    await commit(catalog, store, [{ op: "drop_table", table: t }]);
    for (;;) {
      const r = await expireSnapshotsStep(store, { now: Date.now() + 1000, olderThanMs: 0, pinned: [] });
      await settle(store, r.durable);
      if (!r.more) break;
    }
    const view = store.snapshot();
    expect(await statsHistoryKeys(view)).toBe(0);
    expect(await countPrefix(view, keys.current(Kind.tableStats, tableId))).toBe(0);
  });
});
