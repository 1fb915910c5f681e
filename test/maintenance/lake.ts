/**
 * Test lakes for the compaction jobs: a real store on the miniflare bucket whose data path is its prefix
 * there, tables fed real Parquet files (appends), delete files, inlined file deletes, updates (delete +
 * append) and column adds, and a reader that applies DuckLake's scan rules to the plan and the objects
 * (snapshot filters on `_ducklake_internal_snapshot_id`, row ids from `_ducklake_internal_row_id` or
 * row_id_start, delete files, inlined deletes and rows).
 */
import {
  type Catalog,
  type CommitRequest,
  head,
  listSnapshots,
  NotFound,
  openCatalog,
  tableFilesAt,
} from "../../catalog/index.ts";
import {
  fileColumnStats,
  fromParquetValue,
  layoutColumns,
  parquetFields,
  toParquetRow,
  verbColumnStats,
} from "../../catalog/parquet-layout.ts";
import type { ColumnRecord } from "../../catalog/records.ts";
import type { StoredValue } from "../../catalog/values/index.ts";
import { runFlushJob } from "../../maintenance/inline-flush.ts";
import { readParquet, writeParquet } from "../../parquet/index.ts";
import type { Bucket, Store } from "../../storage/api.ts";
import { seeded } from "../../storage/fault-bucket.ts";
import { openWriter } from "../../storage/index.ts";
import { bucket, lakeName, settle } from "../catalog/support.ts";

export const DATA_PREFIX = "r2://ducklake-edge/lakes/";
export type Rows = Map<number, Record<string, StoredValue>>;

export interface Lake {
  lake: string;
  store: Store;
  catalog: Catalog;
  b: Bucket;
}

export async function freshLake(tag: string, b: Bucket = bucket()): Promise<Lake> {
  const lake = lakeName(tag);
  const store = await openWriter(b, lake);
  const catalog = await openCatalog(store, { dataPath: `${DATA_PREFIX}${lake}/data/` });
  await store.flush();
  return { lake, store, catalog, b };
}

export async function reopen(l: Lake, b: Bucket): Promise<Lake> {
  const store = await openWriter(b, l.lake);
  const catalog = await openCatalog(store, { dataPath: `${DATA_PREFIX}${l.lake}/data/` });
  return { lake: l.lake, store, catalog, b };
}

export async function commit(l: Lake, verbs: unknown[]): Promise<number | null> {
  const r = await l.catalog.commit({ verbs } as never);
  await settle(l.store, r.durable);
  return r.snapshotId;
}

export function jobCommit(l: Lake, c: Catalog = l.catalog) {
  return async (request: CommitRequest) => {
    const r = await c.commit(request);
    await settle(l.store, r.durable);
    return { snapshotId: r.snapshotId };
  };
}

/** Maintenance job 1 (the inlined-data flush) over the lake, one pass, committing through its catalog. */
export function flushJob(l: Lake, opts: { threshold?: number; maxRowsPerStep?: number } = {}) {
  return runFlushJob({
    lake: l.lake,
    bucket: l.b,
    view: () => l.store.snapshot(),
    commit: jobCommit(l),
    now: () => Date.now(),
    ...opts,
  });
}

/** The two-column table (`id int64, s varchar`) the inlined-row tests write, and one of its rows. */
export const ID_S_COLUMNS = [
  { name: "id", type: "int64" },
  { name: "s", type: "varchar" },
];
export const idRow = (id: number, tag = "a"): Record<string, StoredValue> => ({ id, s: `${tag}${id}` });

async function fileBytes(b: Bucket, resolved: string): Promise<Uint8Array> {
  if (!resolved.startsWith(DATA_PREFIX)) throw new Error(`file outside the bucket: ${resolved}`);
  const obj = await b.get(`lakes/${resolved.slice(DATA_PREFIX.length)}`);
  if (!obj) throw new Error(`missing data file ${resolved}`);
  return new Uint8Array(await obj.arrayBuffer());
}

/** A file to PUT under table t's directory and the verb that registers it there. */
export interface FileToRegister {
  bytes: Uint8Array;
  verb: Record<string, unknown>;
}

/**
 * Table t's rows as one Parquet data file named `name` (beside the table, path relative to it) and its
 * `register_data_file` verb, with the column stats stock DuckLake registers (`verbColumnStats`). One home
 * for the catalog-level lakes here and the HTTP-fed lakes of `test/worker/http-lake.ts`.
 */
