import { describe, expect, it } from "vitest";
import { call, expectError } from "../support/http.ts";
import { lakeWithTable, rowsPath } from "../support/rows-lake.ts";

interface WriteAnswer {
  watermark: number;
  firstSeq: number;
  lastSeq: number;
  snapshotId: number | null;
  replayed?: boolean;
}
interface RowsAnswer {
  rows: Record<string, unknown>[];
  watermark: number;
  drained: number;
  next: string | null;
}

async function write(lake: string, body: unknown, key?: string): Promise<Response> {
  return call(rowsPath(lake), {
    method: "POST",
    body,
    ...(key ? { headers: { "idempotency-key": key } } : {}),
  });
}

async function read(lake: string, query = ""): Promise<RowsAnswer> {
  const r = await call(`${rowsPath(lake)}${query}`);
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as RowsAnswer;
}

describe("rows API", () => {
  it("posts rows and reads them back at once (lake + tail), then after a flush from the lake", async () => {
    const lake = "rows-a";
    await lakeWithTable(lake, false);
    const w = await write(lake, {
      ops: [
        { op: "insert", row: { id: 1, v: "a" } },
        { op: "insert", row: { id: 2 } },
      ],
    });
    expect(w.status).toBe(200);
    const a = (await w.json()) as WriteAnswer;
    expect(a).toMatchObject({ firstSeq: 1, lastSeq: 2, snapshotId: null });
    const r = await read(lake, `?minWatermark=${a.watermark}`);
    expect(r.rows).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: null },
    ]);
    expect(r).toMatchObject({ watermark: 2, drained: 0, next: null });
    const f = await call(`/v1/lakes/${lake}/flush`, { method: "POST" });
    expect(await f.json()).toMatchObject({ drained: 2, records: 2, batches: 1, pending: 0 });
    const after = await read(lake);
    expect(after.rows).toEqual([
      { id: 1, v: "a" },
      { id: 2, v: null },
    ]);
    expect(after.drained).toBe(2);
    const page = await read(lake, "?limit=1");
    expect(page.rows).toEqual([{ id: 1, v: "a" }]);
    expect((await read(lake, `?limit=1&cursor=${page.next}`)).rows).toEqual([{ id: 2, v: null }]);
  });

  it("a rejected request writes nothing and names the field", async () => {
    const lake = "rows-b";
    await lakeWithTable(lake, false);
    const e = await expectError(
      await write(lake, {
        ops: [
          { op: "insert", row: { id: 1 } },
          { op: "insert", row: { id: "nope" } },
        ],
      }),
      400,
      "InvalidRequest",
    );
    expect(e.error.message).toContain("ops[1].row.id");
    expect((await read(lake)).rows).toEqual([]);
  });

  it("an idempotency key lands a write once", async () => {
    const lake = "rows-c";
    await lakeWithTable(lake, false);
    const body = { ops: [{ op: "insert", row: { id: 5 } }] };
    const a = (await (await write(lake, body, "k-1")).json()) as WriteAnswer;
    const b = (await (await write(lake, body, "k-1")).json()) as WriteAnswer;
    expect(b.replayed).toBe(true);
    expect(b.lastSeq).toBe(a.lastSeq);
    expect((await read(lake)).rows).toEqual([{ id: 5, v: null }]);
  });

  it("upserts and deletes by key, point reads, truncate, and the lake path", async () => {
    const lake = "rows-d";
    await lakeWithTable(lake, true);
    await write(lake, {
      ops: [
        { op: "upsert", row: { id: 1, v: "a" } },
        { op: "upsert", row: { id: 2, v: "b" } },
      ],
    });
    await call(`/v1/lakes/${lake}/flush`, { method: "POST" });
    await write(lake, {
      ops: [
        { op: "upsert", row: { id: 1, v: "a2" } },
        { op: "delete", key: { id: 2 } },
      ],
    });
    expect((await read(lake, `?key=${encodeURIComponent('{"id":1}')}`)).rows).toEqual([{ id: 1, v: "a2" }]);
    expect((await read(lake)).rows).toEqual([{ id: 1, v: "a2" }]);
    const l = (await (
      await write(lake, { writePath: "lake", ops: [{ op: "upsert", row: { id: 3, v: "c" } }] })
    ).json()) as WriteAnswer;
    expect(l.snapshotId).not.toBeNull();
    const lakeOnly = await read(lake, `?snapshot=${l.snapshotId}`);
    expect(lakeOnly.rows).toEqual([
      { id: 1, v: "a2" },
      { id: 3, v: "c" },
    ]);
    const t = await call(`/v1/lakes/${lake}/tables/main/events/truncate`, { method: "POST", body: {} });
    expect(t.status, await t.clone().text()).toBe(200);
    expect((await read(lake)).rows).toEqual([]);
    await call(`/v1/lakes/${lake}/flush`, { method: "POST" });
    expect((await read(lake)).rows).toEqual([]);
  });

  it("a transaction over two tables is all or nothing", async () => {
    const lake = "rows-e";
    await lakeWithTable(lake, false);
    await call(`/v1/lakes/${lake}/commits`, {
      method: "POST",
      body: { verbs: [{ op: "create_table", name: "other", columns: [{ name: "n", type: "int32" }] }] },
    });
    const bad = await call(`/v1/lakes/${lake}/transactions`, {
      method: "POST",
      body: {
        writes: [
          { schema: "main", table: "events", ops: [{ op: "insert", row: { id: 1 } }] },
          { schema: "main", table: "other", ops: [{ op: "insert", row: { n: "x" } }] },
        ],
      },
    });
    await expectError(bad, 400, "InvalidRequest");
    expect((await read(lake)).rows).toEqual([]);
    const ok = await call(`/v1/lakes/${lake}/transactions`, {
      method: "POST",
      body: {
        writes: [
          { schema: "main", table: "events", ops: [{ op: "insert", row: { id: 1 } }] },
          { schema: "main", table: "other", ops: [{ op: "insert", row: { n: 2 } }] },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ firstSeq: 1, lastSeq: 2 });
    expect((await read(lake)).rows).toEqual([{ id: 1, v: null }]);
  });
});
