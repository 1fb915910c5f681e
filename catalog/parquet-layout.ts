/**
 * How a DuckLake table lies in a Parquet file, as stock DuckLake 1.5.5 writes it: the Parquet field of
 * each column (field id = column id on every element, nested ones included), a stored value's Parquet
 * value and back, and the `ducklake_file_column_stats` rows DuckLake registers for a written file.
 * The rules are checked against stock DuckLake by `tools/parquet-layout-stats.py` →
 * `test/fixtures/parquet-layout-stats.json` (`test/catalog/parquet-layout.test.ts`); decision
 * `docs/decisions/0320-parquet-layout.md` says what differs from DuckDB and why. Value rules (stored
 * forms, DuckDB's text) are `catalog/values/`'s; this file only maps between them and Parquet.
 */

import type { z } from "zod";
import {
  type LeafStats,
  PARQUET_INT64,
  type ParquetField,
  type ParquetRow,
  type ParquetType,
  type ParquetValue,
  type WrittenFile,
} from "../parquet/index.ts";
import { Unsupported } from "./errors.ts";
import type { ColumnRecord, FileColumnStats } from "./records.ts";
import {
  blobBytes,
  blobFromBytes,
  dateEpochDays,
  dateFromEpochDays,
  decimalParams,
  floatOf,
  floatText,
  type StoredValue,
  type TimestampType,
  timeFromMicros,
  timeMicros,
  timestampEpochNanos,
  timestampFromEpochNanos,
} from "./values/index.ts";
import type { ColumnStatsSchema, DataFileSpec } from "./verbs/schema.ts";

/**
 * Field ids DuckLake gives its internal columns (read from files stock DuckLake 1.5.5 writes); the one home:
 * every writer and reader of those columns imports them from here.
 */
export const ROW_ID_FIELD_ID = 2147483540;
export const SNAPSHOT_ID_FIELD_ID = 2147483539;
export const DELETE_FILE_PATH_FIELD_ID = 2147483646;
export const DELETE_POS_FIELD_ID = 2147483645;

/** DuckLake's internal columns' names: a row's id and its snapshot, in data files and delete files. */
export const ROW_ID_COLUMN = "_ducklake_internal_row_id";
export const SNAPSHOT_ID_COLUMN = "_ducklake_internal_snapshot_id";

/**
 * The internal columns' Parquet fields as DuckLake writes them (BIGINT, nullable): the one declaration
 * every writer of a flushed, compacted or rewritten file (and of a flush's delete file) appends.
 */
export const ROW_ID_FIELD: ParquetField = {
  name: ROW_ID_COLUMN,
  fieldId: ROW_ID_FIELD_ID,
  type: PARQUET_INT64,
  nullable: true,
};
export const SNAPSHOT_ID_FIELD: ParquetField = {
  name: SNAPSHOT_ID_COLUMN,
  fieldId: SNAPSHOT_ID_FIELD_ID,
  type: PARQUET_INT64,
  nullable: true,
};
/** A position delete file's columns (DuckLake's, as Iceberg's): the data file's path and the row's position. */
export const DELETE_FILE_PATH_FIELD: ParquetField = {
  name: "file_path",
  fieldId: DELETE_FILE_PATH_FIELD_ID,
  type: { kind: "string" },
  nullable: true,
};
export const DELETE_POS_FIELD: ParquetField = {
  name: "pos",
  fieldId: DELETE_POS_FIELD_ID,
  type: PARQUET_INT64,
  nullable: true,
};

/** A column with its children (in column order): the shape the layout walks. */
export interface LayoutColumn {
  column: ColumnRecord;
  children: LayoutColumn[];
}

/** A type this layout does not write to Parquet yet (the table stays inlined; the job reports it). */
export class LayoutUnsupported extends Unsupported {}

/** The top-level columns of a table (records of one schema version) as trees, in column order. */
export function layoutColumns(cols: readonly ColumnRecord[]): LayoutColumn[] {
  const build = (c: ColumnRecord): LayoutColumn => ({
    column: c,
    children: cols
      .filter((x) => x.parent_column === c.column_id)
      .sort((a, b) => a.column_order - b.column_order)
      .map(build),
  });
  return cols
    .filter((c) => c.parent_column === null)
    .sort((a, b) => a.column_order - b.column_order)
    .map(build);
}

