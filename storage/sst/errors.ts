/** Errors specific to sorted tables. Corruption lives in storage/errors.ts (shared with the WAL). */
import { CodedError } from "../errors.ts";

/**
 * A put-if-absent of a sorted table found an object already at its key. Table keys embed the writer
 * epoch, so another object there means another writer with this epoch exists: the store core maps this
 * to Fenced. Stop writing and reopen; never retry under the same key.
 */
export class SstExists extends CodedError {
  readonly code = "SstExists";
}

/**
 * A table the caller named is not in the bucket. For a reader this usually means its cut is older than
 * the grace period and GC removed the table: reopen on a newer cut.
 */
export class SstNotFound extends CodedError {
  readonly code = "SstNotFound";
}

/**
 * The caller handed the builder or key codec something it must not: entries out of order or duplicated,
 * an empty table, or an epoch/id/lake that cannot form a table key. A bug in the caller; fix the input.
 */
export class SstInvalidInput extends CodedError {
  readonly code = "SstInvalidInput";
}
