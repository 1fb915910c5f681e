/**
 * Idempotency keys: `{request hash, result, expiry}` recorded in the commit's own batch. A replay with the
 * same request returns the recorded result and stages nothing; a different request under the key is
 * refused. Only successes are recorded. Expired records are removed by `sweepIdempotencyKeys`.
 *
 * The recorded result includes the batch's store position, which is only fixed at the commit itself: the
 * member stages the record without it (so the key is written, and conflict-checked, with the batch), and
 * the group restamps it with the position through the transaction's commit stamp. A replay answers that
 * position, not the position at the time of the replay. Records written before positions were recorded
 * have none; their replays answer the replay's own position, as they always did.
 * See docs/decisions/0112-idempotent-replay-position.md.
 */

import type { Bytes, Mutation } from "../../storage/api.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { InvalidRequest } from "../errors.ts";
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
  // A `lake` row write's plan (its Parquet file names) is the writer's, made anew on each attempt: a
  // client's retry under the same key is the same request (docs/decisions/0316-lake-write-parquet.md).
  const verbs = req.verbs.map((v) => {
    if (v.op !== "rows_write" || v.lakePlan === undefined) return v;
    const { lakePlan: _plan, ...rest } = v;
    return rest;
  });
  return sha256Hex(
    canonicalJson({ verbs, author: req.author, message: req.message, extraInfo: req.extraInfo }),
  );
}

/**
 * What a key the Worker mints looks like: its mint time in ms (13 digits) and a random UUID. The time
 * orders these records (and a client may send one back as its own key: it is a key like any other).
 */
const MINTED_KEY = /^edge:(\d{13}):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A fresh idempotency key for a write whose client sent none (worker/forward.ts): unique by its UUID, and
 * ordered by `now` so its record lands at the end of the minted range instead of at a random place in the
 * hashed one, where every run merge would rewrite it (docs/decisions/0189-time-ordered-minted-keys.md).
 */
export function mintIdempotencyKey(now: number): string {
  return `edge:${String(Math.floor(now)).padStart(13, "0")}:${crypto.randomUUID()}`;
}

/**
 * How far a minted-shaped key's time may be from the writer's clock when its record is written. The sweep
 * walks minted records in mint order and stops at the first live one, so a record claiming an old time
 * while living a full lifetime would hold back every record after it; only the Worker mints these keys,
 * moments before the writer records them, so a key outside this bound is refused.
 */
export const MINTED_KEY_SKEW_MS = 5 * 60 * 1000;

/**
 * Where a key's record lives, and the two components of its expiry entry: a minted key by its mint time
 * and 53 bits of its SHA-256, any other key by two 53-bit components of its SHA-256.
 */
export interface IdempotencySlot {
  record: Bytes;
  ids: [number, number];
  /** A minted key's record (in mint order, without an expiry entry). */
  minted: boolean;
}

export async function idempotencySlot(key: string): Promise<IdempotencySlot> {
  const hex = await sha256Hex(key);
  const a = Number.parseInt(hex.slice(0, 13), 16);
  const b = Number.parseInt(hex.slice(13, 26), 16);
  const minted = MINTED_KEY.exec(key);
  if (minted !== null) {
    const at = Number(minted[1]);
    return { record: keys.idempotencyMinted(at, a), ids: [at, a], minted: true };
  }
  return { record: keys.idempotency(a, b), ids: [a, b], minted: false };
}

export async function lookupIdempotency(st: Staging, key: string): Promise<IdempotencyRecord | undefined> {
  const raw = await st.get((await idempotencySlot(key)).record);
  if (raw === undefined) return undefined;
  const rec = decodeValue<IdempotencyRecord>(ValueKind.idempotency, raw, "idempotency record");
  return rec.key === key ? rec : undefined;
}

/** What a member recorded under its key, enough to restamp the record once the position is known. */
export interface IdempotencyEntry {
  slot: IdempotencySlot;
  key: string;
  hash: string;
  expiresAt: number;
}

/** Records a success under `key` for `ttlMs` from `now`; InvalidRequest for a minted-shaped key out of MINTED_KEY_SKEW_MS. */
export async function recordIdempotency(
  st: Staging,
  key: string,
  hash: string,
  result: unknown,
  now: number,
  ttlMs: number,
): Promise<IdempotencyEntry> {
  const slot = await idempotencySlot(key);
  const [h1, h2] = slot.ids;
  if (slot.minted && Math.abs(h1 - now) > MINTED_KEY_SKEW_MS) {
    throw new InvalidRequest(
      `idempotency key ${JSON.stringify(key)} has the form of a key the server mints (edge:<ms>:<uuid>), whose time must be within ${MINTED_KEY_SKEW_MS / 60_000} minutes of the writer's clock; use a key of another form`,
    );
  }
  const expiresAt = now + ttlMs;
  const rec: IdempotencyRecord = { key, request_hash: hash, expires_at: expiresAt, result };
  st.put(slot.record, encodeValue(ValueKind.idempotency, rec));
  // A minted record needs no expiry entry: the minted range is in mint order, which the sweep walks.
  if (!slot.minted)
    st.put(keys.idempotencyExpiry(expiresAt, h1, h2), encodeValue(ValueKind.idempotencyExpiry, { key }));
  return { slot, key, hash, expiresAt };
}

/** The record again, now with the batch's position in its result (the commit stamp's write). */
export function stampedIdempotency(
  entry: IdempotencyEntry,
  result: Record<string, unknown>,
  position: number,
): Mutation {
  const rec: IdempotencyRecord = {
    key: entry.key,
    request_hash: entry.hash,
    expires_at: entry.expiresAt,
    result: { ...result, position },
  };
  return { key: entry.slot.record, value: encodeValue(ValueKind.idempotency, rec) };
}

/** The position a recorded result carries, if it was recorded with one. */
export function recordedPosition(result: unknown): number | undefined {
  const p = (result as { position?: unknown } | null)?.position;
  return typeof p === "number" && Number.isSafeInteger(p) ? p : undefined;
}
