/**
 * The flusher writing Parquet above the inlining limit (docs/decisions/0313-rows-flush-parquet.md), through
 * the real lake writer and R2: one file per table per batch registered with stock DuckLake's stats, rows
 * read back from the file by the rows API, upserts/deletes replacing rows that live in a file, truncate
 * over a file that has a delete file, and a crash after the file's PUT leaving only an orphan.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readDeadLetters, readRows } from "../../catalog/index.ts";
import { tableFilesAt } from "../../catalog/reads/files-at.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import { openLatest } from "../../storage/index.ts";
import { afterAbort, COLS, lakeName, realBucket, rigLake, stub, unwrap } from "./support.ts";

const T = { name: "events" };
const code = (e: Envelope<unknown>): string => (e.ok ? "ok" : e.error.code);
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
type RowOp =
  | { op: "insert" | "upsert"; row: Record<string, unknown> }
  | { op: "delete"; key: Record<string, unknown> };
const write = (ops: RowOp[]) => [{ op: "rows_write", table: T, ops }];

async function newLake(tag: string, keyed = false) {
  const lake = lakeName(tag);
  const rig = rigLake(lake);
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(await s.commit(lake, [{ op: "create_table", name: "events", columns: COLS }]));
  if (keyed) unwrap(await s.commit(lake, [{ op: "set_row_key", table: T, columns: ["id"] }]));
  return { lake, rig, s };
}

async function lakeRows(lake: string, q: Parameters<typeof readRows>[2] = {}) {
  const view = await openLatest(realBucket(), lake);
  return readRows(view, T, q, dataObjectReader(realBucket(), lake));
}

async function plan(lake: string) {
  return tableFilesAt(await openLatest(realBucket(), lake), T);
}

async function dataObjects(lake: string): Promise<string[]> {
  const listed = await realBucket().list({ prefix: `lakes/${lake}/data/` });
  return listed.objects.map((o) => o.key).sort();
}

describe("the flusher writes Parquet above the inlining limit", () => {
  it("one batch of 50 rows lands as one registered file with stock stats, read back by the rows API", async () => {
    const { lake, s } = await newLake("pq-basic");
    unwrap(
      await s.commit(lake, write(range(0, 50).map((id) => ({ op: "insert", row: { id, v: `v${id}` } })))),
    );
    const f = unwrap(await s.flushRows(lake));
    expect(f).toMatchObject({ records: 50, batches: 1, pending: 0 });
    const p = await plan(lake);
    expect(p.inlined_rows).toHaveLength(0);
    expect(p.files).toHaveLength(1);
    const file = p.files[0];
    expect(file?.record_count).toBe(50);
    const idStats = file?.x_column_stats.find((c) => c.column_id === p.columns[0]?.column_id);
    expect(idStats).toMatchObject({ min_value: "0", max_value: "49", null_count: 0, value_count: 50 });
    expect(await dataObjects(lake)).toHaveLength(1);
    const r = await lakeRows(lake);
    expect(r.rows).toEqual(range(0, 50).map((id) => ({ id, v: `v${id}` })));
    expect(r.drained).toBe(50);
    // A batch at or below the limit (10) stays inlined beside the file; both are read.
    unwrap(await s.commit(lake, write(range(50, 5).map((id) => ({ op: "insert", row: { id, v: null } })))));
    unwrap(await s.flushRows(lake));
    const p2 = await plan(lake);
    expect([p2.files.length, p2.inlined_rows.length]).toEqual([1, 5]);
    expect((await lakeRows(lake)).rows.map((x) => x.id)).toEqual(range(0, 55));
  });

  it("upserts and deletes replace rows living in a file; truncate empties a file that has a delete file", async () => {
    const { lake, s } = await newLake("pq-keys", true);
    unwrap(await s.commit(lake, write(range(0, 30).map((id) => ({ op: "upsert", row: { id, v: "a" } })))));
    unwrap(await s.flushRows(lake));
    expect((await plan(lake)).files).toHaveLength(1);
    unwrap(
      await s.commit(
        lake,
        write([
          ...range(0, 5).map((id): RowOp => ({ op: "upsert", row: { id, v: "b" } })),
          ...range(5, 5).map((id): RowOp => ({ op: "delete", key: { id } })),
        ]),
      ),
    );
    // Before the flush: lake (file) + tail.
    const expected = [
      ...range(10, 20).map((id) => ({ id, v: "a" })),
      ...range(0, 5).map((id) => ({ id, v: "b" })),
    ];
    const sortById = (rows: Record<string, unknown>[]) =>
      [...rows].sort((a, b) => Number(a.id) - Number(b.id));
    expect(sortById((await lakeRows(lake)).rows)).toEqual(sortById(expected));
    unwrap(await s.flushRows(lake));
    expect(sortById((await lakeRows(lake)).rows)).toEqual(sortById(expected));
    expect((await lakeRows(lake, { key: { id: 3 } })).rows).toEqual([{ id: 3, v: "b" }]);
    expect((await lakeRows(lake, { key: { id: 7 } })).rows).toEqual([]);
    expect((await lakeRows(lake, { key: { id: 12 } })).rows).toEqual([{ id: 12, v: "a" }]);
    // Give the file a delete file (a client's DuckLake delete), then truncate through the log.
    const p = await plan(lake);
    const fileId = p.files[0]?.data_file_id as number;
    expect(p.files[0]?.inlined_deleted_positions.length).toBeGreaterThan(0);
    unwrap(
      await s.commit(lake, [
        {
          op: "register_delete_file",
          table: T,
          dataFileId: fileId,
          file: await putDeleteFile(lake, p.files[0]?.resolved_path ?? "", [29]),
        },
      ]),
    );
    expect((await plan(lake)).files[0]?.delete_file).not.toBeNull();
    unwrap(await s.commit(lake, [{ op: "rows_truncate", table: T }]));
    expect((await lakeRows(lake)).rows).toEqual([]);
    unwrap(await s.flushRows(lake));
    const after = await plan(lake);
    expect([after.files.length, after.inlined_rows.length]).toEqual([0, 0]);
    expect((await lakeRows(lake)).rows).toEqual([]);
    // The key index was cleared with the rows: an upsert of an old key is a plain new row.
    unwrap(await s.commit(lake, write([{ op: "upsert", row: { id: 3, v: "c" } }])));
    unwrap(await s.flushRows(lake));
    expect((await lakeRows(lake)).rows).toEqual([{ id: 3, v: "c" }]);
  });

  it("a crash after the file's PUT leaves only an unreferenced file; the retried flush drains once", async () => {
    const { lake, rig, s } = await newLake("pq-crash");
    unwrap(await s.commit(lake, write(range(0, 40).map((id) => ({ op: "insert", row: { id, v: "x" } })))));
    // The first write (the data file) lands; the next (the flush batch's segment) is the crash.
    rig.bucket.crashAfterWrites(1);
    expect(code(await s.flushRows(lake))).toBe("CommitOutcomeUnknown");
    expect(rig.aborts).toHaveLength(1);
    rigLake(lake);
    await afterAbort(lake, (x) => x.head(lake));
    expect(await dataObjects(lake)).toHaveLength(1);
    expect((await plan(lake)).files).toHaveLength(0);
    const before = await lakeRows(lake);
    expect([before.drained, before.rows.length]).toEqual([0, 40]);
    const retry = unwrap(await stub(lake).flushRows(lake));
    expect(retry).toMatchObject({ records: 40, pending: 0 });
    expect(unwrap(await stub(lake).flushRows(lake))).toMatchObject({ records: 0 });
    await evictDurableObject(stub(lake));
    const p = await plan(lake);
    expect(p.files).toHaveLength(1);
    const objects = await dataObjects(lake);
    expect(objects).toHaveLength(2);
    expect(objects.filter((k) => k.endsWith(p.files[0]?.path ?? "?"))).toHaveLength(1);
    expect((await lakeRows(lake)).rows.map((r) => r.id)).toEqual(range(0, 40));
  });
});

/** Writes a DuckLake delete file for `positions` of the data file at `dataPath` and returns its spec. */
async function putDeleteFile(lake: string, dataFilePath: string, positions: number[]) {
  const { writeParquet } = await import("../../parquet/index.ts");
  const INT64 = { kind: "int", bits: 64, signed: true } as const;
  const del = writeParquet(
    [
      { name: "file_path", fieldId: 2147483646, type: { kind: "string" }, nullable: true },
      { name: "pos", fieldId: 2147483645, type: INT64, nullable: true },
    ],
    positions.map((p) => ({ file_path: dataFilePath, pos: BigInt(p) })),
  );
  const name = `ducklake-test-${positions.join("-")}-delete.parquet`;
  await realBucket().put(`lakes/${lake}/data/main/events/${name}`, del.bytes);
  return {
    path: name,
    pathIsRelative: true,
    format: "parquet",
    deleteCount: positions.length,
    fileSizeBytes: del.bytes.byteLength,
    footerSize: del.footerSize,
  };
}

