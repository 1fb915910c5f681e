/**
 * The contract between the Quack front door (`worker/quack/`) and the lake writer for a request that
 * holds any write statement: the whole request is one atomic commit (decision record
 * `docs/decisions/0230-sql-write-translation.md`).
 */
import type { SqlResult, SqlType, SqlValue } from "../result.ts";

/**
 * A client's INSERT straight into a `ducklake_*` table (the Quack APPEND_REQUEST of one chunk), decoded by
 * the door and applied by the writer as one commit (docs/decisions/0710-metadata-appends.md).
 */
export interface MetadataAppend {
  /** The schema the client named (the metadata catalog's `main`). */
  schema: string;
  table: string;
  /** The chunk's column types, as the client bound the table's columns. */
  types: SqlType[];
  /** Row-major values. */
  rows: SqlValue[][];
}

export interface SqlWriteRequest {
  /** The request's SQL text: DuckLake's commit batch (statements separated by `;`). */
  sql: string;
  /**
   * True when the caller is an admin: it may create the lake (an ATTACH of a lake that does not exist yet)
   * and append `ducklake_snapshot_changes` rows (docs/decisions/0710-metadata-appends.md).
   */
  mayCreateLake: boolean;
  /** Replays the first answer for a repeated request with the same key (like a verb commit's key). */
  idempotencyKey?: string;
  /**
   * A hash of the Quack connection id the request came on (never the id itself, a credential): a flush's
   * lone DELETE marks rows hidden from that connection's reads until its commit (`flush-marks.ts`).
   */
  connection?: string;
  /** Instead of `sql` (then empty): rows appended to a `ducklake_*` table. */
  append?: MetadataAppend;
}

export interface SqlWriteAnswer {
  /** What the request's last statement answers on a stock server (e.g. a `Count` BIGINT column). */
  result: SqlResult;
  /** Read-your-writes token: the store position of the batch the commit landed in (durable, published). */
  position: number;
}
