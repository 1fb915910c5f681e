/**
 * Inlined values as DuckDB values: the one place that maps a DuckDB column type name (as the inlined-data
 * table declares it, `catalog/types.ts` `duckdbTypeName`) to a `SqlType`, and a stored inlined value
 * (`InlineValue`: the JSON scalar a verb carried, or DuckDB's text form of the value) to the `SqlValue`
 * of that type (`result.ts`: DECIMAL as the unscaled bigint, times as bigint microseconds, DATE as days).
 * A value that does not fit its type is refused, never coerced to something else.
 *
 * What a valid stored value is belongs to `catalog/values/` (docs/decisions/0120-inlined-value-types.md):
 * `storedSqlValue` first brings a stored value to its canonical stored form with `parseValue`, then maps
 * that form; a row stored before that module (old form) which `parseValue` refuses is mapped as it was
 * stored, as this reader always did.
 */
import { InvalidRequest, quoteName, Unsupported } from "../../errors.ts";
import type { InlineValue } from "../../records.ts";
import { duckdbTypeName } from "../../types.ts";
import { parseValue, type StoredValue, type TypeNode } from "../../values/index.ts";
import type { SqlField, SqlType, SqlValue } from "../result.ts";
import { variantPhysical } from "./variant-layout.ts";

type ScalarId = Extract<SqlType, { id: string }>["id"];

const SCALARS: ReadonlySet<string> = new Set<ScalarId>([
  "BOOLEAN",
  "TINYINT",
  "SMALLINT",
  "INTEGER",
  "BIGINT",
  "UTINYINT",
  "USMALLINT",
  "UINTEGER",
  "UBIGINT",
  "HUGEINT",
  "UHUGEINT",
  "FLOAT",
  "DOUBLE",
  "VARCHAR",
  "BLOB",
  "DATE",
  "TIME",
  "TIME WITH TIME ZONE",
  "TIMESTAMP",
  "TIMESTAMP_S",
  "TIMESTAMP_MS",
  "TIMESTAMP_NS",
  "TIMESTAMP WITH TIME ZONE",
  "INTERVAL",
  "UUID",
  "JSON",
  "VARIANT",
]);

/** Splits `a, b(c, d), e` at top-level commas. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === "(") depth++;
    else if (!quoted && c === ")") depth--;
    else if (!quoted && depth === 0 && c === ",") {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

/** The SqlType of a DuckDB type name: `INTEGER`, `DECIMAL(10,2)`, `VARCHAR[]`, `STRUCT(a INTEGER)`, `MAP(K, V)`. */
export function sqlTypeOf(name: string): SqlType {
  const t = name.trim();
  if (t.endsWith("[]")) return { id: "LIST", child: sqlTypeOf(t.slice(0, -2)) };
  const upper = t.toUpperCase();
  if (SCALARS.has(upper)) return { id: upper as ScalarId } as SqlType;
  const dec = /^DECIMAL\((\d+),\s*(\d+)\)$/i.exec(t);
  if (dec) return { id: "DECIMAL", width: Number(dec[1]), scale: Number(dec[2]) };
  const map = /^MAP\((.*)\)$/i.exec(t);
  if (map) {
    const [k, v, ...rest] = splitTop(map[1] ?? "");
    if (k !== undefined && v !== undefined && rest.length === 0)
      return { id: "MAP", key: sqlTypeOf(k), value: sqlTypeOf(v) };
  }
  const struct = /^STRUCT\((.*)\)$/i.exec(t);
  if (struct) {
    const fields: SqlField[] = splitTop(struct[1] ?? "").map((f) => {
      const m = /^("(?:[^"]|"")*"|[^\s]+)\s+(.+)$/.exec(f);
      if (!m) throw new Unsupported(`the struct field ${quoteName(f)} cannot be read`);
      const raw = m[1] ?? "";
      const fieldName = raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw;
      return { name: fieldName, type: sqlTypeOf(m[2] ?? "") };
    });
    return { id: "STRUCT", fields };
  }
  throw new Unsupported(`inlined values of type ${quoteName(t)} cannot be served over SQL`);
}

function bad(value: InlineValue | unknown, type: string): InvalidRequest {
  return new InvalidRequest(`the stored inlined value ${JSON.stringify(value)} is not a valid ${type}`);
}

function integerText(value: InlineValue, type: string): string {
  const text = typeof value === "number" ? (Number.isInteger(value) ? value.toFixed(0) : "") : String(value);
  if (!/^[+-]?\d+$/.test(text.trim())) throw bad(value, type);
  return text.trim();
}

