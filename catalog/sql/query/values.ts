/**
 * DuckDB's value rules for the evaluator's subset (decision record 0420): how values are held while a
 * query runs, how two types meet in a comparison or a CASE, casts, ordering (NULLS LAST by default,
 * strings by code point as DuckDB compares UTF-8 bytes) and the result's representation (`result.ts`).
 * Every integer type is held as a bigint while evaluating and converted back when the answer is built.
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { floatText } from "../../values/numbers.ts";
import { dateFromEpochDays, timestampFromEpochNanos } from "../../values/temporal.ts";
import { timestamptzMicros } from "../metadata/common.ts";
import type { SqlType, SqlValue } from "../result.ts";

/** A type while evaluating: `literal` marks an untyped string/integer literal DuckDB may still coerce. */
export interface VType {
  t: SqlType;
  literal?: "str" | "int" | "null";
}

export const INT_RANK: Partial<Record<SqlType["id"], number>> = {
  TINYINT: 1,
  SMALLINT: 2,
  INTEGER: 3,
  BIGINT: 4,
  HUGEINT: 5,
};
const INT_BOUNDS: Partial<Record<SqlType["id"], [bigint, bigint]>> = {
  TINYINT: [-128n, 127n],
  SMALLINT: [-32768n, 32767n],
  INTEGER: [-2147483648n, 2147483647n],
  BIGINT: [-(2n ** 63n), 2n ** 63n - 1n],
  HUGEINT: [-(2n ** 127n), 2n ** 127n - 1n],
  UTINYINT: [0n, 255n],
  USMALLINT: [0n, 65535n],
  UINTEGER: [0n, 4294967295n],
  UBIGINT: [0n, 2n ** 64n - 1n],
};
const NUMBER_INTS = new Set<SqlType["id"]>([
  "TINYINT",
  "SMALLINT",
  "INTEGER",
  "UTINYINT",
  "USMALLINT",
  "UINTEGER",
]);

export function isInt(t: SqlType): boolean {
  return INT_BOUNDS[t.id] !== undefined;
}
export function isFloat(t: SqlType): boolean {
  return t.id === "DOUBLE" || t.id === "FLOAT";
}

export function typeText(t: SqlType): string {
  switch (t.id) {
    case "DECIMAL":
      return `DECIMAL(${t.width},${t.scale})`;
    case "LIST":
      return `${typeText(t.child)}[]`;
    case "STRUCT":
      return `STRUCT(${t.fields.map((f) => `${f.name} ${typeText(f.type)}`).join(", ")})`;
    case "ARRAY":
      return `${typeText(t.child)}[${t.size}]`;
    case "MAP":
      return `MAP(${typeText(t.key)}, ${typeText(t.value)})`;
    default:
      return t.id;
  }
}

function sameType(a: SqlType, b: SqlType): boolean {
  return typeText(a) === typeText(b);
}

/** Checks an integer result against its type's range (DuckDB raises an out-of-range error). */
export function checkInt(v: bigint, t: SqlType): bigint {
  const b = INT_BOUNDS[t.id];
  if (b && (v < b[0] || v > b[1]))
    throw new InvalidRequest(`Out of Range Error: ${v} is out of range for ${t.id}`);
  return v;
}

/** The type an integer literal has in DuckDB: INTEGER when it fits, else BIGINT, else HUGEINT. */
export function intLiteralType(v: bigint): SqlType {
  if (v >= -2147483648n && v <= 2147483647n) return { id: "INTEGER" };
  if (v >= -(2n ** 63n) && v < 2n ** 63n) return { id: "BIGINT" };
  return { id: "HUGEINT" };
}

/**
 * The common type of two operands of a comparison, COALESCE, CASE or UNION (DuckDB's implicit casts for
 * the types the subset meets), or `Unsupported` when the pair is outside what is modelled.
 */
