/**
 * `lake` transactions and truncates above the inlining limit
 * (docs/decisions/0319-lake-transactions-parquet.md), through the real lake writer and R2. Each write of a
 * `lake` transaction whose own rows pass its table's limit gets its own Parquet file, PUT before the one
 * DuckLake commit. Writes at or below the limit stay inlined in that commit. A refused transaction PUTs
 * nothing and writes nothing. A keyed retry lands once with no second PUT. A crash between the PUT and the
 * commit leaves only an orphan. A truncate lands in one commit like a single `lake` write.
 */
import { describe, expect, it } from "vitest";
import { readRows } from "../../catalog/index.ts";
import { tableFilesAt } from "../../catalog/reads/files-at.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import { openLatest } from "../../storage/index.ts";
import { afterAbort, COLS, lakeName, realBucket, rigLake, stub, unwrap } from "./support.ts";

const EVENTS = { name: "events" };
const OTHER = { name: "other" };
const code = (e: Envelope<unknown>): string => (e.ok ? "ok" : e.error.code);
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
const write = (table: { name: string }, ids: number[], writePath?: "wal" | "lake") => ({
  op: "rows_write",
  table,
  ops: ids.map((id) => ({ op: "insert", row: { id, v: "x" } })),
  ...(writePath ? { writePath } : {}),
});

async function newLake(tag: string) {
  const lake = lakeName(tag);
  const rig = rigLake(lake);
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(
    await s.commit(lake, [
      { op: "create_table", name: "events", columns: COLS },
      { op: "create_table", name: "other", columns: COLS },
    ]),
  );
  return { lake, rig, s };
}

async function state(lake: string, table: { name: string }) {
  const view = await openLatest(realBucket(), lake);
  const rows = await readRows(view, table, {}, dataObjectReader(realBucket(), lake));
  const files = await tableFilesAt(view, table);
  return { rows, files };
}

async function dataObjects(lake: string): Promise<string[]> {
  const listed = await realBucket().list({ prefix: `lakes/${lake}/data/` });
  return listed.objects.map((o) => o.key).sort();
}

describe("lake transactions and truncates write Parquet above the inlining limit", () => {
  it("each write above its table's limit gets a file; the rest inline; all in one commit", async () => {
    const { lake, s } = await newLake("lt-basic");
    const tx = unwrap(
      await s.transaction(lake, [
        write(EVENTS, range(0, 30), "lake"),
        write(OTHER, range(0, 3), "lake"),
        write(EVENTS, range(30, 20), "lake"),
      ]),
    );
    expect(tx.snapshotId).not.toBeNull();
    const events = await state(lake, EVENTS);
    const other = await state(lake, OTHER);
    expect(events.files.files.map((f) => f.record_count)).toEqual([30, 20]);
    expect(events.files.inlined_rows).toHaveLength(0);
    expect(other.files.files).toHaveLength(0);
    expect(other.files.inlined_rows).toHaveLength(3);
    // One DuckLake commit: both tables are read at the transaction's snapshot, the log is drained.
    expect([events.rows.snapshotId, other.rows.snapshotId]).toEqual([tx.snapshotId, tx.snapshotId]);
    expect(events.rows.drained).toBe(53);
    expect(events.rows.rows.map((r) => r.id)).toEqual(range(0, 50));
    expect(other.rows.rows.map((r) => r.id)).toEqual(range(0, 3));
    expect(await dataObjects(lake)).toHaveLength(2);
  });

  it("a transaction the verbs refuse PUTs nothing and writes nothing", async () => {
    const { lake, s } = await newLake("lt-refused");
    const bad = await s.transaction(lake, [
      write(EVENTS, range(0, 30), "lake"),
      {
        op: "rows_write",
        table: OTHER,
        ops: [{ op: "insert", row: { id: "not a number" } }],
        writePath: "lake",
      },
    ]);
    expect(code(bad)).toBe("InvalidRequest");
    expect(await dataObjects(lake)).toEqual([]);
    const events = await state(lake, EVENTS);
    expect([events.rows.rows.length, events.rows.drained, events.files.files.length]).toEqual([0, 0, 0]);
  });

  it("a retry under the same key lands once, with no second PUT", async () => {
    const { lake, s } = await newLake("lt-idem");
    const verbs = [write(EVENTS, range(0, 30), "lake"), write(OTHER, range(0, 40), "lake")];
    const a = unwrap(await s.transaction(lake, verbs, { idempotencyKey: "t1" }));
    const b = unwrap(await s.transaction(lake, verbs, { idempotencyKey: "t1" }));
    expect(b.replayed).toBe(true);
    expect(b.snapshotId).toBe(a.snapshotId);
    expect(await dataObjects(lake)).toHaveLength(2);
    expect((await state(lake, OTHER)).rows.rows).toHaveLength(40);
  });

  it("a crash between the files' PUTs and the commit leaves only orphans; the retry lands once", async () => {
    const { lake, rig, s } = await newLake("lt-crash");
    // The two data files land; the next write (the commit's WAL segment) is the crash.
    rig.bucket.crashAfterWrites(2);
    const verbs = [write(EVENTS, range(0, 30), "lake"), write(OTHER, range(0, 40), "lake")];
    expect(code(await s.transaction(lake, verbs, { idempotencyKey: "c1" }))).toBe("CommitOutcomeUnknown");
    expect(rig.aborts).toHaveLength(1);
    rigLake(lake);
    await afterAbort(lake, (x) => x.head(lake));
    expect(await dataObjects(lake)).toHaveLength(2);
    expect((await state(lake, EVENTS)).rows.rows).toHaveLength(0);
    unwrap(await stub(lake).transaction(lake, verbs, { idempotencyKey: "c1" }));
    const events = await state(lake, EVENTS);
    const other = await state(lake, OTHER);
    expect(events.files.files.map((f) => f.record_count)).toEqual([30]);
    expect(other.files.files.map((f) => f.record_count)).toEqual([40]);
    expect(other.rows.rows.map((r) => r.id)).toEqual(range(0, 40));
    expect(await dataObjects(lake)).toHaveLength(4);
  });

  it("a lake truncate is one commit that ends the table's files and drains the log through itself", async () => {
    const { lake, s } = await newLake("lt-truncate");
    unwrap(await s.commit(lake, [write(EVENTS, range(0, 30), "lake")]));
    unwrap(await s.commit(lake, [write(EVENTS, range(30, 5), "wal"), write(OTHER, range(0, 4), "wal")]));
    const t = unwrap(await s.commit(lake, [{ op: "rows_truncate", table: EVENTS, writePath: "lake" }]));
    const events = await state(lake, EVENTS);
    const other = await state(lake, OTHER);
    expect(events.rows.snapshotId).toBe(t.snapshotId);
    expect([events.files.files.length, events.files.inlined_rows.length, events.rows.rows.length]).toEqual([
      0, 0, 0,
    ]);
    // The earlier records of another table land inlined in the same commit, as a single lake write drains
    // them (decision 0316); the truncate's own record holds no rows, so it has no file to plan.
    expect(other.rows.drained).toBe(40);
    expect(other.files.inlined_rows).toHaveLength(4);
  });
});
