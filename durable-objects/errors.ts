/**
 * The lake writer's own typed errors. Everything else a caller sees comes from catalog/ (validation,
 * conflicts) or storage/ (Fenced, Corruption) unchanged.
 */
import { CodedError } from "../storage/errors.ts";

/**
 * The commit was submitted but whether it landed cannot be known: its write errored, stalled past the
 * bound, or the writer stopped while it awaited durability. It is never replayed by the writer.
 */
export class CommitOutcomeUnknown extends CodedError {
  readonly code = "CommitOutcomeUnknown";
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `commit outcome unknown: ${detail}; it may or may not have landed - retry with the same idempotency key, or re-read the lake before resubmitting`,
      options,
    );
  }
}

/** The writer stopped (or is stopping) before this commit was submitted: nothing was written; retry. */
export class Unavailable extends CodedError {
  readonly code = "Unavailable";
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `the lake writer is unavailable: ${detail}; nothing was written by this request - retry shortly`,
      options,
    );
  }
}
