/** Single-object operations of the S3 endpoint: HEAD, ranged GET, PUT (streamed, immutable), DELETE. */
import { dataObjectKey } from "../../storage/keys.ts";
import type { Env } from "../env.ts";
import { callWriter } from "../lake-rpc.ts";
import { bodyLimit, isChecksumMismatch, SHA256_MISMATCH, streamedBody } from "./body.ts";
import { S3Error, xmlEscape } from "./errors.ts";
import { scopedKey } from "./scope.ts";
import { parseDeleteKeys, readXmlBody, xmlResponse } from "./xml.ts";

function objectHeaders(object: R2Object): Headers {
  return new Headers({
    etag: object.httpEtag,
    "last-modified": object.uploaded.toUTCString(),
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
  });
}

export async function headObject(env: Env, key: string): Promise<Response> {
  const object = await env.BUCKET.head(key);
  if (!object) throw new S3Error("NoSuchKey", "the object does not exist");
  const headers = objectHeaders(object);
  headers.set("content-length", String(object.size));
  return new Response(null, { status: 200, headers });
}

type ByteRange = { offset: number; length?: number } | { suffix: number };

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` (one range; httpfs sends the first form). */
function parseRange(header: string): ByteRange {
  const m = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === ""))
    throw new S3Error("InvalidRange", "only one byte range 'bytes=a-b' is served");
  if (m[1] === "") return { suffix: Number(m[2]) };
  const offset = Number(m[1]);
  if (m[2] === "") return { offset };
  const end = Number(m[2]);
  if (end < offset) throw new S3Error("InvalidRange", "the range ends before it starts");
  return { offset, length: end - offset + 1 };
}

export async function getObject(env: Env, key: string, rangeHeader: string | null): Promise<Response> {
  if (rangeHeader === null) {
    const object = await env.BUCKET.get(key);
    if (!object) throw new S3Error("NoSuchKey", "the object does not exist");
    const headers = objectHeaders(object);
    headers.set("content-length", String(object.size));
    return new Response(object.body, { status: 200, headers });
  }
  const range = parseRange(rangeHeader);
  if (!("suffix" in range)) {
    // One R2 call for the common form (httpfs's `bytes=a-b`); R2 refuses an offset past the end, which the
    // sized path below then answers exactly.
    const object = await env.BUCKET.get(key, {
      range: range.length === undefined ? { offset: range.offset } : range,
    }).catch(() => undefined);
    if (object === null) throw new S3Error("NoSuchKey", "the object does not exist");
    if (object !== undefined && "body" in object && range.offset < object.size) {
      const length = Math.min(range.length ?? object.size - range.offset, object.size - range.offset);
      const headers = objectHeaders(object);
      headers.set("content-range", `bytes ${range.offset}-${range.offset + length - 1}/${object.size}`);
      headers.set("content-length", String(length));
      return new Response(object.body, { status: 206, headers });
    }
    await object?.body?.cancel();
  }
  const head = await env.BUCKET.head(key);
  if (!head) throw new S3Error("NoSuchKey", "the object does not exist");
  const size = head.size;
  let offset: number;
  let length: number;
  if ("suffix" in range) {
    length = Math.min(range.suffix, size);
    offset = size - length;
  } else {
    offset = range.offset;
    length = Math.min(range.length ?? size - offset, size - offset);
  }
  if (offset >= size || length <= 0) {
    throw new S3Error("InvalidRange", `the range is outside the object (${size} bytes)`);
  }
  const object = await env.BUCKET.get(key, { range: { offset, length }, onlyIf: { etagMatches: head.etag } });
  if (!object || !("body" in object))
    throw new S3Error("PreconditionFailed", "the object changed while it was read");
  const headers = objectHeaders(object);
  headers.set("content-range", `bytes ${offset}-${offset + length - 1}/${size}`);
  headers.set("content-length", String(length));
  return new Response(object.body, { status: 206, headers });
}

/**
 * Streams the body into R2, put-if-absent: a lake's data files never change once written. R2 checks the
 * signed SHA-256 itself and refuses a mismatch before the object exists (decision 0750).
 */
export async function putObject(env: Env, key: string, request: Request): Promise<Response> {
  const body = streamedBody(request, bodyLimit(env.MAX_DATA_FILE_BYTES), "r2");
  let stored: R2Object | null;
  try {
    stored = await env.BUCKET.put(key, body.readable, {
      onlyIf: { etagDoesNotMatch: "*" },
      ...(body.sha256ForR2 !== null ? { sha256: body.sha256ForR2 } : {}),
    });
  } catch (err) {
    const bodyErr = await body.finished;
    if (bodyErr) throw bodyErr;
    if (isChecksumMismatch(err)) throw new S3Error("XAmzContentSHA256Mismatch", SHA256_MISMATCH);
    throw err;
  }
  const bodyErr = await body.finished;
  if (bodyErr) {
    if (stored) await env.BUCKET.delete(key);
    throw bodyErr;
  }
  if (!stored) {
    throw new S3Error(
      "PreconditionFailed",
      "the object exists; a lake's data files are immutable once written",
    );
  }
  return new Response(null, { status: 200, headers: { etag: stored.httpEtag } });
}

/**
 * Deletes through the lake's writer, behind job 5's fence (decision
 * docs/decisions/0630-quack-orphan-listing-grace.md): no commit can register an object deleted here, and an
 * object a file version names is kept and answered as refused, never deleted.
 */
async function guardedDelete(env: Env, lake: string, keys: readonly string[]): Promise<Set<string>> {
  const prefix = dataObjectKey(lake, "");
  const answer = await callWriter(env, lake, (stub) =>
    stub.deleteDataObjects(
      lake,
      keys.map((k) => k.slice(prefix.length)),
    ),
  );
  return new Set(answer.referenced.map((p) => prefix + p));
}

const REFERENCED =
  "the object is a file of the lake's catalog (a data or delete file version names it), so it was not deleted";

export async function deleteObject(env: Env, lake: string, key: string): Promise<Response> {
  if ((await guardedDelete(env, lake, [key])).has(key)) throw new S3Error("OperationAborted", REFERENCED);
  return new Response(null, { status: 204 });
}

/** DeleteObjects: every key checked against the lake's scope; a refused key is an `<Error>` entry. */
export async function deleteObjects(env: Env, lake: string, request: Request): Promise<Response> {
  const { keys, quiet } = parseDeleteKeys(await readXmlBody(request));
  const allowed: string[] = [];
  let out = "";
  for (const key of keys) {
    try {
      allowed.push(scopedKey(lake, key));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      out += `<Error><Key>${xmlEscape(key)}</Key><Code>AccessDenied</Code><Message>${xmlEscape(message)}</Message></Error>`;
    }
  }
  const kept = allowed.length > 0 ? await guardedDelete(env, lake, allowed) : new Set<string>();
  for (const key of allowed) {
    if (kept.has(key))
      out += `<Error><Key>${xmlEscape(key)}</Key><Code>OperationAborted</Code><Message>${xmlEscape(REFERENCED)}</Message></Error>`;
    else if (!quiet) out += `<Deleted><Key>${xmlEscape(key)}</Key></Deleted>`;
  }
  return xmlResponse("DeleteResult", out);
}
