/**
 * Errors a stateless reader (or a checkpoint caller) can act on. Codes are stable, so the HTTP layer maps
 * them to statuses without parsing messages.
 */
import { CodedError } from "../errors.ts";

/** The lake has no WAL segment: it was never opened by a writer (or its objects are gone). */
export class LakeNotFound extends CodedError {
  readonly code = "LakeNotFound";
}

/**
 * The newest published cut is older than the position the caller asked to read after, even after one
 * re-list. The commit is durable only once its segment lands; retry shortly, or read through the writer.
 */
export class CutNotYetVisible extends CodedError {
  readonly code = "CutNotYetVisible";
}

/** The string is not a checkpoint id this store mints; nothing was read. */
export class InvalidCheckpointId extends CodedError {
  readonly code = "InvalidCheckpointId";
}

/** No such checkpoint in this lake: never minted, deleted, or already collected. */
export class CheckpointNotFound extends CodedError {
  readonly code = "CheckpointNotFound";
}

/** The checkpoint's lifetime has passed; its objects may already be collected. Mint a new one. */
export class CheckpointExpired extends CodedError {
  readonly code = "CheckpointExpired";
}
