/**
 * What merge (job 2) and rewrite (job 3) share, the DuckLake part: a table's compaction candidates (live
 * files with their schema version, partition, delete file and inlined deletes, in DuckLake's order: begin
 * snapshot, row id start, file id), DuckLake's grouping (schema version, partition) and its greedy run
 * toward `target_file_size`, and the rows of an input file re-laid as the compacted file's rows (values
 * round-tripped through the column layout, `_ducklake_internal_row_id` / `_ducklake_internal_snapshot_id`
 * carried or derived). Pure: bytes in, bytes out (decision docs/decisions/0322-compaction-output.md).
 */
import {
  type ParquetField,
  type ParquetRow,
  readParquet,
  type WrittenFile,
  writeParquetPaced,
} from "../../parquet/index.ts";
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { Corruption, InvalidRequest } from "../errors.ts";
import { dataPathPrefix, tableDirOf } from "../file-paths.ts";
import { Kind, keys } from "../keys.ts";
import {
  fromParquetValue,
  type LayoutColumn,
  layoutColumns,
  parquetFields,
  ROW_ID_COLUMN,
  ROW_ID_FIELD,
  ROW_ID_FIELD_ID,
  SNAPSHOT_ID_COLUMN,
  SNAPSHOT_ID_FIELD,
  SNAPSHOT_ID_FIELD_ID,
  toParquetValue,
  writtenFileSpec,
} from "../parquet-layout.ts";
import { type PlannedFile, tableFilesAt } from "../reads/files-at.ts";
import { scanAll } from "../reads/versions.ts";
import type { ColumnRecord, InlineFileDeleteRecord, SchemaVersionRecord } from "../records.ts";
import type { DataFileSpec } from "../verbs/schema.ts";
import { MAINTENANCE_ROWS_PER_ROW_GROUP, noPause, Pacer } from "./pace.ts";

/** DuckLake's default `target_file_size` (512 MiB; the size bound of its merge candidates). */
export const DUCKLAKE_DEFAULT_TARGET_FILE_SIZE = 536_870_912;
/** DuckLake's default `rewrite_delete_threshold`: a file is rewritten once this fraction of it is deleted. */
export const DUCKLAKE_DEFAULT_REWRITE_DELETE_THRESHOLD = 0.95;
/**
 * Most input bytes (data and delete files) one compaction step reads: a step holds its inputs and their
 * decoded rows at once, and a Worker isolate has 128 MB. A group larger than this is compacted in steps.
 */
export const MAX_COMPACTION_INPUT_BYTES_PER_STEP = 16 * 1024 * 1024;
/** Most rows one compaction step decodes and writes (the other half of the step's memory bound). */
export const MAX_COMPACTION_ROWS_PER_STEP = 200_000;

/**
 * Most input GETs one step keeps in flight: a step's inputs are read together (their bytes are bounded by
 * the step limit anyway), since one after another they would add a round trip each.
 */
export const MAX_CONCURRENT_INPUT_READS = 8;

/** A step's bounds (the named limits above by default; tests pass smaller ones). */
export interface StepLimits {
  maxInputBytes: number;
  maxRows: number;
}

export const DEFAULT_STEP_LIMITS: StepLimits = {
  maxInputBytes: MAX_COMPACTION_INPUT_BYTES_PER_STEP,
  maxRows: MAX_COMPACTION_ROWS_PER_STEP,
};

/** A live data file as a compaction sees it. */
export interface Candidate {
  file: PlannedFile;
  schemaVersion: number;
  /** The file's object path below the lake's data path. */
  relativeToDataPath: string;
  /** Its live delete file's object path below the data path, if it has one. */
  deleteRelativeToDataPath: string | null;
  /** Positions deleted through `ducklake_inlined_delete_<table>`. */
  inlinedDeleted: number[];
  /** Rows deleted by its delete file and inlined deletes. */
  deletedCount: number;
}

