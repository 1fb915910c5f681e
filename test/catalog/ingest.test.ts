import { describe, expect, it } from "vitest";
import type { Catalog, CommitRequest } from "../../catalog/index.ts";
import { readIngestHead, readRows } from "../../catalog/index.ts";
import { ingestKeys } from "../../catalog/ingest/keys.ts";
import type { ReadView, Store } from "../../storage/api.ts";
import { createEvents, fresh, settle } from "./support.ts";

const T = { schema: "main", name: "events" };

async function commit(store: Store, catalog: Catalog, req: CommitRequest) {
  const out = await catalog.commit(req);
  await settle(store, out.durable);
  return out;
}

async function setup(tag: string, keyed: boolean) {
  const { store, catalog } = await fresh(tag);
  await commit(store, catalog, { verbs: createEvents(keyed) });
  return { store, catalog };
}

const rows = async (store: Store) => (await readRows(store.snapshot(), T, {})).rows;

describe("row ingestion log", () => {
  it("appends take dense sequence numbers in commit order without minting snapshots", async () => {
    const { store, catalog } = await setup("ing-seq", false);
    const before = (await catalog.commit({ verbs: [] })).snapshotId;
    const group = await catalog.commitGroup(
      Array.from({ length: 8 }, (_, i) => ({
        verbs: [
          {
            op: "rows_write" as const,
            table: T,
            ops: [{ op: "insert" as const, row: { id: i, v: `r${i}` } }],
          },
        ],
      })),
    );
    await settle(store, group.durable);
    const seqs = group.results.map((r) => (r.ok ? r.value.assigned[0]?.firstSeq : -1));
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(group.results.every((r) => r.ok && r.value.snapshotId === null)).toBe(true);
    expect(before).toBeNull();
    expect((await rows(store)).map((r) => r.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("a bad op fails only its own member; the others land with dense numbers and nothing of the bad one", async () => {
    const { store, catalog } = await setup("ing-bad", false);
    const group = await catalog.commitGroup([
      { verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 1 } }] }] },
      {
        verbs: [
          {
            op: "rows_write",
            table: T,
            ops: [
              { op: "insert", row: { id: 2 } },
              { op: "insert", row: { id: "x" } },
            ],
          },
        ],
      },
      { verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 3 } }] }] },
    ]);
    await settle(store, group.durable);
    expect(group.results.map((r) => r.ok)).toEqual([true, false, true]);
    const bad = group.results[1];
    expect(bad && !bad.ok && bad.error.message).toContain("ops[1].row.id");
    expect(group.results[2]?.ok && group.results[2].value.assigned[0]?.firstSeq).toBe(2);
    expect((await rows(store)).map((r) => r.id)).toEqual([1, 3]);
  });

  it("flush folds upserts and deletes by key into DuckLake rows, trims the log, and is a no-op when repeated", async () => {
    const { store, catalog } = await setup("ing-flush", true);
    const w = (ops: CommitRequest["verbs"][number]) => commit(store, catalog, { verbs: [ops] });
    await w({
      op: "rows_write",
      table: T,
      ops: [
        { op: "upsert", row: { id: 1, v: "a" } },
        { op: "upsert", row: { id: 2, v: "b" } },
        { op: "upsert", row: { id: 1, v: "a2" } },
      ],
    });
    const f1 = await commit(store, catalog, { verbs: [{ op: "rows_flush" }], message: "flush" });
    expect(f1.assigned[0]).toMatchObject({ drained: 3, records: 3, inserted: 2 });
    expect(f1.snapshotId).not.toBeNull();
    await w({
      op: "rows_write",
      table: T,
      ops: [
        { op: "delete", key: { id: 2 } },
        { op: "upsert", row: { id: 1, v: "a3" } },
      ],
    });
    expect(await rows(store)).toEqual([{ id: 1, v: "a3" }]);
    const f2 = await commit(store, catalog, { verbs: [{ op: "rows_flush" }] });
    expect(f2.assigned[0]).toMatchObject({ drained: 5, records: 2, inserted: 1, deleted: 2 });
    const again = await commit(store, catalog, { verbs: [{ op: "rows_flush" }] });
    expect(again.assigned[0]).toMatchObject({ drained: 5, records: 0 });
    expect(again.snapshotId).toBeNull();
    const view = store.snapshot();
    expect(await readRows(view, T, { snapshot: f2.snapshotId as number })).toMatchObject({
      rows: [{ id: 1, v: "a3" }],
    });
    expect(await readRows(view, T, { key: { id: 1 } })).toMatchObject({
      rows: [{ id: 1, v: "a3" }],
      watermark: 5,
      drained: 5,
    });
    expect(await readIngestHead(view)).toEqual({ next_seq: 6, drained: 5 });
    let left = 0;
    for await (const _ of view.scan({ prefix: new Uint8Array([0x08, 0x02]) })) left++;
    expect(left).toBe(0);
  });

  it("a truncate tombstone voids earlier records and the lake rows, for readers and the flusher", async () => {
    const { store, catalog } = await setup("ing-trunc", false);
    await commit(store, catalog, {
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 1 } }] }],
    });
    await commit(store, catalog, { verbs: [{ op: "rows_flush" }] });
    await commit(store, catalog, {
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 2 } }] }],
    });
    await commit(store, catalog, { verbs: [{ op: "rows_truncate", table: T }] });
    await commit(store, catalog, {
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 3 } }] }],
    });
    expect((await rows(store)).map((r) => r.id)).toEqual([3]);
    await commit(store, catalog, { verbs: [{ op: "rows_flush" }] });
    expect((await readRows(store.snapshot(), T, {})).rows.map((r) => r.id)).toEqual([3]);
  });

  it("drop and recreate under one name converges on the new table", async () => {
    const { store, catalog } = await setup("ing-drop", false);
    await commit(store, catalog, {
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 1 } }] }],
    });
    await commit(store, catalog, {
      verbs: [{ op: "drop_table", table: T }, ...createEvents()],
    });
    await commit(store, catalog, {
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 9 } }] }],
    });
    expect((await rows(store)).map((r) => r.id)).toEqual([9]);
    await commit(store, catalog, { verbs: [{ op: "rows_flush" }] });
    expect((await rows(store)).map((r) => r.id)).toEqual([9]);
  });

  it("writePath lake lands the rows in DuckLake in the same commit", async () => {
    const { store, catalog } = await setup("ing-lake", false);
    const out = await commit(store, catalog, {
      verbs: [
        { op: "rows_write", table: T, writePath: "lake", ops: [{ op: "insert", row: { id: 7, v: "x" } }] },
      ],
    });
    expect(out.snapshotId).not.toBeNull();
    expect(await readIngestHead(store.snapshot())).toEqual({ next_seq: 2, drained: 1 });
    expect(await readRows(store.snapshot(), T, { snapshot: out.snapshotId as number })).toMatchObject({
      rows: [{ id: 7, v: "x" }],
    });
  });

  it("refuses insert on a keyed table and upsert on an unkeyed one, writing nothing", async () => {
    const { store, catalog } = await setup("ing-refuse", true);
    await expect(
      catalog.commit({ verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 1 } }] }] }),
    ).rejects.toThrow(/upsert/);
    expect(await readIngestHead(store.snapshot())).toEqual({ next_seq: 1, drained: 0 });
  });
});

