/** commitGroup semantics and idempotency keys. */
import { describe, expect, it } from "vitest";
import {
  type CommitRequest,
  catalogAt,
  ducklakeTable,
  head,
  openCatalog,
  tableFilesAt,
} from "../../catalog/index.ts";
import { cols, file, fresh, racing, settle } from "./support.ts";

const create = (name: string): CommitRequest => ({ verbs: [{ op: "create_table", name, columns: cols }] });
const insert = (table: string, path: string, n = 4): CommitRequest => ({
  verbs: [{ op: "register_data_file", table: { name: table }, file: file(path, n) }],
});

describe("commitGroup", () => {
  it("members stage against what earlier members left, each minting its own consecutive snapshot, in one batch", async () => {
    const { store, catalog } = await fresh("group");
    const before = store.position;
    const { results, durable } = await catalog.commitGroup([
      create("a"),
      insert("a", "a1.parquet"),
      insert("a", "a2.parquet"),
      create("b"),
    ]);
    expect(store.position).toBe(before + 1);
    await settle(store, durable);
    expect(results.map((r) => (r.ok ? r.value.snapshotId : r.error.code))).toEqual([1, 2, 3, 4]);
    expect(new Set(results.map((r) => (r.ok ? r.value.position : -1)))).toEqual(new Set([before + 1]));
    const view = store.snapshot();
    // Time travel resolves each member's snapshot to that member's state.
    expect((await catalogAt(view, 1)).tables.map((t) => t.table_name)).toEqual(["a"]);
    expect((await tableFilesAt(view, { name: "a" }, 2)).files.map((f) => f.path)).toEqual(["a1.parquet"]);
    expect((await tableFilesAt(view, { name: "a" }, 3)).files.map((f) => [f.path, f.row_id_start])).toEqual([
      ["a1.parquet", 0],
      ["a2.parquet", 4],
    ]);
    expect((await catalogAt(view, 4)).tables.map((t) => t.table_name)).toEqual(["a", "b"]);
    expect(await head(view)).toMatchObject({ snapshot_id: 4, batch_count: 1 });
  });

  it("a member's validation error drops only that member; the rest land", async () => {
    const { store, catalog } = await fresh("groupfail");
    const { results, durable } = await catalog.commitGroup([
      create("a"),
      create("a"),
      insert("missing", "x.parquet"),
      create("b"),
    ]);
    await settle(store, durable);
    expect(results.map((r) => (r.ok ? r.value.snapshotId : r.error.code))).toEqual([
      1,
      "AlreadyExists",
      "NotFound",
      2,
    ]);
    expect((await catalogAt(store.snapshot())).tables.map((t) => t.table_name)).toEqual(["a", "b"]);
  });

  it("a group that loses a disjoint race re-runs and lands every member", async () => {
    const { store, catalog } = await fresh("grouprace");
    await catalog.commit(create("z"));
    const other = await openCatalog(store);
    const race = racing(store, async () => {
      await other.commit(insert("z", "z.parquet"));
    });
    const loser = await openCatalog(race.store, { random: () => 0 });
    race.arm(1);
    const { results, durable } = await loser.commitGroup([
      create("a"),
      insert("a", "a.parquet"),
      create("z"),
    ]);
    await settle(store, durable);
    expect(results.map((r) => (r.ok ? r.value.snapshotId : r.error.code))).toEqual([3, 4, "AlreadyExists"]);
  });

  it("an empty group member and an all-failing group write nothing", async () => {
    const { store, catalog } = await fresh("groupempty");
    const before = store.position;
    const { results, durable } = await catalog.commitGroup([{ verbs: [] }, create("a"), { verbs: [] }]);
    await settle(store, durable);
    expect(results.map((r) => (r.ok ? r.value.snapshotId : r.error.code))).toEqual([null, 1, null]);
    const again = await catalog.commitGroup([create("a")]);
    expect(again.results[0]).toMatchObject({ ok: false, error: { code: "AlreadyExists" } });
    expect(store.position).toBe(before + 1);
    await settle(store, again.durable);
  });
});

describe("idempotency keys", () => {
  it("a retry with the same key and request returns the recorded result and stages nothing", async () => {
    const { store, catalog } = await fresh("idem");
    await catalog.commit(create("t"));
    const req = { ...insert("t", "a.parquet"), idempotencyKey: "client-42" };
    const first = await catalog.commit(req);
    await settle(store, first.durable);
    const position = store.position;
    const replay = await catalog.commit(req);
    expect(store.position).toBe(position);
    expect(replay).toMatchObject({ snapshotId: first.snapshotId, assigned: first.assigned, replayed: true });
    expect((await tableFilesAt(store.snapshot(), { name: "t" })).files).toHaveLength(1);
    await expect(
      catalog.commit({ ...insert("t", "b.parquet"), idempotencyKey: "client-42" }),
    ).rejects.toMatchObject({
      code: "IdempotencyKeyReused",
    });
    // Within one group, a duplicate sees the first member's record.
    const g = await catalog.commitGroup([
      { ...insert("t", "c.parquet"), idempotencyKey: "k2" },
      { ...insert("t", "c.parquet"), idempotencyKey: "k2" },
    ]);
    await settle(store, g.durable);
    expect(g.results.map((r) => r.ok && r.value.snapshotId)).toEqual([3, 3]);
    expect((await tableFilesAt(store.snapshot(), { name: "t" })).files).toHaveLength(2);
  });

  it("failures are not recorded, and expired keys are swept", async () => {
    let now = 1_000_000;
    const { store, catalog } = await fresh("idemsweep", { now: () => now, idempotencyTtlMs: 1000 });
    await expect(catalog.commit({ ...insert("t", "a.parquet"), idempotencyKey: "k" })).rejects.toMatchObject({
      code: "NotFound",
    });
    await catalog.commit(create("t"));
    const ok = await catalog.commit({ ...insert("t", "a.parquet"), idempotencyKey: "k" });
    expect(ok.snapshotId).toBe(2);
    expect((await catalog.sweepIdempotencyKeys()).removed).toBe(0);
    now += 5000;
    const swept = await catalog.sweepIdempotencyKeys();
    await settle(store, swept.durable);
    expect(swept.removed).toBe(1);
    expect(await head(store.snapshot())).toMatchObject({ snapshot_id: 2 });
    const again = await catalog.commit({ ...insert("t", "a.parquet"), idempotencyKey: "k" });
    expect(again.snapshotId).toBe(3);
    expect(await ducklakeTable(store.snapshot(), "ducklake_data_file")).toHaveLength(2);
  });
});

describe("in-flight duplicates and typed rejections", () => {
  it("two concurrent commits with one key and request land once and answer alike", async () => {
    const { store, catalog } = await fresh("idemrace");
    await catalog.commit(create("t"));
    const req = { ...insert("t", "a.parquet"), idempotencyKey: "dup" };
    const [a, b] = await Promise.all([catalog.commit(req), catalog.commit(req)]);
    await settle(
      store,
      Promise.all([a.durable, b.durable]).then(() => {}),
    );
    expect(a.snapshotId).toBe(b.snapshotId);
    expect((await tableFilesAt(store.snapshot(), { name: "t" })).files).toHaveLength(1);
  });

  it("commit() rejects with the typed error class", async () => {
    const { catalog } = await fresh("typed");
    const { NotFound } = await import("../../catalog/index.ts");
    await expect(catalog.commit(insert("missing", "x.parquet"))).rejects.toBeInstanceOf(NotFound);
  });
});
