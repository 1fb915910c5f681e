/**
 * DuckLake's `extra_stats` texts: the JSON a GEOMETRY column's stats carry (`{"bbox": …, "types": […]}`) and
 * the JSON array a VARIANT column's stats carry (one object per shredded field). Two rules live here, both
 * as DuckLake 1.5.5 applies them (docs/decisions/0620-extra-stats.md):
 * - a file's VARIANT stats become its `ducklake_file_variant_stats` rows, one per shredded field;
 * - the table's `extra_stats` merges a new file's: the bounding box widened and the geometry types united,
 *   or the VARIANT fields present in both with one shredded type kept and their stats merged.
 * Anything outside the shapes DuckLake writes is refused by name, never guessed.
 */
import { Unsupported } from "./errors.ts";
import type { FileVariantStats } from "./records.ts";
import { compareStat } from "./stat-order.ts";

/** Longest `extra_stats` text parsed here (DuckLake writes a few hundred bytes per column or field). */
export const MAX_EXTRA_STATS_CHARS = 1_048_576;

const BBOX_KEYS = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax"] as const;

function refuse(what: string): never {
  throw new Unsupported(`extra_stats ${what} is not a shape DuckLake 1.5.5 writes; not merged`);
}

function parse(text: string): unknown {
  if (text.length > MAX_EXTRA_STATS_CHARS) {
    refuse(`of ${text.length} characters (over MAX_EXTRA_STATS_CHARS, ${MAX_EXTRA_STATS_CHARS})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    return refuse("that is not JSON");
  }
}

/** Whether the text is a VARIANT column's stats (a JSON array); GEOMETRY's are an object. */
function isVariantText(text: string): boolean {
  return text.trimStart().startsWith("[");
}

// ------------------------------------------------------------------------------------------- VARIANT

/** One shredded field of a VARIANT column's stats, as DuckLake serializes it (absent keys: unknown). */
interface VariantField {
  field_name: string;
  shredded_type: string;
  null_count?: number;
  min?: string;
  max?: string;
  num_values?: number;
  contains_nan?: boolean;
  column_size_bytes: number;
  any_valid: boolean;
}

function count(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) refuse(`with ${what} ${String(v)}`);
  return v;
}

function variantFields(text: string): VariantField[] {
  const doc = parse(text);
  if (!Array.isArray(doc)) refuse("of a VARIANT column that is not an array");
  return doc.map((raw: unknown): VariantField => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      refuse("with a non-object VARIANT field");
    const o = raw as Record<string, unknown>;
    if (typeof o.field_name !== "string" || typeof o.shredded_type !== "string")
      refuse("of a VARIANT field without field_name and shredded_type");
    // A field's own extra stats (a shredded GEOMETRY) are written by DuckLake as a quoted SQL literal it
    // cannot read back; refused rather than reproduced.
    if ("extra_stats" in o) refuse("of a VARIANT field with its own extra_stats");
    const f: VariantField = {
      field_name: o.field_name,
      shredded_type: o.shredded_type,
      column_size_bytes: "column_size_bytes" in o ? count(o.column_size_bytes, "column_size_bytes") : 0,
      any_valid: "any_valid" in o ? o.any_valid === true : true,
    };
    if ("null_count" in o) f.null_count = count(o.null_count, "null_count");
    if ("num_values" in o) f.num_values = count(o.num_values, "num_values");
    if ("min" in o) {
      if (typeof o.min !== "string") refuse("with a non-text min");
      f.min = o.min;
    }
    if ("max" in o) {
      if (typeof o.max !== "string") refuse("with a non-text max");
      f.max = o.max;
    }
    if ("contains_nan" in o) f.contains_nan = o.contains_nan === true;
    return f;
  });
}

/** DuckLake's serialization of the fields: minified JSON, keys in its order, absent when unknown. */
function variantText(fields: readonly VariantField[]): string | null {
  if (fields.length === 0) return null; // DuckLake serializes no stats for a VARIANT without fields
  return JSON.stringify(
    fields.map((f) => ({
      field_name: f.field_name,
      shredded_type: f.shredded_type,
      ...(f.null_count !== undefined ? { null_count: f.null_count } : {}),
      ...(f.min !== undefined ? { min: f.min } : {}),
      ...(f.max !== undefined ? { max: f.max } : {}),
      ...(f.num_values !== undefined ? { num_values: f.num_values } : {}),
      ...(f.contains_nan !== undefined ? { contains_nan: f.contains_nan } : {}),
      column_size_bytes: f.column_size_bytes,
      any_valid: f.any_valid,
    })),
  );
}

/** A stats text DuckLake stores as NULL: one holding a NUL byte (its `StatsToString`). */
function statText(v: string | undefined): string | null {
  return v === undefined || v.includes("\0") ? null : v;
}

/**
 * The `ducklake_file_variant_stats` rows of one file column whose stats carry `extraStats`: none unless it
 * is a VARIANT column's. value_count is the non-NULL count, and both counts are NULL unless both are known
 * and consistent, as for the file's column stats.
 */
export function variantFileStats(columnId: number, extraStats: string | null): FileVariantStats[] {
  if (extraStats === null || !isVariantText(extraStats)) return [];
  return variantFields(extraStats).map((f) => {
    const counted = f.null_count !== undefined && f.num_values !== undefined && f.null_count <= f.num_values;
    return {
      column_id: columnId,
      variant_path: f.field_name,
      shredded_type: f.shredded_type,
      column_size_bytes: f.column_size_bytes,
      value_count: counted ? (f.num_values as number) - (f.null_count as number) : null,
      null_count: counted ? (f.null_count as number) : null,
      min_value: statText(f.min),
      max_value: statText(f.max),
      contains_nan: f.contains_nan ?? null,
      extra_stats: null,
    };
  });
}

function fieldAnyValid(f: VariantField): boolean {
  if (f.num_values !== undefined && f.null_count !== undefined) return f.num_values > f.null_count;
  return f.any_valid;
}

/** DuckLake's merge of one field's stats into the table's (same shredded type on both sides). */
function mergeField(a: VariantField, b: VariantField): VariantField {
  const out: VariantField = { ...a, column_size_bytes: a.column_size_bytes + b.column_size_bytes };
  if (b.null_count === undefined) delete out.null_count;
  else if (a.null_count !== undefined) out.null_count = a.null_count + b.null_count;
  if (b.num_values === undefined) delete out.num_values;
  else if (a.num_values !== undefined) out.num_values = a.num_values + b.num_values;
  if (b.contains_nan === undefined) delete out.contains_nan;
  else if (a.contains_nan !== undefined && b.contains_nan) out.contains_nan = true;
  if (!fieldAnyValid(b)) return out;
  if (!fieldAnyValid(a)) {
    delete out.min;
    delete out.max;
    if (b.min !== undefined) out.min = b.min;
    if (b.max !== undefined) out.max = b.max;
    out.any_valid = true;
    return out;
  }
  if (b.min === undefined) delete out.min;
  else if (a.min !== undefined && compareStat(a.shredded_type, b.min, a.min) < 0) out.min = b.min;
  if (b.max === undefined) delete out.max;
  else if (a.max !== undefined && compareStat(a.shredded_type, b.max, a.max) > 0) out.max = b.max;
  return out;
}

/** The table's VARIANT stats merged with a file's: fields in both with one shredded type, merged. */
function mergeVariant(table: string, file: string): string | null {
  const add = new Map(variantFields(file).map((f) => [f.field_name, f]));
  const kept: VariantField[] = [];
  for (const f of variantFields(table)) {
    const g = add.get(f.field_name);
    if (g !== undefined && g.shredded_type === f.shredded_type) kept.push(mergeField(f, g));
  }
  return variantText(kept);
}

// ------------------------------------------------------------------------------------------- GEOMETRY

interface GeoStats {
  bbox: Record<(typeof BBOX_KEYS)[number], number | null>;
  types: Set<string>;
}

function geoStats(text: string): GeoStats {
  // DuckLake writes every bound with `%f` (a decimal point) and reads a bound without one as 0: refused.
  if (/"[xyzm]m(?:in|ax)"\s*:\s*-?\d+(?:[eE][+-]?\d+)?\s*[,}]/.test(text)) refuse("with an integer bound");
  const doc = parse(text);
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) refuse("of a GEOMETRY column");
  const o = doc as Record<string, unknown>;
  const box = o.bbox;
  const bbox = {} as GeoStats["bbox"];
  for (const k of BBOX_KEYS) {
    const v = typeof box === "object" && box !== null ? (box as Record<string, unknown>)[k] : null;
    if (v !== null && v !== undefined && (typeof v !== "number" || !Number.isFinite(v)))
      refuse(`with a bound ${k} that is not a finite number`);
    bbox[k] = typeof v === "number" ? v : null;
  }
  const types = new Set<string>();
  if (Array.isArray(o.types)) {
    for (const t of o.types) {
      if (typeof t !== "string") refuse("with a geometry type that is not text");
      types.add(t);
    }
  }
  return { bbox, types };
}

/**
 * A finite double as C's `%f` prints it (what DuckLake's `std::to_string` gives): the exact binary value
 * rounded half-to-even to six decimals, a minus sign kept on a negative value that rounds to zero.
 */
export function formatFixed6(x: number): string {
  if (!Number.isFinite(x)) refuse(`with the bound ${x}`);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = exp === 0 ? frac : frac | (1n << 52n);
  const e = exp === 0 ? -1074 : exp - 1075;
  let num = mant * 1_000_000n;
  let den = 1n;
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  let q = num / den;
  const twice = (num % den) * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  const digits = q.toString().padStart(7, "0");
  const out = `${digits.slice(0, -6)}.${digits.slice(-6)}`;
  return x < 0 || Object.is(x, -0) ? `-${out}` : out;
}

function geoText(g: GeoStats): string {
  const bound = (v: number | null) => (v === null ? "null" : formatFixed6(v));
  const box = BBOX_KEYS.map((k) => `"${k}": ${bound(g.bbox[k])}`).join(", ");
  // std::set<string>: byte order, which is code-unit order for the ASCII names DuckDB gives.
  const types = [...g.types]
    .sort()
    .map((t) => `"${t}"`)
    .join(", ");
  return `{"bbox": {${box}}, "types": [${types}]}`;
}

function mergeGeo(table: string, file: string): string {
  const a = geoStats(table);
  const b = geoStats(file);
  const pick = (x: number | null, y: number | null, lower: boolean): number | null =>
    x === null ? y : y === null ? x : lower ? Math.min(x, y) : Math.max(x, y);
  const bbox = {} as GeoStats["bbox"];
  for (const k of BBOX_KEYS) bbox[k] = pick(a.bbox[k], b.bbox[k], k.endsWith("min"));
  return geoText({ bbox, types: new Set([...a.types, ...b.types]) });
}

// ------------------------------------------------------------------------------------------- merge

/**
 * The table's `extra_stats` after a file (or inlined rows) whose extra stats are `file` is merged in, both
 * sides holding values (DuckLake's `MergeStats` returns before the extra stats when either side is all
 * NULL; the caller keeps the table's then). A table side without extra stats starts empty: a GEOMETRY
 * merge gives the file's box, a VARIANT merge stays empty (no fields in both).
 */
export function mergeExtraStats(table: string | null, file: string | null): string | null {
  if (file === null) return table;
  if (table === null) return isVariantText(file) ? null : mergeGeo(geoText(emptyGeo()), file);
  if (isVariantText(table) !== isVariantText(file)) refuse("of one column as both GEOMETRY and VARIANT");
  return isVariantText(file) ? mergeVariant(table, file) : mergeGeo(table, file);
}

function emptyGeo(): GeoStats {
  const bbox = {} as GeoStats["bbox"];
  for (const k of BBOX_KEYS) bbox[k] = null;
  return { bbox, types: new Set() };
}
