/**
 * What a SQL statement over the `ducklake_*` tables answers, in DuckDB's terms: typed columns and rows.
 * This is the contract between `catalog/sql/` (what DuckLake's SQL means: it produces these) and
 * `worker/quack/` (the Quack wire codec: it encodes them as DuckDB logical types and data chunks).
 * Nothing here knows about the wire; nothing in the codec knows about DuckLake.
 */

/** A DuckDB logical type, as much of it as DuckLake's metadata and inlined-data tables use. */
export type SqlType =
  | {
      id:
        | "BOOLEAN"
        | "TINYINT"
        | "SMALLINT"
        | "INTEGER"
        | "BIGINT"
        | "UTINYINT"
        | "USMALLINT"
        | "UINTEGER"
        | "UBIGINT"
        | "HUGEINT"
        | "UHUGEINT"
        | "FLOAT"
        | "DOUBLE"
        | "VARCHAR"
        | "BLOB"
        | "DATE"
        | "TIME"
        | "TIME WITH TIME ZONE"
        | "TIMESTAMP"
        | "TIMESTAMP_S"
        | "TIMESTAMP_MS"
        | "TIMESTAMP_NS"
        | "TIMESTAMP WITH TIME ZONE"
        | "INTERVAL"
        | "UUID"
        | "JSON"
        | "VARIANT"
        | "SQLNULL";
    }
  | { id: "DECIMAL"; width: number; scale: number }
  | { id: "LIST"; child: SqlType }
  | { id: "ARRAY"; child: SqlType; size: number }
  | { id: "STRUCT"; fields: readonly SqlField[] }
  | { id: "MAP"; key: SqlType; value: SqlType };

/**
 * DuckDB's physical form of a VARIANT (its type id 109 carries these children as STRUCT type info): per
 * row the object keys, the object/array children (key index, value index), the values (type tag, byte
 * offset into data) and the data bytes (docs/decisions/0701-variant-wire.md). A VARIANT's SqlValue is a
 * record of exactly these fields.
 */
export const VARIANT_PHYSICAL: SqlType = {
  id: "STRUCT",
  fields: [
    { name: "keys", type: { id: "LIST", child: { id: "VARCHAR" } } },
    {
      name: "children",
      type: {
        id: "LIST",
        child: {
          id: "STRUCT",
          fields: [
            { name: "keys_index", type: { id: "UINTEGER" } },
            { name: "values_index", type: { id: "UINTEGER" } },
          ],
        },
      },
    },
    {
      name: "values",
      type: {
        id: "LIST",
        child: {
          id: "STRUCT",
          fields: [
            { name: "type_id", type: { id: "UTINYINT" } },
            { name: "byte_offset", type: { id: "UINTEGER" } },
          ],
        },
      },
    },
    { name: "data", type: { id: "BLOB" } },
  ],
};

export interface SqlField {
  name: string;
  type: SqlType;
}

/**
 * A value of a SqlType. Representation per type (the codec relies on exactly this):
 * - BOOLEAN: boolean
 * - TINYINT..INTEGER, UTINYINT..UINTEGER, FLOAT, DOUBLE: number
 * - BIGINT, UBIGINT, HUGEINT, UHUGEINT: bigint
 * - DECIMAL(w,s): bigint holding the unscaled value (12.34 as DECIMAL(4,2) is 1234n)
 * - VARCHAR, JSON: string; BLOB: Uint8Array; UUID: string in canonical 8-4-4-4-12 lower-case form
 * - DATE: number of days since 1970-01-01
 * - TIME: bigint microseconds since midnight; TIME WITH TIME ZONE: { micros: bigint; offsetSeconds: number }
 * - TIMESTAMP, TIMESTAMP WITH TIME ZONE: bigint microseconds since the epoch (UTC);
 *   TIMESTAMP_S / _MS / _NS: bigint in seconds / milliseconds / nanoseconds
 * - INTERVAL: { months: number; days: number; micros: bigint }
 * - LIST / ARRAY: SqlValue[]; STRUCT: an object keyed by field name (every field present, possibly null);
 *   MAP: array of { key, value }; VARIANT: a record of VARIANT_PHYSICAL's fields
 * - null is NULL for every type.
 */
export type SqlValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | SqlValue[]
  | { [field: string]: SqlValue }
  | SqlInterval
  | SqlTimeTz;

export interface SqlInterval {
  months: number;
  days: number;
  micros: bigint;
}

export interface SqlTimeTz {
  micros: bigint;
  offsetSeconds: number;
}

export interface SqlColumn {
  name: string;
  type: SqlType;
}

/** A statement's answer: columns and rows (each row has one value per column, in column order). */
export interface SqlResult {
  columns: readonly SqlColumn[];
  rows: readonly SqlValue[][];
}

/** Shorthands for the common scalar types. */
export const T = {
  BOOLEAN: { id: "BOOLEAN" },
  INTEGER: { id: "INTEGER" },
  BIGINT: { id: "BIGINT" },
  UBIGINT: { id: "UBIGINT" },
  DOUBLE: { id: "DOUBLE" },
  VARCHAR: { id: "VARCHAR" },
  BLOB: { id: "BLOB" },
  UUID: { id: "UUID" },
  TIMESTAMPTZ: { id: "TIMESTAMP WITH TIME ZONE" },
  SQLNULL: { id: "SQLNULL" },
} as const satisfies Record<string, SqlType>;

export function listOf(child: SqlType): SqlType {
  return { id: "LIST", child };
}

export function structOf(fields: Record<string, SqlType>): SqlType {
  return { id: "STRUCT", fields: Object.entries(fields).map(([name, type]) => ({ name, type })) };
}
