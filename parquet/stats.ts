/**
 * Per-leaf statistics computed from the values written, with DuckDB's orderings: numbers and bigints
 * numerically (NaN excluded and reported), strings by code point (= UTF-8 byte order, which is how
 * DuckDB compares VARCHAR), blobs and uuids bytewise / lexically, booleans false < true.
 */
import type { ParquetField, ParquetType, ParquetValue } from "./types.ts";

export interface LeafAccumulator {
  path: string;
  fieldId?: number;
  type: ParquetType;
  valueCount: number;
  nullCount: number;
  min: ParquetValue;
  max: ParquetValue;
  containsNan: boolean;
}

export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function compareLeaf(a: ParquetValue, b: ParquetValue): number {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  return 0;
}

/** One accumulator per leaf of the field, in schema order. */
export function leavesOf(field: ParquetField, prefix = ""): LeafAccumulator[] {
  const path = prefix ? `${prefix}.${field.name}` : field.name;
  const t = field.type;
  if (t.kind === "list") return leavesOf({ ...t.element, name: "element" }, path);
  if (t.kind === "map") {
    return [...leavesOf({ ...t.key, name: "key" }, path), ...leavesOf({ ...t.value, name: "value" }, path)];
  }
  if (t.kind === "struct") return t.fields.flatMap((c) => leavesOf(c, path));
  const acc: LeafAccumulator = {
    path,
    type: t,
    valueCount: 0,
    nullCount: 0,
    min: null,
    max: null,
    containsNan: false,
  };
  if (field.fieldId !== undefined) acc.fieldId = field.fieldId;
  return [acc];
}

export function observe(acc: LeafAccumulator, v: ParquetValue): void {
  acc.valueCount++;
  if (v === null) {
    acc.nullCount++;
    return;
  }
  if (typeof v === "number" && Number.isNaN(v)) {
    acc.containsNan = true;
    return;
  }
  if (acc.min === null || compareLeaf(v, acc.min) < 0) acc.min = v;
  if (acc.max === null || compareLeaf(v, acc.max) > 0) acc.max = v;
}
