/**
 * Idempotency keys: `{request hash, result, expiry}` recorded in the commit's own batch. A replay with the
 * same request returns the recorded result and stages nothing; a different request under the key is
 * refused. Only successes are recorded. Expired records are removed by `sweepIdempotencyKeys`.
 */
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { keys } from "../keys.ts";
import type { IdempotencyRecord } from "../records.ts";
import type { Staging } from "../staging.ts";
import type { CommitRequest } from "../verbs/schema.ts";

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Canonical JSON: object keys sorted, so equal requests hash equally however they were built. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function requestHash(req: CommitRequest): Promise<string> {
  return sha256Hex(
    canonicalJson({ verbs: req.verbs, author: req.author, message: req.message, extraInfo: req.extraInfo }),
  );
}

/** Two 53-bit key components from the key's SHA-256. */
export async function idempotencySlot(key: string): Promise<[number, number]> {
  const hex = await sha256Hex(key);
  return [Number.parseInt(hex.slice(0, 13), 16), Number.parseInt(hex.slice(13, 26), 16)];
}

export async function lookupIdempotency(st: Staging, key: string): Promise<IdempotencyRecord | undefined> {
  const [h1, h2] = await idempotencySlot(key);
  const raw = await st.get(keys.idempotency(h1, h2));
  if (raw === undefined) return undefined;
  const rec = decodeValue<IdempotencyRecord>(ValueKind.idempotency, raw, "idempotency record");
  return rec.key === key ? rec : undefined;
}

export async function recordIdempotency(
  st: Staging,
  key: string,
  hash: string,
  result: unknown,
  expiresAt: number,
): Promise<void> {
  const [h1, h2] = await idempotencySlot(key);
  const rec: IdempotencyRecord = { key, request_hash: hash, expires_at: expiresAt, result };
  st.put(keys.idempotency(h1, h2), encodeValue(ValueKind.idempotency, rec));
  st.put(keys.idempotencyExpiry(expiresAt, h1, h2), encodeValue(ValueKind.idempotencyExpiry, { key }));
}