/** The log's stored values (runs of records, docs/decisions/0318-packed-log-runs.md), in key order. */
async function logValues(store: Store): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const kv of store.snapshot().scan({ prefix: ingestKeys.recordPrefix() })) out.push(kv.key);
  return out;
}

describe("packed log runs and the batch's shape memo (decision 0318)", () => {
  it("an append of N records is one store value; a flush that drains part of a run re-keys its rest", async () => {
    const { store, catalog } = await setup("ing-runs", false);
    const group = await catalog.commitGroup([
      {
        verbs: [
          {
            op: "rows_write",
            table: T,
            ops: Array.from({ length: 100 }, (_, i) => ({ op: "insert" as const, row: { id: i } })),
          },
        ],
      },
      ...[100, 101, 102].map((id) => ({
        verbs: [{ op: "rows_write" as const, table: T, ops: [{ op: "insert" as const, row: { id } }] }],
      })),
    ]);
    await settle(store, group.durable);
    expect(group.results.map((r) => r.ok && r.value.assigned[0]?.firstSeq)).toEqual([1, 101, 102, 103]);
    // 103 records, 4 appends: 4 values, keyed by each append's first sequence number.
    expect(await logValues(store)).toEqual([1, 101, 102, 103].map((s) => ingestKeys.record(s)));
    const all = Array.from({ length: 103 }, (_, i) => i);
    expect((await rows(store)).map((r) => r.id)).toEqual(all);
    // Drain 30 of the first run: its other 70 records move to the key of record 31.
    await commit(store, catalog, { verbs: [{ op: "rows_flush", maxRecords: 30 }] });
    expect(await readIngestHead(store.snapshot())).toEqual({ next_seq: 104, drained: 30 });
    expect(await logValues(store)).toEqual([31, 101, 102, 103].map((s) => ingestKeys.record(s)));
    expect((await rows(store)).map((r) => r.id)).toEqual(all);
    // Drain into the middle of the single-record runs, then the rest: the tail stays exact throughout.
    await commit(store, catalog, { verbs: [{ op: "rows_flush", maxRecords: 71 }] });
    expect(await logValues(store)).toEqual([102, 103].map((s) => ingestKeys.record(s)));
    expect((await rows(store)).map((r) => r.id)).toEqual(all);
    await commit(store, catalog, { verbs: [{ op: "rows_flush" }] });
    expect(await logValues(store)).toEqual([]);
    expect((await rows(store)).map((r) => r.id)).toEqual(all);
  });

  it("a member after a schema change in the same batch validates against the new shape", async () => {
    const { store, catalog } = await setup("ing-memo", false);
    const write = (row: Record<string, unknown>): CommitRequest => ({
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row }] }],
    });
    const group = await catalog.commitGroup([
      write({ id: 1, v: "a" }),
      { verbs: [{ op: "add_column", table: T, column: { name: "w", type: "int32" } }] },
      write({ id: 2, w: 7 }),
      { verbs: [{ op: "drop_table", table: T }] },
      {
        verbs: [
          { op: "create_table", schema: "main", name: "events", columns: [{ name: "z", type: "varchar" }] },
        ],
      },
      write({ z: "new" }),
      write({ id: 3 }),
    ]);
    await settle(store, group.durable);
    expect(group.results.map((r) => r.ok)).toEqual([true, true, true, true, true, true, false]);
    const refused = group.results[6];
    expect(refused && !refused.ok && refused.error.code).toBe("NotFound");
    expect(await rows(store)).toEqual([{ z: "new" }]);
  });
});

