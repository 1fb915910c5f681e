/** The commit protocol's test obligations for the verb path (seed "Test obligations"). */
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  type CommitRequest,
  ducklakeTable,
  listSnapshots,
  openCatalog,
  tableFilesAt,
} from "../../catalog/index.ts";
import type { Store } from "../../storage/api.ts";
import { cols, file, fresh, racing, settle } from "./support.ts";

async function setup(tag: string, tables: string[]): Promise<{ store: Store; catalog: Catalog }> {
  const f = await fresh(tag);
  const out = await f.catalog.commit({
    verbs: tables.map((name) => ({ op: "create_table" as const, name, columns: cols })),
  });
  await settle(f.store, out.durable);
  return f;
}

/** A catalog whose next `times` attempts each lose the head race to `theirs` (a real commit). */
async function losing(store: Store, times: number, theirs: () => CommitRequest): Promise<Catalog> {
  const other = await openCatalog(store);
  const race = racing(store, async () => {
    await other.commit(theirs());
  });
  const catalog = await openCatalog(race.store, { random: () => 0 });
  race.arm(times);
  return catalog;
}

const insert = (table: string, path: string, n = 10): CommitRequest => ({
  verbs: [{ op: "register_data_file", table: { name: table }, file: file(path, n) }],
});

describe("head races", () => {
  it("disjoint concurrent commits both land (benign retry)", async () => {
    const { store } = await setup("disjoint", ["a", "b"]);
    const loser = await losing(store, 1, () => insert("b", "b1.parquet"));
    const out = await loser.commit(insert("a", "a1.parquet"));
    await settle(store, out.durable);
    expect(out.snapshotId).toBe(3);
    const snaps = await listSnapshots(store.snapshot(), { after: 1 });
    expect(snaps.map((s) => s.changes_made)).toEqual(["inserted_into_table:2", "inserted_into_table:1"]);
    // And with plain concurrency (no wrapper): both land, consecutive snapshots.
    const { store: s2, catalog } = await setup("disjoint2", ["a", "b"]);
    const [x, y] = await Promise.all([
      catalog.commit(insert("a", "x.parquet")),
      catalog.commit(insert("b", "y.parquet")),
    ]);
    await settle(
      s2,
      Promise.all([x.durable, y.durable]).then(() => {}),
    );
    expect([x.snapshotId, y.snapshotId].sort()).toEqual([2, 3]);
  });

  it("concurrent appends to one table both land with dense row ids above the winner's", async () => {
    const { store } = await setup("append", ["t"]);
    const loser = await losing(store, 1, () => insert("t", "w.parquet", 7));
    const out = await loser.commit(insert("t", "l.parquet", 5));
    await settle(store, out.durable);
    expect(out.assigned).toEqual([{ dataFileId: 1, rowIdStart: 7 }]);
    const files = (await tableFilesAt(store.snapshot(), { name: "t" })).files;
    expect(files.map((f) => [f.path, f.row_id_start, f.record_count])).toEqual([
      ["w.parquet", 0, 7],
      ["l.parquet", 7, 5],
    ]);
    expect(await ducklakeTable(store.snapshot(), "ducklake_table_stats")).toEqual([
      { table_id: 1, record_count: 12, next_row_id: 12, file_size_bytes: 120 },
    ]);
  });

  it("deletes: disjoint target files land, overlapping ones conflict, inlined ones are table grain", async () => {
    const { store, catalog } = await setup("deletes", ["t"]);
    await catalog.commit({
      verbs: [insert("t", "f0.parquet").verbs[0]!, insert("t", "f1.parquet").verbs[0]!],
    });
    const del = (dataFileId: number, path: string): CommitRequest => ({
      verbs: [
        {
          op: "register_delete_file",
          table: { name: "t" },
          dataFileId,
          file: { path, deleteCount: 1, fileSizeBytes: 1 },
        },
      ],
    });
    const disjoint = await losing(store, 1, () => del(1, "d1.parquet"));
    const ok = await disjoint.commit(del(0, "d0.parquet"));
    expect(ok.snapshotId).toBe(4);
    const overlapping = await losing(store, 1, () => del(0, "d0b.parquet"));
    await expect(overlapping.commit(del(0, "d0c.parquet"))).rejects.toMatchObject({ code: "CommitConflict" });
    await expect(overlapping.commit(del(0, "d0c.parquet"))).resolves.toMatchObject({ snapshotId: 6 });
    // An inlined delete on their side falls back to table grain even though the files differ.
    await catalog.commit({
      verbs: [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: 1 }, { id: 2 }] }],
    });
    const inlined = await losing(store, 1, () => ({
      verbs: [{ op: "inline_delete", table: { name: "t" }, rowIds: [20] }],
    }));
    const err = await inlined.commit(del(1, "d1b.parquet")).catch((e: Error) => e);
    expect(err).toMatchObject({ code: "CommitConflict" });
    expect((err as Error).message).toMatch(/conflict/);
  });

  it("concurrent same-name creates: exactly one lands, the other re-runs into AlreadyExists", async () => {
    const { store } = await setup("samename", []);
    const loser = await losing(store, 1, () => ({
      verbs: [{ op: "create_table", name: "orders", columns: cols }],
    }));
    const err = await loser
      .commit({ verbs: [{ op: "create_table", name: "Orders", columns: cols }] })
      .catch((e) => e);
    expect(err).toMatchObject({ code: "AlreadyExists" });
    const { store: s2, catalog } = await setup("samename2", []);
    const results = await Promise.allSettled(
      [1, 2, 3].map(() => catalog.commit({ verbs: [{ op: "create_table", name: "orders", columns: cols }] })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(
      results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code),
    ).toEqual(["AlreadyExists", "AlreadyExists"]);
    await s2.flush();
    expect(
      (await ducklakeTable(s2.snapshot(), "ducklake_table")).filter((t) => t.end_snapshot === null),
    ).toHaveLength(1);
    void store;
  });

  it("incompatible overlapping commits: one wins, the other gets CommitConflict and writes nothing", async () => {
    const { store } = await setup("incompat", ["t"]);
    const loser = await losing(store, 1, () => ({
      verbs: [{ op: "add_column", table: { name: "t" }, column: { name: "extra", type: "int32" } }],
    }));
    const before = store.position;
    const err = await loser.commit(insert("t", "x.parquet")).catch((e) => e);
    expect(err).toMatchObject({ code: "CommitConflict" });
    expect(store.position).toBe(before + 1); // only the winner's batch
    expect((await tableFilesAt(store.snapshot(), { name: "t" })).files).toEqual([]);
  });

  it("a forced write storm ends in RetryBudgetExhausted after 10 attempts, not a loop", async () => {
    const { store } = await setup("storm", ["a", "b"]);
    const logs: string[] = [];
    const other = await openCatalog(store);
    let n = 0;
    const race = racing(store, async () => {
      n++;
      await other.commit(insert("b", `b${n}.parquet`));
    });
    const loser = await openCatalog(race.store, { random: () => 0, log: (m) => logs.push(m) });
    race.arm(100);
    const err = await loser.commit(insert("a", "a.parquet")).catch((e) => e);
    expect(err).toMatchObject({ code: "RetryBudgetExhausted" });
    expect(n).toBe(10);
    const text = (err as Error).message.toLowerCase();
    for (const w of ["primary key", "unique", "conflict", "concurrent"]) expect(text).not.toContain(w);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/started from snapshot 1, lost to snapshots 2,3,4,5,6,7,8,9,10,11/);
  });

  it("counters never regress or collide across concurrent commits", async () => {
    const { store, catalog } = await setup("counters", ["a", "b", "c"]);
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 12; i++) {
      const table = ["a", "b", "c"][i % 3] as string;
      work.push(
        catalog.commit({
          verbs: [
            insert(table, `${table}-${i}.parquet`, 3).verbs[0]!,
            ...(i % 4 === 0 ? [{ op: "create_view" as const, name: `v${i}`, sql: "select 1" }] : []),
          ],
        }),
      );
    }
    await Promise.allSettled(work);
    await store.flush();
    const view = store.snapshot();
    const snaps = await listSnapshots(view);
    for (let i = 1; i < snaps.length; i++) {
      expect(snaps[i]!.snapshot_id).toBe(snaps[i - 1]!.snapshot_id + 1);
      expect(snaps[i]!.next_catalog_id).toBeGreaterThanOrEqual(snaps[i - 1]!.next_catalog_id);
      expect(snaps[i]!.next_file_id).toBeGreaterThanOrEqual(snaps[i - 1]!.next_file_id);
    }
    const files = await ducklakeTable(view, "ducklake_data_file");
    expect(new Set(files.map((f) => f.data_file_id)).size).toBe(files.length);
    for (const t of [1, 2, 3]) {
      const rows = files
        .filter((f) => f.table_id === t)
        .sort((x, y) => (x.row_id_start as number) - (y.row_id_start as number));
      let next = 0;
      for (const f of rows) {
        expect(f.row_id_start).toBe(next);
        next += f.record_count as number;
      }
    }
    expect(files).toHaveLength(12);
  });
});
