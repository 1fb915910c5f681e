/**
 * DuckDB `Vector::Serialize` / `Deserialize` for flat vectors of `SqlValue`s: field 100 has-validity,
 * 101 the validity mask (one bit per row, set = valid, 64-bit words), then by physical type: 102 the
 * fixed-width little-endian data, or 102 a list of strings (VARCHAR, BLOB, JSON), 103 the child vectors
 * (STRUCT), 104-106 list size, entries and child (LIST, MAP), 103-104 array size and child (ARRAY).
 * A NULL row's slot holds DuckDB's `NullValue<T>()` (the type's minimum, NaN for floats, "\x80" for a
 * string), as stock's `WriteToStorage` writes it, so re-encoding stock's bytes is byte-identical
 * (decision record `docs/decisions/0201-quack-wire-codec.md`).
 */
import {
  int128ToUuid,
  type SqlField,
  type SqlInterval,
  type SqlTimeTz,
  type SqlType,
  type SqlValue,
  uuidToInt128 as uuidInt128,
  VARIANT_PHYSICAL,
} from "../../catalog/index.ts";
import type { BinaryReader, BinaryWriter } from "./binary.ts";
import { QuackEncodeError, QuackProtocolError } from "./errors.ts";

type Fixed =
  | "bool"
  | "i8"
  | "i16"
  | "i32"
  | "i64"
  | "u8"
  | "u16"
  | "u32"
  | "u64"
  | "f32"
  | "f64"
  | "i128"
  | "u128"
  | "interval";

const FIXED_SIZE: Record<Fixed, number> = {
  bool: 1,
  i8: 1,
  u8: 1,
  i16: 2,
  u16: 2,
  i32: 4,
  u32: 4,
  f32: 4,
  i64: 8,
  u64: 8,
  f64: 8,
  i128: 16,
  u128: 16,
  interval: 16,
};

/** The physical layout of a type's values in a vector. */
function fixedOf(type: SqlType): Fixed | null {
  switch (type.id) {
    case "BOOLEAN":
      return "bool";
    case "TINYINT":
      return "i8";
    case "SMALLINT":
      return "i16";
    case "INTEGER":
    case "DATE":
    case "SQLNULL":
      return "i32";
    case "BIGINT":
    case "TIME":
    case "TIMESTAMP":
    case "TIMESTAMP_S":
    case "TIMESTAMP_MS":
    case "TIMESTAMP_NS":
    case "TIMESTAMP WITH TIME ZONE":
    case "TIME WITH TIME ZONE":
      return "i64";
    case "UTINYINT":
      return "u8";
    case "USMALLINT":
      return "u16";
    case "UINTEGER":
      return "u32";
    case "UBIGINT":
      return "u64";
    case "FLOAT":
      return "f32";
    case "DOUBLE":
      return "f64";
    case "HUGEINT":
    case "UUID":
      return "i128";
    case "UHUGEINT":
      return "u128";
    case "INTERVAL":
      return "interval";
    case "DECIMAL":
      if (type.width <= 4) return "i16";
      if (type.width <= 9) return "i32";
      if (type.width <= 18) return "i64";
      return "i128";
    default:
      return null;
  }
}

/** TIME WITH TIME ZONE packs micros in the high 40 bits and (MAX_OFFSET - offset seconds) in the low 24. */
const TIMETZ_OFFSET_BITS = 24n;
const TIMETZ_MAX_OFFSET = 16 * 60 * 60 - 1;

function fail(type: SqlType, value: SqlValue): never {
  const shown = typeof value === "bigint" ? `${value}n` : (JSON.stringify(value) ?? String(value));
  throw new QuackEncodeError(`value ${shown.slice(0, 80)} is not a ${type.id} value`);
}

function isRecord(v: SqlValue): v is { [field: string]: SqlValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function asNumber(type: SqlType, v: SqlValue): number {
  if (typeof v !== "number") fail(type, v);
  return v;
}

function asBigint(type: SqlType, v: SqlValue): bigint {
  if (typeof v !== "bigint") fail(type, v);
  return v;
}

function uuidToInt128(type: SqlType, v: SqlValue): bigint {
  if (typeof v !== "string" || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v))
    fail(type, v);
  return uuidInt128(v);
}

