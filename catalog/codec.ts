/**
 * Value framing: `magic "DLKC" · encoding version · value kind · body`. The body is UTF-8 JSON of a plain
 * record (ids are safe integers, stats are DuckLake's strings, so JSON loses nothing). A wrong magic,
 * version or kind fails loudly as Corruption rather than being read as something else.
 */
import type { Bytes } from "../storage/api.ts";
import { corruption } from "./errors.ts";

export const MAGIC = [0x44, 0x4c, 0x4b, 0x43] as const; // "DLKC"
export const ENCODING_VERSION = 1;
const HEADER = MAGIC.length + 2;

/** Every kind of value the catalog stores; a value decoded as the wrong kind is Corruption. */
export const ValueKind = {
  format: 0x01,
  head: 0x02,
  snapshot: 0x03,
  schema: 0x10,
  table: 0x11,
  view: 0x12,
  column: 0x13,
  dataFile: 0x14,
  deleteFile: 0x15,
  partition: 0x16,
  sort: 0x17,
  macro: 0x18,
  tableStats: 0x19,
  tableColumnStats: 0x1a,
  tagContainer: 0x1b,
  option: 0x1c,
  inlinedTable: 0x1d,
  schemaVersion: 0x1e,
  mapping: 0x1f,
  gcFile: 0x20,
  tableMeta: 0x21,
  inlineRow: 0x30,
  inlineFileDelete: 0x31,
  /** A connection's pending flush of inlined rows (`keys.inlineFlushMark`, docs/decisions/0440-commit-space.md). */
  inlineFlushMark: 0x32,
  nameEntries: 0x40,
  idempotency: 0x50,
  idempotencyExpiry: 0x51,
  ingestHead: 0x60,
  ingestRecord: 0x61,
  ingestTable: 0x62,
  ingestKeys: 0x63,
  ingestSettings: 0x64,
  ingestDeadLetter: 0x65,
  /** A run of consecutive log records stored as one value (docs/decisions/0318-packed-log-runs.md). */
  ingestRecordRun: 0x66,
  maintenanceHead: 0x70,
  maintenanceRun: 0x71,
  maintenanceFence: 0x72,
  maintenanceOrphan: 0x73,
  maintenanceOrphanCursor: 0x74,
} as const;
export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeValue(kind: ValueKind, record: unknown): Bytes {
  const body = encoder.encode(JSON.stringify(record));
  const out = new Uint8Array(HEADER + body.length);
  out.set(MAGIC, 0);
  out[MAGIC.length] = ENCODING_VERSION;
  out[MAGIC.length + 1] = kind;
  out.set(body, HEADER);
  return out;
}

/** The kind byte of an encoded value, or undefined when it is not framed as a catalog value. */
export function valueKindOf(bytes: Bytes): number | undefined {
  if (bytes.length < HEADER || MAGIC.some((m, i) => bytes[i] !== m)) return undefined;
  return bytes[MAGIC.length + 1];
}

export function decodeValue<T>(kind: ValueKind, bytes: Bytes, what: string): T {
  if (bytes.length < HEADER || MAGIC.some((m, i) => bytes[i] !== m)) {
    throw corruption(`${what}: bad magic`);
  }
  const version = bytes[MAGIC.length];
  if (version !== ENCODING_VERSION) {
    throw corruption(`${what}: unknown encoding version ${version} (this build reads ${ENCODING_VERSION})`);
  }
  const found = bytes[MAGIC.length + 1];
  if (found !== kind) throw corruption(`${what}: value kind ${found} where kind ${kind} was expected`);
  try {
    return JSON.parse(decoder.decode(bytes.subarray(HEADER))) as T;
  } catch (e) {
    throw corruption(`${what}: undecodable body (${e instanceof Error ? e.message : String(e)})`);
  }
}
