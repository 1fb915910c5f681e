/** Reading and writing the ingest subspace's small records through a staging layer or read view. */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { hash53 } from "../keys.ts";
import type { InlineValue } from "../records.ts";
import type { Staging } from "../staging.ts";
import { ingestKeys } from "./keys.ts";
import { DEFAULT_INGEST_SETTINGS } from "./limits.ts";
import type {
  IngestHeadRecord,
  IngestSettingsRecord,
  IngestTableRecord,
  KeyBucketRecord,
  LogRecord,
} from "./records.ts";

type Readable = Pick<ReadView, "get" | "scan"> | Staging;

export async function readIngestHead(st: Readable): Promise<IngestHeadRecord> {
  const raw = await st.get(ingestKeys.head());
  return raw === undefined
    ? { next_seq: 1, drained: 0 }
    : decodeValue<IngestHeadRecord>(ValueKind.ingestHead, raw, "ingest head");
}

export function writeIngestHead(st: Staging, head: IngestHeadRecord): void {
  st.put(ingestKeys.head(), encodeValue(ValueKind.ingestHead, head));
}

export async function readIngestTable(st: Readable, tableId: number): Promise<IngestTableRecord | undefined> {
  const raw = await st.get(ingestKeys.table(tableId));
  return raw === undefined
    ? undefined
    : decodeValue<IngestTableRecord>(ValueKind.ingestTable, raw, "ingest table");
}

export function writeIngestTable(st: Staging, rec: IngestTableRecord): void {
  st.put(ingestKeys.table(rec.table_id), encodeValue(ValueKind.ingestTable, rec));
}

export async function readSettings(st: Readable): Promise<IngestSettingsRecord> {
  const raw = await st.get(ingestKeys.settings());
  return raw === undefined
    ? DEFAULT_INGEST_SETTINGS
    : decodeValue<IngestSettingsRecord>(ValueKind.ingestSettings, raw, "ingest settings");
}

export function writeSettings(st: Staging, rec: IngestSettingsRecord): void {
  st.put(ingestKeys.settings(), encodeValue(ValueKind.ingestSettings, rec));
}

export function writeRecord(st: Staging, rec: LogRecord): void {
  st.put(ingestKeys.record(rec.seq), encodeValue(ValueKind.ingestRecord, rec));
}

/** The tail: records after `drained`, in sequence order, at most `limit`. */
export async function readTail(st: Readable, drained: number, limit: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const kv of st.scan({
    start: ingestKeys.record(drained + 1),
    prefix: ingestKeys.recordPrefix(),
  })) {
    out.push(decodeValue<LogRecord>(ValueKind.ingestRecord, kv.value, "log record"));
    if (out.length >= limit) break;
  }
  return out;
}

/** The identity of a key: its canonical values as JSON (equal keys ⇔ equal texts). */
export function keyText(key: readonly InlineValue[]): string {
  return JSON.stringify(key);
}

export async function readKeyBucket(
  st: Readable,
  tableId: number,
  key: readonly InlineValue[],
): Promise<KeyBucketRecord> {
  const raw = await st.get(ingestKeys.keyBucket(tableId, hash53(keyText(key))));
  return raw === undefined
    ? { entries: [] }
    : decodeValue<KeyBucketRecord>(ValueKind.ingestKeys, raw, "key index bucket");
}

export function writeKeyBucket(
  st: Staging,
  tableId: number,
  key: readonly InlineValue[],
  b: KeyBucketRecord,
): void {
  const k = ingestKeys.keyBucket(tableId, hash53(keyText(key)));
  if (b.entries.length === 0) st.delete(k);
  else st.put(k, encodeValue(ValueKind.ingestKeys, b));
}