function writeFixed(view: DataView, at: number, kind: Fixed, type: SqlType, v: SqlValue): void {
  switch (kind) {
    case "bool":
      if (typeof v !== "boolean") fail(type, v);
      view.setUint8(at, v ? 1 : 0);
      return;
    case "i8":
      view.setInt8(at, asNumber(type, v));
      return;
    case "u8":
      view.setUint8(at, asNumber(type, v));
      return;
    case "i16":
      view.setInt16(at, type.id === "DECIMAL" ? Number(asBigint(type, v)) : asNumber(type, v), true);
      return;
    case "u16":
      view.setUint16(at, asNumber(type, v), true);
      return;
    case "i32":
      view.setInt32(at, type.id === "DECIMAL" ? Number(asBigint(type, v)) : asNumber(type, v), true);
      return;
    case "u32":
      view.setUint32(at, asNumber(type, v), true);
      return;
    case "f32":
      view.setFloat32(at, asNumber(type, v), true);
      return;
    case "f64":
      view.setFloat64(at, asNumber(type, v), true);
      return;
    case "i64":
      if (type.id === "TIME WITH TIME ZONE") {
        if (!isRecord(v) || typeof v.micros !== "bigint" || typeof v.offsetSeconds !== "number")
          fail(type, v);
        const tz = v as unknown as SqlTimeTz;
        const bits = (tz.micros << TIMETZ_OFFSET_BITS) | BigInt(TIMETZ_MAX_OFFSET - tz.offsetSeconds);
        view.setBigUint64(at, bits, true);
        return;
      }
      view.setBigInt64(at, asBigint(type, v), true);
      return;
    case "u64":
      view.setBigUint64(at, asBigint(type, v), true);
      return;
    case "i128":
    case "u128": {
      const big = type.id === "UUID" ? uuidToInt128(type, v) : asBigint(type, v);
      view.setBigUint64(at, BigInt.asUintN(64, big), true);
      view.setBigUint64(at + 8, BigInt.asUintN(64, big >> 64n), true);
      return;
    }
    case "interval": {
      if (
        !isRecord(v) ||
        typeof v.months !== "number" ||
        typeof v.days !== "number" ||
        typeof v.micros !== "bigint"
      ) {
        fail(type, v);
      }
      const iv = v as unknown as SqlInterval;
      view.setInt32(at, iv.months, true);
      view.setInt32(at + 4, iv.days, true);
      view.setBigInt64(at + 8, iv.micros, true);
      return;
    }
  }
}

function readFixed(view: DataView, at: number, kind: Fixed, type: SqlType): SqlValue {
  switch (kind) {
    case "bool":
      return view.getUint8(at) !== 0;
    case "i8":
      return view.getInt8(at);
    case "u8":
      return view.getUint8(at);
    case "i16":
      return type.id === "DECIMAL" ? BigInt(view.getInt16(at, true)) : view.getInt16(at, true);
    case "u16":
      return view.getUint16(at, true);
    case "i32":
      return type.id === "DECIMAL" ? BigInt(view.getInt32(at, true)) : view.getInt32(at, true);
    case "u32":
      return view.getUint32(at, true);
    case "f32":
      return view.getFloat32(at, true);
    case "f64":
      return view.getFloat64(at, true);
    case "i64": {
      if (type.id !== "TIME WITH TIME ZONE") return view.getBigInt64(at, true);
      const bits = view.getBigUint64(at, true);
      const offset = TIMETZ_MAX_OFFSET - Number(bits & ((1n << TIMETZ_OFFSET_BITS) - 1n));
      return { micros: bits >> TIMETZ_OFFSET_BITS, offsetSeconds: offset };
    }
    case "u64":
      return view.getBigUint64(at, true);
    case "i128":
    case "u128": {
      const lower = view.getBigUint64(at, true);
      const upperBits = view.getBigUint64(at + 8, true);
      const upper = kind === "i128" ? BigInt.asIntN(64, upperBits) : upperBits;
      const big = (upper << 64n) | lower;
      return type.id === "UUID" ? int128ToUuid(big) : big;
    }
    case "interval":
      return {
        months: view.getInt32(at, true),
        days: view.getInt32(at + 4, true),
        micros: view.getBigInt64(at + 8, true),
      };
  }
}

/**
 * DuckDB's NullValue<T>() for a physical layout: the signed minimum, 0 unsigned, NaN for floats, and
 * 0x80 for a boolean (measured: stock writes a NULL BOOLEAN slot as the byte 0x80).
 */
function writeNull(view: DataView, at: number, kind: Fixed): void {
  switch (kind) {
    case "bool":
    case "i8":
      view.setInt8(at, -128);
      return;
    case "i16":
      view.setInt16(at, -32768, true);
      return;
    case "i32":
      view.setInt32(at, -2147483648, true);
      return;
    case "i64":
      view.setBigInt64(at, -(1n << 63n), true);
      return;
    case "i128":
      view.setBigInt64(at + 8, -(1n << 63n), true);
      return;
    case "f32":
      view.setUint32(at, 0x7fc00000, true);
      return;
    case "f64":
      view.setBigUint64(at, 0x7ff8000000000000n, true);
      return;
    case "interval":
      view.setInt32(at, -2147483648, true);
      view.setInt32(at + 4, -2147483648, true);
      view.setBigInt64(at + 8, -(1n << 63n), true);
      return;
    default:
      return;
  }
}

