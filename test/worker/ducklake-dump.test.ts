/**
 * The `ducklake_*` route serves a whole catalog: every one of the 28 tables plus every per-table inlined
 * data/delete table, paged by cursor, with values as DuckDB writes them. This test builds a lake with a
 * Parquet file, inlined rows of many types, inlined deletes of both kinds and several schema versions,
 * dumps every table through the route (small pages, so the cursor is exercised) and writes the dump,
 * the Parquet file and the rows each table must show at every snapshot to test-output/ducklake-dump/.
 * `tools/ducklake-dump-check.py` (run by .ci/run after the suite) loads the dump into a stock DuckDB-file
 * DuckLake catalog and checks that stock DuckLake time-travels to exactly those rows.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DUCKLAKE_TABLES } from "../../catalog/index.ts";
import { call } from "../support/http.ts";

const LAKE = "dump-a";
const parquet = Uint8Array.from(atob(env.TEST_ORDERS_PARQUET_B64 ?? ""), (ch) => ch.charCodeAt(0));
const output = (env as unknown as { TEST_OUTPUT: Fetcher }).TEST_OUTPUT;

async function write(path: string, body: BodyInit): Promise<void> {
  const res = await output.fetch(`https://test-output/ducklake-dump/${path}`, { method: "PUT", body });
  if (!res.ok) throw new Error(`test output ${path}: ${res.status}`);
}

async function commit(verbs: unknown[]): Promise<number> {
  const res = await call(`/v1/lakes/${LAKE}/commits`, { method: "POST", body: { verbs } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`commit: ${res.status} ${text}`);
  return (JSON.parse(text) as { snapshotId: number }).snapshotId;
}

type Text = string | null;
/** DuckDB's text for every row of a table (ordered by its first column), as the stock check reads it. */
interface Expected {
  table: string;
  columns: string[];
  rows: Text[][];
}

const ORDERS = { schema: "sales", name: "orders" };
const KINDS = { name: "kinds" };
const KIND_COLUMNS = ["k", "big", "f", "ok", "day", "at", "tags", "pt", "raw", "id", "span", "doc"];

