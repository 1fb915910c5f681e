import { describe, expect, it } from "vitest";
import { encodeValue, ValueKind } from "../../catalog/codec.ts";
import { catalogAt, ducklakeTable, head, listSnapshots, openCatalog } from "../../catalog/index.ts";
import { keys } from "../../catalog/keys.ts";
import { openWriter } from "../../storage/index.ts";
import { bucket, lakeName, ReadCounter } from "./support.ts";

describe("bootstrap", () => {
  it("lands snapshot 0 exactly as a fresh DuckLake catalog, in one batch", async () => {
    const store = await openWriter(bucket(), lakeName("boot"));
    const before = store.position;
    const catalog = await openCatalog(store, {
      now: () => 1_700_000_000_000,
      dataPath: "r2://b/lakes/x/data",
    });
    expect(catalog.bootstrapped).toBe(true);
    expect(store.position).toBe(before + 1);
    await store.flush();
    const view = store.snapshot();
    expect(await head(view)).toMatchObject({ snapshot_id: 0, batch_count: 0 });
    expect(await ducklakeTable(view, "ducklake_snapshot")).toEqual([
      {
        snapshot_id: 0,
        snapshot_time: 1_700_000_000_000_000,
        schema_version: 0,
        next_catalog_id: 1,
        next_file_id: 0,
      },
    ]);
    expect(await ducklakeTable(view, "ducklake_snapshot_changes")).toEqual([
      {
        snapshot_id: 0,
        changes_made: 'created_schema:"main"',
        author: null,
        commit_message: null,
        commit_extra_info: null,
      },
    ]);
    const schemas = await ducklakeTable(view, "ducklake_schema");
    expect(schemas).toHaveLength(1);
    expect(schemas[0]).toMatchObject({
      schema_id: 0,
      begin_snapshot: 0,
      end_snapshot: null,
      schema_name: "main",
      path: "main/",
      path_is_relative: true,
    });
    expect(await ducklakeTable(view, "ducklake_metadata")).toEqual([
      { key: "created_by", value: "ducklake-edge 0.1.0", scope: null, scope_id: null },
      { key: "data_path", value: "r2://b/lakes/x/data/", scope: null, scope_id: null },
      { key: "encrypted", value: "false", scope: null, scope_id: null },
      { key: "version", value: "1.0", scope: null, scope_id: null },
    ]);
    expect(await ducklakeTable(view, "ducklake_schema_versions")).toEqual([]);
    const snaps = await listSnapshots(view);
    expect(snaps.map((s) => s.changes)).toEqual([{ schemas_created: ["main"] }]);
    const state = await catalogAt(view);
    expect(state.schemas.map((s) => s.schema_name)).toEqual(["main"]);
    expect(state.tables).toEqual([]);
  });

  it("a second open adopts instead of re-initializing, and concurrent opens settle on one catalog", async () => {
    const lake = lakeName("adopt");
    const store = await openWriter(bucket(), lake);
    const [a, b] = await Promise.all([openCatalog(store), openCatalog(store)]);
    expect([a.bootstrapped, b.bootstrapped].sort()).toEqual([false, true]);
    await store.flush();
    const later = await openCatalog(store);
    expect(later.bootstrapped).toBe(false);
    expect(await ducklakeTable(store.snapshot(), "ducklake_schema")).toHaveLength(1);
    // A fresh writer (after recovery from R2) adopts too.
    await store.close();
    const reopened = await openWriter(bucket(), lake);
    expect((await openCatalog(reopened)).bootstrapped).toBe(false);
    expect(await head(reopened.snapshot())).toMatchObject({ snapshot_id: 0 });
  });

  it("refuses an unknown format version as Corruption", async () => {
    const store = await openWriter(bucket(), lakeName("fmt"));
    store.write([
      { key: keys.format(), value: encodeValue(ValueKind.format, { format_version: 99, writer: "future" }) },
    ]);
    await expect(openCatalog(store)).rejects.toMatchObject({ code: "Corruption" });
    await expect(openCatalog(store)).rejects.toThrow(/format version 99/);
  });

  it("open reads a handful of keys", async () => {
    const store = await openWriter(bucket(), lakeName("openreads"));
    await openCatalog(store);
    const counter = new ReadCounter();
    await openCatalog(counter.wrapStore(store));
    expect(counter.reads).toBe(1);
  });
});

describe("durability boundary", () => {
  it("a commit whose batch never reached a flushed segment is gone after reopen; a flushed one is there", async () => {
    const lake = lakeName("crash");
    const store = await openWriter(bucket(), lake);
    const catalog = await openCatalog(store);
    await store.flush();
    const kept = await catalog.commit({ verbs: [{ op: "create_schema", name: "kept" }] });
    await store.flush();
    await kept.durable;
    const lost = await catalog.commit({ verbs: [{ op: "create_schema", name: "lost" }] });
    lost.durable.catch(() => {});
    // The process dies before the writer flushes: a fresh writer recovers only durable segments.
    const reopened = await openWriter(bucket(), lake);
    const again = await openCatalog(reopened);
    expect(again.bootstrapped).toBe(false);
    const view = reopened.snapshot();
    expect(await head(view)).toMatchObject({ snapshot_id: 1 });
    expect((await catalogAt(view)).schemas.map((s) => s.schema_name)).toEqual(["main", "kept"]);
    // The new writer carries on from the durable head with the counters it recorded.
    const next = await again.commit({ verbs: [{ op: "create_schema", name: "next" }] });
    expect(next.snapshotId).toBe(2);
    expect(next.assigned).toEqual([{ schemaId: 2 }]);
  });
});