export function unify(a: VType, b: VType, what: string): VType {
  if (a.literal === "null") return b;
  if (b.literal === "null") return a;
  if (isInt(a.t) && isInt(b.t)) {
    if (a.t.id.startsWith("U") || b.t.id.startsWith("U")) {
      if (sameType(a.t, b.t)) return { t: a.t };
      throw new Unsupported(`metadata query: ${what} of ${a.t.id} and ${b.t.id}`);
    }
    const ra = INT_RANK[a.t.id] ?? 0;
    const rb = INT_RANK[b.t.id] ?? 0;
    // An integer literal takes the other side's type when it fits (DuckDB's integer-literal rule).
    if (a.literal === "int" && !b.literal) return { t: ra > rb ? a.t : b.t };
    if (b.literal === "int" && !a.literal) return { t: rb > ra ? b.t : a.t };
    return {
      t: ra >= rb ? a.t : b.t,
      literal: a.literal === "int" && b.literal === "int" ? "int" : undefined,
    };
  }
  if ((isFloat(a.t) && (isInt(b.t) || isFloat(b.t))) || (isFloat(b.t) && isInt(a.t)))
    return { t: { id: "DOUBLE" } };
  if (a.literal === "str" && b.literal === "str") return a;
  if (a.literal === "str" && castable(b.t)) return { t: b.t };
  if (b.literal === "str" && castable(a.t)) return { t: a.t };
  if (sameType(a.t, b.t)) return { t: a.t };
  if ((a.t.id === "VARCHAR" && b.t.id === "JSON") || (a.t.id === "JSON" && b.t.id === "VARCHAR"))
    return { t: { id: "VARCHAR" } };
  throw new Unsupported(`metadata query: ${what} of ${typeText(a.t)} and ${typeText(b.t)}`);
}

const CASTABLE = new Set<SqlType["id"]>([
  "BOOLEAN",
  "TINYINT",
  "SMALLINT",
  "INTEGER",
  "BIGINT",
  "HUGEINT",
  "UTINYINT",
  "USMALLINT",
  "UINTEGER",
  "UBIGINT",
  "DOUBLE",
  "FLOAT",
  "VARCHAR",
  "UUID",
  "TIMESTAMP WITH TIME ZONE",
  "JSON",
  "TIMESTAMP",
  "DATE",
]);
function castable(t: SqlType): boolean {
  return CASTABLE.has(t.id);
}

/** Whether a value cast from `from` to `to` is modelled. */
export function castSupported(from: SqlType, to: SqlType): boolean {
  if (from.id === "SQLNULL") return true;
  if (sameType(from, to)) return true;
  if (!castable(to)) return false;
  if (to.id === "VARCHAR") return castable(from) || from.id === "LIST" || from.id === "STRUCT";
  if (from.id === "VARCHAR" || from.id === "JSON") return true;
  if (isInt(from) && (isInt(to) || isFloat(to) || to.id === "BOOLEAN")) return true;
  if (from.id === "BOOLEAN" && isInt(to)) return true;
  if (from.id === "UUID" && to.id === "UUID") return true;
  return false;
}

