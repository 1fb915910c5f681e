/**
 * Where an S3 request may reach: only `lakes/<lake>/data/…` of this Worker's bucket, for the lake the
 * signing key id names. Key text below the data prefix follows the data route's path rule
 * (`checkDataPath`, decision 0102: plain segments, no dot segment in any spelling, no backslash, no empty
 * segment) and must come out of it unchanged, so a key is never decoded twice into something else.
 */
import { dataObjectKey } from "../../storage/keys.ts";
import { checkDataPath, dotSegmentIn } from "../data-path.ts";
import { S3Error } from "./errors.ts";

/** The path prefix the S3 endpoint is served under (`ENDPOINT '<host>/s3'`, URL_STYLE 'path'). */
export const S3_PATH_PREFIX = "/s3/";

/** The lake's data prefix in the bucket: the only keys its token may touch here. */
export const lakeDataPrefix = (lake: string): string => dataObjectKey(lake, "");

/** A request path split as httpfs sends it with URL_STYLE 'path': `/s3/<bucket>[/<raw key>]`. */
export interface S3Target {
  bucket: string;
  /** The key as sent (still percent-encoded); null for a bucket-level request (listing, multi-delete). */
  rawKey: string | null;
}

export function parseTarget(rawPath: string): S3Target {
  const seg = dotSegmentIn(rawPath);
  if (seg !== null) throw new S3Error("InvalidArgument", `the path holds the dot segment '${seg}'`);
  const rest = rawPath.slice(S3_PATH_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash < 0) return { bucket: rest, rawKey: null };
  const rawKey = rest.slice(slash + 1);
  return { bucket: rest.slice(0, slash), rawKey: rawKey === "" ? null : rawKey };
}

/**
 * The R2 key for a decoded object key, or AccessDenied: inside `lakes/<lake>/data/`, every segment below
 * it a plain name, and nothing that a second decoding would change.
 */
export function scopedKey(lake: string, key: string): string {
  const prefix = lakeDataPrefix(lake);
  if (!key.startsWith(prefix)) {
    throw new S3Error("AccessDenied", `this key id reaches only '${prefix}…'`);
  }
  const rest = key.slice(prefix.length);
  let checked: string;
  try {
    checked = checkDataPath(rest);
  } catch (e) {
    throw new S3Error("AccessDenied", `key refused: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (checked !== rest) throw new S3Error("AccessDenied", "key refused: it must not contain '%'");
  return key;
}

/** The R2 key for a key as sent in the path (decoded once). */
export function scopedRawKey(lake: string, rawKey: string): string {
  let key: string;
  try {
    key = decodeURIComponent(rawKey);
  } catch {
    throw new S3Error("InvalidArgument", "the key is not valid percent-encoding");
  }
  return scopedKey(lake, key);
}

/**
 * The prefix a listing may use: one inside the lake's data prefix (its complete segments plain names),
 * or a shorter one that the data prefix extends, which is narrowed to the data prefix (the token sees
 * nothing else, and everything it may see is still listed).
 */
export function scopedListPrefix(lake: string, prefix: string): string {
  const own = lakeDataPrefix(lake);
  if (own.startsWith(prefix)) return own;
  if (!prefix.startsWith(own)) throw new S3Error("AccessDenied", `this key id lists only '${own}…'`);
  const segments = prefix.slice(own.length).split("/");
  const complete = segments.slice(0, -1);
  const last = segments[segments.length - 1] ?? "";
  if (complete.length > 0) scopedKey(lake, own + complete.join("/"));
  if (last !== "" && /[^A-Za-z0-9._=+-]/.test(last)) {
    throw new S3Error(
      "AccessDenied",
      "listing prefix refused: segments may use only letters, digits and . _ = + -",
    );
  }
  return prefix;
}
