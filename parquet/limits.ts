/** Named bounds of the Parquet leaf (decision record `docs/decisions/0300-parquet-library.md`). */

/** Most rows one written file may hold (a writer splits larger inputs into several files). */
export const MAX_ROWS_PER_FILE = 1_000_000;
/** Rows per row group: DuckDB's default is 122,880; smaller groups bound the writer's memory. */
export const ROWS_PER_ROW_GROUP = 122_880;
/** Largest file this leaf reads whole into memory (a Worker isolate has 128 MB). */
export const MAX_READ_BYTES = 64 * 1024 * 1024;
/**
 * Rows per row group of a paced write (`writeParquetPaced`): the most rows it validates, lays out and
 * encodes between two pauses, so the longest synchronous stretch of a maintenance write is one such row
 * group, and a paced read of the file decodes one at a time (decision
 * docs/decisions/0325-paced-maintenance.md).
 */
export const PACED_ROWS_PER_ROW_GROUP = 2048;