/** A decimal's text (or number) as its unscaled value at `scale`, exactly (no binary rounding for text). */
function unscaled(value: InlineValue, scale: number, type: string): bigint {
  const text = typeof value === "number" ? value.toString() : String(value).trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw bad(value, type);
  const sign = m[1] === "-" ? -1n : 1n;
  const digits = `${m[2] ?? ""}${m[3] ?? ""}`;
  // Digits before the point once it is shifted `scale` places right; the rest rounds half away from
  // zero, as DuckDB's cast to DECIMAL does.
  const want = (m[2] ?? "").length + Number(m[4] ?? 0) + scale;
  if (want < 0) return 0n;
  if (digits.length <= want) return sign * BigInt(digits.padEnd(want, "0") || "0");
  const up = Number(digits.charAt(want)) >= 5 ? 1n : 0n;
  return sign * (BigInt(digits.slice(0, want) || "0") + up);
}

const DAY_MS = 86_400_000;

/** DuckDB's ±infinity dates: ±(2^31 − 1) days (its date_t::infinity / ninfinity). */
const DATE_INFINITY = 2_147_483_647;
/** DuckDB's ±infinity timestamps of every unit: ±(2^63 − 1) (its timestamp_t::infinity / ninfinity). */
const TIMESTAMP_INFINITY = 9_223_372_036_854_775_807n;

/** `infinity` / `-infinity` (DuckDB's text of them) as ±1, else 0. */
function infinitySign(text: string): 1 | -1 | 0 {
  const t = text.trim().toLowerCase();
  if (t === "infinity" || t === "+infinity") return 1;
  return t === "-infinity" ? -1 : 0;
}

function dateDays(text: string, type: string): number {
  const inf = infinitySign(text);
  if (inf !== 0) return inf * DATE_INFINITY;
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) throw bad(text, type);
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Math.floor(d.getTime() / DAY_MS);
}

/** `HH:MM:SS[.fffffffff]` as units of 10^-digits seconds (digits: 6 for µs, 9 for ns). */
function timeUnits(text: string, digits: number, type: string): bigint {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!m) throw bad(text, type);
  const seconds = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]));
  const frac = (m[4] ?? "").padEnd(9, "0").slice(0, digits);
  return seconds * 10n ** BigInt(digits) + BigInt(frac || "0");
}

function offsetSeconds(text: string, type: string): number {
  const m = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(text);
  if (!m) throw bad(text, type);
  const s = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return m[1] === "-" ? -s : s;
}

/** `YYYY-MM-DD[ HH:MM:SS[.f]][±HH[:MM]]` as units since the epoch (UTC when an offset is given). */
function timestampUnits(text: string, digits: number, type: string, zoned: boolean): bigint {
  const inf = infinitySign(text);
  if (inf !== 0) return BigInt(inf) * TIMESTAMP_INFINITY;
  const m =
    /^(-?\d{4,}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?))?\s*(Z|[+-]\d{2}(?::?\d{2}){0,2})?$/.exec(
      text.trim(),
    );
  if (!m) throw bad(text, type);
  const per = 10n ** BigInt(digits);
  const days = BigInt(dateDays(m[1] ?? "", type));
  const time = m[2] ? timeUnits(m[2], digits, type) : 0n;
  const off = zoned && m[3] && m[3] !== "Z" ? BigInt(offsetSeconds(m[3], type)) : 0n;
  return days * 86_400n * per + time - off * per;
}

const INTERVAL_PART = /(-?\d+)\s*(years?|months?|mons?|days?)\b/g;

function interval(text: string, type: string): SqlValue {
  let months = 0;
  let days = 0;
  let micros = 0n;
  const rest = text.replace(INTERVAL_PART, (_all, n: string, unit: string) => {
    const k = Number(n);
    if (unit.startsWith("y")) months += 12 * k;
    else if (unit.startsWith("m")) months += k;
    else days += k;
    return "";
  });
  const clock = rest.trim();
  if (clock !== "") {
    const m = /^(-?)(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/.exec(clock);
    if (!m) throw bad(text, type);
    const us =
      BigInt(Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4])) * 1_000_000n +
      BigInt((m[5] ?? "").padEnd(6, "0"));
    micros = m[1] === "-" ? -us : us;
  }
  return { months, days, micros };
}

function blob(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (
      text.charAt(i) === "\\" &&
      text.charAt(i + 1) === "x" &&
      /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))
    ) {
      out.push(Number.parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
    } else out.push(text.charCodeAt(i) & 0xff);
  }
  return new Uint8Array(out);
}

function floatOf(value: InlineValue, type: string): number {
  if (typeof value === "number") return value;
  const text = String(value).trim().toLowerCase();
  if (text === "nan") return Number.NaN;
  if (text === "inf" || text === "infinity") return Number.POSITIVE_INFINITY;
  if (text === "-inf" || text === "-infinity") return Number.NEGATIVE_INFINITY;
  const n = Number(text);
  if (text === "" || Number.isNaN(n)) throw bad(value, type);
  return n;
}

