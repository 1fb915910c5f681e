/**
 * `POST /v1/lakes/{lake}/maintenance` (write scope; runs jobs now) and `GET …/maintenance` (read scope;
 * the durable history, newest first and paged, with the settings in force), end to end through the Worker.
 */
import { describe, expect, it } from "vitest";
import { call, expectError, TOKENS } from "../support/http.ts";

interface Run {
  seq: number;
  job: string;
  tableId?: number;
  rowsIn: number;
  filesOut: number;
  snapshotId: number | null;
  error: string | null;
}
interface History {
  runs: Run[];
  next: number | null;
  settings: { enabled: Record<string, boolean>; expireOlderThanMs: number | null; deleteOlderThanMs: number };
}

async function commit(lake: string, verbs: unknown[]): Promise<void> {
  const r = await call(`/v1/lakes/${lake}/commits`, { method: "POST", body: { verbs } });
  expect(r.status, await r.clone().text()).toBe(200);
}

/**
 * A lake with `tables` tables of 11 inlined rows each (past DuckLake's default limit of 10). Job 1 is
 * switched off for the alarm, which may fire during a test: the runs asked for by name are the ones seen.
 */
async function lakeWithInlined(lake: string, tables: number): Promise<void> {
  expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
  await commit(lake, [{ op: "set_option", name: "maintenance_flush_inlined", value: "false" }]);
  for (let t = 0; t < tables; t++) {
    const name = `t${t}`;
    await commit(lake, [
      {
        op: "create_table",
        name,
        columns: [
          { name: "id", type: "int64" },
          { name: "v", type: "varchar" },
        ],
      },
    ]);
    await commit(lake, [
      {
        op: "inline_insert",
        table: { name },
        rows: Array.from({ length: 11 }, (_, i) => ({ id: i, v: `v${i}` })),
      },
    ]);
  }
}

async function history(lake: string, query = "", token: string = TOKENS.adminAll): Promise<History> {
  const r = await call(`/v1/lakes/${lake}/maintenance${query}`, { token });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as History;
}

describe("maintenance routes", () => {
  it("POST needs write scope and GET read scope; POST runs the named job and answers its runs", async () => {
    const lake = "sales";
    await lakeWithInlined(lake, 1);
    await expectError(
      await call(`/v1/lakes/${lake}/maintenance`, {
        method: "POST",
        body: { jobs: ["flush_inlined"] },
        token: TOKENS.readSales,
      }),
      403,
      "Forbidden",
    );
    // Job 1 is switched off for the alarm, so nothing has run it: the history is empty.
    const empty = await history(lake, "", TOKENS.readSales);
    expect(empty.runs).toEqual([]);
    expect(empty.settings.enabled.flush_inlined).toBe(false);
    expect(empty.settings.expireOlderThanMs).toBeNull();
    const r = await call(`/v1/lakes/${lake}/maintenance`, {
      method: "POST",
      body: { jobs: ["flush_inlined"] },
      token: TOKENS.writeSales,
    });
    expect(r.status, await r.clone().text()).toBe(200);
    const { runs } = (await r.json()) as { runs: Run[] };
    expect(runs.map((x) => [x.job, x.rowsIn, x.filesOut, x.error])).toEqual([["flush_inlined", 11, 1, null]]);
    expect(runs[0]?.snapshotId).toBeGreaterThan(0);
    expect((await history(lake, "", TOKENS.readSales)).runs).toEqual(runs);
  });

  it("validates the body and the query", async () => {
    const lake = "mt-validate";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    const post = (body: unknown) => call(`/v1/lakes/${lake}/maintenance`, { method: "POST", body });
    await expectError(await post({ jobs: ["vacuum"] }), 400, "InvalidRequest");
    await expectError(await post({ jobs: [] }), 400, "InvalidRequest");
    await expectError(await post({ jobs: ["flush_inlined"], extra: 1 }), 400, "InvalidRequest");
    await expectError(await post({ table: { name: "" } }), 400, "InvalidRequest");
    await expectError(await post({ jobs: ["flush_inlined"], table: { name: "nope" } }), 404, "NotFound");
    await expectError(await call(`/v1/lakes/${lake}/maintenance?limit=0`), 400, "InvalidRequest");
    await expectError(await call(`/v1/lakes/${lake}/maintenance?limit=201`), 400, "InvalidRequest");
    await expectError(await call(`/v1/lakes/${lake}/maintenance?before=x`), 400, "InvalidRequest");
    await expectError(await call("/v1/lakes/mt-never/maintenance"), 404, "NotFound");
  });

  it("pages the history newest first; a table selection runs that table only", async () => {
    const lake = "mt-paging";
    await lakeWithInlined(lake, 3);
    const one = await call(`/v1/lakes/${lake}/maintenance`, {
      method: "POST",
      body: { jobs: ["flush_inlined"], table: { name: "t1" } },
    });
    expect(one.status, await one.clone().text()).toBe(200);
    const onlyT1 = ((await one.json()) as { runs: Run[] }).runs;
    expect(onlyT1.map((x) => x.tableId)).toEqual([2]);
    const rest = await call(`/v1/lakes/${lake}/maintenance`, {
      method: "POST",
      body: { jobs: ["flush_inlined"] },
    });
    expect(((await rest.json()) as { runs: Run[] }).runs.map((x) => x.tableId)).toEqual([1, 3]);
    const page1 = await history(lake, "?limit=2");
    expect(page1.runs.map((x) => [x.seq, x.tableId])).toEqual([
      [3, 3],
      [2, 1],
    ]);
    expect(page1.next).toBe(2);
    const page2 = await history(lake, `?limit=2&before=${page1.next}`);
    expect(page2.runs.map((x) => [x.seq, x.tableId])).toEqual([[1, 2]]);
    expect(page2.next).toBeNull();
  });

  it("every job is on by default; an option switches one off for the alarm and shows in the settings", async () => {
    const lake = "mt-settings";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    // Decision 0323: a lake left alone stays small.
    expect((await history(lake)).settings.enabled).toEqual({
      flush_inlined: true,
      merge_adjacent: true,
      rewrite_deletes: true,
      expire_snapshots: true,
      delete_files: true,
    });
    await commit(lake, [
      { op: "set_option", name: "maintenance_flush_inlined", value: "false" },
      { op: "set_option", name: "expire_older_than", value: "7 days" },
      { op: "set_option", name: "delete_older_than", value: "2 hours" },
    ]);
    const s = (await history(lake)).settings;
    expect(s.enabled.flush_inlined).toBe(false);
    expect(s.expireOlderThanMs).toBe(7 * 86_400_000);
    expect(s.deleteOlderThanMs).toBe(2 * 3600_000);
    const bad = await call(`/v1/lakes/${lake}/commits`, {
      method: "POST",
      body: { verbs: [{ op: "set_option", name: "maintenance_flush_inlined", value: "yes" }] },
    });
    await expectError(bad, 400, "InvalidRequest");
  });
});
