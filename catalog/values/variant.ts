/**
 * The stored form of a VARIANT value (docs/decisions/0700-variant-values.md): a tagged JSON tree that keeps
 * each value's own type, as DuckDB's VARIANT does.
 * - SQL NULL (a top-level NULL) is JSON null; a VARIANT_NULL inside an object or array is JSON null too.
 * - a primitive is `{"t": <DuckLake type>, "v": <that type's stored form>}`: `{"t": "int32", "v": 42}`,
 *   `{"t": "decimal(3,2)", "v": "1.50"}`, `{"t": "date", "v": "2000-01-01"}`, `{"t": "boolean", "v": true}`.
 * - an object is `{"t": "object", "v": [[key, value], …]}` (fields in their order), an array
 *   `{"t": "array", "v": [value, …]}`.
 * Only the types a VARIANT can hold and this catalog serves exactly are accepted (VARIANT_TYPES).
 */
import { InvalidRequest } from "../errors.ts";
import type { StoredValue } from "./errors.ts";
import { refuse } from "./errors.ts";
import { decimalParams } from "./numbers.ts";

/** The primitive DuckLake types a stored VARIANT value may carry (each has a VARIANT type tag). */
export const VARIANT_TYPES: ReadonlySet<string> = new Set([
  "boolean",
  "int32",
  "int64",
  "int128",
  "uint128",
  "float32",
  "float64",
  "varchar",
  "blob",
  "uuid",
  "date",
  "time",
  "time_ns",
  "timetz",
  "timestamp",
  "timestamp_ns",
  "timestamp_ms",
  "timestamp_s",
  "timestamptz",
  "interval",
]);

/** Deepest nesting of objects and arrays in one stored VARIANT value (a literal's own bound is lower). */
export const MAX_VARIANT_DEPTH = 64;

/** A stored VARIANT node: null (VARIANT_NULL or SQL NULL) or a tagged primitive, object or array. */
export type VariantNode =
  | null
  | { t: string; v: StoredValue }
  | { t: "object"; v: [string, VariantNode][] }
  | { t: "array"; v: VariantNode[] };

type ScalarRule = (type: string, input: StoredValue, path: string) => StoredValue;

function isObject(v: StoredValue): v is { [key: string]: StoredValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether `t` is a primitive VARIANT tag this catalog keeps (a DuckLake type in VARIANT_TYPES, or a decimal). */
export function isVariantPrimitive(t: string): boolean {
  return VARIANT_TYPES.has(t) || decimalParams(t) !== null;
}

/**
 * Checks a stored (or requested) VARIANT value and returns its canonical stored form; `scalar` is the
 * per-type value rule of `index.ts` (passed in so this file does not import its importer).
 */
export function parseVariant(input: StoredValue, path: string, scalar: ScalarRule, depth = 0): StoredValue {
  if (input === null) return null;
  if (depth > MAX_VARIANT_DEPTH)
    throw new InvalidRequest(`${path}: a VARIANT value nested more than ${MAX_VARIANT_DEPTH} levels deep`);
  if (!isObject(input) || typeof input.t !== "string" || !("v" in input) || Object.keys(input).length !== 2)
    refuse(path, "variant", input, 'a variant value is {"t": <type>, "v": <value>}');
  const { t, v } = input as { t: string; v: StoredValue };
  if (t === "object") {
    if (!Array.isArray(v)) refuse(path, "variant object", v, "its fields are [[key, value], …]");
    const seen = new Set<string>();
    return {
      t,
      v: v.map((f, i) => {
        if (!Array.isArray(f) || f.length !== 2 || typeof f[0] !== "string")
          refuse(`${path}[${i}]`, "variant field", f, "a field is [key, value]");
        if (seen.has(f[0])) refuse(`${path}[${i}]`, "variant field", f, "an object names a key once");
        seen.add(f[0]);
        return [f[0], parseVariant(f[1] ?? null, `${path}.${f[0]}`, scalar, depth + 1)];
      }),
    };
  }
  if (t === "array") {
    if (!Array.isArray(v)) refuse(path, "variant array", v, "its elements are a JSON array");
    return { t, v: v.map((e, i) => parseVariant(e, `${path}[${i}]`, scalar, depth + 1)) };
  }
  if (!isVariantPrimitive(t)) refuse(path, "variant", input, `a variant value of type ${t} is not kept`);
  if (v === null) refuse(path, "variant", input, "a typed variant value is not NULL");
  return { t, v: scalar(t, v, path) };
}
