/**
 * A stored VARIANT value (`catalog/values/variant.ts`) in DuckDB's physical VARIANT form (`result.ts`
 * VARIANT_PHYSICAL), laid out as a stock DuckDB lays out the same value cast from its literal
 * (docs/decisions/0701-variant-wire.md, checked byte for byte against stock in
 * `test/catalog/sql/variant-layout.test.ts`):
 * - values are numbered level by level: a node's header (tag, offset, and for an object or array its
 *   children entries, object keys appended then) is written for every node at one position of the type
 *   tree before any of their children; then each object field (in field order) and each array's elements
 *   are laid out as the next level, over all nodes of the level together;
 * - data: the integers, floats, dates, times and timestamps little-endian, DECIMAL as width,
 *   scale (varints) and the unscaled value in 2/4/8/16 bytes, VARCHAR/BLOB as a varint length and bytes,
 *   UUID as DuckDB's 128-bit form, TIME WITH TIME ZONE packed, INTERVAL months/days/micros, OBJECT and ARRAY
 *   as a varint count and a varint first child index (0 when empty); NULL and booleans have no bytes.
 * One difference by design: a NULL element of a typed list takes no bytes here, where stock leaves its
 * slot's width of unspecified bytes; no reader looks at them (the tag says NULL).
 */
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { uuidToInt128 } from "../../uuid.ts";
import { decimalParams, type StoredValue } from "../../values/index.ts";
import type { SqlInterval, SqlTimeTz, SqlValue } from "../result.ts";

/** A stored primitive of DuckLake type `t` as its SqlValue (inlined-values.ts passes its own mapping). */
export type PrimitiveValue = (t: string, v: StoredValue) => SqlValue;

/** DuckDB's VARIANT type tags (`VariantLogicalType`) of the types a stored VARIANT value carries. */
export const VARIANT_TAGS: Readonly<Record<string, number>> = {
  null: 0x00,
  true: 0x01,
  false: 0x02,
  int32: 0x05,
  int64: 0x06,
  int128: 0x07,
  uint128: 0x0c,
  float32: 0x0d,
  float64: 0x0e,
  decimal: 0x0f,
  varchar: 0x10,
  blob: 0x11,
  uuid: 0x12,
  date: 0x13,
  time: 0x14,
  time_ns: 0x15,
  timestamp_s: 0x16,
  timestamp_ms: 0x17,
  timestamp: 0x18,
  timestamp_ns: 0x19,
  timetz: 0x1a,
  timestamptz: 0x1b,
  interval: 0x1c,
  object: 0x1d,
  array: 0x1e,
};

type Node = { t: string; v: StoredValue } | null;

class Bytes {
  private chunks: number[] = [];
  get length(): number {
    return this.chunks.length;
  }
  uleb(n: number): void {
    let v = n;
    do {
      let b = v & 0x7f;
      v = Math.floor(v / 128);
      if (v > 0) b |= 0x80;
      this.chunks.push(b);
    } while (v > 0);
  }
  /** `n` as a little-endian two's complement integer of `size` bytes. */
  int(n: bigint, size: number): void {
    let v = BigInt.asUintN(size * 8, n);
    for (let i = 0; i < size; i++) {
      this.chunks.push(Number(v & 0xffn));
      v >>= 8n;
    }
  }
  float(n: number, size: 4 | 8): void {
    const b = new DataView(new ArrayBuffer(size));
    if (size === 4) b.setFloat32(0, n, true);
    else b.setFloat64(0, n, true);
    for (let i = 0; i < size; i++) this.chunks.push(b.getUint8(i));
  }
  raw(bytes: Uint8Array): void {
    for (const b of bytes) this.chunks.push(b);
  }
  done(): Uint8Array {
    return new Uint8Array(this.chunks);
  }
}

const UTF8 = new TextEncoder();

/** `HH:MM:SS[.fffffffff]` as nanoseconds since midnight (TIME_NS, which has no SqlType). */
function timeNanos(v: StoredValue): bigint {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(String(v));
  if (!m) throw new InvalidRequest(`the stored VARIANT value ${JSON.stringify(v)} is not a valid time_ns`);
  const seconds = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]));
  return seconds * 1_000_000_000n + BigInt((m[4] ?? "").padEnd(9, "0"));
}

