/**
 * Bearer-token auth. Tokens come from the AUTH_TOKENS secret (JSON map token → {lakes, scope}); scopes
 * nest read ⊂ write ⊂ admin; deny by default. The dev token counts only when DEV_AUTH is "enabled",
 * which only .dev.vars sets (wrangler.toml pins "disabled").
 */
import { z } from "zod";
import { ApiError } from "./errors.ts";

export type Scope = "read" | "write" | "admin";

const RANK: Record<Scope, number> = { read: 1, write: 2, admin: 3 };

export interface Grant {
  /** "*" for every lake. */
  lakes: "*" | readonly string[];
  scope: Scope;
}

const GrantSchema = z.object({
  lakes: z.array(z.string().min(1)).min(1),
  scope: z.enum(["read", "write", "admin"]),
});
const TokensSchema = z.record(z.string().min(16, "tokens must be at least 16 characters"), GrantSchema);

export interface AuthEnv {
  AUTH_TOKENS?: string;
  DEV_AUTH?: string;
  DEV_TOKEN?: string;
}

interface Entry {
  digest: Uint8Array;
  grant: Grant;
  /** The token itself: the SigV4 secret of the S3 endpoint (docs/decisions/0500-s3-endpoint-credentials.md). */
  token: string;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Equal-length digests compared without an early exit, so timing says nothing about the token. */
function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

const cacheByText = new Map<string, Promise<Entry[]>>();

/** Parses the configured tokens once per distinct configuration. A malformed secret denies everything. */
export function loadGrants(env: AuthEnv): Promise<Entry[]> {
  const key = `${env.AUTH_TOKENS ?? ""}\u0000${env.DEV_AUTH ?? ""}\u0000${env.DEV_TOKEN ?? ""}`;
  const hit = cacheByText.get(key);
  if (hit) return hit;
  const built = buildEntries(env);
  cacheByText.set(key, built);
  return built;
}

async function buildEntries(env: AuthEnv): Promise<Entry[]> {
  const entries: Entry[] = [];
  if (env.AUTH_TOKENS) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(env.AUTH_TOKENS);
    } catch {
      console.error(
        JSON.stringify({ level: "error", msg: "AUTH_TOKENS is not JSON; every request is denied" }),
      );
      return [];
    }
    const result = TokensSchema.safeParse(parsed);
    if (!result.success) {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "AUTH_TOKENS is malformed; every request is denied",
          issues: result.error.issues,
        }),
      );
      return [];
    }
    for (const [token, g] of Object.entries(result.data)) {
      const lakes = g.lakes.includes("*") ? "*" : g.lakes;
      entries.push({ digest: await sha256(token), grant: { lakes, scope: g.scope }, token });
    }
  }
  if (env.DEV_AUTH === "enabled" && env.DEV_TOKEN) {
    entries.push({
      digest: await sha256(env.DEV_TOKEN),
      grant: { lakes: "*", scope: "admin" },
      token: env.DEV_TOKEN,
    });
  }
  return entries;
}

/** Resolves the Authorization header to a grant, or throws Unauthorized. */
export async function authenticate(env: AuthEnv, header: string | undefined): Promise<Grant> {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match?.[1]) {
    throw new ApiError("Unauthorized", "missing bearer token: send 'Authorization: Bearer <token>'");
  }
  const presented = await sha256(match[1]);
  let found: Grant | undefined;
  // Visit every entry whatever matches, so the time taken does not reveal which token matched.
  for (const entry of await loadGrants(env)) {
    if (digestsEqual(entry.digest, presented) && !found) found = entry.grant;
  }
  if (!found) throw new ApiError("Unauthorized", "the bearer token is not recognised");
  return found;
}

/** Throws Forbidden unless the grant covers `lake` (or every lake, when `lake` is null) at `needed`. */
export function authorize(grant: Grant, lake: string | null, needed: Scope): void {
  const lakeOk = grant.lakes === "*" || (lake !== null && grant.lakes.includes(lake));
  if (!lakeOk) {
    throw new ApiError(
      "Forbidden",
      lake === null
        ? "this route needs a token valid for every lake"
        : `the token is not valid for lake '${lake}'`,
    );
  }
  if (RANK[grant.scope] < RANK[needed]) {
    throw new ApiError("Forbidden", `this route needs '${needed}' scope; the token has '${grant.scope}'`);
  }
}

/** The SHA-256 digest a token is known by (what a Quack connection id carries instead of the token). */
export function tokenDigest(token: string): Promise<Uint8Array> {
  return sha256(token);
}

/**
 * The grant of the configured token with this digest, or undefined: checked against the current
 * AUTH_TOKENS on every call, so a revoked token stops working at once. Visits every entry.
 */
export async function grantByDigest(env: AuthEnv, digest: Uint8Array): Promise<Grant | undefined> {
  let found: Grant | undefined;
  for (const entry of await loadGrants(env)) {
    if (digestsEqual(entry.digest, digest) && !found) found = entry.grant;
  }
  return found;
}

/** True when the grant reaches `needed` scope (read ⊂ write ⊂ admin). */
export function scopeAtLeast(grant: Grant, needed: Scope): boolean {
  return RANK[grant.scope] >= RANK[needed];
}

/** A configured token that covers a lake: what may have signed an S3 request for it. */
export interface SigningCandidate {
  token: string;
  grant: Grant;
}

/**
 * Every configured token whose grant covers `lake` (at any scope), read from the current AUTH_TOKENS on
 * each call so a revoked token stops signing at once. The S3 endpoint tries each as the SigV4 secret
 * (docs/decisions/0500-s3-endpoint-credentials.md).
 */
export async function signingCandidates(env: AuthEnv, lake: string): Promise<SigningCandidate[]> {
  const out: SigningCandidate[] = [];
  for (const entry of await loadGrants(env)) {
    if (entry.grant.lakes === "*" || entry.grant.lakes.includes(lake)) {
      out.push({ token: entry.token, grant: entry.grant });
    }
  }
  return out;
}

/** Constant-time equality of two strings of equal length (lengths are not secret here). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return digestsEqual(x, y);
}
