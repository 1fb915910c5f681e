/** Bounded retry with exponential backoff for bucket calls, shared by reads and put-if-absent resolution. */
import { StoreUnavailable } from "./errors.ts";

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
    attempts: Math.max(1, Math.floor(o?.attempts ?? 5)),
    backoffMs: Math.max(0, o?.backoffMs ?? 100),
    maxBackoffMs: Math.max(0, o?.maxBackoffMs ?? 2000),
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
