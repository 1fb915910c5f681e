/**
 * The lake rows of a table's Parquet files for the rows API (docs/decisions/0313-rows-flush-parquet.md):
 * each data file of the scan plan read whole through `parquet/`, columns matched by field id (= column
 * id, DuckLake's rule; by name for a file without field ids), values mapped back by
 * `catalog/parquet-layout.ts`, then DuckLake's reader rules applied: the file's delete file and inlined
 * deletes remove positions, snapshot filters hide rows and deletes newer than the snapshot read. The bytes
 * come from the host (`RowFileSource`): the catalog never calls R2. Every read is bounded (named limits
 * below, each a typed error naming it).
 */

import { type ParquetValue, readParquet } from "../../parquet/index.ts";
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { Unsupported } from "../errors.ts";
import { dataPathPrefix } from "../file-paths.ts";
import { Kind, keys, OptionScope } from "../keys.ts";
import {
  fromParquetValue,
  type LayoutColumn,
  layoutColumns,
  ROW_ID_FIELD_ID,
  SNAPSHOT_ID_COLUMN,
  SNAPSHOT_ID_FIELD_ID,
} from "../parquet-layout.ts";
import type { PlannedFile, ScanPlan } from "../reads/files-at.ts";
import type { OptionRecord } from "../records.ts";
import type { RowValues } from "./records.ts";

/** Largest data or delete file one rows read fetches whole (an isolate has 128 MB). */
export const MAX_ROWS_READ_FILE_BYTES = 32 * 1024 * 1024;
/** Bytes of files one rows read fetches in all. */
export const MAX_ROWS_READ_BYTES = 64 * 1024 * 1024;
/** Lake rows (file rows before deletes, plus inlined rows) one rows read materializes. */
export const MAX_ROWS_READ_LAKE_ROWS = 1_000_000;

/** A rows read reached one of the bounds above: read through the scan plan (or by key) instead. */
export class RowsReadTooLarge extends Unsupported {}

/** Where the host fetches a file the catalog names: a path below the lake's data path. */
export interface RowFileSource {
  read(relativeToDataPath: string, sizeBytes: number): Promise<Uint8Array>;
}

/** Field ids DuckLake gives its internal columns (stock DuckLake 1.5.5 files). */

export interface LakeRow {
  row_id: number;
  values: RowValues;
}

/** Counts what one read fetched and materialized against the limits. */
export class ReadBudget {
  bytes = 0;
  rows = 0;
  addRows(n: number): void {
    this.rows += n;
    if (this.rows > MAX_ROWS_READ_LAKE_ROWS) {
      throw new RowsReadTooLarge(
        `the read reaches more than ${MAX_ROWS_READ_LAKE_ROWS} lake rows (MAX_ROWS_READ_LAKE_ROWS); read the table through its scan plan`,
      );
    }
  }
  addBytes(path: string, n: number): void {
    if (n > MAX_ROWS_READ_FILE_BYTES) {
      throw new RowsReadTooLarge(
        `file ${path} is ${n} bytes, above the ${MAX_ROWS_READ_FILE_BYTES} a rows read fetches whole (MAX_ROWS_READ_FILE_BYTES); read it through the scan plan`,
      );
    }
    this.bytes += n;
    if (this.bytes > MAX_ROWS_READ_BYTES) {
      throw new RowsReadTooLarge(
        `the read needs more than ${MAX_ROWS_READ_BYTES} bytes of files (MAX_ROWS_READ_BYTES); read the table through its scan plan`,
      );
    }
  }
}

/** The lake's `data_path` (files resolve below it). */
export async function lakeDataPath(view: ReadView): Promise<string> {
  const raw = await view.get(keys.current(Kind.option, OptionScope.global, 0));
  return raw === undefined
    ? ""
    : (decodeValue<OptionRecord>(ValueKind.option, raw, "option").values.data_path ?? "");
}

