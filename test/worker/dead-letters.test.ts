/**
 * Replaying and discarding dead letters over HTTP (docs/decisions/0317-dead-letter-replay.md): a record
 * the flusher moved aside because the table changed under it (a column made NOT NULL) is replayed once the
 * user fixes the table, lands through the log like a new write, and is flushed; replaying while the cause
 * remains answers the error and keeps the letter; a letter can be discarded; unknown ones are 404.
 */
import { describe, expect, it } from "vitest";
import { call, expectError } from "../support/http.ts";

interface DeadLetters {
  deadLetters: { seq: number; kind: string; code: string }[];
}
interface RowsAnswer {
  rows: Record<string, unknown>[];
  drained: number;
}

const base = (lake: string) => `/v1/lakes/${lake}`;

async function ok<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as T;
}

async function commit(lake: string, verbs: unknown[]): Promise<void> {
  await ok(await call(`${base(lake)}/commits`, { method: "POST", body: { verbs } }));
}

const setNullable = (nullable: boolean) => ({
  op: "alter_column",
  table: { name: "events" },
  column: "v",
  nullable,
});

/** A lake whose records `nulls` (v = null) are dead-lettered by a flush after v became NOT NULL. */
async function lakeWithDeadLetters(lake: string, nulls: number[]): Promise<void> {
  expect((await call(base(lake), { method: "PUT" })).status).toBe(201);
  await commit(lake, [
    {
      op: "create_table",
      name: "events",
      columns: [
        { name: "id", type: "int64" },
        { name: "v", type: "varchar" },
      ],
    },
  ]);
  const ops = [1, 2, 3, 4].map((id) => ({
    op: "insert",
    row: { id, v: nulls.includes(id) ? null : `v${id}` },
  }));
  await ok(await call(`${base(lake)}/tables/main/events/rows`, { method: "POST", body: { ops } }));
  await commit(lake, [setNullable(false)]);
  const f = await ok<{ deadLettered: number[] }>(await call(`${base(lake)}/flush`, { method: "POST" }));
  expect(f.deadLettered).toEqual(nulls);
}

const letters = async (lake: string) =>
  (await ok<DeadLetters>(await call(`${base(lake)}/dead-letters`))).deadLetters.map((d) => d.seq);
const rowIds = async (lake: string) =>
  (await ok<RowsAnswer>(await call(`${base(lake)}/tables/main/events/rows`))).rows.map((r) => r.id);

describe("dead letters", () => {
  it("a replay while the cause remains answers its error and keeps the letter; after the fix it lands", async () => {
    const lake = "dl-replay";
    await lakeWithDeadLetters(lake, [2]);
    expect(await letters(lake)).toEqual([2]);
    const refused = await call(`${base(lake)}/dead-letters/2/replay`, { method: "POST" });
    await expectError(refused, 409, "Constraint");
    expect(await letters(lake)).toEqual([2]);
    // The fix: v takes nulls again. The replay is a new write, after every write before it.
    await commit(lake, [setNullable(true)]);
    const w = await ok<{ firstSeq: number; lastSeq: number }>(
      await call(`${base(lake)}/dead-letters/2/replay`, { method: "POST" }),
    );
    expect([w.firstSeq, w.lastSeq]).toEqual([5, 5]);
    expect(await letters(lake)).toEqual([]);
    // Visible at once (lake + tail), then in the lake after a flush.
    expect(await rowIds(lake)).toEqual([1, 3, 4, 2]);
    const f = await ok<{ records: number; deadLettered: number[] }>(
      await call(`${base(lake)}/flush`, { method: "POST" }),
    );
    expect(f).toMatchObject({ records: 1, deadLettered: [] });
    const after = await ok<RowsAnswer>(await call(`${base(lake)}/tables/main/events/rows`));
    expect([after.drained, after.rows.map((r) => r.id)]).toEqual([5, [1, 3, 4, 2]]);
    // Replayed once: the letter is gone, a second replay is 404.
    await expectError(await call(`${base(lake)}/dead-letters/2/replay`, { method: "POST" }), 404, "NotFound");
  });

  it("a replay retried under the same idempotency key lands once", async () => {
    const lake = "dl-idem";
    await lakeWithDeadLetters(lake, [3]);
    await commit(lake, [setNullable(true)]);
    const headers = { "idempotency-key": "replay-3" };
    const a = await ok<{ firstSeq: number }>(
      await call(`${base(lake)}/dead-letters/3/replay`, { method: "POST", headers }),
    );
    const b = await ok<{ firstSeq: number; replayed?: boolean }>(
      await call(`${base(lake)}/dead-letters/3/replay`, { method: "POST", headers }),
    );
    expect([b.firstSeq, b.replayed]).toEqual([a.firstSeq, true]);
    expect(await rowIds(lake)).toEqual([1, 2, 4, 3]);
  });

  it("DELETE discards a letter for good; unknown letters are 404", async () => {
    const lake = "dl-discard";
    await lakeWithDeadLetters(lake, [1, 4]);
    const d = await ok<{ discarded: number }>(
      await call(`${base(lake)}/dead-letters/4`, { method: "DELETE" }),
    );
    expect(d.discarded).toBe(4);
    expect(await letters(lake)).toEqual([1]);
    await expectError(await call(`${base(lake)}/dead-letters/4`, { method: "DELETE" }), 404, "NotFound");
    await expectError(
      await call(`${base(lake)}/dead-letters/99/replay`, { method: "POST" }),
      404,
      "NotFound",
    );
    expect(await rowIds(lake)).toEqual([2, 3]);
  });
});
