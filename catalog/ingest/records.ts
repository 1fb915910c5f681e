/** Stored shapes of the row-ingestion subspace (catalog/ingest/keys.ts). */
import type { InlineValue } from "../records.ts";

export type RowValues = Record<string, InlineValue>;

/**
 * The log head. Sequence numbers start at 1; `next_seq - 1` is the newest appended record and `drained`
 * the newest one the flusher has folded into DuckLake (0: none). Records `drained+1 .. next_seq-1` are
 * the tail.
 */
export interface IngestHeadRecord {
  next_seq: number;
  drained: number;
}

export type LogKind = "insert" | "upsert" | "delete" | "truncate" | "drop";

/** One log record: a row (insert/upsert), a key (delete) or a tombstone (truncate/drop) of one table. */
export interface LogRecord {
  seq: number;
  table_id: number;
  kind: LogKind;
  /** insert / upsert: the row, canonical (catalog/values). */
  row?: RowValues;
  /** upsert / delete: the key values in key-column order, canonical. */
  key?: InlineValue[];
}

/** Per-table ingest state: the key columns (declared on an empty table). */
export interface IngestTableRecord {
  table_id: number;
  key_columns: string[];
}

/** One hash bucket of a table's key index: the lake row each key lives in (by DuckLake row id). */
export interface KeyBucketRecord {
  entries: { key: InlineValue[]; row_id: number }[];
}

export type WritePath = "wal" | "lake";

/** A log record the flusher could not apply, with the error it raised (docs/decisions/0314-dead-letters.md). */
export interface DeadLetterRecord extends LogRecord {
  code: string;
  message: string;
}

/** The lake's ingest settings (absent: the defaults in catalog/row-log-limits.ts). */
export interface IngestSettingsRecord {
  write_path: WritePath;
  flush_interval_ms: number;
}
