/**
 * The HTTP face of every error: one envelope `{error: {code, message, requestId}}`, with the status
 * chosen by the error's stable code. This table is the one home of that mapping.
 */
import { CodedError } from "../storage/errors.ts";

const STATUS_BY_CODE: Record<string, number> = {
  InvalidRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  InvalidCheckpointId: 400,
  InvalidArgument: 400,
  CheckpointNotFound: 404,
  CheckpointExpired: 404,
  MethodNotAllowed: 405,
  AlreadyExists: 409,
  // A create naming a deleted lake whose objects await removal: the name is not free yet (not "exists").
  LakeDeletedPendingRemoval: 409,
  CommitConflict: 409,
  // A staged commit that allowed one attempt lost its race (docs/decisions/0720-staged-retry-count.md).
  RetryCountExceeded: 409,
  IdempotencyKeyReused: 409,
  Constraint: 409,
  DuplicateKey: 409,
  // The row log is full: flush (POST /flush) and resend; not retried blindly, a flush must come first.
  LogFull: 409,
  PayloadTooLarge: 413,
  Unsupported: 422,
  CommitOutcomeUnknown: 500,
  Corruption: 500,
  Internal: 500,
  RetryBudgetExhausted: 503,
  Fenced: 503,
  Unavailable: 503,
  StoreUnavailable: 503,
  StoreClosed: 503,
  // Commits answer only once their position is published, so a token beyond the newest cut was never
  // issued by this lake: a bad request, not a wait.
  CutNotYetVisible: 400,
  OutcomeUnknown: 500,
};

/** Codes from lower layers that mean the same thing to a client as a public code. */
const CODE_ALIASES: Record<string, string> = {
  LakeNotFound: "NotFound",
  LakeDeleted: "NotFound",
  OutcomeUnknown: "CommitOutcomeUnknown",
};

export function publicCode(code: string): string {
  return CODE_ALIASES[code] ?? code;
}

/** Codes after which a client should wait and retry; they carry `Retry-After`. */
const RETRY_AFTER_SECONDS: Record<string, number> = {
  RetryBudgetExhausted: 1,
  Fenced: 1,
  Unavailable: 1,
  StoreUnavailable: 2,
  StoreClosed: 1,
};

export function statusForCode(code: string): number {
  return STATUS_BY_CODE[code] ?? 500;
}

export function retryAfterForCode(code: string): number | undefined {
  return RETRY_AFTER_SECONDS[code];
}

/** All codes the HTTP layer knows how to answer (documented in OpenAPI). */
export const KNOWN_ERROR_CODES: readonly string[] = Object.keys(STATUS_BY_CODE);

/** An error raised by the HTTP layer itself, or relayed from a lake writer's envelope. */
export class ApiError extends CodedError {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export const invalid = (message: string): ApiError => new ApiError("InvalidRequest", message);
export const notFound = (message: string): ApiError => new ApiError("NotFound", message);
