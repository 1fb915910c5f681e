/**
 * The S3-compatible endpoint at `/s3/<bucket>/<key>` (path style), for stock DuckDB's httpfs with a secret
 * whose ENDPOINT is this Worker: every request is SigV4-verified against the tokens covering the lake its
 * key id names, scoped to that lake's data prefix (read: HEAD/GET/list; write: also PUT, multipart and
 * DELETE), and answered with S3's XML errors. Served before the JSON API (its errors are S3's, not the
 * API's envelope). Decision records docs/decisions/0500-s3-endpoint-credentials.md, 0501-s3-endpoint.md.
 */
import { DEFAULT_BUCKET_NAME } from "../../catalog/index.ts";
import { CodedError } from "../../storage/errors.ts";
import { type Scope, scopeAtLeast, signingCandidates } from "../auth.ts";
import { rawPathOf } from "../data-path.ts";
import type { Env } from "../env.ts";
import { lakeDataUrl } from "../file-checks.ts";
import { isLakeName } from "../lake-name.ts";
import { requireLiveLake } from "../lakes.ts";
import { log } from "../log.ts";
import { S3Error, s3ErrorResponse } from "./errors.ts";
import { listObjects } from "./listing.ts";
import { abortUpload, completeUpload, createUpload, uploadPart } from "./multipart.ts";
import { deleteObject, deleteObjects, getObject, headObject, putObject } from "./objects.ts";
import { parseTarget, S3_PATH_PREFIX, type S3Target, scopedRawKey } from "./scope.ts";
import { parseClaim, verifySignature } from "./sigv4.ts";

/** True for a request the S3 endpoint answers (its path as sent starts with `/s3/`). */
export function isS3Request(request: Request): boolean {
  return rawPathOf(request.url).startsWith(S3_PATH_PREFIX);
}

/** The bucket name DuckDB's URLs carry: this Worker's bucket (wrangler.toml `BUCKET_NAME`). */
export function s3BucketName(env: Env): string {
  return env.BUCKET_NAME ?? DEFAULT_BUCKET_NAME;
}

function rawQueryOf(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  const hash = url.indexOf("#", q);
  return hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash);
}

/**
 * How long a read may rely on an earlier "the lake is live" (per isolate): far below a deleted lake's grace
 * before its objects are removed (decision 0110), so a read in that window still finds only the lake's own
 * bytes. Writes always look again.
 */
export const LIVE_LAKE_MEMO_MS = 5_000;
/** Lakes whose liveness one isolate remembers; the memo is cleared whole when full. */
export const MAX_LIVE_LAKES_MEMO = 1_024;
const liveUntil = new Map<string, number>();

async function requireLive(env: Env, lake: string, read: boolean, now: number): Promise<void> {
  if (read && (liveUntil.get(lake) ?? 0) > now) return;
  try {
    await requireLiveLake(env, lake);
  } catch (e) {
    liveUntil.delete(lake);
    if (e instanceof CodedError && e.code === "NotFound") throw new S3Error("NoSuchBucket", e.message);
    throw e;
  }
  if (liveUntil.size >= MAX_LIVE_LAKES_MEMO) liveUntil.clear();
  liveUntil.set(lake, now + LIVE_LAKE_MEMO_MS);
}

interface Operation {
  scope: Scope;
  name: string;
  run: () => Promise<Response>;
}

