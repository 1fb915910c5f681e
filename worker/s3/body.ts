/**
 * A request body passed to R2 as a stream of known length (R2 takes no other stream), hashed on the way
 * through so the signed `x-amz-content-sha256` is checked without holding the object: the Worker keeps
 * one chunk at a time whatever the object's size.
 */
import { S3Error } from "./errors.ts";

/** Largest single PUT or multipart part accepted (Workers' request-body limit is 100 MB on most plans). */
export const DEFAULT_MAX_S3_BODY_BYTES = 100 * 1024 * 1024;

const HEX64 = /^[0-9a-f]{64}$/;

export interface StreamedBody {
  readable: ReadableStream<Uint8Array>;
  length: number;
  /** Resolves once the whole body has passed: null if it matched its length and signed hash, else the error. */
  finished: Promise<S3Error | null>;
}

export function bodyLimit(configured: string | undefined): number {
  return Number(configured ?? DEFAULT_MAX_S3_BODY_BYTES) || DEFAULT_MAX_S3_BODY_BYTES;
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function streamedBody(request: Request, max: number): StreamedBody {
  const lengthHeader = request.headers.get("content-length");
  if (lengthHeader === null || !/^\d{1,15}$/.test(lengthHeader)) {
    throw new S3Error(
      "MissingContentLength",
      "Content-Length is required (R2 stores bodies of known length)",
    );
  }
  const length = Number(lengthHeader);
  if (length > max) throw new S3Error("EntityTooLarge", `the body is ${length} bytes; the limit is ${max}`);
  const claimed = request.headers.get("x-amz-content-sha256") ?? "";
  if (claimed !== "UNSIGNED-PAYLOAD" && !HEX64.test(claimed)) {
    throw new S3Error(
      "InvalidRequest",
      "x-amz-content-sha256 must be the body's hex SHA-256 (or UNSIGNED-PAYLOAD)",
    );
  }
  const digest = HEX64.test(claimed) ? new crypto.DigestStream("SHA-256") : null;
  const digestWriter = digest?.getWriter();
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      if (digestWriter) await digestWriter.write(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      if (digestWriter) await digestWriter.close();
    },
  });
  const fixed = new FixedLengthStream(length);
  const source = request.body ?? new Blob([]).stream();
  const finished = source
    .pipeThrough(tap)
    .pipeTo(fixed.writable)
    .then(
      async (): Promise<S3Error | null> => {
        if (digest === null) return null;
        if (hex(await digest.digest) === claimed) return null;
        return new S3Error(
          "XAmzContentSHA256Mismatch",
          "the body does not match its signed x-amz-content-sha256",
        );
      },
      () => new S3Error("IncompleteBody", `the body did not match Content-Length ${length}`),
    );
  return { readable: fixed.readable, length, finished };
}