export interface TableCandidates {
  tableId: number;
  dataPath: string;
  /** The table's directory (data path, schema path, table path). */
  tablePath: string;
  candidates: Candidate[];
}

/** A stored `target_file_size` (bytes, or DuckDB's size text such as `512MB`). */
export function targetFileSize(text: string | undefined): number {
  if (text === undefined) return DUCKLAKE_DEFAULT_TARGET_FILE_SIZE;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$/i.exec(text);
  if (!m) throw new InvalidRequest(`target_file_size ${JSON.stringify(text)} is not a size`);
  const unit = (m[2] ?? "").toLowerCase().replace(/b$/, "");
  const pow = { "": 0, k: 1, ki: 1, m: 2, mi: 2, g: 3, gi: 3, t: 4, ti: 4 }[unit];
  if (pow === undefined) throw new InvalidRequest(`target_file_size ${JSON.stringify(text)} is not a size`);
  const base = unit.endsWith("i") ? 1024 : 1000;
  return Math.floor(Number(m[1]) * base ** pow);
}

function relativeTo(dataPath: string, resolved: string, what: string): string {
  if (!resolved.startsWith(dataPath) || dataPath === "") {
    throw new InvalidRequest(`${what} ${resolved} lies outside the lake's data path; it is not compacted`);
  }
  return resolved.slice(dataPath.length);
}

/**
 * Whether the table has any data file record: one probe, so the plans skip a table without files before
 * building its scan plan (a handful of reads and decodes per table; at a few thousand tables one writer
 * pass took seconds). Ended files count too: the probe only rules out, never decides, candidacy.
 */
export async function hasDataFiles(view: ReadView, tableId: number): Promise<boolean> {
  for await (const _ of view.scan({ prefix: keys.current(Kind.dataFile, tableId) })) return true;
  return false;
}

/** The table's live files in DuckLake's candidate order, with what a compaction needs of each. */
export async function tableCandidates(
  view: ReadView,
  tableId: number,
  globalDataPath: string,
  pacer: Pacer = new Pacer(noPause),
): Promise<TableCandidates> {
  const dataPath = dataPathPrefix(globalDataPath);
  const plan = await tableFilesAt(view, tableId);
  const tablePath = tableDirOf(dataPath, plan.schema, plan.table);
  const versions = (
    await scanAll<SchemaVersionRecord>(
      view,
      keys.current(Kind.schemaVersion, tableId),
      ValueKind.schemaVersion,
      "schema version",
    )
  ).sort((a, b) => a.begin_snapshot - b.begin_snapshot);
  const versionAt = (s: number): number => {
    let sv = -1;
    for (const v of versions) if (v.begin_snapshot <= s) sv = v.schema_version;
    return sv;
  };
  // A deleted-heavy table holds as many inlined deletes as rows: read them in paced stretches (0325).
  const inlined: InlineFileDeleteRecord[] = [];
  for await (const kv of view.scan({ prefix: keys.inlineFileDeletePrefix(tableId) })) {
    inlined.push(decodeValue<InlineFileDeleteRecord>(ValueKind.inlineFileDelete, kv.value, "inlined delete"));
    await pacer.tick();
  }
  const inlinedByFile = new Map<number, number[]>();
  for (const d of inlined) {
    const list = inlinedByFile.get(d.file_id);
    if (list) list.push(d.row_id);
    else inlinedByFile.set(d.file_id, [d.row_id]);
  }
  const candidates: Candidate[] = [];
  for (const f of plan.files) {
    if (f.end_snapshot !== null) continue;
    // A file read through a name map (ducklake_add_data_files) has no field ids for this reader to match:
    // the writer's own compaction leaves it to DuckLake's (docs/decisions/0600-staged-name-maps.md).
    if (f.mapping_id !== null) continue;
    let rel: string;
    let delRel: string | null = null;
    try {
      rel = relativeTo(dataPath, f.resolved_path, "data file");
      if (f.delete_file) delRel = relativeTo(dataPath, f.delete_file.resolved_path, "delete file");
    } catch (e) {
      if (e instanceof InvalidRequest) continue;
      throw e;
    }
    const inl = inlinedByFile.get(f.data_file_id) ?? [];
    candidates.push({
      file: f,
      schemaVersion: versionAt(f.begin_snapshot),
      relativeToDataPath: rel,
      deleteRelativeToDataPath: delRel,
      inlinedDeleted: inl,
      deletedCount: (f.delete_file?.delete_count ?? 0) + inl.length,
    });
  }
  candidates.sort(
    (a, b) =>
      a.file.begin_snapshot - b.file.begin_snapshot ||
      a.file.row_id_start - b.file.row_id_start ||
      a.file.data_file_id - b.file.data_file_id,
  );
  return { tableId, dataPath, tablePath, candidates };
}

