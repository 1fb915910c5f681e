/**
 * Typed storage errors. Every error a caller can act on has a stable `code` (the class name) that crosses
 * RPC and HTTP unchanged; messages say what happened and what to do.
 */
export abstract class CodedError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Another writer owns the lake: a segment or manifest PUT found its key taken by someone else's bytes.
 * Terminal for this store handle: it rejects every pending and later write and writes nothing more.
 */
export class Fenced extends CodedError {
  readonly code = "Fenced";
}

/** Two writers raced to open the same lake and this one lost; opening again resolves it. */
export class OpenRaced extends CodedError {
  readonly code = "OpenRaced";
}

/** A transaction's commit found a key it writes written by another commit or batch after it began. */
export class TransactionConflict extends CodedError {
  readonly code = "TransactionConflict";
}

/**
 * A segment or manifest write could not be confirmed either way within the retry bound. Terminal: the
 * write may or may not be durable; the handle never rolls back, never carries on, never reuses the id.
 */
export class OutcomeUnknown extends CodedError {
  readonly code = "OutcomeUnknown";
}

/** The bucket stayed unreachable for a read (list/get) past the retry bound; nothing was changed. */
export class StoreUnavailable extends CodedError {
  readonly code = "StoreUnavailable";
}

/** The store handle was closed by its host; open the lake again to write. */
export class StoreClosed extends CodedError {
  readonly code = "StoreClosed";
}

/** A transaction was used after it committed or aborted. */
export class TransactionClosed extends CodedError {
  readonly code = "TransactionClosed";
}

/** A caller passed something the store cannot accept (bad lake name, non-byte key, oversized key). */
export class InvalidArgument extends CodedError {
  readonly code = "InvalidArgument";
}

/**
 * Stored bytes failed validation: bad magic, unknown format version, checksum mismatch, truncation or an
 * unparsable record, or a gap in the WAL. Never retried and never skipped: the object is damaged or was not written by this
 * store. Restore it from a replica or rebuild it; the message names the object and the check that failed.
 */
export class Corruption extends CodedError {
  readonly code = "Corruption";
}

/**
 * The lake was deleted: its marker sorts first in the WAL prefix. Reads and writes refuse it; its objects
 * are removed after a grace period, after which the name may be created again.
 */
export class LakeDeleted extends CodedError {
  readonly code = "LakeDeleted";
}