describe("ducklake route: a whole catalog, page by page", () => {
  it("dumps every table with inlined rows, deletes and several schema versions", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    const expected: Record<number, Expected[]> = {};
    let orders: Text[][] = [];
    let orderCols = ["id", "amount", "region"];
    let kinds: Text[][] = [];
    const record = (s: number) => {
      expected[s] = [
        { table: "sales.orders", columns: orderCols, rows: orders.map((r) => [...r]) },
        { table: "main.kinds", columns: KIND_COLUMNS, rows: kinds.map((r) => [...r]) },
      ];
    };
    record(
      await commit([
        { op: "create_schema", name: "sales" },
        {
          op: "create_table",
          schema: "sales",
          name: "orders",
          columns: [
            { name: "id", type: "int32" },
            { name: "amount", type: "decimal(4,2)" },
            { name: "region", type: "varchar" },
          ],
        },
        {
          op: "create_table",
          name: "kinds",
          columns: [
            { name: "k", type: "int32" },
            { name: "big", type: "int64" },
            { name: "f", type: "float64" },
            { name: "ok", type: "boolean" },
            { name: "day", type: "date" },
            { name: "at", type: "timestamptz" },
            { name: "tags", type: "list", children: [{ name: "element", type: "varchar" }] },
            {
              name: "pt",
              type: "struct",
              children: [
                { name: "x", type: "int32" },
                { name: "y", type: "float32" },
              ],
            },
            { name: "raw", type: "blob" },
            { name: "id", type: "uuid" },
            { name: "span", type: "interval" },
            { name: "doc", type: "json" },
          ],
        },
      ]),
    );
    const put = await call(`/v1/lakes/${LAKE}/data/sales/orders/orders-1.parquet`, {
      method: "PUT",
      rawBody: parquet,
    });
    expect(put.status).toBe(201);
    await write("data/sales/orders/orders-1.parquet", parquet);
    orders = [
      ["1", "19.50", "eu"],
      ["2", "5.25", "us"],
      ["3", "42.00", "eu"],
    ];
    record(
      await commit([
        {
          op: "register_data_file",
          table: ORDERS,
          file: { path: "orders-1.parquet", recordCount: 3, fileSizeBytes: parquet.length, footerSize: 314 },
        },
      ]),
    );
    orders.push(["4", "1.01", "x,y"], ["5", null, null], ["6", "-0.50", ""]);
    record(
      await commit([
        {
          op: "inline_insert",
          table: ORDERS,
          rows: [{ id: 4, amount: "1.005", region: "x,y" }, { id: 5 }, { id: 6, amount: -0.5, region: "" }],
        },
      ]),
    );
    // Position 1 of the Parquet file (id 2) and inlined row 4 (id 5).
    orders = orders.filter((r) => r[0] !== "2" && r[0] !== "5");
    record(
      await commit([
        { op: "inline_delete", table: ORDERS, fileDeletes: [{ dataFileId: 0, positions: [1] }] },
        { op: "inline_delete", table: ORDERS, rowIds: [4] },
      ]),
    );
    orderCols = [...orderCols, "note"];
    orders = orders.map((r) => [...r, null]);
    record(await commit([{ op: "add_column", table: ORDERS, column: { name: "note", type: "varchar" } }]));
    orders.push(["7", "99.99", "eu", 'it\'s "quoted"\nand multi-line'], ["8", null, null, "NULL"]);
    record(
      await commit([
        {
          op: "inline_insert",
          table: ORDERS,
          rows: [
            { id: 7, amount: "99.99", region: "eu", note: 'it\'s "quoted"\nand multi-line' },
            { id: 8, note: "NULL" },
          ],
        },
      ]),
    );
    kinds = [
      [
        "1",
        "9007199254740993",
        "0.1",
        "true",
        "2026-02-28",
        "2026-12-01 06:30:38.123456+00",
        "[a, 'b,c', NULL]",
        "{'x': 1, 'y': 0.5}",
        "a\\x00b",
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "1 year 2 months 3 days 04:05:06",
        '{"a":[1,2]}',
      ],
      ["2", null, "nan", "false", null, null, "[]", null, null, null, null, null],
    ];
    record(
      await commit([
        {
          op: "inline_insert",
          table: KINDS,
          rows: [
            {
              k: 1,
              big: "9007199254740993",
              f: 0.1,
              ok: true,
              day: "2026-02-28",
              at: "2026-12-01T08:30:38.123456+02:00",
              tags: ["a", "b,c", null],
              pt: { x: 1, y: 0.5 },
              raw: "a\\x00b",
              id: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
              span: "14 months 3 days 04:05:06",
              doc: '{"a":[1,2]}',
            },
            { k: 2, f: "NaN", ok: "f", tags: [] },
          ],
        },
      ]),
    );
    kinds = kinds.filter((r) => r[0] !== "1");
    record(await commit([{ op: "inline_delete", table: KINDS, rowIds: [0] }]));

    // Every table the catalog holds: the 28, each inlined-data table it lists, each inlined-delete table.
    const listed = await call(`/v1/lakes/${LAKE}/ducklake/ducklake_inlined_data_tables`);
    const inlinedData = ((await listed.json()) as { rows: { table_name: string }[] }).rows.map(
      (r) => r.table_name,
    );
    const tableIds = (
      (await (await call(`/v1/lakes/${LAKE}/ducklake/ducklake_table`)).json()) as {
        rows: { table_id: number }[];
      }
    ).rows.map((r) => r.table_id);
    const inlinedDeletes: string[] = [];
    for (const id of tableIds) {
      const res = await call(`/v1/lakes/${LAKE}/ducklake/ducklake_inlined_delete_${id}`);
      if (res.status === 200) inlinedDeletes.push(`ducklake_inlined_delete_${id}`);
      else expect(res.status).toBe(404);
      await res.body?.cancel();
    }
    expect(inlinedData.length).toBeGreaterThanOrEqual(3);
    expect(inlinedDeletes).toEqual([`ducklake_inlined_delete_${tableIds[0]}`]);

    const types: Record<string, string[] | null> = {};
    for (const name of [...Object.keys(DUCKLAKE_TABLES), ...inlinedData, ...inlinedDeletes]) {
      // JSON: pages of 2 concatenate to the whole table.
      const whole = (await (await call(`/v1/lakes/${LAKE}/ducklake/${name}?limit=10000`)).json()) as {
        rows: unknown[];
        column_types: string[] | null;
        next_cursor: string | null;
      };
      expect(whole.next_cursor).toBeNull();
      types[name] = whole.column_types;
      const paged: unknown[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor === null ? "" : `&cursor=${cursor}`;
        const page = (await (await call(`/v1/lakes/${LAKE}/ducklake/${name}?limit=2${q}`)).json()) as {
          rows: unknown[];
          next_cursor: string | null;
        };
        paged.push(...page.rows);
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(paged, name).toEqual(whole.rows);
      // CSV: pages of 3 joined (headers after the first dropped) are the dump of the table.
      let csv = "";
      cursor = null;
      do {
        const q: string = cursor === null ? "" : `&cursor=${cursor}`;
        const res = await call(`/v1/lakes/${LAKE}/ducklake/${name}?format=csv&limit=3${q}`);
        expect(res.status).toBe(200);
        const text = await res.text();
        csv += csv === "" ? text : text.slice(text.indexOf("\r\n") + 2);
        cursor = res.headers.get("x-next-cursor");
      } while (cursor !== null);
      await write(`tables/${name}.csv`, csv);
    }
    await write("tables.json", JSON.stringify(types, null, 1));
    await write("expected.json", JSON.stringify(expected, null, 1));
  });

  it("emits every snapshot time as DuckDB writes a TIMESTAMPTZ (JSON and CSV)", async () => {
    const lake = "dump-time";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    const year = new Date().getUTCFullYear();
    const duckdbText = new RegExp(`^${year}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(\\.\\d{1,6})?\\+00$`);
    const summary = (await (await call(`/v1/lakes/${lake}`)).json()) as { snapshotTime: string };
    expect(summary.snapshotTime).toMatch(duckdbText);
    const snaps = (await (await call(`/v1/lakes/${lake}/snapshots`)).json()) as {
      snapshots: { snapshot_time: string }[];
    };
    expect(snaps.snapshots[0]?.snapshot_time).toMatch(duckdbText);
    const table = (await (await call(`/v1/lakes/${lake}/ducklake/ducklake_snapshot`)).json()) as {
      rows: { snapshot_time: string }[];
    };
    expect(table.rows[0]?.snapshot_time).toMatch(duckdbText);
    const csv = await (await call(`/v1/lakes/${lake}/ducklake/ducklake_snapshot?format=csv`)).text();
    const [, line] = csv.split("\r\n");
    expect(line?.split(",")[1]).toMatch(duckdbText);
    expect(line?.split(",")[1]).toBe(table.rows[0]?.snapshot_time);
  });
});
