/**
 * Quack sessions that a restarted isolate can rebuild: the connection id handed out at CONNECTION is a
 * signed token `<lake>.<expiry>.<token digest>.<nonce>.<hmac>` (the nonce: 128 random bits, so two
 * CONNECTIONs never share an id, docs/decisions/0401-quack-connection-nonce.md), and every later message is authorised by
 * verifying it and looking the digest up in the *current* AUTH_TOKENS — so a revoked or downgraded token
 * stops working on the next message, and no session table exists anywhere (decision record
 * `docs/decisions/0202-quack-sessions-and-lake-selection.md`).
 */
import { type AuthEnv, type Grant, grantByDigest, loadGrants, tokenDigest } from "../auth.ts";
import { isLakeName } from "../lake-name.ts";
import { QuackAuthError } from "./errors.ts";
import { rememberVerified, verifiedSession } from "./verified-connections.ts";

/** How long a connection id stays valid. DuckDB holds one per ATTACH; a re-ATTACH gets a new one. */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

/** Longest auth string accepted (a lake name, a colon and a token). */
export const MAX_AUTH_STRING_CHARS = 1024;

export interface SessionEnv extends AuthEnv {
  /** Optional secret for signing connection ids; without it the key derives from AUTH_TOKENS/DEV_TOKEN. */
  QUACK_SESSION_SECRET?: string;
}

/** Random bytes in each connection id: unguessable, and unique per CONNECTION. */
export const CONNECTION_NONCE_BYTES = 16;

export interface QuackSession {
  lake: string;
  grant: Grant;
  expiresAt: number;
  /** The lake and token this session speaks for: the key of its held results' budget (results.ts). */
  owner: string;
}

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key: the configured secret, else derived from the token configuration (rotating it rotates ids). */
function signingKey(env: SessionEnv): Promise<CryptoKey> {
  const material = env.QUACK_SESSION_SECRET
    ? `secret\u0000${env.QUACK_SESSION_SECRET}`
    : `derived\u0000${env.AUTH_TOKENS ?? ""}\u0000${env.DEV_AUTH ?? ""}\u0000${env.DEV_TOKEN ?? ""}`;
  const hit = keys.get(material);
  if (hit) return hit;
  const made = (async () => {
    const raw = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(`quack-session\u0000${material}`),
    );
    return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  })();
  keys.set(material, made);
  return made;
}

/**
 * Splits an auth string into the lake it names (or null) and the bearer token. The lake is chosen by
 * `<lake>:<token>`; a bare `<token>` works when the token covers exactly one lake.
 */
export function parseAuthString(auth: string): { lake: string | null; token: string } {
  const colon = auth.indexOf(":");
  if (colon > 0) {
    const lake = auth.slice(0, colon);
    if (isLakeName(lake)) return { lake, token: auth.slice(colon + 1) };
  }
  return { lake: null, token: auth };
}

/** Verifies a CONNECTION_REQUEST's auth string and mints the connection id for its lake. */
export async function openSession(
  env: SessionEnv,
  auth: string,
  now: number,
): Promise<{ connectionId: string; session: QuackSession }> {
  if (auth.length === 0) {
    throw new QuackAuthError(
      "Authentication failed: no token. Use CREATE SECRET (TYPE quack, TOKEN '<lake>:<token>', SCOPE 'quack:<host>:<port>')",
    );
  }
  if (auth.length > MAX_AUTH_STRING_CHARS) {
    throw new QuackAuthError(
      `Authentication failed: the auth string exceeds ${MAX_AUTH_STRING_CHARS} characters`,
    );
  }
  // A whole auth string that is itself a token wins over a `<lake>:` reading of it.
  let lake: string | null = null;
  let digest = await tokenDigest(auth);
  let grant = await grantByDigest(env, digest);
  if (!grant) {
    const parsed = parseAuthString(auth);
    if (parsed.lake !== null) {
      lake = parsed.lake;
      digest = await tokenDigest(parsed.token);
      grant = await grantByDigest(env, digest);
    }
  }
  if (!grant) throw new QuackAuthError("Authentication failed: the token is not recognised");
  if (lake === null) {
    if (grant.lakes === "*" || grant.lakes.length !== 1) {
      throw new QuackAuthError(
        "Authentication failed: this token covers several lakes; name one with the auth string '<lake>:<token>'",
      );
    }
    lake = grant.lakes[0] as string;
  }
  if (grant.lakes !== "*" && !grant.lakes.includes(lake)) {
    throw new QuackAuthError(`Authentication failed: the token is not valid for lake '${lake}'`);
  }
  const expiresAt = now + SESSION_TTL_MS;
  const nonce = b64url(crypto.getRandomValues(new Uint8Array(CONNECTION_NONCE_BYTES)));
  const payload = `${lake}.${Math.floor(expiresAt / 1000)}.${b64url(digest)}.${nonce}`;
  const sig = new Uint8Array(
    await crypto.subtle.sign("HMAC", await signingKey(env), new TextEncoder().encode(payload)),
  );
  return {
    connectionId: `${payload}.${b64url(sig)}`,
    session: { lake, grant, expiresAt, owner: ownerOf(lake, b64url(digest)) },
  };
}

/**
 * Verifies a connection id against the signing key and the current tokens; throws QuackAuthError. An id
 * this isolate verified before under the same key and token configuration is answered from
 * verified-connections.ts (docs/decisions/0642-verified-connection-cache.md).
 */
export async function resumeSession(
  env: SessionEnv,
  connectionId: string,
  now: number,
): Promise<QuackSession> {
  const key = signingKey(env);
  const grants = loadGrants(env);
  const known = verifiedSession(connectionId, key, grants, now);
  if (known) return known;
  const parts = connectionId.split(".");
  const invalid = new QuackAuthError("Invalid connection id: connect again (re-ATTACH)");
  if (parts.length !== 5) throw invalid;
  const [lake, expiry, digestText, nonce, sigText] = parts as [string, string, string, string, string];
  const digest = fromB64url(digestText);
  const sig = fromB64url(sigText);
  if (!isLakeName(lake) || !/^\d{1,12}$/.test(expiry) || !digest || !sig || fromB64url(nonce) === null)
    throw invalid;
  const payload = `${lake}.${expiry}.${digestText}.${nonce}`;
  const ok = await crypto.subtle.verify("HMAC", await key, sig, new TextEncoder().encode(payload));
  if (!ok) throw invalid;
  const expiresAt = Number(expiry) * 1000;
  if (expiresAt <= now)
    throw new QuackAuthError("Invalid connection id: the session expired; re-ATTACH the lake");
  const grant = await grantByDigest(env, digest);
  if (!grant) throw new QuackAuthError("Authentication failed: the session's token is no longer valid");
  if (grant.lakes !== "*" && !grant.lakes.includes(lake)) {
    throw new QuackAuthError(`Authentication failed: the token is no longer valid for lake '${lake}'`);
  }
  const session: QuackSession = { lake, grant, expiresAt, owner: ownerOf(lake, digestText) };
  rememberVerified(connectionId, session, key, grants);
  return session;
}

function ownerOf(lake: string, digestText: string): string {
  return `${lake}.${digestText}`;
}
