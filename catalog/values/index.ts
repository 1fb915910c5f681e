/**
 * The typed-value rules for inlined rows: the one home for "is this JSON value a valid <DuckLake type>",
 * "what does the catalog store for it" and "how does DuckDB print it". Import from here; never re-derive
 * a value rule elsewhere (docs/decisions/0120-inlined-value-types.md).
 *
 * Stored (canonical) form per type, which is also the JSON form the API serves:
 * - boolean: JSON boolean.
 * - int8..int32, uint8..uint32: JSON number. int64, uint64, int128, uint128: JSON number when a safe
 *   integer (|n| < 2^53), else its decimal text.
 * - float32/float64: JSON number (float32 already rounded to float32), or "NaN", "Infinity",
 *   "-Infinity", "-0".
 * - decimal(p,s): text with exactly s fraction digits, rounded half away from zero ("1.50").
 * - varchar, json: the string as given. blob: DuckDB's text for the bytes (`a\x00b`).
 * - uuid: lower-case hyphenated. date, time, time_ns, timetz, timestamp*, interval: DuckDB's text
 *   (`2026-12-01 08:30:38.123456+00` for timestamptz, always UTC).
 * - list: JSON array. struct: JSON object with every field in declaration order (missing fields null).
 *   map: JSON array of `{"key": k, "value": v}` (keys non-null, distinct).
 * - variant: a tagged tree keeping each value's type (`variant.ts`, docs/decisions/0700-variant-values.md).
 * - geometry: not inlinable (Unsupported); write a Parquet file.
 */

import { Unsupported } from "../errors.ts";
import type { ColumnRecord } from "../records.ts";
import type { TypeNode } from "../types.ts";
import type { StoredValue } from "./errors.ts";
import { refuse, refuseFoldedTwice } from "./errors.ts";
import {
  decimalParams,
  floatText,
  isIntegerType,
  parseDecimal,
  parseFloat_,
  parseInteger,
} from "./numbers.ts";
import { parseDate, parseInterval, parseTime, parseTimestamp } from "./temporal.ts";
import { parseBlob, parseBoolean, parseJson, parseUuid, parseVarchar } from "./text.ts";
import { parseVariant } from "./variant.ts";

export type { TypeNode } from "../types.ts";
export type { StoredValue } from "./errors.ts";
export { decimalParams, floatOf, floatText } from "./numbers.ts";
export { canPromote } from "./promote.ts";
export {
  dateEpochDays,
  dateFromEpochDays,
  type TimestampType,
  timeFromMicros,
  timeMicros,
  timestampEpochNanos,
  timestampFromEpochNanos,
  timestamptzFromEpochMicros,
} from "./temporal.ts";
export { blobBytes, blobFromBytes } from "./text.ts";
export { isVariantPrimitive, MAX_VARIANT_DEPTH, VARIANT_TYPES, type VariantNode } from "./variant.ts";

/** A column's type tree (children in column order) from the table's column records. */
export function columnTree(cols: readonly ColumnRecord[], column: ColumnRecord): TypeNode {
  const children = cols
    .filter((c) => c.parent_column === column.column_id)
    .sort((a, b) => a.column_order - b.column_order)
    .map((c) => columnTree(cols, c));
  return { name: column.column_name, type: column.column_type, children };
}