const INT_TYPES: Record<string, { bits: 8 | 16 | 32 | 64; signed: boolean }> = {
  int8: { bits: 8, signed: true },
  int16: { bits: 16, signed: true },
  int32: { bits: 32, signed: true },
  int64: { bits: 64, signed: true },
  uint8: { bits: 8, signed: false },
  uint16: { bits: 16, signed: false },
  uint32: { bits: 32, signed: false },
  uint64: { bits: 64, signed: false },
};

/** DuckDB writes HUGEINT/UHUGEINT as DOUBLE and registers no min/max for them (0320). */
const AS_DOUBLE = new Set(["int128", "uint128"]);

/** Parquet timestamp unit per DuckLake timestamp type; TIMESTAMP_S is written as microseconds (0320). */
const TIMESTAMP_UNITS: Record<string, { unit: "ms" | "us" | "ns"; utc: boolean }> = {
  timestamp: { unit: "us", utc: false },
  timestamp_us: { unit: "us", utc: false },
  timestamp_s: { unit: "us", utc: false },
  timestamp_ms: { unit: "ms", utc: false },
  timestamp_ns: { unit: "ns", utc: false },
  timestamptz: { unit: "us", utc: true },
};

const NANOS_PER: Record<"ms" | "us" | "ns", bigint> = { ms: 1_000_000n, us: 1000n, ns: 1n };

function childAt(c: LayoutColumn, i: number): LayoutColumn {
  const ch = c.children[i];
  if (!ch)
    throw new Unsupported(`column ${c.column.column_name} of type ${c.column.column_type} lacks child ${i}`);
  return ch;
}

function parquetType(c: LayoutColumn): ParquetType {
  const type = c.column.column_type;
  const int = INT_TYPES[type];
  if (int) return { kind: "int", ...int };
  if (AS_DOUBLE.has(type) || type === "float64") return { kind: "double" };
  if (type === "float32") return { kind: "float" };
  const dec = decimalParams(type);
  if (dec) return { kind: "decimal", precision: dec.width, scale: dec.scale };
  const ts = TIMESTAMP_UNITS[type];
  if (ts) return { kind: "timestamp", ...ts };
  switch (type) {
    case "boolean":
      return { kind: "boolean" };
    case "varchar":
      return { kind: "string" };
    case "json":
      return { kind: "json" };
    case "blob":
      return { kind: "blob" };
    case "uuid":
      return { kind: "uuid" };
    case "date":
      return { kind: "date" };
    case "time":
      return { kind: "time" };
    case "list":
      return { kind: "list", element: parquetField(childAt(c, 0)) };
    case "struct":
      return { kind: "struct", fields: c.children.map(parquetField) };
    case "map":
      return { kind: "map", key: parquetField(childAt(c, 0)), value: parquetField(childAt(c, 1)) };
    default:
      throw new LayoutUnsupported(
        `column ${c.column.column_name}: type ${type} is not written to Parquet by this catalog yet`,
      );
  }
}

/** The Parquet field of a column: its name, field id = column id, all levels nullable as DuckDB writes. */
export function parquetField(c: LayoutColumn): ParquetField {
  return { name: c.column.column_name, fieldId: c.column.column_id, type: parquetType(c), nullable: true };
}

/** The Parquet fields of a table's columns, in column order. */
export function parquetFields(cols: readonly ColumnRecord[]): ParquetField[] {
  return layoutColumns(cols).map(parquetField);
}

function isObject(v: StoredValue): v is { [key: string]: StoredValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function bigintOf(v: StoredValue): bigint {
  return BigInt(typeof v === "number" ? v : String(v));
}

/** The unscaled integer of a stored decimal text with exactly `scale` fraction digits. */
function unscaled(text: string): bigint {
  return BigInt(text.replace(".", ""));
}

function decimalText(v: bigint, scale: number): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, "0");
  const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return neg ? `-${body}` : body;
}