describe("a lake + tail read's store round trips (decision 0318)", () => {
  it("hints the tail's whole key range before it scans the tail", async () => {
    const { store, catalog } = await setup("ing-tail-hint", false);
    await commit(store, catalog, {
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 1 } }] }],
    });
    await commit(store, catalog, { verbs: [{ op: "rows_flush" }] });
    await commit(store, catalog, {
      verbs: [{ op: "rows_write", table: T, ops: [{ op: "insert", row: { id: 2 } }] }],
    });
    const inner = store.snapshot();
    const events: string[] = [];
    const hex = (b: Uint8Array | undefined) => (b === undefined ? "-" : Buffer.from(b).toString("hex"));
    const isLog = (b: Uint8Array | undefined) => hex(b).startsWith(hex(ingestKeys.recordPrefix()));
    const view: ReadView = {
      position: inner.position,
      get: (k) => inner.get(k),
      scan: (r) => {
        if (isLog(r.prefix)) events.push(`scan ${hex(r.start)}`);
        return inner.scan(r);
      },
      prefetch: async (ranges) => {
        for (const r of ranges) if (isLog(r.prefix)) events.push(`prefetch ${hex(r.start)}`);
      },
    };
    const r = await readRows(view, T, {});
    expect(r.rows.map((x) => x.id)).toEqual([1, 2]);
    // One hint of the tail from the watermark (record 2), then the scan it covers; drained history never.
    const from = hex(ingestKeys.record(2));
    expect(events).toEqual([`prefetch ${from}`, `scan ${from}`]);
  });
});