function nested(value: InlineValue | unknown, type: SqlType): SqlValue {
  let v: unknown = value;
  if (typeof value === "string") {
    try {
      v = JSON.parse(value);
    } catch {
      throw new Unsupported(
        `the stored nested inlined value ${JSON.stringify(value)} cannot be served over SQL`,
      );
    }
  }
  if (v === null) return null;
  if ((type.id === "LIST" || type.id === "ARRAY") && Array.isArray(v))
    return v.map((x) => sqlValueOf(type.child, x as InlineValue));
  if (type.id === "STRUCT" && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const out: Record<string, SqlValue> = {};
    for (const f of type.fields) out[f.name] = sqlValueOf(f.type, (o[f.name] ?? null) as InlineValue);
    return out;
  }
  if (type.id === "MAP" && typeof v === "object") {
    const entries = Array.isArray(v)
      ? v.map((e) => [(e as { key: unknown }).key, (e as { value: unknown }).value] as const)
      : Object.entries(v as Record<string, unknown>);
    return entries.map(([key, val]) => ({
      key: sqlValueOf(type.key, key as InlineValue),
      value: sqlValueOf(type.value, (val ?? null) as InlineValue),
    }));
  }
  throw bad(value, type.id);
}

/** A stored inlined value as the SqlValue of `type`. */
export function sqlValueOf(type: SqlType, value: InlineValue | undefined): SqlValue {
  if (value === null || value === undefined) return null;
  const id = type.id;
  switch (type.id) {
    case "BOOLEAN":
      if (typeof value === "boolean") return value;
      if (String(value).toLowerCase() === "true") return true;
      if (String(value).toLowerCase() === "false") return false;
      throw bad(value, id);
    case "TINYINT":
    case "SMALLINT":
    case "INTEGER":
    case "UTINYINT":
    case "USMALLINT":
    case "UINTEGER":
      return Number(integerText(value, id));
    case "BIGINT":
    case "UBIGINT":
    case "HUGEINT":
    case "UHUGEINT":
      return BigInt(integerText(value, id));
    case "FLOAT":
    case "DOUBLE":
      return floatOf(value, id);
    case "DECIMAL":
      return unscaled(value, type.scale, `DECIMAL(${type.width},${type.scale})`);
    case "VARCHAR":
    case "JSON":
      return typeof value === "string" ? value : String(value);
    case "UUID":
      return String(value).toLowerCase();
    case "BLOB":
      return blob(String(value));
    case "DATE":
      return dateDays(String(value), id);
    case "TIME":
      return timeUnits(String(value), 6, id);
    case "TIME WITH TIME ZONE": {
      const m = /^(\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)([+-].*)$/.exec(String(value).trim());
      if (!m) throw bad(value, id);
      return { micros: timeUnits(m[1] ?? "", 6, id), offsetSeconds: offsetSeconds(m[2] ?? "", id) };
    }
    case "TIMESTAMP":
      return timestampUnits(String(value), 6, id, false);
    case "TIMESTAMP_S":
      return timestampUnits(String(value), 0, id, false);
    case "TIMESTAMP_MS":
      return timestampUnits(String(value), 3, id, false);
    case "TIMESTAMP_NS":
      return timestampUnits(String(value), 9, id, false);
    case "TIMESTAMP WITH TIME ZONE":
      return timestampUnits(String(value), 6, id, true);
    case "INTERVAL":
      return interval(String(value), id);
    case "LIST":
    case "ARRAY":
    case "STRUCT":
    case "MAP":
      return nested(value, type);
    case "SQLNULL":
      return null;
    case "VARIANT":
      // The stored tagged tree in DuckDB's physical VARIANT form (docs/decisions/0701-variant-wire.md).
      return variantPhysical(value as StoredValue, (t, v) =>
        sqlValueOf(sqlTypeOf(duckdbTypeName({ name: t, type: t, children: [] })), v as InlineValue),
      );
  }
}

/**
 * A stored inlined value of the DuckLake column `node` as the SqlValue of `type`: canonicalised by
 * `catalog/values/` `parseValue` (new writes are already canonical; older rows may hold other accepted
 * spellings, e.g. a decimal as a JSON number), then mapped by `sqlValueOf`.
 */
export function storedSqlValue(
  type: SqlType,
  node: TypeNode | undefined,
  value: StoredValue | undefined,
): SqlValue {
  if (value === null || value === undefined) return null;
  let canonical: StoredValue = value;
  if (node) {
    try {
      canonical = parseValue(node, value, node.name);
    } catch (e) {
      // A row stored in the old form that the value rules refuse: read as stored (the old reader's rule).
      if (!(e instanceof InvalidRequest)) throw e;
    }
  }
  return sqlValueOf(type, canonical);
}