function isObject(v: StoredValue): v is { [key: string]: StoredValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function child(node: TypeNode, i: number): TypeNode {
  const c = node.children[i];
  if (!c) throw new Error(`type ${node.type} of ${node.name} has no child ${i}`);
  return c;
}

function parseScalar(type: string, input: StoredValue, path: string): StoredValue {
  if (isIntegerType(type)) return parseInteger(type, input, path);
  if (decimalParams(type)) return parseDecimal(type, input, path);
  switch (type) {
    case "float32":
    case "float64":
      return parseFloat_(type, input, path);
    case "boolean":
      return parseBoolean(input, path);
    case "varchar":
      return parseVarchar(type, input, path);
    case "json":
      return parseJson(input, path);
    case "blob":
      return parseBlob(input, path);
    case "uuid":
      return parseUuid(input, path);
    case "date":
      return parseDate(input, path);
    case "time":
    case "time_ns":
    case "timetz":
      return parseTime(type, input, path);
    case "timestamp":
    case "timestamp_us":
    case "timestamp_ms":
    case "timestamp_ns":
    case "timestamp_s":
    case "timestamptz":
      return parseTimestamp(type, input, path);
    case "interval":
      return parseInterval(input, path);
    case "geometry":
      throw new Unsupported(`${path}: geometry values cannot be inlined; register a Parquet file instead`);
    default:
      throw new Unsupported(`${path}: values of type ${type} cannot be inlined`);
  }
}

/**
 * Checks `input` (a JSON value from a request) against the column type `node` and returns the stored
 * form. `path` names the value in errors (`rows[3].price`). Throws InvalidRequest naming the path, the
 * type and the reason; Unsupported for geometry. NULL is always accepted here (nullability is the
 * caller's rule).
 */
export function parseValue(node: TypeNode, input: StoredValue, path: string): StoredValue {
  if (input === null) return null;
  if (node.type === "variant") return parseVariant(input, path, parseScalar);
  if (node.type === "list") {
    if (!Array.isArray(input)) refuse(path, "list", input, "a list is a JSON array");
    const element = child(node, 0);
    return input.map((v, i) => parseValue(element, v, `${path}[${i}]`));
  }
  if (node.type === "struct") {
    if (!isObject(input)) refuse(path, "struct", input, "a struct is a JSON object");
    const out: { [key: string]: StoredValue } = {};
    const byName = new Map(node.children.map((c) => [c.name.toLowerCase(), c]));
    const seen = new Map<string, string>();
    for (const key of Object.keys(input)) {
      const field = byName.get(key.toLowerCase());
      if (!field) refuse(path, "struct", input, `it has no field ${JSON.stringify(key)}`);
      refuseFoldedTwice(seen, key, field.name, path);
    }
    const given = new Map(Object.entries(input).map(([k, v]) => [k.toLowerCase(), v]));
    for (const c of node.children)
      out[c.name] = parseValue(c, given.get(c.name.toLowerCase()) ?? null, `${path}.${c.name}`);
    return out;
  }
  if (node.type === "map") {
    const keyType = child(node, 0);
    const valueType = child(node, 1);
    let entries: [StoredValue, StoredValue][];
    if (Array.isArray(input)) {
      entries = input.map((e, i) => {
        if (!isObject(e) || !("key" in e) || Object.keys(e).some((k) => k !== "key" && k !== "value"))
          refuse(`${path}[${i}]`, "map entry", e, 'a map entry is {"key": k, "value": v}');
        return [e.key ?? null, e.value ?? null];
      });
    } else if (isObject(input)) entries = Object.entries(input);
    else refuse(path, "map", input, 'a map is a JSON array of {"key", "value"} or a JSON object');
    const seen = new Set<string>();
    return entries.map(([k, v], i) => {
      if (k === null) refuse(`${path}[${i}].key`, "map key", k, "map keys cannot be NULL");
      const key = parseValue(keyType, k, `${path}[${i}].key`);
      const id = JSON.stringify(key);
      if (seen.has(id)) refuse(`${path}[${i}].key`, "map key", k, "map keys must be distinct");
      seen.add(id);
      return { key, value: parseValue(valueType, v, `${path}[${i}].value`) };
    });
  }
  return parseScalar(node.type, input, path);
}

/** The JSON form the API serves for a stored value: the stored form itself (see the list above). */
export function toJsonValue(_node: TypeNode, stored: StoredValue): StoredValue {
  return stored;
}

/** Characters that make DuckDB quote a string inside a nested value's text. */
const NESTED_QUOTE = /[,'"[\]{}()=:]|^\s|\s$|^$|^null$/i;

function scalarText(type: string, stored: StoredValue): string {
  if (type === "float32" || type === "float64") return floatText(stored, type === "float32");
  if (typeof stored === "string") return stored;
  return String(stored);
}

function nestedText(node: TypeNode, stored: StoredValue): string {
  if (stored === null) return "NULL";
  if (node.type === "list" && Array.isArray(stored)) {
    const element = child(node, 0);
    return `[${stored.map((v) => nestedText(element, v)).join(", ")}]`;
  }
  if (node.type === "struct" && isObject(stored)) {
    const fields = node.children.map(
      (c) => `${quoteNested(c.name)}: ${nestedText(c, stored[c.name] ?? null)}`,
    );
    return `{${fields.join(", ")}}`;
  }
  if (node.type === "map" && Array.isArray(stored)) {
    const [k, v] = [child(node, 0), child(node, 1)];
    const entries = stored.map((e) =>
      isObject(e) ? `${nestedText(k, e.key ?? null)}=${nestedText(v, e.value ?? null)}` : "NULL",
    );
    return `{${entries.join(", ")}}`;
  }
  const text = scalarText(node.type, stored);
  return NESTED_QUOTE.test(text) ? quoteNested(text) : text;
}

/**
 * DuckDB's text of a stored VARIANT value (its VARCHAR cast): a primitive as its type prints it, an
 * object `{'k': v, …}` (keys always quoted), an array `[v, …]`, nested values quoted as in a STRUCT.
 */
function variantText(stored: StoredValue, nested: boolean): string {
  if (stored === null) return "NULL";
  const node = stored as { t: string; v: StoredValue };
  if (node.t === "object") {
    const fields = (node.v as [string, StoredValue][]).map(
      ([k, v]) => `${quoteNested(k)}: ${variantText(v, true)}`,
    );
    return `{${fields.join(", ")}}`;
  }
  if (node.t === "array") return `[${(node.v as StoredValue[]).map((v) => variantText(v, true)).join(", ")}]`;
  const type: TypeNode = { name: "variant", type: node.t, children: [] };
  return nested ? nestedText(type, node.v) : scalarText(node.t, node.v);
}

function quoteNested(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/**
 * DuckDB's text for a stored value (what its CSV writer and a VARCHAR cast print): `1.50`, `nan`,
 * `2026-12-01 08:30:38.123456+00`, `[1, 2]`, `{'a': 1}`, `{k=1}`. NULL gives null (the CSV empty field).
 */
export function toText(node: TypeNode, stored: StoredValue): string | null {
  if (stored === null) return null;
  if (node.type === "variant") return variantText(stored, false);
  if (node.type === "list" || node.type === "struct" || node.type === "map") return nestedText(node, stored);
  return scalarText(node.type, stored);
}