/** DuckDB's NullValue<string_t>(): the one-byte string "\x80". */
const STRING_NULL = new Uint8Array([0x80]);

function maskBytes(count: number): number {
  return Math.ceil(count / 64) * 8;
}

const UTF8 = new TextEncoder();
const UTF8_DECODER = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A VARCHAR/JSON row's text; bytes that are not UTF-8 are a malformed message, not an internal error. */
function decodeText(bytes: Uint8Array, type: SqlType, row: number): string {
  try {
    return UTF8_DECODER.decode(bytes);
  } catch {
    throw new QuackProtocolError(`row ${row} of a ${type.id} vector is not valid UTF-8`);
  }
}

/** Writes the fields of one vector object holding `values` (one per row) of `type`. */
export function writeVector(w: BinaryWriter, type: SqlType, values: readonly SqlValue[]): void {
  // A VARIANT vector is serialized as its physical STRUCT (docs/decisions/0701-variant-wire.md).
  if (type.id === "VARIANT") {
    writeVector(w, VARIANT_PHYSICAL, values);
    return;
  }
  const count = values.length;
  const hasNull = values.some((v) => v === null);
  w.fieldId(100);
  w.bool(hasNull);
  if (hasNull) {
    const mask = new Uint8Array(maskBytes(count)).fill(0xff);
    values.forEach((v, i) => {
      if (v === null) mask[i >> 3] = (mask[i >> 3] as number) & ~(1 << (i & 7));
    });
    w.fieldId(101);
    w.blob(mask);
  }
  const fixed = fixedOf(type);
  if (fixed) {
    const size = FIXED_SIZE[fixed];
    const data = new Uint8Array(size * count);
    const view = new DataView(data.buffer);
    values.forEach((v, i) => {
      if (v === null) writeNull(view, i * size, fixed);
      else writeFixed(view, i * size, fixed, type, v);
    });
    w.fieldId(102);
    w.blob(data);
    return;
  }
  switch (type.id) {
    case "VARCHAR":
    case "JSON":
    case "BLOB":
      w.fieldId(102);
      w.list(values, (v) => {
        if (v === null) w.blob(STRING_NULL);
        else if (type.id === "BLOB") {
          if (!(v instanceof Uint8Array)) fail(type, v);
          w.blob(v);
        } else {
          if (typeof v !== "string") fail(type, v);
          w.blob(UTF8.encode(v));
        }
      });
      return;
    case "STRUCT":
      w.fieldId(103);
      w.list(type.fields, (f: SqlField) => {
        const child = values.map((v) => {
          if (v === null) return null;
          if (!isRecord(v) || !(f.name in v)) fail(type, v);
          return v[f.name] as SqlValue;
        });
        w.object(() => writeVector(w, f.type, child));
      });
      return;
    case "LIST":
    case "MAP": {
      const childType: SqlType =
        type.id === "LIST"
          ? type.child
          : {
              id: "STRUCT",
              fields: [
                { name: "key", type: type.key },
                { name: "value", type: type.value },
              ],
            };
      const child: SqlValue[] = [];
      const entries: [number, number][] = [];
      for (const v of values) {
        if (v === null) {
          entries.push([0, 0]);
          continue;
        }
        if (!Array.isArray(v)) fail(type, v);
        entries.push([child.length, v.length]);
        for (const e of v) child.push(e);
      }
      w.fieldId(104);
      w.uleb(child.length);
      w.fieldId(105);
      w.list(entries, ([offset, length]) => {
        w.object(() => {
          w.fieldId(100);
          w.uleb(offset);
          w.fieldId(101);
          w.uleb(length);
        });
      });
      w.fieldId(106);
      w.object(() => writeVector(w, childType, child));
      return;
    }
    case "ARRAY": {
      const child: SqlValue[] = [];
      for (const v of values) {
        if (v === null) {
          for (let i = 0; i < type.size; i++) child.push(null);
          continue;
        }
        if (!Array.isArray(v) || v.length !== type.size) fail(type, v);
        for (const e of v) child.push(e);
      }
      w.fieldId(103);
      w.uleb(type.size);
      w.fieldId(104);
      w.object(() => writeVector(w, type.child, child));
      return;
    }
    default:
      throw new QuackEncodeError(`type ${type.id} has no vector encoding`);
  }
}

/**
 * DuckDB's `VectorType::CONSTANT_VECTOR`: a client's appended chunk (APPEND_REQUEST) writes a column whose
 * rows all hold one value as field 90 = this, then the vector's fields for one row.
 */
const CONSTANT_VECTOR = 2;

