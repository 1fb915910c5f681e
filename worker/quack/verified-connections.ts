/**
 * Connection ids this isolate has already verified, so a connection's later messages skip the HMAC check
 * (the largest Worker phase of a warm read, docs/decisions/0640-quack-request-timing.md). Keyed by the exact
 * id text; an entry lives no longer than the id's own expiry, and carries the identity of the signing key and
 * of the token configuration it was verified against: a rotated secret or a changed AUTH_TOKENS (a revoked or
 * downgraded token) misses, and the id is verified again in full. Bounded in entries, least recently used
 * dropped first. docs/decisions/0642-verified-connection-cache.md.
 */
import type { QuackSession } from "./session.ts";

/** Verified connection ids one isolate keeps (an entry is well under 1 KiB: the id and its session). */
export const MAX_VERIFIED_CONNECTIONS = 1024;

interface Verified {
  session: QuackSession;
  /** The signing key's promise it was verified with (one per key material, session.ts). */
  key: unknown;
  /** The parsed token configuration it was checked against (one per AUTH_TOKENS text, auth.ts). */
  grants: unknown;
}

const verified = new Map<string, Verified>();

/**
 * The session of an id verified before under the same signing key and token configuration, unexpired at
 * `now`; else undefined (and a stale entry is dropped).
 */
export function verifiedSession(
  connectionId: string,
  key: unknown,
  grants: unknown,
  now: number,
): QuackSession | undefined {
  const hit = verified.get(connectionId);
  if (!hit) return undefined;
  verified.delete(connectionId);
  if (hit.key !== key || hit.grants !== grants || hit.session.expiresAt <= now) return undefined;
  verified.set(connectionId, hit);
  return hit.session;
}

/** Remembers a fully verified id, dropping the least recently used entry beyond the bound. */
export function rememberVerified(
  connectionId: string,
  session: QuackSession,
  key: unknown,
  grants: unknown,
): void {
  verified.delete(connectionId);
  while (verified.size >= MAX_VERIFIED_CONNECTIONS) {
    const oldest = verified.keys().next();
    if (oldest.done) break;
    verified.delete(oldest.value);
  }
  verified.set(connectionId, { session, key, grants });
}

/** Entries held now (for tests of the bound). */
export function verifiedConnectionCount(): number {
  return verified.size;
}
