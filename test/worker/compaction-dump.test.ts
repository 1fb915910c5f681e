/**
 * Jobs 2 and 3 against stock DuckDB: a lake fed through the front door (Parquet uploads, register_data_file,
 * delete files, inlined file deletes, an update and a column add) is compacted by `runMergeJob` and
 * `runRewriteJob` committing through the same commits route, then every table is dumped through the
 * `ducklake_*` route to test-output/compaction-dump/ with the lake's objects and the rows (row ids
 * included) each snapshot must show. `tools/ducklake-dump-check.py test-output/compaction-dump` (CI) loads
 * it into a stock DuckLake 1.5.5 catalog and checks that stock time travel reads exactly those rows at
 * every snapshot: those from before the jobs, which this test first proves unchanged by them, and the
 * jobs' own.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DUCKLAKE_TABLES, tableFilesAt } from "../../catalog/index.ts";
import { fileColumnStats, layoutColumns, parquetFields, toParquetRow } from "../../catalog/parquet-layout.ts";
import type { StoredValue } from "../../catalog/values/index.ts";
import { runMergeJob, runRewriteJob } from "../../maintenance/compaction.ts";
import { writeParquet } from "../../parquet/index.ts";
import type { Bucket } from "../../storage/api.ts";
import { openLatest } from "../../storage/index.ts";
import { everySnapshot, type Lake, type Rows } from "../catalog/maintenance-lake.ts";
import { call } from "../support/http.ts";

const LAKE = "compaction-dump";
const output = (env as unknown as { TEST_OUTPUT: Fetcher }).TEST_OUTPUT;
const b = env.BUCKET as unknown as Bucket;

async function write(path: string, body: BodyInit): Promise<void> {
  const res = await output.fetch(`https://test-output/compaction-dump/${path}`, { method: "PUT", body });
  if (!res.ok) throw new Error(`test output ${path}: ${res.status}`);
}

async function commit(
  request: unknown,
): Promise<{ snapshotId: number | null; assigned: Record<string, number>[] }> {
  const res = await call(`/v1/lakes/${LAKE}/commits`, { method: "POST", body: request });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`commit: ${res.status} ${text}`);
  return JSON.parse(text) as { snapshotId: number | null; assigned: Record<string, number>[] };
}

const view = () => openLatest(b, LAKE);

/** A Lake whose store is the lake's latest published state (what the Worker reads), for the test reader. */
async function latest(): Promise<Lake> {
  const v = await view();
  return {
    lake: LAKE,
    b,
    store: { snapshot: () => v } as unknown as Lake["store"],
    catalog: undefined as never,
  };
}

let n = 0;
async function append(rows: Record<string, StoredValue>[]): Promise<number> {
  const plan = await tableFilesAt(await view(), { name: "t" });
  const top = layoutColumns(plan.columns);
  const file = writeParquet(
    parquetFields(plan.columns),
    rows.map((r) => toParquetRow(top, r)),
  );
  const name = `app-${++n}.parquet`;
  await b.put(`lakes/${LAKE}/data/main/t/${name}`, file.bytes);
  const r = await commit({
    verbs: [
      {
        op: "register_data_file",
        table: { name: "t" },
        file: {
          path: name,
          recordCount: rows.length,
          fileSizeBytes: file.bytes.byteLength,
          footerSize: file.footerSize,
          columnStats: fileColumnStats(plan.columns, file).map((s) => ({
            column: { id: s.column_id },
            ...(s.value_count !== null ? { valueCount: s.value_count } : {}),
            ...(s.null_count !== null ? { nullCount: s.null_count } : {}),
            min: s.min_value,
            max: s.max_value,
          })),
        },
      },
    ],
  });
  return r.assigned[0]?.dataFileId as number;
}

async function deleteFile(fileId: number, positions: number[]): Promise<void> {
  const plan = await tableFilesAt(await view(), { name: "t" });
  const f = plan.files.find((x) => x.data_file_id === fileId);
  if (!f) throw new Error(`no file ${fileId}`);
  const del = writeParquet(
    [
      { name: "file_path", fieldId: 2147483646, type: { kind: "string" }, nullable: true },
      { name: "pos", fieldId: 2147483645, type: { kind: "int", bits: 64, signed: true }, nullable: true },
    ],
    positions.map((p) => ({ file_path: f.resolved_path, pos: BigInt(p) })),
  );
  const name = `del-${++n}-delete.parquet`;
  await b.put(`lakes/${LAKE}/data/main/t/${name}`, del.bytes);
  await commit({
    verbs: [
      {
        op: "register_delete_file",
        table: { name: "t" },
        dataFileId: fileId,
        file: {
          path: name,
          deleteCount: positions.length,
          fileSizeBytes: del.bytes.byteLength,
          footerSize: del.footerSize,
        },
      },
    ],
  });
}

