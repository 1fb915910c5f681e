/**
 * Writing one Parquet file from rows: validates every value against its field's type, computes each
 * leaf's statistics, and encodes with hyparquet-writer (decision record
 * `docs/decisions/0300-parquet-library.md`). The result carries what a catalog registers for the file:
 * bytes, row count, footer size, and per-leaf stats with compressed sizes.
 */
import { parquetMetadata } from "hyparquet";
import { ByteWriter, type ColumnSource, ParquetWriter, parquetWriteBuffer } from "hyparquet-writer";
import { ParquetInvalid } from "./errors.ts";
import { MAX_ROWS_PER_FILE, PACED_ROWS_PER_ROW_GROUP, ROWS_PER_ROW_GROUP } from "./limits.ts";
import { schemaElements } from "./schema.ts";
import { type LeafAccumulator, leavesOf, observe } from "./stats.ts";
import type { LeafStats, ParquetField, ParquetRow, ParquetType, ParquetValue, WrittenFile } from "./types.ts";
import { checkValue } from "./validate.ts";

export interface WriteOptions {
  /** Rows per row group (default ROWS_PER_ROW_GROUP). */
  rowGroupSize?: number;
  /** FileMetaData created_by. */
  createdBy?: string;
}

/** Feeds one value (and everything below it) into the leaf accumulators of its field, in order. */
function observeField(type: ParquetType, v: ParquetValue, accs: LeafAccumulator[], at: { i: number }): void {
  const start = at.i;
  const count = countLeaves(type);
  if (type.kind === "list") {
    const items = Array.isArray(v) ? v : [];
    if (items.length === 0) {
      for (let k = 0; k < count; k++) {
        const acc = accs[start + k];
        if (acc) observe(acc, null);
      }
    } else {
      for (const item of items) {
        at.i = start;
        observeField(type.element.type, item, accs, at);
      }
    }
    at.i = start + count;
    return;
  }
  if (type.kind === "map") {
    const entries = Array.isArray(v) ? (v as { key: ParquetValue; value: ParquetValue }[]) : [];
    const keyLeaves = countLeaves(type.key.type);
    if (entries.length === 0) {
      for (let k = 0; k < count; k++) {
        const acc = accs[start + k];
        if (acc) observe(acc, null);
      }
    } else {
      for (const e of entries) {
        at.i = start;
        observeField(type.key.type, e.key, accs, at);
        at.i = start + keyLeaves;
        observeField(type.value.type, e.value, accs, at);
      }
    }
    at.i = start + count;
    return;
  }
  if (type.kind === "struct") {
    const obj =
      v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array) ? v : null;
    for (const f of type.fields) {
      observeField(f.type, obj ? (obj[f.name] ?? null) : null, accs, at);
    }
    return;
  }
  const acc = accs[at.i];
  if (acc) observe(acc, v);
  at.i++;
}

function countLeaves(type: ParquetType): number {
  if (type.kind === "list") return countLeaves(type.element.type);
  if (type.kind === "map") return countLeaves(type.key.type) + countLeaves(type.value.type);
  if (type.kind === "struct") return type.fields.reduce((n, f) => n + countLeaves(f.type), 0);
  return 1;
}

/** Values as hyparquet-writer takes them (JSON text parsed so it is written once, not re-quoted). */
function toWriterValue(type: ParquetType, v: ParquetValue): unknown {
  if (v === null) return null;
  switch (type.kind) {
    case "json":
      return JSON.parse(v as string);
    case "list":
      return (v as ParquetValue[]).map((x) => toWriterValue(type.element.type, x));
    case "map":
      return (v as { key: ParquetValue; value: ParquetValue }[]).map((e) => ({
        key: toWriterValue(type.key.type, e.key),
        value: toWriterValue(type.value.type, e.value),
      }));
    case "struct": {
      const o = v as Record<string, ParquetValue>;
      const out: Record<string, unknown> = {};
      for (const f of type.fields) out[f.name] = toWriterValue(f.type, o[f.name] ?? null);
      return out;
    }
    default:
      return v;
  }
}

/** Checks a file's shape before any row is read: at least one column, names unique, rows bounded. */
function checkShape(fields: readonly ParquetField[], rowCount: number): void {
  if (fields.length === 0) throw new ParquetInvalid("a Parquet file needs at least one column");
  if (rowCount > MAX_ROWS_PER_FILE) {
    throw new ParquetInvalid(`${rowCount} rows exceed the ${MAX_ROWS_PER_FILE} rows one file may hold`);
  }
  const names = new Set<string>();
  for (const f of fields) {
    if (names.has(f.name)) throw new ParquetInvalid(`column ${JSON.stringify(f.name)} appears twice`);
    names.add(f.name);
  }
}

/**
 * Validates rows [from, to), feeds them to the leaf accumulators and answers them as hyparquet-writer's
 * column data (one array per field, `to - from` long).
 */
