/**
 * Maintenance job 1, the DuckLake part: which inlined rows of a table to flush, and the Parquet data file
 * (and, for rows deleted while inlined, delete file) plus the `flush_inlined` verb that registers them,
 * laid out as stock DuckLake's `ducklake_flush_inlined_data` writes them (`_ducklake_internal_row_id` and
 * `_ducklake_internal_snapshot_id` columns, so rows keep their ids and their snapshots for time travel).
 * Pure: reads a ReadView, returns bytes and a commit request; the host PUTs the files, then commits
 * (decision docs/decisions/0321-maintenance-flush.md).
 */

import { type ParquetField, type ParquetRow, writeParquetPaced } from "../../parquet/index.ts";
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { CodedError, InvalidRequest } from "../errors.ts";
import { dataPathPrefix, joinPath, tableDirOf } from "../file-paths.ts";
import { inlineRowRange, readInlineFloors } from "../inline-floor.ts";
import { FlushRun } from "../inline-flush-run.ts";
import { type ScopedOptions, tableOption } from "../options.ts";
import {
  DELETE_FILE_PATH_FIELD,
  DELETE_POS_FIELD,
  layoutColumns,
  parquetFields,
  ROW_ID_COLUMN,
  ROW_ID_FIELD,
  SNAPSHOT_ID_COLUMN,
  SNAPSHOT_ID_FIELD,
  toParquetRow,
  writtenFileSpec,
} from "../parquet-layout.ts";
import { catalogAt } from "../reads/catalog-at.ts";
import { tableFilesAt } from "../reads/files-at.ts";
import type { InlineRowRecord } from "../records.ts";
import { uuidv7 } from "../uuid.ts";
import type { CommitRequest, VerbOf } from "../verbs/schema.ts";
import { MAINTENANCE_ROWS_PER_ROW_GROUP, noPause, Pacer, type Pause } from "./pace.ts";

/**
 * Most inlined rows one flush step reads and writes (bounds the step's memory; more rows ⇒ more steps,
 * and the writer schedules the next pass at once). It also bounds the step's commit, one atomic batch
 * that reads and deletes every inlined row it moves while appenders wait (decision 0325: 50,000 before).
 */
export const MAX_FLUSH_ROWS_PER_STEP = 16_384;
/** DuckLake's default `data_inlining_row_limit` (measured with stock DuckLake 1.5.5: 10 rows inline, 11 do not). */
export const DUCKLAKE_DEFAULT_INLINING_ROW_LIMIT = 10;

/** A file the host must PUT (at `key` below the lake's data prefix) before it commits. */
export interface PlannedObject {
  /** Path below the lake's data path (`main/t/ducklake-….parquet`). */
  relativeToDataPath: string;
  bytes: Uint8Array;
}

export interface FlushPlan {
  tableId: number;
  tableName: string;
  rowsIn: number;
  objects: PlannedObject[];
  request: CommitRequest;
}

/** The table's effective inlining limit: table option, then schema, then global, then DuckLake's default. */
function inliningLimit(options: ScopedOptions, tableId: number, schemaId: number): number {
  const v = tableOption(options, tableId, schemaId, "data_inlining_row_limit");
  return v === undefined ? DUCKLAKE_DEFAULT_INLINING_ROW_LIMIT : Number(v);
}

/**
 * DuckLake's `auto_compact` option (table, schema, then global; default true): false keeps the lake's own
 * maintenance away from the table, as it keeps DuckLake's CHECKPOINT away (decision 0321).
 */
export function autoCompact(options: ScopedOptions, tableId: number, schemaId: number): boolean {
  const v = tableOption(options, tableId, schemaId, "auto_compact");
  return v === undefined || v.toLowerCase() !== "false";
}

/**
 * The next flush step of each table whose inlined rows pass `threshold` (default: the table's
 * `data_inlining_row_limit`, so a lake holds inlined no more than DuckLake would let one insert inline).
 * One plan per table, at most `maxRows` row versions each: the first run of consecutive row ids from the
 * table's floor written under its current columns, every version of each row (decision 0183). Rows from before the last column change stay inlined (a later version of this
 * job writes them under their own schema version; decision 0321).
 */
export async function planFlushes(
  view: ReadView,
  options: { threshold?: number; maxRows?: number; now?: () => number; tableId?: number; pause?: Pause } = {},
): Promise<{ plans: FlushPlan[]; refused: { tableId: number; error: CodedError }[] }> {
  const state = await catalogAt(view);
  const dataPath = dataPathPrefix(state.options.global.data_path ?? "");
  const plans: FlushPlan[] = [];
  const refused: { tableId: number; error: CodedError }[] = [];
  // Every table's inlined-row floor in one read (decision 0182): the probe below stays one read per table.
  const floors = await readInlineFloors(view);
  for (const t of state.tables) {
    if (options.tableId !== undefined && t.table_id !== options.tableId) continue;
    if (!autoCompact(state.options, t.table_id, t.schema_id)) continue;
    const threshold = options.threshold ?? inliningLimit(state.options, t.table_id, t.schema_id);
    let plan: FlushPlan | null = null;
    try {
      plan = await planTable(
        view,
        t.table_id,
        floors.get(t.table_id) ?? 0,
        threshold,
        options.maxRows ?? MAX_FLUSH_ROWS_PER_STEP,
        dataPath,
        options.now ?? Date.now,
        new Pacer(options.pause ?? noPause),
      );
    } catch (e) {
      // A type the layout does not write yet, or a table outside the data path: that table stays inlined.
      if (e instanceof CodedError && (e.code === "Unsupported" || e.code === "InvalidRequest")) {
        refused.push({ tableId: t.table_id, error: e });
        continue;
      }
      throw e;
    }
    if (plan) plans.push(plan);
  }
  return { plans, refused };
}