type Text = string | null;
function asExpected(rows: Rows, columns: string[]): { table: string; columns: string[]; rows: Text[][] }[] {
  return [
    {
      table: "main.t",
      columns: ["rowid", ...columns],
      rows: [...rows.entries()].map(([id, v]) => [
        String(id),
        ...columns.map((c) => (v[c] === null || v[c] === undefined ? null : String(v[c]))),
      ]),
    },
  ];
}

describe("compaction jobs read back by stock DuckDB", () => {
  it("merges and rewrites a lake; every snapshot's rows and row ids are dumped for the stock check", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    await commit({
      verbs: [
        {
          op: "create_table",
          name: "t",
          columns: [
            { name: "id", type: "int64" },
            { name: "s", type: "varchar" },
          ],
        },
      ],
    });
    const f0 = await append([0, 1, 2].map((i) => ({ id: String(i), s: `a${i}` })));
    const f1 = await append([3, 4].map((i) => ({ id: String(i), s: `a${i}` })));
    await deleteFile(f0, [1]);
    const f2 = await append([{ id: "5", s: "a5" }]);
    await append([{ id: "6", s: "a6" }]);
    await commit({
      verbs: [
        { op: "inline_delete", table: { name: "t" }, fileDeletes: [{ dataFileId: f1, positions: [0] }] },
      ],
    });
    // An update: the old row goes through a delete file, the new version arrives in a file of its own.
    await deleteFile(f2, [0]);
    await append([{ id: "5", s: "updated" }]);
    await commit({
      verbs: [{ op: "add_column", table: { name: "t" }, column: { name: "e", type: "int32" } }],
    });
    await append([{ id: "7", s: "a7", e: 70 }]);
    await append([{ id: "8", s: "a8", e: null }]);
    const before = await everySnapshot(await latest());
    const deps = {
      lake: LAKE,
      bucket: b,
      view: () => {
        throw new Error("replaced below");
      },
      commit: async (request: unknown) => ({ snapshotId: (await commit(request)).snapshotId }),
      now: () => Date.now(),
    };
    const v1 = await view();
    const merged = await runMergeJob({ ...deps, view: () => v1 });
    expect(merged.map((r) => r.error)).toEqual(merged.map(() => null));
    expect(merged.length).toBeGreaterThan(0);
    const v2 = await view();
    const rewritten = await runRewriteJob({ ...deps, view: () => v2, deleteThreshold: 0.3 });
    expect(rewritten.map((r) => r.error)).toEqual(rewritten.map(() => null));
    expect(rewritten.length).toBeGreaterThan(0);
    const after = await everySnapshot(await latest());
    for (const [s, rows] of before) expect([s, after.get(s)]).toEqual([s, rows]);

    const expected: Record<number, ReturnType<typeof asExpected>> = {};
    const v = await view();
    for (const [s, rows] of after) {
      const cols = (await tableFilesAt(v, { name: "t" }, s)).columns
        .filter((c) => c.parent_column === null)
        .map((c) => c.column_name);
      expected[s] = asExpected(rows, cols);
    }
    // The lake's objects, as the stock check's local data path.
    const listed = await b.list({ prefix: `lakes/${LAKE}/data/` });
    for (const o of listed.objects) {
      const obj = await b.get(o.key);
      if (!obj) throw new Error(`listed object ${o.key} vanished`);
      await write(`data/${o.key.slice(`lakes/${LAKE}/data/`.length)}`, await obj.arrayBuffer());
    }
    const tableIds = (
      (await (await call(`/v1/lakes/${LAKE}/ducklake/ducklake_table`)).json()) as {
        rows: { table_id: number }[];
      }
    ).rows.map((r) => r.table_id);
    const inlinedData = (
      (await (await call(`/v1/lakes/${LAKE}/ducklake/ducklake_inlined_data_tables`)).json()) as {
        rows: { table_name: string }[];
      }
    ).rows.map((r) => r.table_name);
    const inlinedDeletes: string[] = [];
    for (const id of tableIds) {
      const res = await call(`/v1/lakes/${LAKE}/ducklake/ducklake_inlined_delete_${id}`);
      if (res.status === 200) inlinedDeletes.push(`ducklake_inlined_delete_${id}`);
      await res.body?.cancel();
    }
    const types: Record<string, string[] | null> = {};
    for (const name of [...Object.keys(DUCKLAKE_TABLES), ...inlinedData, ...inlinedDeletes]) {
      const whole = (await (await call(`/v1/lakes/${LAKE}/ducklake/${name}?limit=10000`)).json()) as {
        column_types: string[] | null;
        next_cursor: string | null;
      };
      expect(whole.next_cursor).toBeNull();
      types[name] = whole.column_types;
      const res = await call(`/v1/lakes/${LAKE}/ducklake/${name}?format=csv&limit=10000`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-next-cursor")).toBeNull();
      await write(`tables/${name}.csv`, await res.text());
    }
    await write("tables.json", JSON.stringify(types, null, 1));
    await write("expected.json", JSON.stringify(expected, null, 1));
  });
});
