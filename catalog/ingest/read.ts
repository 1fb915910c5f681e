/**
 * Reads of lake + tail (docs/decisions/0310-row-ingestion-log.md): a table's rows at the cut's newest
 * snapshot, with the log records above the drained watermark folded over them in sequence order — the
 * same fold the flusher applies (tombstones empty the table, upserts and deletes replace by key). Both
 * halves come from one store cut, so the watermark and the tail agree. With `snapshot`, the lake only.
 */
import type { ReadView } from "../../storage/api.ts";
import { InvalidRequest, NotFound, Unsupported } from "../errors.ts";
import { tableFilesAt } from "../reads/files-at.ts";
import type { InlineValue } from "../records.ts";
import { MAX_UNFLUSHED_RECORDS } from "../row-log-limits.ts";
import { columnTree, parseValue, type StoredValue } from "../values/index.ts";
import type { RelationRef } from "../verbs/schema.ts";
import { indexComplete } from "./key-index.ts";
import { fileRows, type LakeRow, lakeDataPath, ReadBudget, type RowFileSource } from "./read-files.ts";
import type { RowValues } from "./records.ts";
import { keyText, readIngestHead, readIngestTable, readKeyBucket, readTail, tailRange } from "./state.ts";

/** Rows one read answers at most. */
export const MAX_ROWS_PAGE = 100_000;

export interface RowsRead {
  rows: RowValues[];
  /** The newest log sequence number the answer includes (0: none). */
  watermark: number;
  /** The drained watermark: records up to it are in the lake. */
  drained: number;
  /** The offset of the next page, or null. */
  next: number | null;
  snapshotId: number;
}

export interface RowsQuery {
  snapshot?: number;
  /** Point read: the key as a JSON object of key columns. */
  key?: Record<string, unknown>;
  offset?: number;
  limit?: number;
}

export async function readRows(
  view: ReadView,
  table: RelationRef,
  q: RowsQuery,
  files?: RowFileSource,
): Promise<RowsRead> {
  const plan = await tableFilesAt(view, table, q.snapshot);
  const t = plan.table.table_id;
  if (plan.files.length > 0 && files === undefined) {
    throw new Unsupported(
      `table ${t} holds Parquet data files and this reader was given no way to fetch them`,
    );
  }
  const limit = q.limit ?? MAX_ROWS_PAGE;
  if (limit < 1 || limit > MAX_ROWS_PAGE) throw new InvalidRequest(`limit must be 1..${MAX_ROWS_PAGE}`);
  const meta = await readIngestTable(view, t);
  const keyColumns = meta?.key_columns ?? [];
  const keyOfRow = (row: RowValues): string => keyText(keyColumns.map((c) => row[c] ?? null));
  // Insertion-ordered map: lake rows by row id, then tail rows in sequence order.
  let rows = new Map<string, RowValues>();
  let anon = 0;
  const slot = (row: RowValues): string => (keyColumns.length > 0 ? `k${keyOfRow(row)}` : `a${anon++}`);
  // Lake rows in row-id order: the Parquet files' visible rows and the inlined rows.
  const budget = new ReadBudget();
  budget.addRows(plan.inlined_rows.length);
  let lake: LakeRow[] = plan.inlined_rows.map((r) => ({ row_id: r.row_id, values: r.values }));
  const byIndex =
    q.key !== undefined &&
    q.snapshot === undefined &&
    keyColumns.length > 0 &&
    // A compacted file carrying its own row ids (decision 0322) is not addressed by its id range.
    !plan.files.some((f) => f.x_row_ids_in_file) &&
    (await indexComplete(view, t));
  if (byIndex && q.key !== undefined) {
    // A point read at the head follows the key index to its one lake row: at most one file is read
    // (docs/decisions/0313-rows-flush-parquet.md); the tail is folded over it below as for a scan.
    const wanted = canonicalKey(plan.columns, keyColumns, q.key);
    const hit = (await readKeyBucket(view, t, wanted)).entries.find(
      (e) => keyText(e.key) === keyText(wanted),
    );
    lake = lake.filter((r) => r.row_id === hit?.row_id);
    const f = plan.files.find(
      (x) =>
        hit !== undefined && hit.row_id >= x.row_id_start && hit.row_id < x.row_id_start + x.record_count,
    );
    if (f && files !== undefined) {
      const inFile = await fileRows(plan, f, files, budget, await lakeDataPath(view));
      lake.push(...inFile.filter((r) => r.row_id === hit?.row_id));
    }
  } else if (plan.files.length > 0 && files !== undefined) {
    const dataPath = await lakeDataPath(view);
    for (const f of plan.files) lake.push(...(await fileRows(plan, f, files, budget, dataPath)));
  }
  lake.sort((a, b) => a.row_id - b.row_id);
  for (const r of lake) rows.set(slot(r.values), r.values);
  const head = await readIngestHead(view);
  let watermark = head.drained;
  if (q.snapshot === undefined) {
    // The tail's blocks in one round of GETs (at most PREFETCH_CONNECTIONS, bounded in bytes), not one
    // dependent GET per block once the tail has left the writer's memtable (decision 0318).
    await view.prefetch?.([tailRange(head.drained)]);
    const tail = await readTail(view, head.drained, MAX_UNFLUSHED_RECORDS);
    for (const r of tail) {
      watermark = r.seq;
      if (r.table_id !== t) continue;
      if (r.kind === "truncate" || r.kind === "drop") rows = new Map();
      else if (r.kind === "insert") rows.set(slot(r.row ?? {}), r.row ?? {});
      else {
        const k = `k${keyText(r.key ?? [])}`;
        rows.delete(k);
        if (r.kind === "upsert") rows.set(k, r.row ?? {});
      }
    }
  }
  let all = [...rows.values()];
  if (q.key !== undefined) {
    if (keyColumns.length === 0) throw new InvalidRequest(`table ${t} declares no key columns; read by scan`);
    const wanted = keyText(canonicalKey(plan.columns, keyColumns, q.key));
    all = all.filter((r) => keyOfRow(r) === wanted);
  }
  const offset = q.offset ?? 0;
  // Every top-level column in column order, null when the row has no value (inserted before an
  // add_column, or sent without it); values of dropped columns are not shown.
  const names = plan.columns.filter((c) => c.parent_column === null).map((c) => c.column_name);
  const page = all
    .slice(offset, offset + limit)
    .map((r) => Object.fromEntries(names.map((n) => [n, r[n] ?? null])) as RowValues);
  const next = offset + limit < all.length ? offset + limit : null;
  return { rows: page, watermark, drained: head.drained, next, snapshotId: plan.snapshot_id };
}

function canonicalKey(
  columns: Parameters<typeof columnTree>[0],
  keyColumns: string[],
  key: Record<string, unknown>,
): InlineValue[] {
  const given = new Map(Object.entries(key).map(([k, v]) => [k.toLowerCase(), v]));
  return keyColumns.map((name) => {
    const col = columns.find((c) => c.parent_column === null && c.column_name === name);
    if (!col) throw new NotFound(`key column ${name} no longer exists`);
    const raw = given.get(name.toLowerCase());
    if (raw === undefined) throw new InvalidRequest(`key: needs key column ${name}`);
    return parseValue(columnTree(columns, col), raw as StoredValue, `key.${name}`) as InlineValue;
  });
}
