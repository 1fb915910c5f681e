/**
 * The `lake` write path above the inlining limit (docs/decisions/0316-lake-write-parquet.md), through the
 * real lake writer and R2: one DuckLake commit per write, a Parquet file written by the writer when the
 * batch passes the limit (inlined below it), earlier `wal` records drained in the same commit, idempotent
 * retries, and a crash at the PUT / commit boundary leaving only an orphan and an unacknowledged write.
 */
import { describe, expect, it } from "vitest";
import { readRows } from "../../catalog/index.ts";
import { tableFilesAt } from "../../catalog/reads/files-at.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import { openLatest } from "../../storage/index.ts";
import { afterAbort, COLS, lakeName, realBucket, rigLake, stub, until, unwrap } from "./support.ts";

const T = { name: "events" };
const code = (e: Envelope<unknown>): string => (e.ok ? "ok" : e.error.code);
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
const inserts = (ids: number[], v = "x") => ids.map((id) => ({ op: "insert", row: { id, v } }));
const write = (ids: number[], writePath?: "wal" | "lake") => [
  { op: "rows_write", table: T, ops: inserts(ids), ...(writePath ? { writePath } : {}) },
];

async function newLake(tag: string) {
  const lake = lakeName(tag);
  const rig = rigLake(lake);
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(await s.commit(lake, [{ op: "create_table", name: "events", columns: COLS }]));
  return { lake, rig, s };
}

async function state(lake: string) {
  const view = await openLatest(realBucket(), lake);
  const rows = await readRows(view, T, {}, dataObjectReader(realBucket(), lake));
  const files = await tableFilesAt(view, T);
  return { rows, files };
}

async function dataObjects(lake: string): Promise<string[]> {
  const listed = await realBucket().list({ prefix: `lakes/${lake}/data/` });
  return listed.objects.map((o) => o.key).sort();
}