/** A stored value (catalog/values' form) of a column as the Parquet value parquet/ writes. */
export function toParquetValue(c: LayoutColumn, v: StoredValue): ParquetValue {
  if (v === null) return null;
  const type = c.column.column_type;
  if (type === "list" && Array.isArray(v)) {
    const el = childAt(c, 0);
    return v.map((x) => toParquetValue(el, x));
  }
  if (type === "struct" && isObject(v)) {
    const out: { [k: string]: ParquetValue } = {};
    for (const ch of c.children)
      out[ch.column.column_name] = toParquetValue(ch, v[ch.column.column_name] ?? null);
    return out;
  }
  if (type === "map" && Array.isArray(v)) {
    const [k, val] = [childAt(c, 0), childAt(c, 1)];
    return v.map((e) => {
      const entry = isObject(e) ? e : {};
      return { key: toParquetValue(k, entry.key ?? null), value: toParquetValue(val, entry.value ?? null) };
    });
  }
  const int = INT_TYPES[type];
  if (int) return int.bits === 64 ? bigintOf(v) : Number(v);
  if (AS_DOUBLE.has(type)) return Number(v);
  if (type === "float32" || type === "float64") return floatOf(v);
  if (decimalParams(type)) return unscaled(String(v));
  const ts = TIMESTAMP_UNITS[type];
  if (ts) return timestampEpochNanos(String(v)) / NANOS_PER[ts.unit];
  switch (type) {
    case "boolean":
      return Boolean(v);
    case "varchar":
    case "json":
    case "uuid":
      return String(v);
    case "blob":
      return blobBytes(String(v));
    case "date":
      return dateEpochDays(String(v));
    case "time":
      return timeMicros(String(v));
    default:
      throw new LayoutUnsupported(
        `column ${c.column.column_name}: type ${type} is not written to Parquet yet`,
      );
  }
}

/** A Parquet value read back (parquet/'s `readParquet`) as the column's stored value. */
export function fromParquetValue(c: LayoutColumn, v: ParquetValue): StoredValue {
  if (v === null) return null;
  const type = c.column.column_type;
  if (type === "list" && Array.isArray(v)) {
    const el = childAt(c, 0);
    return v.map((x) => fromParquetValue(el, x));
  }
  if (type === "struct" && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array)) {
    const out: { [k: string]: StoredValue } = {};
    for (const ch of c.children)
      out[ch.column.column_name] = fromParquetValue(ch, v[ch.column.column_name] ?? null);
    return out;
  }
  if (type === "map" && Array.isArray(v)) {
    const [k, val] = [childAt(c, 0), childAt(c, 1)];
    return v.map((e) => {
      const entry =
        e !== null && typeof e === "object" && !Array.isArray(e) && !(e instanceof Uint8Array) ? e : {};
      return {
        key: fromParquetValue(k, entry.key ?? null),
        value: fromParquetValue(val, entry.value ?? null),
      };
    });
  }
  const int = INT_TYPES[type];
  if (int || AS_DOUBLE.has(type)) {
    const n = typeof v === "bigint" ? v : BigInt(Math.round(Number(v)));
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(n)
      : n.toString();
  }
  if (type === "float32" || type === "float64") {
    const x = Number(v);
    if (Number.isNaN(x)) return "NaN";
    if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
    return Object.is(x, -0) ? "-0" : x;
  }
  const dec = decimalParams(type);
  if (dec) return decimalText(BigInt(v as bigint), dec.scale);
  const ts = TIMESTAMP_UNITS[type];
  if (ts) return timestampFromEpochNanos(type as TimestampType, BigInt(v as bigint) * NANOS_PER[ts.unit]);
  switch (type) {
    case "boolean":
      return Boolean(v);
    case "varchar":
    case "json":
    case "uuid":
      return String(v);
    case "blob":
      return blobFromBytes(v instanceof Uint8Array ? v : new Uint8Array());
    case "date":
      return dateFromEpochDays(Number(v));
    case "time":
      return timeFromMicros(BigInt(v as bigint));
    default:
      throw new LayoutUnsupported(
        `column ${c.column.column_name}: type ${type} is not read from Parquet yet`,
      );
  }
}

/** A table row (stored values keyed by column name) as the Parquet row of the table's fields. */
export function toParquetRow(
  columns: readonly LayoutColumn[],
  row: { [name: string]: StoredValue },
): ParquetRow {
  const out: ParquetRow = {};
  for (const c of columns) out[c.column.column_name] = toParquetValue(c, row[c.column.column_name] ?? null);
  return out;
}

