/**
 * DuckLake's ALTER COLUMN ... TYPE rule: only widenings that keep every value are allowed (measured
 * against stock DuckLake 1.5.5; the full matrix is checked by test/catalog/values.test.ts).
 */
import { decimalParams, isIntegerType } from "./numbers.ts";

/** Decimal digits left of the point that each integer type needs. */
const INT_DIGITS: Record<string, number> = {
  int8: 3,
  int16: 5,
  int32: 10,
  int64: 19,
  uint8: 3,
  uint16: 5,
  uint32: 10,
  uint64: 20,
};

const SIGNED = ["int8", "int16", "int32", "int64", "int128"];
const UNSIGNED = ["uint8", "uint16", "uint32", "uint64", "uint128"];
const TIMESTAMPS = ["timestamp_s", "timestamp_ms", "timestamp", "timestamp_ns"];

function intWidening(from: string, to: string): boolean {
  const fs = SIGNED.indexOf(from);
  const fu = UNSIGNED.indexOf(from);
  const ts = SIGNED.indexOf(to);
  const tu = UNSIGNED.indexOf(to);
  if (fs >= 0) return ts > fs;
  if (fu >= 0) return tu > fu || ts > fu;
  return false;
}

/** True when DuckLake allows changing a column of type `from` to type `to` (both normalised). */
export function canPromote(from: string, to: string): boolean {
  const f = from === "timestamp_us" ? "timestamp" : from;
  const t = to === "timestamp_us" ? "timestamp" : to;
  if (f === t) return true;
  // Every value has a JSON form; DuckLake allows any column to become json.
  if (t === "json") return true;
  if (f === "boolean") return isIntegerType(t);
  const toDec = decimalParams(t);
  const fromDec = decimalParams(f);
  if (isIntegerType(f)) {
    if (isIntegerType(t)) return intWidening(f, t);
    if (t === "float32" || t === "float64") return true;
    const digits = INT_DIGITS[f];
    return toDec !== undefined && digits !== undefined && toDec.width - toDec.scale >= digits;
  }
  if (fromDec) {
    if (t === "float32" || t === "float64") return true;
    return (
      toDec !== undefined &&
      toDec.scale >= fromDec.scale &&
      toDec.width - toDec.scale >= fromDec.width - fromDec.scale
    );
  }
  if (f === "float32") return t === "float64";
  if (f === "date") return TIMESTAMPS.includes(t) || t === "timestamptz";
  const fi = TIMESTAMPS.indexOf(f);
  if (fi >= 0) return TIMESTAMPS.indexOf(t) > fi || (f === "timestamp" && t === "timestamptz");
  if (f === "varchar") return t === "json";
  return false;
}
