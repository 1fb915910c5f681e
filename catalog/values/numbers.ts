/**
 * Numeric DuckLake types as inlined values: integers (int8..uint128), floats (float32/64) and
 * decimal(p,s). The accepted spellings are a documented subset of what DuckDB's casts take
 * (docs/decisions/0120-inlined-value-types.md); within it every accept/refuse decision and every value
 * matches stock DuckDB's INSERT of the same literal.
 */
import type { StoredValue } from "./errors.ts";
import { refuse } from "./errors.ts";

const INT_RANGES: Record<string, [bigint, bigint]> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  int128: [-(2n ** 127n), 2n ** 127n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  uint128: [0n, 2n ** 128n - 1n],
};

export function isIntegerType(type: string): boolean {
  return type in INT_RANGES;
}

/** A plain decimal number: digits, an optional fraction, an optional exponent (no spaces, hex or `_`). */
const DECIMAL_TEXT = /^([+-]?)(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?$/;
const INTEGER_TEXT = /^[+-]?\d+$/;
/** Decimals take no exponent: DuckDB's own decimal cast refuses some exponent forms (0120). */
const PLAIN_DECIMAL_TEXT = /^([+-]?)(\d+\.?\d*|\.\d+)$/;

/** Integers: stored as a JSON number when it is a safe integer, else as its decimal text. */
export function parseInteger(type: string, input: StoredValue, path: string): StoredValue {
  const range = INT_RANGES[type];
  if (!range) throw new Error(`not an integer type: ${type}`);
  let n: bigint;
  if (typeof input === "boolean") n = input ? 1n : 0n;
  else if (typeof input === "number") {
    if (!Number.isFinite(input) || !Number.isInteger(input))
      refuse(path, type, input, "an integer column takes whole numbers only");
    if (!Number.isSafeInteger(input))
      refuse(path, type, input, "a JSON number beyond 2^53 is not exact; send the integer as a string");
    n = BigInt(input);
  } else if (typeof input === "string") {
    if (!INTEGER_TEXT.test(input)) refuse(path, type, input, "not an integer (digits with an optional sign)");
    n = BigInt(input);
  } else refuse(path, type, input, "an integer column takes a number or a string of digits");
  if (n < range[0] || n > range[1]) refuse(path, type, input, `out of range [${range[0]}, ${range[1]}]`);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(n)
    : n.toString();
}

const FLOAT_SPECIAL: Record<string, string> = {
  nan: "NaN",
  inf: "Infinity",
  "+inf": "Infinity",
  infinity: "Infinity",
  "+infinity": "Infinity",
  "-inf": "-Infinity",
  "-infinity": "-Infinity",
};

/**
 * Floats: a JSON number (float32 stored as its float32 value), or the strings "NaN", "Infinity",
 * "-Infinity" and "-0" (JSON cannot hold them). A finite literal that overflows the type is refused,
 * where DuckDB's string cast would turn it into infinity (0120).
 */
export function parseFloat_(type: "float32" | "float64", input: StoredValue, path: string): StoredValue {
  let x: number;
  if (typeof input === "boolean") x = input ? 1 : 0;
  else if (typeof input === "number") x = input;
  else if (typeof input === "string") {
    const special = FLOAT_SPECIAL[input.toLowerCase()];
    if (special !== undefined) return special;
    if (!DECIMAL_TEXT.test(input)) refuse(path, type, input, "not a number");
    x = Number(input);
  } else refuse(path, type, input, "a float column takes a number or a numeric string");
  if (!Number.isFinite(x)) refuse(path, type, input, "out of range for the type");
  if (type === "float32") {
    x = Math.fround(x);
    if (!Number.isFinite(x)) refuse(path, type, input, "out of range for float32");
  }
  if (Object.is(x, -0)) return "-0";
  return x;
}

/** A float's value from its stored form. */
export function floatOf(stored: StoredValue): number {
  if (typeof stored === "number") return stored;
  if (stored === "-0") return -0;
  return Number(stored);
}

/** Shortest digits that read back as `x` in the type (float32 needs fewer than a double's). */
function shortestDigits(x: number, float32: boolean): string {
  if (!float32) return x.toExponential();
  for (let p = 1; p <= 9; p++) {
    const s = x.toExponential(p - 1);
    if (Math.fround(Number(s)) === x) return s;
  }
  return x.toExponential(8);
}

/**
 * DuckDB's text for a float (what its CSV writer and VARCHAR cast print): shortest round-trip digits,
 * positional with a `.0` between 1e-5 and 1e16, else `d.ddde±XX`; `nan`, `inf`, `-inf`, `-0.0`.
 */
export function floatText(stored: StoredValue, float32: boolean): string {
  const x0 = floatOf(stored);
  if (Number.isNaN(x0)) return "nan";
  if (x0 === Number.POSITIVE_INFINITY) return "inf";
  if (x0 === Number.NEGATIVE_INFINITY) return "-inf";
  if (x0 === 0) return Object.is(x0, -0) ? "-0.0" : "0.0";
  const x = float32 ? Math.fround(x0) : x0;
  const [mant = "0", expText = "0"] = shortestDigits(x, float32).split("e");
  const exp = Number(expText);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  const sign = neg ? "-" : "";
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, "0");
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac === "" ? "0" : frac}`;
}

export function decimalParams(type: string): { width: number; scale: number } | undefined {
  const m = /^decimal\((\d+),(\d+)\)$/.exec(type);
  return m ? { width: Number(m[1]), scale: Number(m[2]) } : undefined;
}

/**
 * decimal(p,s): rounded half away from zero to s digits (DuckDB rounds extra scale on INSERT), refused
 * when the result needs more than p digits. Stored as DuckDB's text with exactly s fraction digits.
 */
export function parseDecimal(type: string, input: StoredValue, path: string): StoredValue {
  const params = decimalParams(type);
  if (!params) throw new Error(`not a decimal type: ${type}`);
  const { width, scale } = params;
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) refuse(path, type, input, "not a finite number");
    text = String(input);
    // DuckDB reads `1e+21` as a DOUBLE and converts it inexactly; the exact digits need a string.
    if (text.includes("e"))
      refuse(path, type, input, 'this number\'s exact digits need a string such as "1.25"');
  } else if (typeof input === "string") text = input;
  else refuse(path, type, input, "a decimal column takes a number or a numeric string");
  const m = PLAIN_DECIMAL_TEXT.exec(text);
  if (!m) refuse(path, type, input, "not a decimal number (digits with an optional sign and point)");
  const [, sign = "", body = ""] = m;
  const exp = 0;
  const [intDigits = "", fracDigits = ""] = body.split(".");
  const allDigits = (intDigits + fracDigits).replace(/^0+/, "");
  // value = allDigits × 10^(exp - fracDigits.length); shift to `scale` fraction digits.
  const shift = exp - fracDigits.length + scale;
  let unscaled: bigint;
  if (allDigits === "") unscaled = 0n;
  else if (shift >= 0) {
    if (allDigits.length + shift > width) refuse(path, type, input, `needs more than ${width} digits`);
    unscaled = BigInt(allDigits) * 10n ** BigInt(shift);
  } else if (-shift > allDigits.length) {
    // The value is below a tenth of the last kept place: it rounds to zero.
    unscaled = 0n;
  } else {
    const keep = allDigits.slice(0, allDigits.length + shift);
    const next = Number(allDigits[allDigits.length + shift]);
    unscaled = BigInt(keep === "" ? "0" : keep) + (next >= 5 ? 1n : 0n);
  }
  if (unscaled >= 10n ** BigInt(width)) refuse(path, type, input, `needs more than ${width} digits`);
  const digits = unscaled.toString().padStart(scale + 1, "0");
  // DuckDB prints no leading zero when the type has no integer digits: decimal(3,3) 0.5 is `.500`.
  const whole = scale === width ? "" : digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale);
  const neg = sign === "-" && unscaled !== 0n ? "-" : "";
  return scale === 0 ? `${neg}${whole}` : `${neg}${whole}.${frac}`;
}
