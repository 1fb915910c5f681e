/**
 * The catalog's typed errors. Each has a stable `code` that crosses RPC and HTTP unchanged.
 *
 * Wire contract: DuckLake re-drives a failed commit iff its lowercased message contains `primary key`,
 * `unique`, `conflict` or `concurrent`. Only CommitConflict may carry those words, so every other message
 * is built with `describe()`/`quoteName()`, which mask them inside user-supplied names.
 */
import { CodedError, Corruption } from "../storage/errors.ts";

export { CodedError, Corruption };

/** The words DuckLake's RetryOnError looks for; nothing but CommitConflict may contain them. */
export const RETRY_SUBSTRINGS = ["primary key", "unique", "conflict", "concurrent"] as const;

/**
 * Quotes a user-supplied name for an error text, masking any retry substring inside it (the vowel after
 * the first letter becomes `*`), so a table called `unique_ids` cannot make a NotFound look retryable.
 */
export function quoteName(name: string): string {
  let out = name;
  for (const word of RETRY_SUBSTRINGS) {
    const re = new RegExp(word.replace(" ", "\\s"), "gi");
    out = out.replace(re, (m) => `${m[0]}*${m.slice(2)}`);
  }
  // The masking can only shorten matches, never create one; re-check to be certain.
  for (const word of RETRY_SUBSTRINGS) {
    if (out.toLowerCase().includes(word)) out = out.replace(new RegExp(word, "gi"), "*");
  }
  return `"${out.replace(/"/g, '""')}"`;
}

/** A true conflict with a concurrent commit. Retryable by whoever authored the operation. */
export class CommitConflict extends CodedError {
  readonly code = "CommitConflict";
  constructor(detail: string) {
    super(`commit conflict: ${detail}; nothing was written - re-read the catalog and re-drive the operation`);
  }
}

/** Ten benign races lost in a row. Terminal: the text deliberately avoids DuckLake's retry words. */
export class RetryBudgetExhausted extends CodedError {
  readonly code = "RetryBudgetExhausted";
  constructor(detail: string) {
    super(
      `retry budget exhausted: ${detail}; nothing was written - the lake is under a write storm, try later`,
    );
  }
}

/**
 * A staged commit (`ducklake_commit`) whose client allows at most one attempt (`max_retry_count` 0 or 1)
 * lost its race: another commit landed after the snapshot its transaction read. Stock DuckLake's first
 * attempt writes that snapshot + 1, hits `ducklake_snapshot`'s key and stops at once; the text is stock's
 * (docs/decisions/0720-staged-retry-count.md). Only the member fails; nothing of it is written.
 */
export class RetryCountExceeded extends CodedError {
  readonly code = "RetryCountExceeded";
  constructor(maxRetryCount: number, detail: string) {
    super(
      `Failed to commit DuckLake transaction.\nExceeded the maximum retry count of ${maxRetryCount} set by the ducklake_max_retry_count setting.\n. Consider increasing the value with: e.g., "SET ducklake_max_retry_count = ${maxRetryCount * 10};"\n${detail}`,
    );
  }
}

export class NotFound extends CodedError {
  readonly code = "NotFound";
  constructor(detail: string) {
    super(`not found: ${detail}`);
  }
}

export class AlreadyExists extends CodedError {
  readonly code = "AlreadyExists";
  constructor(detail: string) {
    super(`already exists: ${detail}`);
  }
}

/** A structural rule forbids the operation (e.g. dropping a schema that still holds tables). */
export class Constraint extends CodedError {
  readonly code = "Constraint";
  constructor(detail: string) {
    super(`constraint violation: ${detail}`);
  }
}

/**
 * The lake's row log holds as many unflushed records as it may (MAX_UNFLUSHED_RECORDS): a flush makes
 * room. Its own code, so a client can flush and resend (the CLI's backpressure) without parsing text.
 */
export class LogFull extends CodedError {
  readonly code = "LogFull";
  constructor(detail: string) {
    super(`the row log is full: ${detail}`);
  }
}