async function planTable(
  view: ReadView,
  tableId: number,
  floor: number,
  threshold: number,
  maxRows: number,
  dataPath: string,
  now: () => number,
  pacer: Pacer,
): Promise<FlushPlan | null> {
  // Most tables hold no more inlined rows than the threshold: count first (one probe, stopping past the
  // threshold) and build the scan plan only for a table that flushes (test/catalog/maintenance-plan-cost.test.ts).
  // Both scans start at the table's row-id floor (read from the same view), past the tombstones of rows
  // earlier flushes removed (decision 0182).
  let inlined = 0;
  for await (const _ of view.scan(inlineRowRange(tableId, floor))) {
    if (++inlined > threshold) break;
  }
  if (inlined <= threshold) return null;
  const scan = await tableFilesAt(view, tableId);
  const cols = scan.columns;
  // Rows written before the newest column version have another shape: they are not this step's.
  const shapeSince = Math.max(0, ...cols.map((c) => c.begin_snapshot));
  // Which keys the run takes is the flush's one rule (catalog/inline-flush-run.ts, decision 0183): whole
  // rows from the floor, every version of each, so the verb's count of the keys through the run's last
  // row id is the file's.
  const run = new FlushRun(shapeSince, maxRows);
  let held = 0;
  for await (const kv of view.scan(inlineRowRange(tableId, floor))) {
    held++;
    await pacer.tick();
    if (!run.ended) run.offer(decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row"));
    // The run is complete and the threshold is known to be passed: the rest need not be read.
    if (run.ended && held > threshold) break;
  }
  const chosen = run.finish();
  if (held <= threshold || chosen === null) return null;
  const rows = chosen.rows;
  const tablePath = tableDir(scan, dataPath);
  if (!tablePath.startsWith(dataPath)) {
    throw new InvalidRequest(`table ${tableId} lies outside the lake's data path; its rows stay inlined`);
  }
  const top = layoutColumns(cols);
  const userFields = parquetFields(cols);
  const fields: ParquetField[] = [...userFields, ROW_ID_FIELD, SNAPSHOT_ID_FIELD];
  const prows: ParquetRow[] = [];
  for (const r of rows) {
    prows.push({
      ...toParquetRow(top, r.values),
      [ROW_ID_COLUMN]: BigInt(r.row_id),
      [SNAPSHOT_ID_COLUMN]: BigInt(r.begin_snapshot),
    });
    await pacer.tick();
  }
  const paced = { pause: pacer.pause, rowGroupSize: MAINTENANCE_ROWS_PER_ROW_GROUP };
  const file = await writeParquetPaced(fields, prows, paced);
  const name = `ducklake-${uuidv7(now())}.parquet`;
  const objects: PlannedObject[] = [
    { relativeToDataPath: joinPath(tablePath, name).slice(dataPath.length), bytes: file.bytes },
  ];
  const verb: VerbOf<"flush_inlined"> = {
    op: "flush_inlined",
    table: { id: tableId },
    throughRowId: chosen.throughRowId,
    file: writtenFileSpec(name, cols, file, rows.length),
  };
  const deleted = rows
    .map((r, pos) => ({ pos, end: r.end_snapshot }))
    .filter((d): d is { pos: number; end: number } => d.end !== null);
  if (deleted.length > 0) {
    const del = await writeParquetPaced(
      [DELETE_FILE_PATH_FIELD, DELETE_POS_FIELD, SNAPSHOT_ID_FIELD],
      deleted.map((d) => ({
        [DELETE_FILE_PATH_FIELD.name]: joinPath(tablePath, name),
        [DELETE_POS_FIELD.name]: BigInt(d.pos),
        [SNAPSHOT_ID_COLUMN]: BigInt(d.end),
      })),
      paced,
    );
    const delName = `ducklake-${uuidv7(now())}-delete.parquet`;
    objects.push({
      relativeToDataPath: joinPath(tablePath, delName).slice(dataPath.length),
      bytes: del.bytes,
    });
    verb.deleteFile = {
      path: delName,
      pathIsRelative: true,
      format: "parquet",
      deleteCount: deleted.length,
      fileSizeBytes: del.bytes.byteLength,
      footerSize: del.footerSize,
    };
  }
  return {
    tableId,
    tableName: scan.table.table_name,
    rowsIn: rows.length,
    objects,
    request: { verbs: [verb], author: "ducklake-edge maintenance", message: "flush inlined data" },
  };
}

/** The table's directory: the data path, the schema's path, the table's path (each maybe relative). */
export function tableDir(scan: Awaited<ReturnType<typeof tableFilesAt>>, dataPath: string): string {
  return tableDirOf(dataPath, scan.schema, scan.table);
}