describe("the lake write path writes Parquet above the inlining limit", () => {
  it("a write above the limit is one commit registering one file; below it the rows are inlined", async () => {
    const { lake, s } = await newLake("lw-basic");
    const big = unwrap(await s.commit(lake, write(range(0, 50), "lake")));
    expect(big.snapshotId).not.toBeNull();
    let st = await state(lake);
    expect(st.files.files).toHaveLength(1);
    expect(st.files.files[0]?.record_count).toBe(50);
    expect(st.files.inlined_rows).toHaveLength(0);
    expect(st.rows.drained).toBe(50);
    expect(st.rows.snapshotId).toBe(big.snapshotId);
    expect(st.rows.rows.map((r) => r.id)).toEqual(range(0, 50));
    expect(await dataObjects(lake)).toHaveLength(1);
    // At the limit (10 rows, DuckLake's default) the write stays inlined, with no PUT.
    unwrap(await s.commit(lake, write(range(50, 10), "lake")));
    st = await state(lake);
    expect([st.files.files.length, st.files.inlined_rows.length]).toEqual([1, 10]);
    expect(await dataObjects(lake)).toHaveLength(1);
    expect(st.rows.rows.map((r) => r.id)).toEqual(range(0, 60));
  });

  it("earlier wal records land inlined in the same commit, before the write's file, in log order", async () => {
    const { lake, s } = await newLake("lw-tail");
    unwrap(await s.commit(lake, write(range(0, 4), "wal")));
    const w = unwrap(await s.commit(lake, write(range(4, 20), "lake")));
    const st = await state(lake);
    expect(st.rows.snapshotId).toBe(w.snapshotId);
    expect(st.files.files.map((f) => f.record_count)).toEqual([20]);
    expect(st.files.inlined_rows).toHaveLength(4);
    expect(st.rows.drained).toBe(24);
    expect(st.rows.rows.map((r) => r.id)).toEqual(range(0, 24));
  });

  it("the lake's default write path applies, and a retry under the same key lands once", async () => {
    const { lake, s } = await newLake("lw-idem");
    unwrap(await s.commit(lake, [{ op: "set_ingest_settings", writePath: "lake" }]));
    const a = unwrap(await s.commit(lake, write(range(0, 30)), { idempotencyKey: "k1" }));
    const b = unwrap(await s.commit(lake, write(range(0, 30)), { idempotencyKey: "k1" }));
    expect(b.replayed).toBe(true);
    expect(b.snapshotId).toBe(a.snapshotId);
    const st = await state(lake);
    expect(st.files.files).toHaveLength(1);
    expect(st.rows.rows).toHaveLength(30);
    // The replay planned nothing: no second object was PUT.
    expect(await dataObjects(lake)).toHaveLength(1);
  });

  it("concurrent lake writes sharing batches each land once, as one file each", async () => {
    const { lake, s } = await newLake("lw-race");
    const n = 16;
    const answers = await Promise.all(
      range(0, n).map((i) => s.commit(lake, write(range(i * 100, 20), "lake"))),
    );
    expect(answers.map(code)).toEqual(range(0, n).map(() => "ok"));
    const st = await state(lake);
    expect(st.rows.drained).toBe(20 * n);
    expect(st.files.inlined_rows).toHaveLength(0);
    expect(st.files.files.map((f) => f.record_count)).toEqual(range(0, n).map(() => 20));
    // No plan was overtaken by another write of its batch: one object per write.
    expect(await dataObjects(lake)).toHaveLength(n);
    expect(st.rows.rows.map((r) => Number(r.id)).sort((x, y) => x - y)).toEqual(
      range(0, n).flatMap((i) => range(i * 100, 20)),
    );
  });

  it("an ALTER between the file's PUT and the commit refuses that plan; the write is planned again", async () => {
    const { lake, rig, s } = await newLake("lw-alter");
    const gate = rig.bucket.hold({ op: "put", prefix: `lakes/${lake}/data/`, nth: 1 });
    const pending = s.commit(lake, write(range(0, 30), "lake"));
    await until(lake, () => gate.held === 1, "the first plan's PUT held");
    unwrap(await s.commit(lake, [{ op: "add_column", table: T, column: { name: "extra", type: "int32" } }]));
    gate.release();
    expect(code(await pending)).toBe("ok");
    const st = await state(lake);
    expect(st.files.files).toHaveLength(1);
    expect(st.rows.rows).toEqual(range(0, 30).map((id) => ({ id, v: "x", extra: null })));
    // The first plan's file is left unreferenced; the second holds the rows.
    const objects = await dataObjects(lake);
    expect(objects).toHaveLength(2);
    expect(objects.filter((k) => k.endsWith(st.files.files[0]?.path ?? "?"))).toHaveLength(1);
  });

  it("a crash between the file's PUT and the commit leaves only an orphan and an unacknowledged write", async () => {
    const { lake, rig, s } = await newLake("lw-crash");
    // The first write (the data file) lands; the next (the commit's WAL segment) is the crash.
    rig.bucket.crashAfterWrites(1);
    expect(code(await s.commit(lake, write(range(0, 40), "lake"), { idempotencyKey: "c1" }))).toBe(
      "CommitOutcomeUnknown",
    );
    expect(rig.aborts).toHaveLength(1);
    rigLake(lake);
    await afterAbort(lake, (x) => x.head(lake));
    expect(await dataObjects(lake)).toHaveLength(1);
    let st = await state(lake);
    expect(st.files.files).toHaveLength(0);
    expect(st.rows.rows).toHaveLength(0);
    expect(st.rows.drained).toBe(0);
    // The client's retry under the same key lands the write once, in a new file.
    const retry = unwrap(
      await stub(lake).commit(lake, write(range(0, 40), "lake"), { idempotencyKey: "c1" }),
    );
    expect(retry.replayed).not.toBe(true);
    st = await state(lake);
    expect(st.files.files).toHaveLength(1);
    expect(st.rows.rows.map((r) => r.id)).toEqual(range(0, 40));
    const objects = await dataObjects(lake);
    expect(objects).toHaveLength(2);
    expect(objects.filter((k) => k.endsWith(st.files.files[0]?.path ?? "?"))).toHaveLength(1);
  });
});
