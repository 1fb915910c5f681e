/**
 * DuckLake 1.0 column types (DuckLakeTypes::FromString's table). Names are stored lowercased, the way
 * DuckLake writes them. VARIANT is refused by name: its statistics and inlining rules are not modelled.
 */

import { DUCKDB_KEYWORDS } from "./duckdb-keywords.ts";
import { InvalidRequest, quoteName, Unsupported } from "./errors.ts";

const PRIMITIVES = new Set([
  "boolean",
  "int8",
  "int16",
  "int32",
  "int64",
  "int128",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "uint128",
  "float32",
  "float64",
  "time",
  "time_ns",
  "date",
  "timestamp",
  "timestamp_us",
  "timestamp_ms",
  "timestamp_ns",
  "timestamp_s",
  "timestamptz",
  "timetz",
  "interval",
  "varchar",
  "blob",
  "uuid",
  "json",
  "geometry",
]);

export const NESTED = new Set(["struct", "list", "map"]);

/** DuckDB's widest DECIMAL (a 128-bit integer holds 38 digits). */
export const MAX_DECIMAL_WIDTH = 38;

/** Normalizes and checks a type name; `nested` says whether children are expected. */
export function normalizeType(raw: string): { type: string; nested: boolean } {
  const type = raw.trim().toLowerCase().replace(/\s+/g, "");
  if (type === "variant") {
    throw new Unsupported("the VARIANT type cannot be stored by this catalog; use json or a struct instead");
  }
  if (PRIMITIVES.has(type)) return { type, nested: false };
  if (NESTED.has(type)) return { type, nested: true };
  const dec = /^decimal\((\d+),(\d+)\)$/.exec(type);
  if (dec) {
    const width = Number(dec[1]);
    const scale = Number(dec[2]);
    if (width < 1 || width > MAX_DECIMAL_WIDTH || scale > width) {
      throw new InvalidRequest(
        `decimal(${width},${scale}) needs 1 <= width <= ${MAX_DECIMAL_WIDTH} and scale <= width`,
      );
    }
    return { type, nested: false };
  }
  throw new Unsupported(
    `the type ${quoteName(raw)} is not a DuckLake type; use one of: ${[...PRIMITIVES].join(", ")}, decimal(width,scale), ${[...NESTED].join(", ")}`,
  );
}

/** Stats order and "is this type numeric" live in stat-order.ts (exact for integers and decimals). */
export { compareStat, isNumericType } from "./stat-order.ts";

const DUCKDB_NAMES: Record<string, string> = {
  boolean: "BOOLEAN",
  int8: "TINYINT",
  int16: "SMALLINT",
  int32: "INTEGER",
  int64: "BIGINT",
  int128: "HUGEINT",
  uint8: "UTINYINT",
  uint16: "USMALLINT",
  uint32: "UINTEGER",
  uint64: "UBIGINT",
  uint128: "UHUGEINT",
  float32: "FLOAT",
  float64: "DOUBLE",
  time: "TIME",
  time_ns: "TIME_NS",
  date: "DATE",
  timestamp: "TIMESTAMP",
  timestamp_us: "TIMESTAMP",
  timestamp_ms: "TIMESTAMP_MS",
  timestamp_ns: "TIMESTAMP_NS",
  timestamp_s: "TIMESTAMP_S",
  timestamptz: "TIMESTAMP WITH TIME ZONE",
  timetz: "TIME WITH TIME ZONE",
  interval: "INTERVAL",
  varchar: "VARCHAR",
  blob: "BLOB",
  uuid: "UUID",
  json: "JSON",
  geometry: "GEOMETRY",
};

/** A column as a type tree: its DuckLake type and its child fields in order. */
export interface TypeNode {
  name: string;
  type: string;
  children: TypeNode[];
}

/**
 * The DuckDB spelling of a DuckLake column type (what DuckLake declares the inlined-data table's column
 * as): `INTEGER`, `VARCHAR[]`, `STRUCT(a INTEGER, b VARCHAR[])`, `MAP(VARCHAR, INTEGER)`.
 */
export function duckdbTypeName(node: TypeNode): string {
  const [first, second] = node.children;
  if (node.type === "list" && first) return `${duckdbTypeName(first)}[]`;
  if (node.type === "map" && first && second)
    return `MAP(${duckdbTypeName(first)}, ${duckdbTypeName(second)})`;
  if (node.type === "struct") {
    // DuckDB quotes a struct field that is a keyword or not a plain identifier (capitals are plain here).
    const field = (c: TypeNode) =>
      `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(c.name) && !DUCKDB_KEYWORDS.has(c.name.toLowerCase()) ? c.name : `"${c.name.replace(/"/g, '""')}"`} ${duckdbTypeName(c)}`;
    return `STRUCT(${node.children.map(field).join(", ")})`;
  }
  const dec = /^decimal\((\d+),(\d+)\)$/.exec(node.type);
  if (dec) return `DECIMAL(${dec[1]},${dec[2]})`;
  return DUCKDB_NAMES[node.type] ?? node.type.toUpperCase();
}
