/**
 * Bounds of row ingestion (docs/decisions/0310-row-ingestion-log.md). Each is reached with a typed error
 * naming it: the log refuses appends past MAX_UNFLUSHED_RECORDS (LogFull: flush first), a write past
 * MAX_OPS_PER_WRITE is InvalidRequest, and one flush drains at most MAX_FLUSH_RECORDS records.
 */
import type { IngestSettingsRecord } from "./ingest/records.ts";

/** Operations in one rows request (or one table of a transaction). */
export const MAX_OPS_PER_WRITE = 10_000;
/**
 * Records the log may hold undrained. Bounds every lake + tail read (which folds the whole tail) and the
 * store's memtable; a writer outrunning the flusher is refused, never silently slowed.
 */
export const MAX_UNFLUSHED_RECORDS = 100_000;
/**
 * Records one flush batch drains into one DuckLake commit; below the catalog's 10,000 inlined rows per
 * commit, so a batch of inserts always fits one inline_insert.
 */
export const MAX_FLUSH_RECORDS = 5_000;
/**
 * Dead-lettered records a lake keeps (decision 0314). Past it the flusher stops at the next poison record
 * (a Constraint naming this limit) rather than dropping it: the log then fills and refuses appends.
 */
export const MAX_DEAD_LETTERS = 10_000;
/** Dead letters one read answers at most. */
export const MAX_DEAD_LETTERS_PAGE = 1_000;
/** Live rows a key-index rebuild reads and commits in one `rows_key_index` (decision 0315). */
export const MAX_KEY_INDEX_REBUILD_ROWS = 100_000;
/** Key columns a table may declare. */
export const MAX_KEY_COLUMNS = 16;
/** The flusher's interval bound (one day); 0 means on demand only. */
export const MAX_FLUSH_INTERVAL_MS = 86_400_000;

export const DEFAULT_INGEST_SETTINGS: IngestSettingsRecord = {
  write_path: "wal",
  flush_interval_ms: 30_000,
};
