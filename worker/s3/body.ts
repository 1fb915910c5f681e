/**
 * A request body passed to R2 as a stream of known length (R2 takes no other stream), its signed
 * `x-amz-content-sha256` checked without holding the object: by R2 itself where the call takes a checksum
 * (PutObject), else hashed on the way through (UploadPart), one chunk at a time whatever the object's size
 * (docs/decisions/0750-s3-expect-continue.md).
 */
import { S3Error } from "./errors.ts";

/** Largest single PUT or multipart part accepted (Workers' request-body limit is 100 MB on most plans). */
export const DEFAULT_MAX_S3_BODY_BYTES = 100 * 1024 * 1024;

const HEX64 = /^[0-9a-f]{64}$/;

export interface StreamedBody {
  readable: ReadableStream<Uint8Array>;
  length: number;
  /**
   * Resolves once the whole body has passed: null if it matched its length (and, hashed here, its signed
   * hash), else the error.
   */
  finished: Promise<S3Error | null>;
  /** The signed hex SHA-256 the caller hands R2 to check (`R2PutOptions.sha256`); null when hashed here or unsigned. */
  sha256ForR2: string | null;
}

/** Where the body's signed hash is checked: by R2 (a call that takes a checksum) or here, on the way through. */
export type HashCheck = "r2" | "worker";

/** R2's answer to a put whose bytes do not match the checksum it was given. */
export function isChecksumMismatch(err: unknown): boolean {
  return /checksum|BadDigest|10037/i.test(err instanceof Error ? err.message : String(err));
}

export const SHA256_MISMATCH = "the body does not match its signed x-amz-content-sha256";

export function bodyLimit(configured: string | undefined): number {
  return Number(configured ?? DEFAULT_MAX_S3_BODY_BYTES) || DEFAULT_MAX_S3_BODY_BYTES;
}

function incomplete(length: number): S3Error {
  return new S3Error("IncompleteBody", `the body did not match Content-Length ${length}`);
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function streamedBody(request: Request, max: number, check: HashCheck): StreamedBody {
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
  const signed = HEX64.test(claimed);
  const fixed = new FixedLengthStream(length);
  const source = request.body ?? new Blob([]).stream();
  if (check === "r2" || !signed) {
    // R2 hashes what it stores anyway; given the signed hash it refuses a mismatch before the object exists,
    // so no JavaScript touches a chunk (the tap below cost 2-3x a plain put per 4 KiB chunk).
    const finished = source.pipeTo(fixed.writable).then(
      (): S3Error | null => null,
      () => incomplete(length),
    );
    return { readable: fixed.readable, length, finished, sha256ForR2: signed ? claimed : null };
  }
  const digest = new crypto.DigestStream("SHA-256");
  const digestWriter = digest.getWriter();
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      await digestWriter.write(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      await digestWriter.close();
    },
  });
  const finished = source
    .pipeThrough(tap)
    .pipeTo(fixed.writable)
    .then(
      async (): Promise<S3Error | null> => {
        if (hex(await digest.digest) === claimed) return null;
        return new S3Error("XAmzContentSHA256Mismatch", SHA256_MISMATCH);
      },
      () => incomplete(length),
    );
  return { readable: fixed.readable, length, finished, sha256ForR2: null };
}