function relativePath(resolved: string, dataPath: string): string {
  const prefix = dataPathPrefix(dataPath);
  if (prefix === "" || !resolved.startsWith(prefix)) {
    throw new Unsupported(`file ${resolved} lies outside the lake's data path; the rows API cannot fetch it`);
  }
  return resolved.slice(prefix.length);
}

async function fetchFile(
  source: RowFileSource,
  budget: ReadBudget,
  resolved: string,
  size: number,
  dataPath: string,
): Promise<Awaited<ReturnType<typeof readParquet>>> {
  budget.addBytes(resolved, size);
  return readParquet(await source.read(relativePath(resolved, dataPath), size));
}

function asNumber(v: ParquetValue | undefined): number | null {
  return typeof v === "bigint" || typeof v === "number" ? Number(v) : null;
}

/** The deleted positions of a file at the plan's snapshot: its delete file's and its inlined deletes. */
async function deletedPositions(
  f: PlannedFile,
  source: RowFileSource,
  budget: ReadBudget,
  dataPath: string,
): Promise<Set<number>> {
  const out = new Set(f.inlined_deleted_positions);
  const d = f.delete_file;
  if (!d) return out;
  const file = await fetchFile(source, budget, d.resolved_path, d.file_size_bytes, dataPath);
  for (const r of file.rows) {
    const snap = asNumber(r[SNAPSHOT_ID_COLUMN]);
    if (d.snapshot_filter !== null && snap !== null && snap > d.snapshot_filter) continue;
    const pos = asNumber(r.pos);
    if (pos !== null) out.add(pos);
  }
  return out;
}

/** The visible rows of one data file at the plan's snapshot, with their DuckLake row ids. */
export async function fileRows(
  plan: ScanPlan,
  f: PlannedFile,
  source: RowFileSource,
  budget: ReadBudget,
  dataPath: string,
): Promise<LakeRow[]> {
  // A file registered by ducklake_add_data_files has no field ids: its columns map to the table's by its
  // name map, which this reader does not apply yet, and reading it by the current column names would
  // answer wrongly after a rename (docs/decisions/0600-staged-name-maps.md).
  if (f.mapping_id !== null) {
    throw new Unsupported(
      `data file ${f.data_file_id} of table ${plan.table.table_id} is read through name map ${f.mapping_id} (ducklake_add_data_files); reading it here is not supported yet`,
    );
  }
  budget.addRows(f.record_count);
  const deleted = await deletedPositions(f, source, budget, dataPath);
  const file = await fetchFile(source, budget, f.resolved_path, f.file_size_bytes, dataPath);
  const top = layoutColumns(plan.columns);
  // The file's top-level fields, by field id where it has them, else by name.
  const fields = file.schema.slice(1);
  const nameOf = new Map<number, string>();
  let i = 0;
  const rootChildren = file.schema[0]?.num_children ?? 0;
  for (let k = 0; k < rootChildren; k++) {
    const el = fields[i];
    if (!el) break;
    if (el.field_id !== undefined) nameOf.set(el.field_id, el.name);
    // Skip the element's subtree to reach the next top-level field.
    let open = 1;
    while (open > 0) {
      open += (fields[i]?.num_children ?? 0) - 1;
      i++;
    }
  }
  const rowIdName = nameOf.get(ROW_ID_FIELD_ID);
  const snapName = nameOf.get(SNAPSHOT_ID_FIELD_ID);
  const columnOf = (c: LayoutColumn): string => nameOf.get(c.column.column_id) ?? c.column.column_name;
  const out: LakeRow[] = [];
  file.rows.forEach((r, pos) => {
    if (deleted.has(pos)) return;
    if (f.snapshot_filter !== null && snapName !== undefined) {
      const s = asNumber(r[snapName]);
      if (s !== null && s > f.snapshot_filter) return;
    }
    const values: RowValues = {};
    for (const c of top) values[c.column.column_name] = fromParquetValue(c, r[columnOf(c)] ?? null);
    const id = rowIdName !== undefined ? asNumber(r[rowIdName]) : null;
    out.push({ row_id: id ?? f.row_id_start + pos, values });
  });
  return out;
}