/** Something the catalog cannot store or do, said by name (e.g. the VARIANT type). */
export class Unsupported extends CodedError {
  readonly code = "Unsupported";
  constructor(detail: string) {
    super(`unsupported: ${detail}`);
  }
}

/**
 * A row that would repeat a primary key DuckLake declares on a `ducklake_*` table, with stock DuckDB's
 * text for it (`Duplicate key "snapshot_id: 3" violates primary key constraint.`): a client-side commit
 * reads "primary key" as a lost race, as against a stock server
 * (docs/decisions/0710-metadata-appends.md).
 */
export class DuplicateKey extends CodedError {
  readonly code = "DuplicateKey";
  constructor(column: string, value: number, prefix = "") {
    super(`${prefix}Duplicate key "${column}: ${value}" violates primary key constraint.`);
  }
}

/** The same idempotency key arrived with a different request. */
export class IdempotencyKeyReused extends CodedError {
  readonly code = "IdempotencyKeyReused";
  constructor(detail: string) {
    super(`idempotency key reused: ${detail}`);
  }
}

/** The request itself is malformed (fails the verb schema or its own arithmetic). */
export class InvalidRequest extends CodedError {
  readonly code = "InvalidRequest";
  constructor(detail: string) {
    super(`invalid request: ${detail}`);
  }
}

/** Raised for catalog-level corruption (bad framing, wrong record kind, unknown format version). */
export function corruption(detail: string): Corruption {
  return new Corruption(
    `corruption: ${detail}; the catalog record is damaged or was not written by this catalog`,
  );
}

/**
 * A row-flush batch planned by the writer (its Parquet file already PUT) no longer matches the log or
 * the table at commit: nothing of it applies, its file stays unreferenced, and the writer plans again
 * (docs/decisions/0313-rows-flush-parquet.md).
 */
export class FlushPlanStale extends CodedError {
  readonly code = "FlushPlanStale";
}

/**
 * A member staged an inlined row below its table's row-id floor (docs/decisions/0182-inlined-row-floor.md):
 * a writer bypassed the one write home (`catalog/inline-floor.ts`). Refused in production, before the batch
 * lands, so no scan that starts at the floor can miss the row; only that member fails.
 */
export class InlineFloorViolation extends CodedError {
  readonly code = "InlineFloorViolation";
}

/** Validation errors drop only their member; everything else fails the whole attempt. */
export function isMemberError(e: unknown): e is CodedError {
  return (
    e instanceof NotFound ||
    e instanceof AlreadyExists ||
    e instanceof Constraint ||
    e instanceof DuplicateKey ||
    e instanceof Unsupported ||
    e instanceof IdempotencyKeyReused ||
    e instanceof InvalidRequest ||
    e instanceof FlushPlanStale ||
    e instanceof InlineFloorViolation ||
    e instanceof RetryCountExceeded
  );
}

/** True for the store's write-write conflict on commit (class lives in storage/). */
export function isTransactionConflict(e: unknown): boolean {
  return e instanceof CodedError && e.code === "TransactionConflict";
}

/**
 * A SQL statement names a table that does not exist, with stock DuckDB's text for it: DuckLake's
 * inlined-delete probe treats exactly this error as "the table has no inlined deletes"
 * (`docs/decisions/0220-quack-file-reads.md`).
 */
export class MissingRelation extends CodedError {
  readonly code = "MissingRelation";
  constructor(name: string) {
    super(`Table with name ${name} does not exist!`);
  }
}

/**
 * A SQL statement calls a function stock DuckDB does not know, with stock's binder text for it: DuckLake
 * sends a table's sort expression inside the flush read, and a DuckLake macro there is unknown to the
 * metadata server (docs/decisions/0621-unknown-functions.md).
 */
export class UnknownFunction extends CodedError {
  readonly code = "UnknownFunction";
  constructor(name: string) {
    super(`Catalog Error: Scalar Function with name ${name} does not exist!`);
  }
}
