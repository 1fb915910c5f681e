/**
 * A lake written only through the rows API (inserts into one table; upserts and deletes by key into a
 * keyed one; a truncate; `lake`-path writes into a third, one above the inlining limit) and flushed — batches past the inlining limit as Parquet files the flusher wrote,
 * smaller ones inlined, upserts/deletes of rows in a file as DuckLake inlined deletes, the truncate ending
 * a file — dumped through the `ducklake_*` route into test-output/rows-dump/
 * with the lake's data files and the rows the rows API answers after the flush as the expected state at
 * the newest snapshot.
 * `python3 tools/ducklake-dump-check.py test-output/rows-dump` (run by .ci/run after the suite) loads it
 * into a stock DuckLake catalog and checks that stock DuckDB reads exactly those rows.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DUCKLAKE_TABLES } from "../../catalog/index.ts";
import { call } from "../support/http.ts";

const LAKE = "rows-dump";
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
const output = (env as unknown as { TEST_OUTPUT: Fetcher }).TEST_OUTPUT;

async function write(path: string, body: BodyInit): Promise<void> {
  const res = await output.fetch(`https://test-output/rows-dump/${path}`, { method: "PUT", body });
  if (!res.ok) throw new Error(`test output ${path}: ${res.status}`);
}

async function ok(res: Response): Promise<unknown> {
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

const post = (path: string, body: unknown) => call(`/v1/lakes/${LAKE}${path}`, { method: "POST", body });

describe("a lake flushed by the rows API, for stock DuckDB", () => {
  it("dumps the catalog and the rows the rows API answers", async () => {
    await ok(await call(`/v1/lakes/${LAKE}`, { method: "PUT" }));
    await ok(
      await post("/commits", {
        verbs: [
          {
            op: "create_table",
            name: "events",
            columns: [
              { name: "id", type: "int64" },
              { name: "v", type: "varchar" },
            ],
          },
          {
            op: "create_table",
            name: "users",
            columns: [
              { name: "id", type: "int32" },
              { name: "name", type: "varchar" },
              { name: "score", type: "decimal(6,2)" },
            ],
          },
          { op: "set_row_key", table: { name: "users" }, columns: ["id"] },
          {
            op: "create_table",
            name: "direct",
            columns: [
              { name: "id", type: "int64" },
              { name: "at", type: "timestamp" },
            ],
          },
        ],
      }),
    );
    const ev = (ops: unknown[]) => post("/tables/main/events/rows", { ops });
    const us = (ops: unknown[]) => post("/tables/main/users/rows", { ops });
    await ok(
      await ev([
        { op: "insert", row: { id: 1, v: "a" } },
        { op: "insert", row: { id: 2, v: "it's" } },
        // Past the inlining limit (10): this batch's events land as a Parquet file.
        ...range(100, 20).map((id) => ({ op: "insert", row: { id, v: `e${id}` } })),
      ]),
    );
    await ok(
      await us(
        [1, 2, 3, 4, ...range(10, 20)].map((id) => ({
          op: "upsert",
          row: { id, name: `u${id}`, score: id * 1.5 },
        })),
      ),
    );
    await ok(await post("/flush", {}));
    await ok(await post("/tables/main/events/truncate", {}));
    await ok(
      await ev([
        { op: "insert", row: { id: 3, v: null } },
        { op: "insert", row: { id: 4, v: "d" } },
        ...range(200, 15).map((id) => ({ op: "insert", row: { id, v: null } })),
      ]),
    );
    await ok(
      await us([
        { op: "upsert", row: { id: 2, name: "u2-new", score: "9.99" } },
        { op: "delete", key: { id: 3 } },
        { op: "upsert", row: { id: 5, name: "u5", score: 0 } },
        { op: "delete", key: { id: 5 } },
        { op: "upsert", row: { id: 6, name: null, score: null } },
        // Rows living in the first flush's Parquet file: replaced and deleted through DuckLake deletes.
        { op: "upsert", row: { id: 11, name: "u11-new", score: "1.00" } },
        { op: "delete", key: { id: 12 } },
      ]),
    );
    const flushed = (await ok(await post("/flush", {}))) as { snapshots: number[]; pending: number };
    expect(flushed.pending).toBe(0);
    expect(flushed.snapshots.length).toBeGreaterThan(0);
    // The lake write path: one DuckLake commit each, a Parquet file the writer wrote above the limit.
    const direct = (ids: number[]) =>
      post("/tables/main/direct/rows", {
        writePath: "lake",
        ops: ids.map((id) => ({
          op: "insert",
          row: { id, at: `2026-01-0${1 + (id % 9)} 10:00:0${id % 10}` },
        })),
      });
    await ok(await direct(range(0, 25)));
    await ok(await direct(range(25, 3)));

    type Rows = { rows: Record<string, unknown>[]; drained: number; snapshotId: number };
    const events = (await ok(await call(`/v1/lakes/${LAKE}/tables/main/events/rows`))) as Rows;
    const users = (await ok(await call(`/v1/lakes/${LAKE}/tables/main/users/rows`))) as Rows;
    const directRows = (await ok(await call(`/v1/lakes/${LAKE}/tables/main/direct/rows`))) as Rows;
    expect(directRows.rows.map((r) => r.id)).toEqual(range(0, 28));
    // The newest snapshot is the last lake write's: stock DuckDB must see every table as of it.
    const snap = directRows.snapshotId;
    expect(events.snapshotId).toBe(snap);
    expect(events.rows).toEqual([
      { id: 3, v: null },
      { id: 4, v: "d" },
      ...range(200, 15).map((id) => ({ id, v: null })),
    ]);
    expect(users.rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual([
      1,
      2,
      4,
      6,
      10,
      ...range(11, 19).filter((id) => id !== 12),
    ]);
    expect(users.rows.find((r) => r.id === 11)).toEqual({ id: 11, name: "u11-new", score: "1.00" });
    // Both tables hold Parquet files the flusher wrote (the old events file was ended by the truncate).
    const plans = await Promise.all(
      ["events", "users", "direct"].map(
        async (t) =>
          (await ok(await call(`/v1/lakes/${LAKE}/tables/main/${t}/plan`))) as { files: unknown[] },
      ),
    );
    expect(plans.map((p) => p.files.length)).toEqual([1, 1, 1]);
    const text = (v: unknown): string | null => (v === null ? null : String(v));
    const expected = {
      [snap]: [
        { table: "main.events", columns: ["id", "v"], rows: events.rows.map((r) => [text(r.id), text(r.v)]) },
        {
          table: "main.users",
          columns: ["id", "name", "score"],
          rows: users.rows.map((r) => [text(r.id), text(r.name), text(r.score)]),
        },
        {
          table: "main.direct",
          columns: ["id", "at"],
          rows: directRows.rows.map((r) => [text(r.id), text(r.at)]),
        },
      ],
    };

    const listed = (await ok(await call(`/v1/lakes/${LAKE}/ducklake/ducklake_inlined_data_tables`))) as {
      rows: { table_name: string }[];
    };
    const tableIds = (
      (await ok(await call(`/v1/lakes/${LAKE}/ducklake/ducklake_table`))) as { rows: { table_id: number }[] }
    ).rows.map((r) => r.table_id);
    const inlinedDeletes: string[] = [];
    for (const id of tableIds) {
      const res = await call(`/v1/lakes/${LAKE}/ducklake/ducklake_inlined_delete_${id}`);
      if (res.status === 200) inlinedDeletes.push(`ducklake_inlined_delete_${id}`);
      await res.body?.cancel();
    }
    const types: Record<string, string[] | null> = {};
    for (const name of [
      ...Object.keys(DUCKLAKE_TABLES),
      ...listed.rows.map((r) => r.table_name),
      ...inlinedDeletes,
    ]) {
      const whole = (await ok(await call(`/v1/lakes/${LAKE}/ducklake/${name}?limit=10000`))) as {
        column_types: string[] | null;
      };
      types[name] = whole.column_types;
      const res = await call(`/v1/lakes/${LAKE}/ducklake/${name}?format=csv&limit=10000`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-next-cursor")).toBeNull();
      await write(`tables/${name}.csv`, await res.text());
    }
    await write("data/.keep", "");
    // The lake's data files (the flusher's Parquet), under the same paths below the data path.
    const prefix = `lakes/${LAKE}/data/`;
    const objects = await env.BUCKET.list({ prefix });
    expect(objects.truncated).toBe(false);
    for (const o of objects.objects) {
      const body = await env.BUCKET.get(o.key);
      if (body) await write(`data/${o.key.slice(prefix.length)}`, await body.arrayBuffer());
    }
    await write("tables.json", JSON.stringify(types, null, 1));
    await write("expected.json", JSON.stringify(expected, null, 1));
  });
});