function leafColumns(c: LayoutColumn): LayoutColumn[] {
  return c.children.length === 0 ? [c] : c.children.flatMap(leafColumns);
}

/** DuckLake's min/max text of a leaf's Parquet value (DuckDB's printing of the column's type). */
function statText(c: LayoutColumn, v: ParquetValue): string | null {
  if (v === null) return null;
  const type = c.column.column_type;
  if (AS_DOUBLE.has(type)) return null;
  if (type === "blob" && v instanceof Uint8Array)
    return Array.from(v, (b) => b.toString(16).toUpperCase().padStart(2, "0")).join("");
  if (type === "boolean") return v ? "1" : "0";
  if (type === "float32" || type === "float64") return floatText(Number(v), type === "float32");
  const stored = fromParquetValue(c, v);
  return typeof stored === "string" ? stored : String(stored);
}

/**
 * The `ducklake_file_column_stats` rows stock DuckLake registers for a written file: one per leaf column
 * (none for list/struct/map parents), `value_count` the non-null values, `null_count` the null or empty
 * slots, min/max as DuckDB prints the type (none for HUGEINT/UHUGEINT), `contains_nan` only for floats.
 */
export function fileColumnStats(cols: readonly ColumnRecord[], file: WrittenFile): FileColumnStats[] {
  const byId = new Map<number, LeafStats>();
  for (const leaf of file.leaves) if (leaf.fieldId !== undefined) byId.set(leaf.fieldId, leaf);
  const out: FileColumnStats[] = [];
  for (const leaf of layoutColumns(cols).flatMap(leafColumns)) {
    const id = leaf.column.column_id;
    const s = byId.get(id);
    if (!s) throw new Unsupported(`the written file has no leaf with field id ${id}`);
    const type = leaf.column.column_type;
    const isFloat = type === "float32" || type === "float64";
    out.push({
      column_id: id,
      column_size_bytes: s.compressedBytes,
      value_count: s.valueCount - s.nullCount,
      null_count: s.nullCount,
      min_value: statText(leaf, s.min),
      max_value: statText(leaf, s.max),
      contains_nan: isFloat ? s.containsNan : null,
      extra_stats: null,
    });
  }
  return out.sort((a, b) => a.column_id - b.column_id);
}

/** A stats row as the file-registering verbs take it (`register_data_file` and the compaction verbs). */
export type VerbColumnStats = z.infer<typeof ColumnStatsSchema>;

/**
 * A written file's `ducklake_file_column_stats` rows as the verbs' `columnStats`: the one translation the
 * flusher, the rows flusher, compaction and the Quack rewrite share, so what they register is what the file's
 * stats rows say.
 */
export function verbColumnStats(stats: readonly FileColumnStats[]): VerbColumnStats[] {
  return stats.map((s) => ({
    column: { id: s.column_id },
    ...(s.column_size_bytes !== null ? { columnSizeBytes: s.column_size_bytes } : {}),
    ...(s.value_count !== null ? { valueCount: s.value_count } : {}),
    ...(s.null_count !== null ? { nullCount: s.null_count } : {}),
    min: s.min_value,
    max: s.max_value,
    ...(s.contains_nan !== null ? { containsNan: s.contains_nan } : {}),
    ...(s.extra_stats !== null ? { extraStats: s.extra_stats } : {}),
  }));
}

/**
 * The verbs' file spec of a Parquet file the lake wrote itself (the inline flush, the rows flusher,
 * compaction): named relative to its table's directory, with the stats its leaves carry. One builder, so the
 * three jobs register the same columns of the same file the same way.
 */
export function writtenFileSpec(
  name: string,
  cols: readonly ColumnRecord[],
  file: WrittenFile,
  recordCount: number,
): DataFileSpec {
  return {
    path: name,
    pathIsRelative: true,
    format: "parquet",
    recordCount,
    fileSizeBytes: file.bytes.byteLength,
    footerSize: file.footerSize,
    columnStats: verbColumnStats(fileColumnStats(cols, file)),
  };
}
