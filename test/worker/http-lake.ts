/**
 * A lake fed through the Worker's front door, for the stock-DuckDB dumps (compaction-dump, expiry-dump):
 * Parquet uploads registered with `register_data_file`, delete files (merged with the file's live one),
 * commits through the commits route; the test reader over the latest published state; and the dump of
 * every `ducklake_*` table, the lake's objects and the rows each snapshot must show, which
 * `tools/ducklake-dump-check.py <dir>` loads into a stock DuckLake 1.5.5 catalog.
 */
import { env } from "cloudflare:workers";
import { DUCKLAKE_TABLES, tableFilesAt } from "../../catalog/index.ts";
import type { StoredValue } from "../../catalog/values/index.ts";
import { readParquet } from "../../parquet/index.ts";
import type { Bucket, ReadView } from "../../storage/api.ts";
import { openLatest } from "../../storage/index.ts";
import { dataFileFor, deleteFileFor, type HistoryOps, type Lake, type Rows } from "../maintenance/lake.ts";
import { call } from "../support/http.ts";

const output = (env as unknown as { TEST_OUTPUT: Fetcher }).TEST_OUTPUT;
export const b = env.BUCKET as unknown as Bucket;

export async function commitVia(
  lake: string,
  request: unknown,
): Promise<{ snapshotId: number | null; assigned: Record<string, number>[] }> {
  const res = await call(`/v1/lakes/${lake}/commits`, { method: "POST", body: request });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`commit: ${res.status} ${text}`);
  return JSON.parse(text) as { snapshotId: number | null; assigned: Record<string, number>[] };
}

export const latestView = (lake: string): Promise<ReadView> => openLatest(b, lake);

/** A Lake whose store is the lake's latest published state (what the Worker reads), for the test reader. */
export async function latest(lake: string): Promise<Lake> {
  const v = await latestView(lake);
  return {
    lake,
    b,
    store: { snapshot: () => v } as unknown as Lake["store"],
    catalog: undefined as never,
  };
}

/** The table `randomHistory` works on: t (id int64, s varchar). */
export const HISTORY_TABLE = {
  op: "create_table",
  name: "t",
  columns: [
    { name: "id", type: "int64" },
    { name: "s", type: "varchar" },
  ],
} as const;

let n = 0;
export async function appendVia(lake: string, rows: Record<string, StoredValue>[]): Promise<number> {
  const plan = await tableFilesAt(await latestView(lake), { name: "t" });
  const name = `app-${++n}.parquet`;
  const f = dataFileFor(plan.columns, rows, name);
  await b.put(`lakes/${lake}/data/main/t/${name}`, f.bytes);
  const r = await commitVia(lake, { verbs: [f.verb] });
  return r.assigned[0]?.dataFileId as number;
}

/** Deletes `positions` of data file `fileId` with a delete file replacing its live one (merged). */
export async function deleteVia(lake: string, fileId: number, positions: number[]): Promise<void> {
  const plan = await tableFilesAt(await latestView(lake), { name: "t" });
  const f = plan.files.find((x) => x.data_file_id === fileId);
  if (!f) throw new Error(`no file ${fileId}`);
  const all = new Set(positions);
  if (f.delete_file) {
    const key = `lakes/${lake}/data/${f.delete_file.resolved_path.split(`/lakes/${lake}/data/`)[1] ?? ""}`;
    const old = await b.get(key);
    if (!old) throw new Error(`missing delete file ${key}`);
    for (const r of (await readParquet(new Uint8Array(await old.arrayBuffer()))).rows) all.add(Number(r.pos));
  }
  const sorted = [...all].sort((x, y) => x - y);
  const name = `del-${++n}-delete.parquet`;
  const d = deleteFileFor(fileId, f.resolved_path, sorted, name);
  await b.put(`lakes/${lake}/data/main/t/${name}`, d.bytes);
  await commitVia(lake, { verbs: [d.verb] });
}