/** Reads the fields of one vector object of `count` rows (the caller consumes the object end). */
export function readVector(r: BinaryReader, type: SqlType, count: number): SqlValue[] {
  if (type.id === "VARIANT") return readVector(r, VARIANT_PHYSICAL, count);
  // Before anything of `count` rows is allocated: the message's bytes must be able to back them.
  r.charge(count, `a ${type.id} vector of ${count} rows`);
  if (r.field(90)) {
    const vectorType = r.uleb();
    if (vectorType !== CONSTANT_VECTOR) {
      throw new QuackProtocolError(`vector type ${vectorType} (only flat and constant vectors are read)`);
    }
    // One row on the wire, the same value in every row of the chunk (already charged above).
    const one = readFlatVector(r, type, Math.min(count, 1));
    return count === 0 ? [] : new Array<SqlValue>(count).fill(one[0] as SqlValue);
  }
  return readFlatVector(r, type, count);
}

function readFlatVector(r: BinaryReader, type: SqlType, count: number): SqlValue[] {
  r.requireField(100, "has_validity_mask");
  let valid: (i: number) => boolean = () => true;
  if (r.bool()) {
    r.requireField(101, "validity");
    const mask = r.blob();
    if (mask.length !== maskBytes(count)) {
      throw new QuackProtocolError(`validity mask of ${mask.length} bytes for ${count} rows`);
    }
    valid = (i) => ((mask[i >> 3] as number) & (1 << (i & 7))) !== 0;
  }
  const out: SqlValue[] = [];
  const fixed = fixedOf(type);
  if (fixed) {
    r.requireField(102, "data");
    const size = FIXED_SIZE[fixed];
    const data = r.blob();
    if (data.length !== size * count) {
      throw new QuackProtocolError(`${type.id} data of ${data.length} bytes for ${count} rows`);
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    for (let i = 0; i < count; i++) out.push(valid(i) ? readFixed(view, i * size, fixed, type) : null);
    return out;
  }
  switch (type.id) {
    case "VARCHAR":
    case "JSON":
    case "BLOB": {
      r.requireField(102, "data");
      const n = r.count();
      if (n !== count) throw new QuackProtocolError(`${n} strings for ${count} rows`);
      for (let i = 0; i < count; i++) {
        const bytes = r.blob();
        if (!valid(i)) out.push(null);
        else if (type.id === "BLOB") out.push(bytes.slice());
        else out.push(decodeText(bytes, type, i));
      }
      return out;
    }
    case "STRUCT": {
      r.requireField(103, "children");
      const n = r.count();
      if (n !== type.fields.length)
        throw new QuackProtocolError(`${n} struct children for ${type.fields.length}`);
      const children = type.fields.map((f) => {
        const vs = readVector(r, f.type, count);
        r.end();
        return vs;
      });
      for (let i = 0; i < count; i++) {
        if (!valid(i)) {
          out.push(null);
          continue;
        }
        const row: { [field: string]: SqlValue } = {};
        type.fields.forEach((f, j) => {
          row[f.name] = (children[j] as SqlValue[])[i] as SqlValue;
        });
        out.push(row);
      }
      return out;
    }
    case "LIST":
    case "MAP": {
      r.requireField(104, "list_size");
      const size = r.uleb();
      r.requireField(105, "entries");
      const n = r.count();
      if (n !== count) throw new QuackProtocolError(`${n} list entries for ${count} rows`);
      const entries: [number, number][] = [];
      let copied = 0;
      for (let i = 0; i < n; i++) {
        r.requireField(100, "offset");
        const offset = r.uleb();
        r.requireField(101, "length");
        const length = r.uleb();
        r.end();
        if (offset + length > size)
          throw new QuackProtocolError(`list entry beyond the child's ${size} rows`);
        entries.push([offset, length]);
        if (valid(i)) copied += length;
      }
      // Entries may overlap; what they copy out is charged too, so decoding stays linear in the bytes.
      r.charge(copied, `${type.id} entries copying ${copied} child rows`);
      r.requireField(106, "child");
      const childType: SqlType =
        type.id === "LIST"
          ? type.child
          : {
              id: "STRUCT",
              fields: [
                { name: "key", type: type.key },
                { name: "value", type: type.value },
              ],
            };
      const child = readVector(r, childType, size);
      r.end();
      entries.forEach(([offset, length], i) => {
        out.push(valid(i) ? child.slice(offset, offset + length) : null);
      });
      return out;
    }
    case "ARRAY": {
      r.requireField(103, "array_size");
      const size = r.uleb();
      if (size !== type.size) throw new QuackProtocolError(`array size ${size} for ${type.size}`);
      r.requireField(104, "child");
      r.charge(size * count, `an ARRAY of ${count} rows of ${size}`);
      const child = readVector(r, type.child, size * count);
      r.end();
      for (let i = 0; i < count; i++) out.push(valid(i) ? child.slice(i * size, (i + 1) * size) : null);
      return out;
    }
    default:
      throw new QuackProtocolError(`type ${type.id} has no vector encoding`);
  }
}
