/** commitGroup semantics and idempotency keys. */
import { describe, expect, it } from "vitest";
import { idempotencySlot, MINTED_KEY_SKEW_MS } from "../../catalog/commit/idempotency.ts";
import {
  type CommitRequest,
  catalogAt,
  ducklakeTable,
  head,
  mintIdempotencyKey,
  openCatalog,
  storePartitionCuts,
  tableFilesAt,
} from "../../catalog/index.ts";
import { keys } from "../../catalog/keys.ts";
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

describe("minted idempotency keys (docs/decisions/0189-time-ordered-minted-keys.md)", () => {
  it("records of minted keys sort by mint time under their own prefix; replays, refusals and the sweep behave as for any key", async () => {
    let now = 1_765_000_000_000;
    const { store, catalog } = await fresh("idemminted", { now: () => now, idempotencyTtlMs: 1000 });
    await catalog.commit(create("t"));
    const minted = [0, 1, 2].map((i) => mintIdempotencyKey(now + i * 10));
    expect(minted[0]).toMatch(/^edge:1765000000000:[0-9a-f-]{36}$/);
    for (const [i, key] of minted.entries())
      await catalog.commit({ ...insert("t", `m${i}.parquet`), idempotencyKey: key });
    const client = await catalog.commit({ ...insert("t", "client.parquet"), idempotencyKey: "client-1" });
    await settle(store, client.durable);
    // The minted records: in mint order, and only there (a client key stays in the hashed range).
    const view = store.snapshot();
    const recorded: string[] = [];
    for await (const e of view.scan({ prefix: keys.idempotencyMintedPrefix() }))
      recorded.push(JSON.stringify(e.key));
    expect(recorded).toHaveLength(3);
    const slots = await Promise.all(
      minted.map(async (k) => JSON.stringify((await idempotencySlot(k)).record)),
    );
    expect(recorded).toEqual(slots);
    const hashed = [];
    for await (const e of view.scan({ prefix: keys.idempotency(0, 0).subarray(0, 2) })) hashed.push(e);
    expect(hashed).toHaveLength(1);
    // Only the client key has an expiry entry: the sweep walks the minted range in mint order.
    const expiry = [];
    for await (const e of view.scan({ prefix: keys.idempotencyExpiryPrefix() })) expiry.push(e);
    expect(expiry).toHaveLength(1);
    // A replay of a minted key answers its record; another request under it is refused.
    const replay = await catalog.commit({ ...insert("t", "m1.parquet"), idempotencyKey: minted[1] });
    expect(replay).toMatchObject({ snapshotId: 3, replayed: true });
    await expect(
      catalog.commit({ ...insert("t", "other.parquet"), idempotencyKey: minted[1] }),
    ).rejects.toMatchObject({ code: "IdempotencyKeyReused" });
    // A key that only looks minted (not 13 digits and a UUID) is an ordinary hashed key.
    expect((await idempotencySlot("edge:123:abc")).record[1]).toBe(0x01);
    expect((await idempotencySlot(minted[0] as string)).record[1]).toBe(0x03);
    // The sweep removes both kinds: the client's through the expiry index, the minted ones from their range.
    now += 5000;
    const swept = await catalog.sweepIdempotencyKeys();
    await settle(store, swept.durable);
    expect(swept.removed).toBe(4);
    const left = [];
    for await (const e of store.snapshot().scan({ prefix: keys.idempotency(0, 0).subarray(0, 1) }))
      left.push(e);
    expect(left).toHaveLength(0);
  });

  it("the sweep walks the minted range only while records are expired, and within its limit", async () => {
    let now = 1_765_000_000_000;
    const { store, catalog } = await fresh("idemmintedsweep", { now: () => now, idempotencyTtlMs: 1000 });
    await catalog.commit(create("t"));
    for (let i = 0; i < 5; i++) {
      await catalog.commit({ ...insert("t", `m${i}.parquet`), idempotencyKey: mintIdempotencyKey(now) });
      now += 400;
    }
    // Now 2,000 ms on: the records of the first three (minted at +0, +400, +800) have expired.
    const first = await catalog.sweepIdempotencyKeys(2);
    await settle(store, first.durable);
    expect(first.removed).toBe(2);
    const second = await catalog.sweepIdempotencyKeys();
    await settle(store, second.durable);
    expect(second.removed).toBe(1);
    const left = [];
    for await (const e of store.snapshot().scan({ prefix: keys.idempotencyMintedPrefix() })) left.push(e);
    expect(left).toHaveLength(2);
  });

  it("a minted-shaped key whose time is far from the writer's clock is refused, and nothing of its commit lands", async () => {
    const now = 1_765_000_000_000;
    const { store, catalog } = await fresh("idemmintedskew", { now: () => now });
    await catalog.commit(create("t"));
    const position = store.position;
    for (const at of [now - MINTED_KEY_SKEW_MS - 1, now + MINTED_KEY_SKEW_MS + 1]) {
      const err = await catalog
        .commit({ ...insert("t", "late.parquet"), idempotencyKey: mintIdempotencyKey(at) })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "InvalidRequest" });
      expect(String(err)).toMatch(/has the form of a key the server mints .* within 5 minutes/);
    }
    expect(store.position).toBe(position);
    expect((await tableFilesAt(store.snapshot(), { name: "t" })).files).toHaveLength(0);
    // At the bound it is accepted.
    const ok = await catalog.commit({
      ...insert("t", "edge.parquet"),
      idempotencyKey: mintIdempotencyKey(now - MINTED_KEY_SKEW_MS),
    });
    expect(ok.snapshotId).toBe(2);
  });

  it("the minted records and the expiry index are named to the store as append-only ranges", () => {
    const cuts = storePartitionCuts().map((c) => JSON.stringify([...c]));
    for (const start of [
      keys.idempotencyMintedPrefix(),
      keys.idempotencyExpiryPrefix(),
      keys.snapshotPrefix(),
    ])
      expect(cuts).toContain(JSON.stringify([...start]));
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
