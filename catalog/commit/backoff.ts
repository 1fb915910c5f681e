/**
 * The benign-race retry budget (docs/decisions/0463-commit-protocol-rules.md): at most 10 attempts; the first never waits; then
 * 2 ms doubling to a 50 ms cap, plus jitter of up to the base so collided writers fall out of step.
 */
export const MAX_COMMIT_ATTEMPTS = 10;
export const BACKOFF_BASE_MS = 2;
export const BACKOFF_CAP_MS = 50;

/** Delay before attempt `attempt` (0-based); `random` is in [0, 1). */
export function backoffDelay(attempt: number, random: number): number {
  if (attempt <= 0) return 0;
  const base = Math.min(BACKOFF_BASE_MS * 2 ** (attempt - 1), BACKOFF_CAP_MS);
  return base + random * base;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