function layRows(
  fields: readonly ParquetField[],
  accs: LeafAccumulator[][],
  rows: readonly ParquetRow[],
  from: number,
  to: number,
): ColumnSource[] {
  const columns: unknown[][] = fields.map(() => new Array<unknown>(to - from));
  for (let r = from; r < to; r++) {
    const row = rows[r] as ParquetRow;
    fields.forEach((f, c) => {
      const v = row[f.name] ?? null;
      checkValue(f, v, `row ${r}, column ${f.name}`);
      observeField(f.type, v, accs[c] ?? [], { i: 0 });
      const col = columns[c];
      if (col) col[r - from] = toWriterValue(f.type, v);
    });
  }
  return fields.map((f, c) => ({ name: f.name, data: columns[c] ?? [] }) as unknown as ColumnSource);
}

/** The written file: its bytes, footer size and per-leaf stats (compressed sizes from its footer). */
function describe(buffer: ArrayBuffer, accs: LeafAccumulator[][], rowCount: number): WrittenFile {
  const bytes = new Uint8Array(buffer);
  const tail = new DataView(buffer, buffer.byteLength - 8, 4);
  const footerSize = tail.getUint32(0, true);
  const meta = parquetMetadata(buffer);
  const sizes = new Map<string, number>();
  for (const rg of meta.row_groups) {
    for (const chunk of rg.columns) {
      const md = chunk.meta_data;
      if (!md) continue;
      const key = md.path_in_schema.filter((p) => p !== "list" && p !== "key_value").join(".");
      sizes.set(key, (sizes.get(key) ?? 0) + Number(md.total_compressed_size));
    }
  }
  const leaves: LeafStats[] = accs.flat().map((a) => {
    const s: LeafStats = {
      path: a.path,
      valueCount: a.valueCount,
      nullCount: a.nullCount,
      min: a.min,
      max: a.max,
      containsNan: a.containsNan,
      compressedBytes: sizes.get(a.path) ?? 0,
    };
    if (a.fieldId !== undefined) s.fieldId = a.fieldId;
    return s;
  });
  return { bytes, rowCount, footerSize, leaves };
}

const CREATED_BY = "ducklake-edge";

export function writeParquet(
  fields: readonly ParquetField[],
  rows: readonly ParquetRow[],
  options: WriteOptions = {},
): WrittenFile {
  checkShape(fields, rows.length);
  const accs = fields.map((f) => leavesOf(f));
  const columnData = layRows(fields, accs, rows, 0, rows.length);
  const buffer = parquetWriteBuffer({
    schema: schemaElements(fields),
    columnData,
    rowGroupSize: options.rowGroupSize ?? ROWS_PER_ROW_GROUP,
    createdBy: options.createdBy ?? CREATED_BY,
    statisticsTruncateLength: Number.POSITIVE_INFINITY,
  });
  return describe(buffer, accs, rows.length);
}

export interface PacedWriteOptions {
  /**
   * Rows per row group, which is also the most rows validated, laid out and encoded between two pauses
   * (default PACED_ROWS_PER_ROW_GROUP).
   */
  rowGroupSize?: number;
  createdBy?: string;
  /** Awaited after every row group: the caller's yield to its event loop (decision 0325). */
  pause: () => Promise<void>;
}

/**
 * `writeParquet` in pieces: one row group at a time (validate, accumulate stats, encode its column
 * chunks), awaiting `pause` after each, so a large file never holds the event loop for more than one row
 * group's work (decision docs/decisions/0325-paced-maintenance.md). With the same `rowGroupSize` the bytes
 * equal `writeParquet`'s exactly: the same writer writes the same row groups and the same footer.
 */
export async function writeParquetPaced(
  fields: readonly ParquetField[],
  rows: readonly ParquetRow[],
  options: PacedWriteOptions,
): Promise<WrittenFile> {
  checkShape(fields, rows.length);
  const groupRows = options.rowGroupSize ?? PACED_ROWS_PER_ROW_GROUP;
  if (!Number.isInteger(groupRows) || groupRows < 1) {
    throw new ParquetInvalid(`row group size ${groupRows} is not a positive integer`);
  }
  const accs = fields.map((f) => leavesOf(f));
  const out = new ByteWriter();
  const pq = new ParquetWriter({
    writer: out,
    schema: schemaElements(fields),
    createdBy: options.createdBy ?? CREATED_BY,
    statisticsTruncateLength: Number.POSITIVE_INFINITY,
  });
  for (let from = 0; from < rows.length; from += groupRows) {
    const to = Math.min(rows.length, from + groupRows);
    const written = pq.write({ columnData: layRows(fields, accs, rows, from, to), rowGroupSize: groupRows });
    if (written) await written;
    await options.pause();
  }
  const finished = pq.finish();
  if (finished) await finished;
  return describe(out.getBuffer(), accs, rows.length);
}