/** The random-history operations (`randomHistory`) on a lake behind the routes. */
export function httpHistoryOps(lake: string): HistoryOps {
  return {
    append: (rows) => appendVia(lake, rows),
    deleteWithFile: (fileId, positions) => deleteVia(lake, fileId, positions),
    commit: async (verbs) => {
      await commitVia(lake, { verbs });
    },
  };
}

type Text = string | null;
export type Expected = Record<number, { table: string; columns: string[]; rows: Text[][] }[]>;

/** The rows stock DuckDB must show at each snapshot (`rowid` and the snapshot's top-level columns). */
export async function expectedOf(lake: string, snapshots: Map<number, Rows>): Promise<Expected> {
  const v = await latestView(lake);
  const out: Expected = {};
  for (const [s, rows] of snapshots) {
    const columns = (await tableFilesAt(v, { name: "t" }, s)).columns
      .filter((c) => c.parent_column === null)
      .map((c) => c.column_name);
    out[s] = [
      {
        table: "main.t",
        columns: ["rowid", ...columns],
        rows: [...rows.entries()].map(([id, vals]) => [
          String(id),
          ...columns.map((c) => (vals[c] === null || vals[c] === undefined ? null : String(vals[c]))),
        ]),
      },
    ];
  }
  return out;
}

/**
 * Writes the lake's dump to test-output/<dir>/: its objects under data/, every `ducklake_*` table (the 28
 * and each per-table inlined table) as the route's CSV, their column types, and `expected`.
 */
export async function dumpLake(lake: string, dir: string, expected: Expected): Promise<void> {
  const write = async (path: string, body: BodyInit) => {
    const res = await output.fetch(`https://test-output/${dir}/${path}`, { method: "PUT", body });
    if (!res.ok) throw new Error(`test output ${path}: ${res.status}`);
  };
  const prefix = `lakes/${lake}/data/`;
  let cursor: string | undefined;
  for (;;) {
    const listed = await b.list({ prefix, ...(cursor !== undefined ? { cursor } : {}) });
    for (const o of listed.objects) {
      const obj = await b.get(o.key);
      if (!obj) throw new Error(`listed object ${o.key} vanished`);
      await write(`data/${o.key.slice(prefix.length)}`, await obj.arrayBuffer());
    }
    if (!listed.truncated || listed.cursor === undefined) break;
    cursor = listed.cursor;
  }
  const json = async <T>(path: string): Promise<T> => (await (await call(path)).json()) as T;
  const tableIds = (
    await json<{ rows: { table_id: number }[] }>(`/v1/lakes/${lake}/ducklake/ducklake_table`)
  ).rows.map((r) => r.table_id);
  const inlinedData = (
    await json<{ rows: { table_name: string }[] }>(`/v1/lakes/${lake}/ducklake/ducklake_inlined_data_tables`)
  ).rows.map((r) => r.table_name);
  const inlinedDeletes: string[] = [];
  for (const id of new Set(tableIds)) {
    const res = await call(`/v1/lakes/${lake}/ducklake/ducklake_inlined_delete_${id}`);
    if (res.status === 200) inlinedDeletes.push(`ducklake_inlined_delete_${id}`);
    await res.body?.cancel();
  }
  const types: Record<string, string[] | null> = {};
  for (const name of [...Object.keys(DUCKLAKE_TABLES), ...inlinedData, ...inlinedDeletes]) {
    const whole = await json<{ column_types: string[] | null; next_cursor: string | null }>(
      `/v1/lakes/${lake}/ducklake/${name}?limit=10000`,
    );
    if (whole.next_cursor !== null) throw new Error(`${name}: more than one page`);
    types[name] = whole.column_types;
    const res = await call(`/v1/lakes/${lake}/ducklake/${name}?format=csv&limit=10000`);
    if (res.status !== 200 || res.headers.get("x-next-cursor") !== null)
      throw new Error(`${name}: csv ${res.status}`);
    await write(`tables/${name}.csv`, await res.text());
  }
  await write("tables.json", JSON.stringify(types, null, 1));
  await write("expected.json", JSON.stringify(expected, null, 1));
}
