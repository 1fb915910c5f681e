/**
 * Every value is checked against its field's Parquet type before anything is encoded, so a file is
 * never written with a value DuckDB would read back as something else (or not at all).
 */
import { ParquetInvalid } from "./errors.ts";
import type { ParquetField, ParquetType, ParquetValue } from "./types.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY_MICROS = 86_400_000_000n;

function fail(where: string, what: string): never {
  throw new ParquetInvalid(`${where}: ${what}`);
}

function isObject(v: ParquetValue): v is { [field: string]: ParquetValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function intRange(bits: number, signed: boolean): [bigint, bigint] {
  const b = BigInt(bits);
  return signed ? [-(1n << (b - 1n)), (1n << (b - 1n)) - 1n] : [0n, (1n << b) - 1n];
}

function wellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

export function checkValue(field: ParquetField, v: ParquetValue, where: string): void {
  if (v === null) {
    if (!field.nullable) fail(where, "NULL in a column that does not allow NULL");
    return;
  }
  checkType(field.type, v, where);
}

function checkType(t: ParquetType, v: ParquetValue, where: string): void {
  switch (t.kind) {
    case "boolean":
      if (typeof v !== "boolean") fail(where, "expected a boolean");
      return;
    case "int": {
      const [lo, hi] = intRange(t.bits, t.signed);
      if (t.bits === 64) {
        if (typeof v !== "bigint") fail(where, "expected a bigint for a 64-bit integer");
        if (v < lo || v > hi) fail(where, `${v} is outside ${t.signed ? "" : "u"}int64`);
      } else {
        if (typeof v !== "number" || !Number.isInteger(v)) fail(where, "expected an integer number");
        if (v < Number(lo) || v > Number(hi))
          fail(where, `${v} is outside ${t.signed ? "" : "u"}int${t.bits}`);
      }
      return;
    }
    case "float":
    case "double":
      if (typeof v !== "number") fail(where, "expected a number");
      return;
    case "decimal": {
      if (typeof v !== "bigint") fail(where, "expected the unscaled decimal value as a bigint");
      const bound = 10n ** BigInt(t.precision);
      if (v >= bound || v <= -bound) fail(where, `unscaled ${v} has more than ${t.precision} digits`);
      return;
    }
    case "string":
      if (typeof v !== "string" || !wellFormed(v)) fail(where, "expected well-formed text");
      return;
    case "json":
      if (typeof v !== "string") fail(where, "expected JSON text");
      try {
        JSON.parse(v);
      } catch {
        fail(where, "not valid JSON");
      }
      return;
    case "blob":
      if (!(v instanceof Uint8Array)) fail(where, "expected bytes");
      return;
    case "uuid":
      if (typeof v !== "string" || !UUID.test(v)) fail(where, "expected a lower-case 8-4-4-4-12 uuid");
      return;
    case "date":
      if (typeof v !== "number" || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
        fail(where, "expected days since 1970-01-01 as a 32-bit integer");
      }
      return;
    case "time":
      if (typeof v !== "bigint" || v < 0n || v > DAY_MICROS)
        fail(where, "expected microseconds since midnight");
      return;
    case "timestamp":
      if (typeof v !== "bigint" || v < -(1n << 63n) || v >= 1n << 63n)
        fail(where, "expected a 64-bit bigint");
      return;
    case "list":
      if (!Array.isArray(v)) fail(where, "expected a list");
      v.forEach((x, i) => {
        if (x === null && !t.element.nullable) fail(`${where}[${i}]`, "NULL element in a list of non-null");
        if (x !== null) checkType(t.element.type, x, `${where}[${i}]`);
      });
      return;
    case "struct":
      if (!isObject(v)) fail(where, "expected a struct object");
      for (const k of Object.keys(v)) {
        if (!t.fields.some((f) => f.name === k)) fail(where, `unknown struct field ${JSON.stringify(k)}`);
      }
      for (const f of t.fields) checkValue(f, v[f.name] ?? null, `${where}.${f.name}`);
      return;
    case "map":
      if (!Array.isArray(v)) fail(where, "expected map entries [{key, value}]");
      v.forEach((e, i) => {
        if (!isObject(e) || !("key" in e)) fail(`${where}[${i}]`, "expected {key, value}");
        if (e.key === null || e.key === undefined) fail(`${where}[${i}]`, "map keys are never NULL");
        checkType(t.key.type, e.key, `${where}[${i}].key`);
        checkValue(t.value, e.value ?? null, `${where}[${i}].value`);
      });
      return;
  }
}