describe("a poison record in the flusher", () => {
  it("is narrowed down, moved to the dead letters and listed; the records around it land", async () => {
    const { lake, s } = await newLake("pq-poison");
    unwrap(
      await s.commit(
        lake,
        write([
          { op: "insert", row: { id: 1, v: "a" } },
          { op: "insert", row: { id: 2, v: null } },
          { op: "insert", row: { id: 3, v: "c" } },
        ]),
      ),
    );
    // v becomes NOT NULL after the append: record 2 can no longer be applied by any flush.
    unwrap(await s.commit(lake, [{ op: "alter_column", table: T, column: "v", nullable: false }]));
    const f = unwrap(await s.flushRows(lake));
    expect(f).toMatchObject({ records: 2, pending: 0, deadLettered: [2] });
    const r = await lakeRows(lake);
    expect(r.rows).toEqual([
      { id: 1, v: "a" },
      { id: 3, v: "c" },
    ]);
    expect(r.drained).toBe(3);
    const view = await openLatest(realBucket(), lake);
    const letters = await readDeadLetters(view, 0, 10);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ seq: 2, kind: "insert", row: { id: 2, v: null }, code: "Constraint" });
    // The log moves on: later writes flush normally, and a second flush finds nothing.
    unwrap(await s.commit(lake, write([{ op: "insert", row: { id: 4, v: "d" } }])));
    expect(unwrap(await s.flushRows(lake))).toMatchObject({ records: 1, deadLettered: [] });
    expect((await lakeRows(lake)).rows.map((x) => x.id)).toEqual([1, 3, 4]);
  });
});