/** Which S3 operation a request is, and the scope it needs. Anything else is refused by name. */
function operationOf(
  env: Env,
  request: Request,
  target: S3Target,
  lake: string,
  query: URLSearchParams,
): Operation {
  const bucket = target.bucket;
  const method = request.method;
  if (target.rawKey === null) {
    if (method === "GET")
      return { scope: "read", name: "ListObjectsV2", run: () => listObjects(env, bucket, lake, query) };
    if (method === "POST" && query.has("delete")) {
      return { scope: "write", name: "DeleteObjects", run: () => deleteObjects(env, lake, request) };
    }
    throw new S3Error(
      "MethodNotAllowed",
      `${method} on a bucket is not served (only ListObjectsV2 and DeleteObjects)`,
    );
  }
  const key = scopedRawKey(lake, target.rawKey);
  const uploadId = query.get("uploadId");
  switch (method) {
    case "HEAD":
      return { scope: "read", name: "HeadObject", run: () => headObject(env, key) };
    case "GET":
      if (uploadId !== null) throw new S3Error("MethodNotAllowed", "ListParts is not served");
      return {
        scope: "read",
        name: "GetObject",
        run: () => getObject(env, key, request.headers.get("range")),
      };
    case "PUT":
      if (request.headers.has("x-amz-copy-source"))
        throw new S3Error("MethodNotAllowed", "CopyObject is not served");
      if (uploadId !== null) {
        const part = query.get("partNumber") ?? "";
        return {
          scope: "write",
          name: "UploadPart",
          run: () => uploadPart(env, key, uploadId, part, request),
        };
      }
      return { scope: "write", name: "PutObject", run: () => putObject(env, key, request) };
    case "POST":
      if (query.has("uploads"))
        return { scope: "write", name: "CreateMultipartUpload", run: () => createUpload(env, bucket, key) };
      if (uploadId !== null) {
        return {
          scope: "write",
          name: "CompleteMultipartUpload",
          run: () => completeUpload(env, bucket, key, uploadId, request),
        };
      }
      throw new S3Error("MethodNotAllowed", "POST on an object is served only for multipart uploads");
    case "DELETE":
      if (uploadId !== null)
        return { scope: "write", name: "AbortMultipartUpload", run: () => abortUpload(env, key, uploadId) };
      return { scope: "write", name: "DeleteObject", run: () => deleteObject(env, lake, key) };
    default:
      throw new S3Error("MethodNotAllowed", `${method} is not served`);
  }
}

async function answer(
  request: Request,
  env: Env,
  rawPath: string,
  note: { lake?: string; op?: string },
): Promise<Response> {
  const rawQuery = rawQueryOf(request.url);
  const target = parseTarget(rawPath);
  const claim = parseClaim(request.headers, rawQuery);
  if (!isLakeName(claim.keyId)) {
    throw new S3Error("InvalidAccessKeyId", "the key id must be the lake's name (the recipe's data secret)");
  }
  const lake = claim.keyId;
  note.lake = lake;
  const grant = await verifySignature(
    {
      method: request.method,
      host: request.headers.get("host") ?? new URL(request.url).host,
      rawPathAndQuery: rawQuery === "" ? rawPath : `${rawPath}?${rawQuery}`,
      headers: request.headers,
    },
    claim,
    await signingCandidates(env, lake),
    Date.now(),
  );
  if (target.bucket !== s3BucketName(env)) {
    throw new S3Error(
      "NoSuchBucket",
      `the bucket is '${s3BucketName(env)}' (the lake's data path ${lakeDataUrl(env, lake)})`,
    );
  }
  const query = new URLSearchParams(rawQuery);
  const op = operationOf(env, request, target, lake, query);
  note.op = op.name;
  if (!scopeAtLeast(grant, op.scope)) {
    throw new S3Error("AccessDenied", `${op.name} needs '${op.scope}' scope; the token has '${grant.scope}'`);
  }
  await requireLive(env, lake, op.scope === "read", Date.now());
  return op.run();
}

export async function serveS3(request: Request, env: Env): Promise<Response> {
  const requestId = crypto.randomUUID();
  const started = Date.now();
  const rawPath = rawPathOf(request.url);
  const note: { lake?: string; op?: string } = {};
  let response: Response;
  let code: string | null = null;
  try {
    response = await answer(request, env, rawPath, note);
  } catch (e) {
    let err: S3Error;
    if (e instanceof S3Error) err = e;
    else if (e instanceof CodedError && /Unavailable/.test(e.code))
      err = new S3Error("ServiceUnavailable", e.message);
    else {
      log(
        "error",
        { msg: "s3: unhandled error", requestId, error: String(e), stack: (e as Error).stack },
        env.LOG_LEVEL,
      );
      err = new S3Error("InternalError", "internal error; it has been logged with this request id");
    }
    code = err.s3Code;
    // The body is not read on refusal; cancel it so the client's upload ends.
    await request.body?.cancel().catch(() => undefined);
    response = s3ErrorResponse(err, rawPath, requestId, request.method === "HEAD");
  }
  response.headers.set("x-amz-request-id", requestId);
  log(
    response.status >= 500 ? "error" : "info",
    {
      msg: "s3",
      requestId,
      method: request.method,
      op: note.op ?? null,
      lake: note.lake ?? null,
      status: response.status,
      durationMs: Date.now() - started,
      errorCode: code,
    },
    env.LOG_LEVEL,
  );
  return response;
}
