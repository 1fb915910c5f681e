/**
 * The lake writer's own typed errors. Everything else a caller sees comes from catalog/ (validation,
 * conflicts) or storage/ (Fenced, Corruption) unchanged.
 */
import { NotFound, quoteName } from "../catalog/index.ts";
import { CodedError } from "../storage/errors.ts";
import { DEFAULT_TUNABLES } from "./options.ts";

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

/** How an admin frees a deleted lake's name now (docs/decisions/0480-lake-purge.md). */
export function purgeHint(lake: string): string {
  const hours = DEFAULT_TUNABLES.purgedNameReuseMs / 3_600_000;
  return `an admin can remove its objects now with DELETE /v1/lakes/${lake}?purge=true (CLI: ducklake-edge lakes purge ${lake}), which frees the name ${hours} hours after the delete`;
}

/**
 * The lake was deleted (its marker is in R2). Answered as `NotFound` to every read, write and head; the
 * writer keeps the time so a repeated delete can answer what the first one did.
 */
export class LakeWasDeleted extends NotFound {
  constructor(
    lake: string,
    readonly deletedAt: number,
  ) {
    super(`lake ${quoteName(lake)} was deleted at ${new Date(deletedAt).toISOString()}; ${purgeHint(lake)}`);
  }
}

/**
 * A create named a lake that was deleted and whose objects still await removal: the name is not free
 * yet. The message says when the objects become removable (ISO 8601); the name is free once the removal
 * that follows has finished.
 */
export class LakeDeletedPendingRemoval extends CodedError {
  readonly code = "LakeDeletedPendingRemoval";
  constructor(
    lake: string,
    readonly deletedAt: number,
    readonly removeAfter: number,
  ) {
    super(
      `lake ${quoteName(lake)} was deleted at ${new Date(deletedAt).toISOString()}; its objects are kept until ${new Date(removeAfter).toISOString()} and removed after that, and the name can be created again once they are gone; ${purgeHint(lake)}`,
    );
  }
}

/** A deleted lake answers NotFound, except to a create, which learns when the name is free again. */
export function deletedError(
  lake: string,
  create: boolean,
  deletedAt: number,
  graceMs: number,
): LakeWasDeleted | LakeDeletedPendingRemoval {
  if (!create) return new LakeWasDeleted(lake, deletedAt);
  return new LakeDeletedPendingRemoval(lake, deletedAt, deletedAt + graceMs);
}