/** DuckLake's compaction group of a file: its schema version and partition. */
export function groupKey(c: Candidate): string {
  return JSON.stringify([c.schemaVersion, c.file.partition_id, c.file.x_partition_values]);
}

/**
 * DuckLake's run: from each start, take files while the total moves toward `target` (a file that would
 * move it further stops the run), each run bounded by the step limits. `size` estimates a file's output.
 */
export function greedyRuns(
  files: readonly Candidate[],
  target: number,
  size: (c: Candidate) => number,
  limits: StepLimits,
): Candidate[][] {
  const runs: Candidate[][] = [];
  let i = 0;
  while (i < files.length) {
    const run: Candidate[] = [];
    let total = 0;
    let bytes = 0;
    let rows = 0;
    for (let j = i; j < files.length; j++) {
      const c = files[j] as Candidate;
      const s = size(c);
      if (run.length > 0 && Math.abs(total + s - target) >= Math.abs(total - target)) break;
      const inBytes = c.file.file_size_bytes + (c.file.delete_file?.file_size_bytes ?? 0);
      if (
        run.length > 0 &&
        (bytes + inBytes > limits.maxInputBytes || rows + c.file.record_count > limits.maxRows)
      )
        break;
      run.push(c);
      total += s;
      bytes += inBytes;
      rows += c.file.record_count;
    }
    runs.push(run);
    i += run.length;
  }
  return runs;
}

/** The columns a file of `c`'s schema version holds (those visible at its begin snapshot). */
export async function columnsOf(view: ReadView, tableId: number, c: Candidate): Promise<ColumnRecord[]> {
  return (await tableFilesAt(view, tableId, c.file.begin_snapshot)).columns;
}

/** One row of a compacted file: the user columns as Parquet values, its row id and insert snapshot. */
export interface CompactedRow {
  values: ParquetRow;
  rowId: bigint;
  snapshotId: bigint;
}

/**
 * The rows of one input file that survive `deleted` (positions), in file order, re-laid under `top`: each
 * value goes through the layout (file value → stored value → Parquet value) matched by field id, and the
 * row keeps its id (the file's `_ducklake_internal_row_id`, else row_id_start + position) and snapshot
 * (the file's `_ducklake_internal_snapshot_id`, else its begin snapshot). Decoded one row group and
 * re-laid MAINTENANCE_ROWS_PER_PAUSE rows per stretch (decision 0325).
 */