function primitive(data: Bytes, t: string, v: StoredValue, scalar: PrimitiveValue): number {
  const dec = decimalParams(t);
  const value = t === "time_ns" ? timeNanos(v) : scalar(t, v);
  if (dec) {
    const { width, scale } = dec;
    data.uleb(width);
    data.uleb(scale);
    data.int(value as bigint, width <= 4 ? 2 : width <= 9 ? 4 : width <= 18 ? 8 : 16);
    return VARIANT_TAGS.decimal as number;
  }
  switch (t) {
    case "boolean":
      return (value ? VARIANT_TAGS.true : VARIANT_TAGS.false) as number;
    case "int32":
    case "date":
      data.int(BigInt(value as number), 4);
      break;
    case "int64":
    case "time":
    case "timestamp":
    case "timestamp_ms":
    case "timestamp_ns":
    case "timestamp_s":
    case "timestamptz":
    case "time_ns":
      data.int(value as bigint, 8);
      break;
    case "int128":
    case "uint128":
      data.int(value as bigint, 16);
      break;
    case "float32":
      data.float(value as number, 4);
      break;
    case "float64":
      data.float(value as number, 8);
      break;
    case "varchar": {
      const bytes = UTF8.encode(value as string);
      data.uleb(bytes.length);
      data.raw(bytes);
      break;
    }
    case "blob":
      data.uleb((value as Uint8Array).length);
      data.raw(value as Uint8Array);
      break;
    case "uuid":
      data.int(uuidToInt128(value as string), 16);
      break;
    case "timetz": {
      const { micros, offsetSeconds } = value as SqlTimeTz;
      data.int((micros << 24n) | BigInt(16 * 60 * 60 - 1 - offsetSeconds), 8);
      break;
    }
    case "interval": {
      const { months, days, micros } = value as SqlInterval;
      data.int(BigInt(months), 4);
      data.int(BigInt(days), 4);
      data.int(micros, 8);
      break;
    }
    default:
      throw new Unsupported(`a VARIANT value of type ${t} cannot be served`);
  }
  const tag = VARIANT_TAGS[t];
  if (tag === undefined) throw new Unsupported(`a VARIANT value of type ${t} cannot be served`);
  return tag;
}

/** The physical VARIANT record of one stored value (null for SQL NULL). */
export function variantPhysical(stored: StoredValue, scalar: PrimitiveValue): SqlValue {
  if (stored === null) return null;
  const keys: string[] = [];
  const children: { keys_index: number | null; values_index: number }[] = [];
  const values: { type_id: number; byte_offset: number }[] = [];
  const data = new Bytes();
  /** Lay out one level (nodes at one type position); `slots` are the children entries they fill. */
  const level = (nodes: Node[], slots: (number | null)[]): void => {
    const next = new Map<string, { nodes: Node[]; slots: number[] }>();
    const queue = (key: string, node: Node, slot: number) => {
      const l = next.get(key) ?? { nodes: [], slots: [] };
      l.nodes.push(node);
      l.slots.push(slot);
      next.set(key, l);
    };
    nodes.forEach((node, i) => {
      const slot = slots[i];
      const index = values.length;
      if (slot !== null && slot !== undefined)
        (children[slot] as { values_index: number }).values_index = index;
      const offset = data.length;
      if (node === null) {
        values.push({ type_id: VARIANT_TAGS.null as number, byte_offset: offset });
        return;
      }
      if (node.t === "object" || node.t === "array") {
        const items = node.v as StoredValue[];
        values.push({ type_id: VARIANT_TAGS[node.t] as number, byte_offset: offset });
        data.uleb(items.length);
        data.uleb(items.length === 0 ? 0 : children.length);
        for (const item of items) {
          const at = children.length;
          if (node.t === "object") {
            const [k, v] = item as [string, StoredValue];
            children.push({ keys_index: keys.length, values_index: 0 });
            keys.push(k);
            queue(`.${k}`, v as Node, at);
          } else {
            children.push({ keys_index: null, values_index: 0 });
            queue("[]", item as Node, at);
          }
        }
        return;
      }
      values.push({ type_id: 0, byte_offset: offset });
      (values[index] as { type_id: number }).type_id = primitive(data, node.t, node.v, scalar);
    });
    for (const l of next.values()) level(l.nodes, l.slots);
  };
  level([stored as Node], [null]);
  return { keys, children, values, data: data.done() };
}