export function dataFileFor(
  columns: readonly ColumnRecord[],
  rows: readonly Record<string, StoredValue>[],
  name: string,
): FileToRegister {
  const top = layoutColumns(columns);
  const file = writeParquet(
    parquetFields(columns),
    rows.map((r) => toParquetRow(top, r)),
  );
  return {
    bytes: file.bytes,
    verb: {
      op: "register_data_file",
      table: { name: "t" },
      file: {
        path: name,
        recordCount: rows.length,
        fileSizeBytes: file.bytes.byteLength,
        footerSize: file.footerSize,
        columnStats: verbColumnStats(fileColumnStats(columns, file)),
      },
    },
  };
}

/**
 * A delete file named `name` marking `positions` (sorted, distinct) of table t's data file `fileId`, whose
 * resolved path is `resolvedPath`, and its `register_delete_file` verb.
 */
export function deleteFileFor(
  fileId: number,
  resolvedPath: string,
  positions: readonly number[],
  name: string,
): FileToRegister {
  const del = writeParquet(
    [
      { name: "file_path", fieldId: 2147483646, type: { kind: "string" }, nullable: true },
      { name: "pos", fieldId: 2147483645, type: { kind: "int", bits: 64, signed: true }, nullable: true },
    ],
    positions.map((p) => ({ file_path: resolvedPath, pos: BigInt(p) })),
  );
  return {
    bytes: del.bytes,
    verb: {
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
  };
}

let seq = 0;
/** Appends `rows` (stored values by column name) to table t as one Parquet file; answers its data file id. */
export async function appendFile(l: Lake, rows: Record<string, StoredValue>[]): Promise<number> {
  const plan = await tableFilesAt(l.store.snapshot(), { name: "t" });
  const name = `app-${++seq}-${Math.random().toString(36).slice(2, 8)}.parquet`;
  const f = dataFileFor(plan.columns, rows, name);
  await l.b.put(`lakes/${l.lake}/data/main/t/${name}`, f.bytes);
  const r = await l.catalog.commit({ verbs: [f.verb] } as never);
  await settle(l.store, r.durable);
  return (r.assigned[0] as { dataFileId: number }).dataFileId;
}

/** Deletes `positions` of data file `fileId` with a delete file (replacing its live one, merged). */
export async function deleteWithFile(l: Lake, fileId: number, positions: number[]): Promise<void> {
  const plan = await tableFilesAt(l.store.snapshot(), { name: "t" });
  const f = plan.files.find((x) => x.data_file_id === fileId);
  if (!f) throw new Error(`no live file ${fileId}`);
  const all = new Set(positions);
  if (f.delete_file) {
    const old = await readParquet(await fileBytes(l.b, f.delete_file.resolved_path));
    for (const r of old.rows) all.add(Number(r.pos));
  }
  const sorted = [...all].sort((a, b) => a - b);
  const name = `del-${++seq}-${Math.random().toString(36).slice(2, 8)}-delete.parquet`;
  const d = deleteFileFor(fileId, f.resolved_path, sorted, name);
  await l.b.put(`lakes/${l.lake}/data/main/t/${name}`, d.bytes);
  await commit(l, [d.verb]);
}

/** Every visible row of table t at snapshot s as `row_id → values`, by DuckLake's reader rules. */
export async function rowsAt(l: Lake, s: number): Promise<Rows> {
  const plan = await tableFilesAt(l.store.snapshot(), { name: "t" }, s);
  const top = layoutColumns(plan.columns);
  const out: Rows = new Map();
  const put = (id: number, values: Record<string, StoredValue>) => {
    if (out.has(id)) throw new Error(`row id ${id} read twice at snapshot ${s}`);
    out.set(id, values);
  };
  for (const r of plan.inlined_rows) put(r.row_id, r.values as Record<string, StoredValue>);
  for (const f of plan.files) {
    const data = await readParquet(await fileBytes(l.b, f.resolved_path));
    const deleted = new Set(f.inlined_deleted_positions);
    if (f.delete_file) {
      const del = await readParquet(await fileBytes(l.b, f.delete_file.resolved_path));
      for (const d of del.rows) {
        const at = d._ducklake_internal_snapshot_id;
        if (f.delete_file.snapshot_filter === null || (typeof at === "bigint" && at <= BigInt(s)))
          deleted.add(Number(d.pos));
      }
    }
    data.rows.forEach((row, pos) => {
      const snap = row._ducklake_internal_snapshot_id;
      if (f.snapshot_filter !== null && typeof snap === "bigint" && snap > BigInt(f.snapshot_filter)) return;
      if (deleted.has(pos)) return;
      const id =
        typeof row._ducklake_internal_row_id === "bigint"
          ? Number(row._ducklake_internal_row_id)
          : f.row_id_start + pos;
      const values: Record<string, StoredValue> = {};
      for (const c of top)
        values[c.column.column_name] = fromParquetValue(c, row[c.column.column_name] ?? null);
      put(id, values);
    });
  }
  return out;
}

export async function everySnapshot(l: Lake): Promise<Map<number, Rows>> {
  const out = new Map<number, Rows>();
  const h = await head(l.store.snapshot());
  for (const snap of await listSnapshots(l.store.snapshot())) {
    if (snap.snapshot_id < 1 || snap.snapshot_id > h.snapshot_id) continue;
    try {
      out.set(snap.snapshot_id, await rowsAt(l, snap.snapshot_id));
    } catch (e) {
      if (!(e instanceof NotFound)) throw e;
    }
  }
  return out;
}

/** What a random history does to table t (a catalog-level lake, or a lake behind the Worker's routes). */
export interface HistoryOps {
  /** Appends rows as one Parquet file; answers its data file id. */
  append: (rows: Record<string, StoredValue>[]) => Promise<number>;
  /** Deletes positions of a data file with a delete file (merged with its live one). */
  deleteWithFile: (fileId: number, positions: number[]) => Promise<void>;
  commit: (verbs: unknown[]) => Promise<void>;
  /** Called after every step (e.g. to take a checkpoint at a seeded moment). */
  afterStep?: (step: number, random: () => number) => Promise<void>;
}

/**
 * A seeded random history of appends, delete files, inlined file deletes, updates (delete + append) and a
 * column add on table t (columns id int64, s varchar), which must exist.
 */
export async function randomHistory(ops: HistoryOps, seed: number, steps: number): Promise<void> {
  const rnd = seeded(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  let next = 0;
  let extra = false;
  const deleted = new Map<number, Set<number>>();
  const sizes = new Map<number, number>();
  const row = (id: number, tag: string): Record<string, StoredValue> => ({
    id: String(id),
    s: `${tag}${id}`,
    ...(extra ? { e: rnd() < 0.3 ? null : pick(100) } : {}),
  });
  const append = async (tag: string) => {
    const n = 1 + pick(4);
    const rows = Array.from({ length: n }, () => row(next++, tag));
    const id = await ops.append(rows);
    sizes.set(id, n);
    deleted.set(id, new Set());
  };
  const livePosition = (): [number, number] | null => {
    const live = [...sizes.entries()].filter(([f, n]) => (deleted.get(f)?.size ?? 0) < n);
    if (live.length === 0) return null;
    const [f, n] = live[pick(live.length)] as [number, number];
    const free = Array.from({ length: n }, (_, i) => i).filter((p) => !deleted.get(f)?.has(p));
    return [f, free[pick(free.length)] as number];
  };
  await append("a");
  for (let i = 0; i < steps; i++) {
    const r = rnd();
    const at = livePosition();
    if (r < 0.45 || !at) await append("a");
    else if (r < 0.65) {
      await ops.deleteWithFile(at[0], [at[1]]);
      deleted.get(at[0])?.add(at[1]);
    } else if (r < 0.8) {
      await ops.commit([
        {
          op: "inline_delete",
          table: { name: "t" },
          fileDeletes: [{ dataFileId: at[0], positions: [at[1]] }],
        },
      ]);
      deleted.get(at[0])?.add(at[1]);
    } else if (r < 0.93) {
      // An update: the old row goes through a delete file, the new one arrives in a file of its own.
      await ops.deleteWithFile(at[0], [at[1]]);
      deleted.get(at[0])?.add(at[1]);
      await append("u");
    } else if (!extra) {
      await ops.commit([{ op: "add_column", table: { name: "t" }, column: { name: "e", type: "int32" } }]);
      extra = true;
    } else await append("a");
    await ops.afterStep?.(i, rnd);
  }
  // The files that lived through the column add now have no tracked sizes for new positions: fine, the
  // random walk only deletes positions below each file's record count.
}
