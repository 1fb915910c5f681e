/** Reading and writing the ingest subspace's small records through a staging layer or read view. */
import type { Bytes, ReadView, ScanRange } from "../../storage/api.ts";
import { decodeValue, encodeValue, ValueKind, valueKindOf } from "../codec.ts";
import { corruption } from "../errors.ts";
import { hash53 } from "../keys.ts";
import type { InlineValue } from "../records.ts";
import { DEFAULT_INGEST_SETTINGS } from "../row-log-limits.ts";
import type { Staging } from "../staging.ts";
import { ingestKeys } from "./keys.ts";
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

/**
 * A run of consecutive log records, stored as one value under the key of its first sequence number
 * (docs/decisions/0318-packed-log-runs.md): one append writes one run, however many records it holds.
 * Every stored run starts after the drained watermark — a trim that drains part of a run re-keys its
 * rest — so a tail read starts its scan at `drained + 1` and never visits drained history.
 */
interface RecordRun {
  first: number;
  records: Omit<LogRecord, "seq">[];
}

/** Writes `records` (without sequence numbers) as one run numbered from `first`. */
export function writeRecordRun(st: Staging, first: number, records: readonly Omit<LogRecord, "seq">[]): void {
  if (records.length === 0) return;
  st.put(ingestKeys.record(first), encodeValue(ValueKind.ingestRecordRun, { first, records }));
}

/** One stored value of the log: a run, or a single record as builds before runs wrote them. */
function decodeRun(value: Bytes): LogRecord[] {
  if (valueKindOf(value) === ValueKind.ingestRecord)
    return [decodeValue<LogRecord>(ValueKind.ingestRecord, value, "log record")];
  const run = decodeValue<RecordRun>(ValueKind.ingestRecordRun, value, "log record run");
  return run.records.map((r, i) => ({ ...r, seq: run.first + i }));
}

/** The key range of the log after `drained`: every stored run of the tail, and nothing drained. */
export function tailRange(drained: number): ScanRange {
  return { start: ingestKeys.record(drained + 1), prefix: ingestKeys.recordPrefix() };
}

/**
 * The tail: records after `drained`, in sequence order, at most `limit`. The records must be dense from
 * `drained + 1` (the single writer numbers them so, and trims keep runs after the watermark); a gap is
 * Corruption rather than a silently shorter tail.
 */
export async function readTail(st: Readable, drained: number, limit: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const kv of st.scan(tailRange(drained))) {
    for (const r of decodeRun(kv.value)) {
      if (r.seq !== drained + 1 + out.length)
        throw corruption(`log record ${r.seq} found where ${drained + 1 + out.length} was expected`);
      out.push(r);
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/**
 * Removes the records `drained + 1 .. through` from the log (the flusher's trim, a dead letter's move):
 * runs wholly inside are deleted, and the run holding `through` is re-keyed to `through + 1` with the
 * records after it, all in the caller's batch.
 */
export async function trimRecords(st: Staging, drained: number, through: number): Promise<void> {
  const runs: { key: Bytes; records: LogRecord[] }[] = [];
  for await (const kv of st.scan(tailRange(drained))) {
    const records = decodeRun(kv.value);
    runs.push({ key: kv.key, records });
    if ((records.at(-1)?.seq ?? 0) >= through) break;
  }
  for (const run of runs) {
    st.delete(run.key);
    const rest = run.records.filter((r) => r.seq > through);
    const [next] = rest;
    if (next !== undefined)
      writeRecordRun(
        st,
        next.seq,
        rest.map(({ seq: _seq, ...r }) => r),
      );
  }
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
