/** Bounded retry with exponential backoff for bucket calls, shared by reads and put-if-absent resolution. */
import { StoreUnavailable } from "./errors.ts";

/**
 * Default tries of one bucket call before `StoreUnavailable` (`RetryOptions.attempts` overrides it);
 * decision docs/decisions/0660-retry-bounds.md lists every retry bound.
 */
export const MAX_BUCKET_ATTEMPTS = 5;
/** Default first backoff between bucket tries, doubled each retry. */
const DEFAULT_BACKOFF_MS = 100;
/** Default backoff ceiling between bucket tries. */
const DEFAULT_MAX_BACKOFF_MS = 2000;

export interface RetryOptions {
  /** Total tries of one call before giving up (default 5). */
  attempts?: number;
  /** First backoff in ms, doubled each retry (default 100). */
  backoffMs?: number;
  /** Backoff ceiling in ms (default 2000). */
  maxBackoffMs?: number;
}

export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

export function retryPolicy(o: RetryOptions | undefined): RetryPolicy {
  return {
    attempts: Math.max(1, Math.floor(o?.attempts ?? MAX_BUCKET_ATTEMPTS)),
    backoffMs: Math.max(0, o?.backoffMs ?? DEFAULT_BACKOFF_MS),
    maxBackoffMs: Math.max(0, o?.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS),
  };
}

export function backoff(policy: RetryPolicy, attempt: number): Promise<void> {
  const ms = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempt - 1));
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/** Runs a read-only bucket call, retrying failures; StoreUnavailable once the bound is spent. */
export async function readWithRetry<T>(policy: RetryPolicy, what: string, fn: () => Promise<T>): Promise<T> {
  let last: unknown;
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (attempt > 0) await backoff(policy, attempt);
    try {
      return await fn();
    } catch (e) {
      last = e;
    }
  }
  throw new StoreUnavailable(
    `${what} failed ${policy.attempts} times (last error: ${String((last as Error)?.message ?? last)}); nothing was changed, retry when the bucket is reachable`,
    { cause: last },
  );
}