export async function inputRows(
  top: readonly LayoutColumn[],
  c: Candidate,
  bytes: Uint8Array,
  deleted: ReadonlySet<number>,
  pacer: Pacer,
): Promise<CompactedRow[]> {
  const read = await readParquet(bytes, { pause: pacer.pause });
  if (read.rowCount !== c.file.record_count) {
    throw new Corruption(
      `data file ${c.file.data_file_id} holds ${read.rowCount} rows but the catalog registered ${c.file.record_count}`,
    );
  }
  const byField = new Map<number, string>();
  let rowIdName: string | null = null;
  let snapshotName: string | null = null;
  // Top-level schema elements: the root's direct children, found by walking num_children.
  let i = 1;
  while (i < read.schema.length) {
    const el = read.schema[i];
    if (!el) break;
    if (el.field_id === ROW_ID_FIELD_ID) rowIdName = el.name;
    else if (el.field_id === SNAPSHOT_ID_FIELD_ID) snapshotName = el.name;
    else if (el.field_id !== undefined) byField.set(el.field_id, el.name);
    i += subtreeSize(read.schema, i);
  }
  const out: CompactedRow[] = [];
  for (const [pos, row] of read.rows.entries()) {
    await pacer.tick();
    if (deleted.has(pos)) continue;
    const values: ParquetRow = {};
    for (const col of top) {
      const name = byField.get(col.column.column_id) ?? col.column.column_name;
      values[col.column.column_name] = toParquetValue(col, fromParquetValue(col, row[name] ?? null));
    }
    const rid = rowIdName ? row[rowIdName] : null;
    const sid = snapshotName ? row[snapshotName] : null;
    out.push({
      values,
      rowId: typeof rid === "bigint" ? rid : BigInt(c.file.row_id_start + pos),
      snapshotId: typeof sid === "bigint" ? sid : BigInt(c.file.begin_snapshot),
    });
  }
  return out;
}

function subtreeSize(schema: ReturnType<typeof Array.prototype.slice>, at: number): number {
  let n = 1;
  const el = schema[at] as { num_children?: number } | undefined;
  let k = el?.num_children ?? 0;
  let j = at + 1;
  while (k > 0) {
    const s = subtreeSize(schema, j);
    n += s;
    j += s;
    k--;
  }
  return n;
}

/** Reads every path with at most MAX_CONCURRENT_INPUT_READS in flight; answers the bytes in path order. */
export async function readAll(
  paths: readonly string[],
  read: (relativeToDataPath: string) => Promise<Uint8Array>,
): Promise<Uint8Array[]> {
  const out: Uint8Array[] = new Array(paths.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const i = next++;
      out[i] = await read(paths[i] as string);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_CONCURRENT_INPUT_READS, paths.length) }, worker));
  return out;
}

/** Positions a delete file marks (every row of a live delete file applies at the head). */
export async function deletePositions(bytes: Uint8Array, pacer: Pacer): Promise<number[]> {
  return (await readParquet(bytes, { pause: pacer.pause })).rows.map((r) => Number(r.pos));
}

/**
 * The compacted file: the user columns (field id = column id), then `_ducklake_internal_row_id` and/or
 * `_ducklake_internal_snapshot_id` as DuckLake writes them, and the verb's file spec with the stats
 * stock DuckLake registers (the internal columns get none). Laid out and encoded in paced stretches
 * (decision 0325).
 */
export async function writeCompacted(
  cols: readonly ColumnRecord[],
  rows: readonly CompactedRow[],
  internal: { rowId: boolean; snapshotId: boolean },
  name: string,
  pacer: Pacer,
): Promise<{ file: WrittenFile; spec: DataFileSpec }> {
  const fields: ParquetField[] = [...parquetFields(cols)];
  if (internal.rowId) fields.push(ROW_ID_FIELD);
  if (internal.snapshotId) fields.push(SNAPSHOT_ID_FIELD);
  const prows: ParquetRow[] = [];
  for (const r of rows) {
    prows.push({
      ...r.values,
      ...(internal.rowId ? { [ROW_ID_COLUMN]: r.rowId } : {}),
      ...(internal.snapshotId ? { [SNAPSHOT_ID_COLUMN]: r.snapshotId } : {}),
    });
    await pacer.tick();
  }
  const file = await writeParquetPaced(fields, prows, {
    pause: pacer.pause,
    rowGroupSize: MAINTENANCE_ROWS_PER_ROW_GROUP,
  });
  return { file, spec: writtenFileSpec(name, cols, file, rows.length) };
}

/** `layoutColumns` re-exported for the plans (one import site). */
export { layoutColumns };
