/**
 * Reading a Parquet file whole: its footer facts and its rows, with exact values. hyparquet decodes
 * decimals to floating point, so decimal columns are read as their raw unscaled integers (the decimal
 * annotation is taken off the parsed schema) and returned as bigint, as `ParquetValue` specifies.
 */
import type { FileMetaData, SchemaElement } from "hyparquet";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { ParquetInvalid } from "./errors.ts";
import { MAX_READ_BYTES } from "./limits.ts";
import type { ParquetRow, ParquetValue } from "./types.ts";

export interface ReadFile {
  rowCount: number;
  footerSize: number;
  /** The file's schema elements as parsed (root first). */
  schema: SchemaElement[];
  rows: ParquetRow[];
}

function uuidString(b: Uint8Array): string {
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function bigEndianSigned(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return b.length > 0 && (b[0] ?? 0) & 0x80 ? v - (1n << BigInt(b.length * 8)) : v;
}

interface Node {
  el: SchemaElement;
  children: Node[];
}

/** The schema elements (depth-first with num_children) as a tree; returns the root. */
function schemaTree(schema: SchemaElement[]): Node {
  let i = 0;
  const take = (): Node => {
    const el = schema[i++];
    if (!el) throw new ParquetInvalid("schema ends early");
    const node: Node = { el, children: [] };
    for (let k = 0; k < (el.num_children ?? 0); k++) node.children.push(take());
    return node;
  };
  return take();
}

function isDecimal(el: SchemaElement): boolean {
  return el.converted_type === "DECIMAL" || el.logical_type?.type === "DECIMAL";
}

/** Converts a decoded value by its schema node: raw decimal leaves become bigint, maps become entries. */
function exact(node: Node, v: unknown): ParquetValue {
  if (v === null || v === undefined) return null;
  const { el, children } = node;
  if (children.length === 0) {
    if (isDecimal(el)) {
      if (typeof v === "number") return BigInt(v);
      if (typeof v === "bigint") return v;
      if (v instanceof Uint8Array) return bigEndianSigned(v);
    }
    return v as ParquetValue;
  }
  const repeated = children[0];
  if (el.converted_type === "LIST" && repeated) {
    const element = repeated.children[0] ?? repeated;
    return (v as unknown[]).map((x) => exact(element, x));
  }
  if ((el.converted_type === "MAP" || el.converted_type === "MAP_KEY_VALUE") && repeated) {
    const [k, val] = repeated.children;
    const entries: [unknown, unknown][] = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
    return entries.map(([key, value]) => ({
      key: k ? exact(k, key) : (key as ParquetValue),
      value: val ? exact(val, value) : (value as ParquetValue),
    }));
  }
  const o = v as Record<string, unknown>;
  const out: Record<string, ParquetValue> = {};
  for (const c of children) out[c.el.name] = exact(c, o[c.el.name]);
  return out;
}

export interface ReadOptions {
  /**
   * Awaited after each row group is decoded, so a file of many row groups never holds the event loop for
   * more than one (decision docs/decisions/0325-paced-maintenance.md). Omitted: the file is decoded in one go.
   */
  pause?: () => Promise<void>;
}

export async function readParquet(bytes: Uint8Array, options: ReadOptions = {}): Promise<ReadFile> {
  if (bytes.byteLength > MAX_READ_BYTES) {
    throw new ParquetInvalid(
      `a ${bytes.byteLength}-byte file exceeds the ${MAX_READ_BYTES} bytes read whole`,
    );
  }
  if (bytes.byteLength < 12) throw new ParquetInvalid("not a Parquet file: too short");
  const buffer = bytes.slice().buffer;
  let metadata: FileMetaData;
  try {
    metadata = parquetMetadata(buffer);
  } catch (e) {
    throw new ParquetInvalid(`not a readable Parquet file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const footerSize = new DataView(buffer, buffer.byteLength - 8, 4).getUint32(0, true);
  const original = metadata.schema.map((e) => ({ ...e }));
  // Take the decimal annotation off so hyparquet hands over the raw unscaled integers.
  const schema = metadata.schema.map((e) => {
    if (!isDecimal(e)) return e;
    const { converted_type: _c, logical_type: _l, ...rest } = e;
    return rest as SchemaElement;
  });
  const tree = schemaTree(original);
  const readRange = (range: { rowStart?: number; rowEnd?: number }) =>
    parquetReadObjects({
      file: buffer,
      metadata: { ...metadata, schema },
      rowFormat: "object",
      ...range,
      // Unannotated BYTE_ARRAY is a blob: keep bytes; annotated text decodes strictly below.
      utf8: false,
      parsers: {
        stringFromBytes: (b: Uint8Array) =>
          new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(b),
        timestampFromMilliseconds: (x: bigint) => x,
        timestampFromMicroseconds: (x: bigint) => x,
        timestampFromNanoseconds: (x: bigint) => x,
        dateFromDays: (d: number) => d,
        jsonFromBytes: (b: Uint8Array) =>
          new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(b),
        uuidFromBytes: uuidString,
      },
    });
  const exactRow = (r: Record<string, unknown>): ParquetRow => {
    const out: ParquetRow = {};
    for (const c of tree.children) out[c.el.name] = exact(c, r[c.el.name]);
    return out;
  };
  const rows: ParquetRow[] = [];
  if (options.pause === undefined) {
    for (const r of await readRange({})) rows.push(exactRow(r));
  } else {
    let rowStart = 0;
    for (const rg of metadata.row_groups) {
      const rowEnd = rowStart + Number(rg.num_rows);
      if (rowEnd > rowStart) for (const r of await readRange({ rowStart, rowEnd })) rows.push(exactRow(r));
      rowStart = rowEnd;
      await options.pause();
    }
  }
  return { rowCount: Number(metadata.num_rows), footerSize, schema: original, rows };
}
