/**
 * Issue 30 item 9 (decision 0651-api-snapshot-time-and-names.md): every route that answers a snapshot's
 * time answers it in one form, DuckDB's TIMESTAMPTZ text, and `/snapshots` names the tables its changes
 * refer to by id, as each table was named at that snapshot.
 */
import { describe, expect, it } from "vitest";
import { call } from "../support/http.ts";

const LAKE = "snap-api";
const T = { schema: "main", name: "orders" };

async function commit(verbs: unknown[]): Promise<void> {
  const res = await call(`/v1/lakes/${LAKE}/commits`, { method: "POST", body: { verbs } });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function json(path: string): Promise<unknown> {
  const res = await call(path);
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res.json();
}

/** Every value under a key named snapshot_time or snapshotTime, anywhere in a JSON answer. */
function times(v: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(v)) for (const x of v) times(x, out);
  else if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (k === "snapshot_time" || k === "snapshotTime") out.push(x);
      else times(x, out);
    }
  }
  return out;
}

describe("snapshots through the HTTP API", () => {
  it("answer snapshot_time in one form on every route, and name the tables their changes touch", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    await commit([
      { op: "create_table", ...T, columns: [{ name: "id", type: "int32" }] },
      { op: "inline_insert", table: T, rows: [{ id: 1 }] },
    ]); // 1
    await commit([{ op: "inline_insert", table: T, rows: [{ id: 2 }] }]); // 2
    await commit([{ op: "add_column", table: T, column: { name: "note", type: "varchar" } }]); // 3
    await commit([{ op: "rename_table", table: T, newName: "sales" }]); // 4
    await commit([{ op: "drop_table", table: { schema: "main", name: "sales" } }]); // 5

    const year = new Date().getUTCFullYear();
    const duckdbText = new RegExp(`^${year}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(\\.\\d{1,6})?\\+00$`);
    const routes = [
      `/v1/lakes/${LAKE}`,
      `/v1/lakes/${LAKE}?snapshot=2`,
      `/v1/lakes/${LAKE}/snapshots`,
      `/v1/lakes/${LAKE}/snapshots/2`,
      `/v1/lakes/${LAKE}/catalog`,
      `/v1/lakes/${LAKE}/catalog?snapshot=2`,
      `/v1/lakes/${LAKE}/ducklake/ducklake_snapshot`,
    ];
    const byRoute: Record<string, unknown[]> = {};
    for (const r of routes) byRoute[r] = times(await json(r));
    for (const [r, ts] of Object.entries(byRoute)) {
      expect(ts.length, r).toBeGreaterThan(0);
      for (const t of ts) expect(t, r).toMatch(duckdbText);
    }
    // The same snapshot shows the same text wherever it appears.
    const list = (await json(`/v1/lakes/${LAKE}/snapshots`)) as {
      snapshots: { snapshot_id: number; snapshot_time: string; table_names: Record<string, string> }[];
    };
    const at = (id: number) => list.snapshots.find((s) => s.snapshot_id === id)?.snapshot_time;
    expect(byRoute[`/v1/lakes/${LAKE}/snapshots/2`]).toEqual([at(2)]);
    expect(byRoute[`/v1/lakes/${LAKE}/catalog?snapshot=2`]).toEqual([at(2)]);
    expect(byRoute[`/v1/lakes/${LAKE}`]).toEqual([at(5)]);
    const csv = await (await call(`/v1/lakes/${LAKE}/ducklake/ducklake_snapshot?format=csv`)).text();
    expect(csv.split("\r\n")[3]?.split(",")[1]).toBe(at(2));

    // Table ids named as the table was at each snapshot: altered by 3, dropped by 5 under the name it took at 4
    // (DuckLake records a rename as a created table, by name).
    const names = Object.fromEntries(list.snapshots.map((s) => [s.snapshot_id, s.table_names]));
    expect(names).toEqual({
      0: {},
      1: { "1": "main.orders" },
      2: { "1": "main.orders" },
      3: { "1": "main.orders" },
      4: {},
      5: { "1": "main.sales" },
    });
    const one = (await json(`/v1/lakes/${LAKE}/snapshots/2`)) as { snapshot: { table_names: unknown } };
    expect(one.snapshot.table_names).toEqual({ "1": "main.orders" });
  });
});
