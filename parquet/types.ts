/**
 * The Parquet column types this leaf writes and reads, described in Parquet's own terms (what DuckDB
 * reads back as which type), and the JS value of each. No DuckLake rules live here: which DuckLake
 * column type maps to which Parquet type, and how stats become catalog strings, is `catalog/`'s.
 */

export type ParquetType =
  | { kind: "boolean" }
  | { kind: "int"; bits: 8 | 16 | 32 | 64; signed: boolean }
  | { kind: "float" }
  | { kind: "double" }
  /** Unscaled value in a bigint: 12.34 as decimal(4,2) is 1234n. Precision 1–38. */
  | { kind: "decimal"; precision: number; scale: number }
  | { kind: "string" }
  | { kind: "json" }
  | { kind: "blob" }
  /** Canonical 8-4-4-4-12 string. */
  | { kind: "uuid" }
  /** Days since 1970-01-01 (number). */
  | { kind: "date" }
  /** Microseconds since midnight (bigint). */
  | { kind: "time" }
  /** Ticks since the epoch in `unit` (bigint); `utc` true is DuckDB's TIMESTAMP WITH TIME ZONE. */
  | { kind: "timestamp"; unit: "ms" | "us" | "ns"; utc: boolean }
  | { kind: "list"; element: ParquetField }
  | { kind: "struct"; fields: readonly ParquetField[] }
  /** Entries as an array of `{ key, value }`; keys are never null. */
  | { kind: "map"; key: ParquetField; value: ParquetField };

/** A signed 64-bit integer: the type of DuckLake's internal row-id, snapshot-id and delete-position columns. */
export const PARQUET_INT64 = { kind: "int", bits: 64, signed: true } as const satisfies ParquetType;

export interface ParquetField {
  name: string;
  /** Parquet field_id (DuckLake resolves columns by it). */
  fieldId?: number;
  type: ParquetType;
  nullable: boolean;
}

/**
 * A value of a ParquetType: boolean; number for int 8–32, float, double and date; bigint for int64,
 * decimal, time and timestamp; string for string, json (the JSON text) and uuid; Uint8Array for blob;
 * arrays for lists; objects keyed by field name for structs; `{key, value}[]` for maps; null.
 */
export type ParquetValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | ParquetValue[]
  | { [field: string]: ParquetValue };

export type ParquetRow = Record<string, ParquetValue>;

/** Statistics of one leaf column of a written file, as DuckDB computes them. */
export interface LeafStats {
  /** Dotted path of the leaf from the top-level field (`s.a`, `l.element`). */
  path: string;
  fieldId?: number;
  /** Values stored for this leaf, nulls included (Parquet's `num_values`). */
  valueCount: number;
  nullCount: number;
  /** Smallest and largest non-null, non-NaN value, or null if there is none. */
  min: ParquetValue;
  max: ParquetValue;
  containsNan: boolean;
  /** Compressed bytes of the leaf's column chunks (what DuckLake calls `column_size_bytes`). */
  compressedBytes: number;
}

export interface WrittenFile {
  bytes: Uint8Array;
  rowCount: number;
  /** Length of the Thrift footer (FileMetaData), as DuckLake records `footer_size`. */
  footerSize: number;
  leaves: LeafStats[];
}
