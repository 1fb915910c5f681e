/**
 * Multipart uploads through R2's own multipart API: each part streams into `uploadPart` (known length,
 * never held whole), so an object of any size passes the Worker one chunk at a time.
 */
import type { Env } from "../env.ts";
import { bodyLimit, streamedBody } from "./body.ts";
import { S3Error, xmlEscape } from "./errors.ts";
import { parseCompleteParts, readXmlBody, xmlResponse } from "./xml.ts";

/** S3's bound on part numbers. */
export const MAX_PART_NUMBER = 10_000;

/** R2 reports an unknown or finished upload id with code 10024 ("NoSuchUpload"). */
function uploadError(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  if (/10024|NoSuchUpload|does not exist/i.test(message)) {
    throw new S3Error(
      "NoSuchUpload",
      "the multipart upload does not exist (finished, aborted or never begun)",
    );
  }
  if (/10025|InvalidPart|10048|EntityTooSmall|part/i.test(message)) {
    throw new S3Error("InvalidPart", `R2 refused the parts: ${message}`);
  }
  throw err;
}

export async function createUpload(env: Env, bucket: string, key: string): Promise<Response> {
  if (await env.BUCKET.head(key)) {
    throw new S3Error(
      "PreconditionFailed",
      "the object exists; a lake's data files are immutable once written",
    );
  }
  const upload = await env.BUCKET.createMultipartUpload(key);
  return xmlResponse(
    "InitiateMultipartUploadResult",
    `<Bucket>${xmlEscape(bucket)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${xmlEscape(upload.uploadId)}</UploadId>`,
  );
}

export async function uploadPart(
  env: Env,
  key: string,
  uploadId: string,
  partNumberText: string,
  request: Request,
): Promise<Response> {
  if (
    !/^\d{1,5}$/.test(partNumberText) ||
    Number(partNumberText) < 1 ||
    Number(partNumberText) > MAX_PART_NUMBER
  ) {
    throw new S3Error("InvalidArgument", `partNumber must be 1..${MAX_PART_NUMBER}`);
  }
  // R2's uploadPart takes no checksum: the part is hashed here, on the way through.
  const body = streamedBody(request, bodyLimit(env.MAX_DATA_FILE_BYTES), "worker");
  let part: R2UploadedPart;
  try {
    part = await env.BUCKET.resumeMultipartUpload(key, uploadId).uploadPart(
      Number(partNumberText),
      body.readable,
    );
  } catch (err) {
    const bodyErr = await body.finished;
    if (bodyErr) throw bodyErr;
    uploadError(err);
  }
  const bodyErr = await body.finished;
  // A part whose bytes do not match their signed hash gets no ETag, so no complete can name it.
  if (bodyErr) throw bodyErr;
  return new Response(null, { status: 200, headers: { etag: `"${part.etag}"` } });
}

export async function completeUpload(
  env: Env,
  bucket: string,
  key: string,
  uploadId: string,
  request: Request,
): Promise<Response> {
  const parts = parseCompleteParts(await readXmlBody(request));
  const upload = env.BUCKET.resumeMultipartUpload(key, uploadId);
  if (await env.BUCKET.head(key)) {
    await upload.abort().catch(() => undefined);
    throw new S3Error(
      "PreconditionFailed",
      "the object exists; a lake's data files are immutable once written",
    );
  }
  let object: R2Object;
  try {
    object = await upload.complete(parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })));
  } catch (err) {
    uploadError(err);
  }
  return xmlResponse(
    "CompleteMultipartUploadResult",
    `<Bucket>${xmlEscape(bucket)}</Bucket><Key>${xmlEscape(key)}</Key><ETag>${xmlEscape(object.httpEtag)}</ETag>`,
  );
}

export async function abortUpload(env: Env, key: string, uploadId: string): Promise<Response> {
  try {
    await env.BUCKET.resumeMultipartUpload(key, uploadId).abort();
  } catch (err) {
    uploadError(err);
  }
  return new Response(null, { status: 204 });
}