/** A TIMESTAMPTZ text as microseconds (the one parser of DuckLake's timestamp literals), or undefined. */
function parseTimestamptz(text: string): bigint | undefined {
  try {
    return timestamptzMicros(text);
  } catch (e) {
    if (e instanceof InvalidRequest) return undefined;
    throw e;
  }
}

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/** A TIMESTAMPTZ as DuckDB renders it in UTC (the server's time zone): `2026-12-01 10:33:46.833743+00`. */
export function timestamptzText(micros: bigint): string {
  const ms = Number(micros / 1000n) - (micros % 1000n < 0n ? 1 : 0);
  const d = new Date(ms);
  let frac = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  let fracText = "";
  if (frac !== 0n) {
    fracText = `.${frac.toString().padStart(6, "0")}`.replace(/0+$/, "");
    frac = 0n;
  }
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}${fracText}+00`;
}

function castError(v: SqlValue, to: SqlType): InvalidRequest {
  return new InvalidRequest(
    `Conversion Error: Could not convert ${JSON.stringify(String(v)).slice(0, 80)} to ${typeText(to)}`,
  );
}

/** A DECIMAL's unscaled value as DuckDB writes it: every fraction digit of its scale (`1.50`, `-0.05`). */
function decimalText(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, "0");
  const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return neg ? `-${body}` : body;
}

/** Text of a value as DuckDB's CAST(… AS VARCHAR) writes it, for the types the subset casts. */
export function toText(v: SqlValue, t: SqlType): string {
  if (t.id === "BOOLEAN") return v ? "true" : "false";
  if (t.id === "TIMESTAMP WITH TIME ZONE") return timestamptzText(v as bigint);
  if (isFloat(t)) {
    const n = v as number;
    if (Number.isNaN(n)) return "nan";
    if (n === Number.POSITIVE_INFINITY) return "inf";
    if (n === Number.NEGATIVE_INFINITY) return "-inf";
    return floatText(n, t.id === "FLOAT");
  }
  if (isInt(t)) return String(v);
  if (t.id === "DECIMAL") return decimalText(v as bigint, t.scale);
  // Dates and timestamps of years 1..9999 (DuckDB prints others with more digits or a `(BC)`; refused).
  if (t.id === "DATE" || t.id === "TIMESTAMP") {
    const text =
      t.id === "DATE"
        ? dateFromEpochDays(v as number)
        : timestampFromEpochNanos("timestamp", (v as bigint) * 1000n);
    if (!/^\d{4}-/.test(text) || text.startsWith("0000"))
      throw new Unsupported(`metadata query: a ${typeText(t)} outside years 1 to 9999 rendered as text`);
    return text;
  }
  if (t.id === "VARCHAR" || t.id === "UUID" || t.id === "JSON") return v as string;
  throw new Unsupported(`metadata query: a ${typeText(t)} rendered as text`);
}

/** CAST (or TRY_CAST: a failed conversion is NULL) of a non-null value. */
export function castValue(v: SqlValue, from: SqlType, to: SqlType, tryCast: boolean): SqlValue {
  if (v === null) return null;
  if (sameType(from, to)) return v;
  const fail = (): SqlValue => {
    if (tryCast) return null;
    throw castError(v, to);
  };
  if (to.id === "VARCHAR" || to.id === "JSON") return toText(v, from);
  if (from.id === "VARCHAR" || from.id === "JSON") return castText(v as string, to, fail);
  if (isInt(from)) {
    const n = v as bigint;
    if (isInt(to)) {
      const b = INT_BOUNDS[to.id] as [bigint, bigint];
      return n < b[0] || n > b[1] ? fail() : n;
    }
    if (isFloat(to)) return Number(n);
    if (to.id === "BOOLEAN") return n !== 0n;
  }
  if (from.id === "BOOLEAN" && isInt(to)) return v ? 1n : 0n;
  throw new Unsupported(`metadata query: CAST from ${typeText(from)} to ${typeText(to)}`);
}

/**
 * Text to a value of `to`. Only spellings whose meaning is certain are converted; an empty text fails
 * (NULL under TRY_CAST); any other spelling DuckDB might still accept ('1.0', '1_000', '0x10', 'infinity',
 * an offset on a TIMESTAMP) is refused rather than answered NULL.
 */
function castText(text: string, to: SqlType, fail: () => SqlValue): SqlValue {
  const s = text.trim();
  if (s === "") return fail();
  // No DuckDB spelling of a number, date or time lacks a digit, except the named special values.
  const noDigit = !/[0-9]/.test(s);
  const special = /inf|nan|epoch/i.test(s);
  const unsure = (): SqlValue => {
    if (noDigit && !special) return fail();
    throw new Unsupported(`metadata query: casting ${JSON.stringify(s.slice(0, 40))} to ${typeText(to)}`);
  };
  if (isInt(to)) {
    if (!/^[+-]?\d+$/.test(s)) return unsure();
    const n = BigInt(s);
    const b = INT_BOUNDS[to.id] as [bigint, bigint];
    return n < b[0] || n > b[1] ? fail() : n;
  }
  if (isFloat(to)) {
    const lower = s.toLowerCase();
    if (lower === "nan") return Number.NaN;
    if (lower === "inf" || lower === "infinity") return Number.POSITIVE_INFINITY;
    if (lower === "-inf" || lower === "-infinity") return Number.NEGATIVE_INFINITY;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return unsure();
    const n = Number(s);
    return to.id === "FLOAT" ? Math.fround(n) : n;
  }
  if (to.id === "BOOLEAN") {
    const l = s.toLowerCase();
    if (l === "true" || l === "t" || l === "1" || l === "y" || l === "yes") return true;
    if (l === "false" || l === "f" || l === "0" || l === "n" || l === "no") return false;
    throw new Unsupported(`metadata query: casting ${JSON.stringify(s.slice(0, 40))} to BOOLEAN`);
  }
  if (to.id === "UUID") {
    const m = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i.exec(s);
    return m ? s.toLowerCase() : unsure();
  }
  if (to.id === "TIMESTAMP WITH TIME ZONE") {
    const micros = parseTimestamptz(s);
    return micros === undefined ? unsure() : micros;
  }
  if (to.id === "TIMESTAMP" || to.id === "DATE") {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?)?$/.exec(s);
    if (!m) return unsure();
    const [, y, mo, d, h = "0", mi = "0", sec = "0", frac = ""] = m;
    const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec));
    const back = new Date(ms);
    if (
      Number.isNaN(ms) ||
      back.getUTCDate() !== Number(d) ||
      Number(h) > 23 ||
      Number(mi) > 59 ||
      Number(sec) > 59
    ) {
      return unsure();
    }
    if (to.id === "DATE") return Math.floor(ms / 86_400_000);
    return BigInt(ms) * 1000n + BigInt(frac.padEnd(6, "0").slice(0, 6) || "0");
  }
  throw new Unsupported(`metadata query: CAST from text to ${typeText(to)}`);
}

/** Code-point order (what DuckDB's byte-wise UTF-8 comparison gives). */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(i) as number;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Compares two non-null values of the same evaluation type. */
export function compareValues(a: SqlValue, b: SqlValue, t: SqlType): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === "number" && typeof b === "number") {
    // DuckDB orders NaN above every other value and equal to itself.
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
    if (Number.isNaN(b)) return -1;
    return a === b ? 0 : a < b ? -1 : 1;
  }
  if (typeof a === "string" && typeof b === "string") return compareText(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b) && t.id === "LIST") {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareNullable(a[i] ?? null, b[i] ?? null, t.child, false, false);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  throw new Unsupported(`metadata query: comparing values of ${typeText(t)}`);
}

/** Ordering with NULL placement (`nullsFirst`) and direction, as ORDER BY applies it. */
export function compareNullable(
  a: SqlValue,
  b: SqlValue,
  t: SqlType,
  desc: boolean,
  nullsFirst: boolean,
): number {
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === nullsFirst ? -1 : 1;
  }
  const c = compareValues(a, b, t);
  return desc ? -c : c;
}

/** A key for hashing equal values together (GROUP BY, DISTINCT, hash joins, IN lists). */
export function keyOf(v: SqlValue): string {
  if (v === null) return "n";
  switch (typeof v) {
    case "bigint":
      return `i${v}`;
    case "number":
      return Number.isNaN(v) ? "fNaN" : `f${Object.is(v, -0) ? 0 : v}`;
    case "string":
      return `s${v}`;
    case "boolean":
      return v ? "T" : "F";
    default:
      return `j${JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x))}`;
  }
}

/** A value read from a stored row, as the evaluator holds values of `t` (integers as bigint). */
export function internal(v: SqlValue | undefined, t: SqlType): SqlValue {
  if (v === null || v === undefined) return null;
  if (isInt(t) && typeof v === "number") return BigInt(v);
  if (t.id === "TIMESTAMP WITH TIME ZONE" && typeof v === "number") return BigInt(v);
  if (t.id === "LIST" && Array.isArray(v)) return v.map((x) => internal(x, t.child));
  if (t.id === "STRUCT" && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array)) {
    const o = v as Record<string, SqlValue>;
    const out: Record<string, SqlValue> = {};
    for (const f of t.fields) out[f.name] = internal(o[f.name], f.type);
    return out;
  }
  return v;
}

/** An evaluated value as the result's representation of `t` (`result.ts`). */
export function external(v: SqlValue, t: SqlType): SqlValue {
  if (v === null) return null;
  if (NUMBER_INTS.has(t.id) && typeof v === "bigint") return Number(v);
  if (t.id === "LIST" && Array.isArray(v)) return v.map((x) => external(x, t.child));
  if (t.id === "STRUCT" && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array)) {
    const o = v as Record<string, SqlValue>;
    const out: Record<string, SqlValue> = {};
    for (const f of t.fields) out[f.name] = external(o[f.name] ?? null, f.type);
    return out;
  }
  return v;
}

/** A result type: an untyped NULL column is INTEGER in DuckDB's answer. */
export function resultType(v: VType): SqlType {
  return v.t.id === "SQLNULL" ? { id: "INTEGER" } : v.t;
}
