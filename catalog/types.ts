/**
 * DuckLake 1.0 column types (DuckLakeTypes::FromString's table). Names are stored lowercased, the way
 * DuckLake writes them. VARIANT is refused by name: its statistics and inlining rules are not modelled.
 */
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

const NUMERIC = /^(u?int(8|16|32|64|128)|float(32|64)|decimal\(\d+,\d+\))$/;

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
    if (width < 1 || width > 38 || scale > width) {
      throw new InvalidRequest(`decimal(${width},${scale}) needs 1 <= width <= 38 and scale <= width`);
    }
    return { type, nested: false };
  }
  throw new Unsupported(
    `the type ${quoteName(raw)} is not a DuckLake type; use one of the DuckLake type names`,
  );
}

export function isNumericType(type: string): boolean {
  return NUMERIC.test(type);
}

/** Orders two DuckLake stats strings for a column type (numbers numerically, others as text). */
export function compareStat(type: string, a: string, b: string): number {
  if (isNumericType(type)) {
    const x = Number(a);
    const y = Number(b);
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
