/**
 * The order of DuckLake statistics values. DuckLake stores every min/max as text; this compares two such
 * texts the way the column's DuckLake type orders its values: integers and decimals exactly (digit by
 * digit, so int64/int128/decimal(38,s) keep every digit a double would lose), floats as IEEE doubles
 * (`inf`/`nan` spellings included), everything else by Unicode code point, which is UTF-8 byte order and
 * so DuckDB's VARCHAR/BLOB order. Dates and timestamps in DuckDB's text form order correctly as text.
 * Decision: docs/decisions/0104-scan-pruning.md.
 */

const NUMERIC = /^(u?int(8|16|32|64|128)|float(32|64)|decimal\(\d+,\d+\))$/;

/** Whether a DuckLake type orders its values as numbers (integers, floats, decimals). */
export function isNumericType(type: string): boolean {
  return NUMERIC.test(type);
}

/** Decimal-exponent bound for exact parsing, so `1e999999999` cannot build a billion-digit string. */
const MAX_EXPONENT = 400;

/** A decimal number as sign and digits: value = (neg ? -1 : 1) × 0.digits × 10^exp, digits trimmed. */
interface Exact {
  neg: boolean;
  /** Significant digits without leading or trailing zeros; "" for zero. */
  digits: string;
  /** Position of the decimal point relative to the first significant digit. */
  exp: number;
}

const EXACT = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,6}))?\s*$/;

function parseExact(text: string): Exact | undefined {
  const m = EXACT.exec(text);
  if (!m) return undefined;
  const intPart = m[2] ?? "";
  const fracPart = m[3] ?? "";
  if (intPart === "" && fracPart === "") return undefined;
  const e = m[4] === undefined ? 0 : Number(m[4]);
  if (Math.abs(e) > MAX_EXPONENT) return undefined;
  const all = intPart + fracPart;
  const lead = all.search(/[1-9]/);
  if (lead < 0) return { neg: false, digits: "", exp: 0 };
  const digits = all.slice(lead).replace(/0+$/, "");
  return { neg: m[1] === "-", digits, exp: intPart.length - lead + e };
}

function compareExact(a: Exact, b: Exact): number {
  const signA = a.digits === "" ? 0 : a.neg ? -1 : 1;
  const signB = b.digits === "" ? 0 : b.neg ? -1 : 1;
  if (signA !== signB) return signA < signB ? -1 : 1;
  if (signA === 0) return 0;
  let mag = 0;
  if (a.exp !== b.exp) mag = a.exp < b.exp ? -1 : 1;
  else {
    const n = Math.max(a.digits.length, b.digits.length);
    const da = a.digits.padEnd(n, "0");
    const db = b.digits.padEnd(n, "0");
    mag = da < db ? -1 : da > db ? 1 : 0;
  }
  return signA * mag;
}

function parseFloatStat(text: string): number {
  const t = text.trim().toLowerCase();
  if (/^[+]?inf(inity)?$/.test(t)) return Number.POSITIVE_INFINITY;
  if (/^-inf(inity)?$/.test(t)) return Number.NEGATIVE_INFINITY;
  if (t === "" || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) return Number.NaN;
  return Number(t);
}

/** Code-point order (= UTF-8 byte order), not JS's UTF-16 code-unit order. */
function compareText(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

const isFloat = (type: string): boolean => type === "float32" || type === "float64";

/**
 * A BOOLEAN stats text as DuckDB casts it: Parquet file stats say `0`/`1`, inlined rows' `false`/`true`
 * (stock compares them as values, so `1` and `true` are equal; decision 0730).
 */
function parseBoolStat(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === "true" || t === "t" || t === "1") return 1;
  if (t === "false" || t === "f" || t === "0") return 0;
  return undefined;
}

/**
 * Orders two stats texts for a column type: negative, zero or positive, or undefined when either is not a
 * value of that type (a number column's text that is no number, a NaN), so no order is known.
 */
export function compareStatValues(type: string, a: string, b: string): number | undefined {
  if (isFloat(type)) {
    const x = parseFloatStat(a);
    const y = parseFloatStat(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (isNumericType(type)) {
    const x = parseExact(a);
    const y = parseExact(b);
    return x === undefined || y === undefined ? undefined : compareExact(x, y);
  }
  if (type === "boolean") {
    const x = parseBoolStat(a);
    const y = parseBoolStat(b);
    return x === undefined || y === undefined ? undefined : x - y;
  }
  return compareText(a, b);
}

/** Whether `text` is a value a column of `type` can be compared with (numbers for number columns). */
export function isComparableValue(type: string, text: string): boolean {
  if (isFloat(type)) return !Number.isNaN(parseFloatStat(text));
  if (isNumericType(type)) return parseExact(text) !== undefined;
  if (type === "boolean") return parseBoolStat(text) !== undefined;
  return true;
}

/** Orders two stats texts for a column type; texts that are not of the type fall back to text order. */
export function compareStat(type: string, a: string, b: string): number {
  return compareStatValues(type, a, b) ?? compareText(a, b);
}
