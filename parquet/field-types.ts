/**
 * The DuckDB type a Parquet reader gives a file's top-level column, from the footer's schema element
 * alone (logical type, then converted type, then physical type, in the order DuckDB's reader derives
 * them). Nested columns are named by their kind only (STRUCT, LIST, MAP). No DuckLake rules here: which
 * file types a table's column accepts is catalog/'s (catalog/file-schema.ts).
 */
import type { SchemaElement } from "hyparquet";

/** A top-level column of a Parquet file and the DuckDB type a reader gives it. */
export interface FooterField {
  name: string;
  /** DuckDB's spelling: INTEGER, DECIMAL(4,2), VARCHAR, TIMESTAMP_MS, STRUCT, LIST, MAP, ... */
  type: string;
}

const INT_BY_CONVERTED: Record<string, string> = {
  INT_8: "TINYINT",
  INT_16: "SMALLINT",
  INT_32: "INTEGER",
  INT_64: "BIGINT",
  UINT_8: "UTINYINT",
  UINT_16: "USMALLINT",
  UINT_32: "UINTEGER",
  UINT_64: "UBIGINT",
};

const SIGNED_BY_WIDTH: Record<number, string> = { 8: "TINYINT", 16: "SMALLINT", 32: "INTEGER", 64: "BIGINT" };
const UNSIGNED_BY_WIDTH: Record<number, string> = {
  8: "UTINYINT",
  16: "USMALLINT",
  32: "UINTEGER",
  64: "UBIGINT",
};

/** The DuckDB type of one schema element (`hasChildren`: a group, i.e. a nested column). */
export function fieldType(el: SchemaElement, hasChildren: boolean): string {
  const logical = el.logical_type;
  if (hasChildren) {
    if (el.converted_type === "LIST" || logical?.type === "LIST") return "LIST";
    if (el.converted_type === "MAP" || el.converted_type === "MAP_KEY_VALUE" || logical?.type === "MAP")
      return "MAP";
    return "STRUCT";
  }
  if (logical?.type === "TIMESTAMP") {
    if (logical.isAdjustedToUTC) return "TIMESTAMP WITH TIME ZONE";
    if (logical.unit === "MILLIS") return "TIMESTAMP_MS";
    if (logical.unit === "NANOS") return "TIMESTAMP_NS";
    return "TIMESTAMP";
  }
  if (logical?.type === "TIME") return "TIME";
  if (logical?.type === "UUID") return "UUID";
  if (logical?.type === "GEOMETRY") return "GEOMETRY";
  const converted = el.converted_type;
  if (converted !== undefined) {
    const int = INT_BY_CONVERTED[converted];
    if (int) return int;
    if (converted === "DECIMAL") return `DECIMAL(${el.precision ?? 18},${el.scale ?? 0})`;
    if (converted === "DATE") return "DATE";
    if (converted === "TIMESTAMP_MICROS" || converted === "TIMESTAMP_MILLIS") return "TIMESTAMP";
    if (converted === "UTF8" || converted === "ENUM") return "VARCHAR";
    if (converted === "TIME_MILLIS" || converted === "TIME_MICROS") return "TIME";
    if (converted === "INTERVAL") return "INTERVAL";
    if (converted === "JSON") return "JSON";
  }
  // Files that carry only the logical type.
  if (logical?.type === "INTEGER")
    return (logical.isSigned ? SIGNED_BY_WIDTH : UNSIGNED_BY_WIDTH)[logical.bitWidth] ?? "BIGINT";
  if (logical?.type === "DECIMAL") return `DECIMAL(${logical.precision},${logical.scale})`;
  if (logical?.type === "STRING" || logical?.type === "ENUM") return "VARCHAR";
  if (logical?.type === "DATE") return "DATE";
  if (logical?.type === "JSON") return "JSON";
  switch (el.type) {
    case "BOOLEAN":
      return "BOOLEAN";
    case "INT32":
      return "INTEGER";
    case "INT64":
      return "BIGINT";
    case "INT96":
      return "TIMESTAMP";
    case "FLOAT":
      return "FLOAT";
    case "DOUBLE":
      return "DOUBLE";
    default:
      return "BLOB";
  }
}
