/**
 * The `ducklake_*` tables as a stock DuckLake catalog holds them, one bounded page at a time, with values
 * as DuckDB writes them: the 28 tables (TIMESTAMPTZ columns as `2026-12-01 08:30:38.123456+00`) and every
 * per-table inlined table (`ducklake_inlined_data_<t>_<sv>`, `ducklake_inlined_delete_<t>`, values by
 * catalog/values/). A dump of every table through this, loaded into a stock DuckLake catalog, time-travels
 * to the same rows (test/worker/ducklake-dump.test.ts + tools/ducklake-dump-check.py).
 */
import type { ReadView } from "../../storage/api.ts";
import { InvalidRequest, quoteName } from "../errors.ts";
import { resolveSnapshot } from "../head.ts";
import type { TypeNode } from "../types.ts";
import { type StoredValue, timestamptzFromEpochMicros, toText } from "../values/index.ts";
import { DUCKLAKE_TABLES, ducklakeTable } from "./ducklake-tables.ts";
import { inlinedTablePage, isInlinedTableName } from "./inlined-tables.ts";

/** Most rows one page may ask for; the default page when none is asked. */
export const MAX_DUCKLAKE_PAGE_ROWS = 10_000;
export const DEFAULT_DUCKLAKE_PAGE_ROWS = 1_000;

/** DuckLake 1.0's TIMESTAMPTZ columns among the 28 tables (we hold them as epoch microseconds). */
const TIMESTAMPTZ_COLUMNS = new Set(["snapshot_time", "schedule_start"]);

export interface DucklakePage {
  /** The snapshot every page of this dump is read at (carried in the cursor). */
  snapshotId: number;
  columns: string[];
  /** DuckDB's type per column for the inlined tables (null for the 28, whose types DuckLake fixes). */
  duckdbTypes: string[] | null;
  rows: Record<string, StoredValue>[];
  /** Pass as `after` for the next page; null on the last page. */
  next: string | null;
  /** DuckDB's text per row and column (NULL → null), for CSV. */
  text(row: Record<string, StoredValue>): (string | null)[];
}

export function isDucklakeTableName(name: string): boolean {
  return name in DUCKLAKE_TABLES || isInlinedTableName(name);
}

function parseCursor(after: string): { snapshot: number; ids: number[] } {
  if (!/^\d{1,15}(\.\d{1,15}){1,2}$/.test(after))
    throw new InvalidRequest(`after=${quoteName(after)} is not a cursor this route issued`);
  const [snapshot = 0, ...ids] = after.split(".").map(Number);
  return { snapshot, ids };
}

/**
 * One page of `name` at snapshot S (default: head; a cursor pins the snapshot of its first page).
 * `limit` is 1..MAX_DUCKLAKE_PAGE_ROWS. Inlined tables are read by key range from the cursor; the 28
 * tables are read in DuckLake's row order and sliced.
 */
export async function ducklakePage(
  view: ReadView,
  name: string,
  options: { snapshot?: number; after?: string; limit?: number },
): Promise<DucklakePage> {
  const limit = options.limit ?? DEFAULT_DUCKLAKE_PAGE_ROWS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DUCKLAKE_PAGE_ROWS)
    throw new InvalidRequest(`limit must be from 1 to ${MAX_DUCKLAKE_PAGE_ROWS}`);
  const cursor = options.after !== undefined ? parseCursor(options.after) : undefined;
  if (cursor && options.snapshot !== undefined && cursor.snapshot !== options.snapshot)
    throw new InvalidRequest(`the cursor reads snapshot ${cursor.snapshot}, not ${options.snapshot}`);
  const snap = await resolveSnapshot(view, cursor?.snapshot ?? options.snapshot);
  const s = snap.snapshot_id;
  if (isInlinedTableName(name)) {
    const page = await inlinedTablePage(view, name, s, cursor?.ids, limit);
    return {
      snapshotId: s,
      columns: page.columns.map(([c]) => c),
      duckdbTypes: page.columns.map(([, t]) => t),
      rows: page.rows,
      next: page.next ? `${s}.${page.next.join(".")}` : null,
      text: (row) => page.types.map((t: TypeNode) => toText(t, row[t.name] ?? null)),
    };
  }
  const columns = DUCKLAKE_TABLES[name];
  if (!columns) throw new InvalidRequest(`${quoteName(name)} is not a DuckLake catalog table`);
  const offset = cursor?.ids[0] ?? 0;
  const all = await ducklakeTable(view, name, s);
  const rows = all.slice(offset, offset + limit).map((r) => {
    const out: Record<string, StoredValue> = { ...r };
    for (const c of columns) {
      const v = r[c];
      if (TIMESTAMPTZ_COLUMNS.has(c) && typeof v === "number") out[c] = timestamptzFromEpochMicros(v);
    }
    return out;
  });
  return {
    snapshotId: s,
    columns: [...columns],
    duckdbTypes: null,
    rows,
    next: offset + limit < all.length ? `${s}.${offset + limit}` : null,
    text: (row) => columns.map((c) => (row[c] === null || row[c] === undefined ? null : String(row[c]))),
  };
}
