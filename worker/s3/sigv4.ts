/**
 * SigV4 verification for the S3 endpoint. The signature is recomputed with `aws4fetch` (a maintained
 * SigV4 implementation on Web Crypto; no crypto is written here) over exactly the headers the client
 * signed, for each token that covers the key id's lake, and compared in constant time. Key id = lake
 * name, secret = the lake's own token (docs/decisions/0500-s3-endpoint-credentials.md).
 */
import { AwsV4Signer } from "aws4fetch";
import { constantTimeEqual, type Grant, type SigningCandidate } from "../auth.ts";
import { S3Error } from "./errors.ts";

/** How far a request's `x-amz-date` may be from the Worker's clock (AWS S3's own bound). */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
/** Derived signing keys kept per isolate (token × day × region); cleared whole when full. */
export const MAX_SIGNING_KEY_CACHE = 256;
/** Tokens tried for one request; a configuration with more tokens covering one lake is refused. */
export const MAX_SIGNING_CANDIDATES = 64;

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]*)\/s3\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** What the Authorization header states, before any verification. */
export interface SignedClaim {
  keyId: string;
  day: string;
  region: string;
  signedHeaders: string;
  signature: string;
  amzDate: string;
}

/** Parses the header shapes httpfs sends; presigned URLs and other schemes are refused by name. */
export function parseClaim(headers: Headers, search: string): SignedClaim {
  if (/[?&]X-Amz-Signature=/i.test(search)) {
    throw new S3Error(
      "AccessDenied",
      "presigned URLs are not accepted; sign requests with the Authorization header",
    );
  }
  const header = headers.get("authorization");
  if (header === null)
    throw new S3Error("AccessDenied", "the request is not signed (SigV4 Authorization header missing)");
  const m = AUTH.exec(header.trim());
  if (!m) {
    throw new S3Error(
      "AuthorizationHeaderMalformed",
      "expected 'AWS4-HMAC-SHA256 Credential=<lake>/<yyyymmdd>/<region>/s3/aws4_request, SignedHeaders=…, Signature=…'",
    );
  }
  const [, keyId, day, region, signedHeaders, signature] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (region === "") {
    throw new S3Error(
      "AuthorizationHeaderMalformed",
      "the credential names no region: give the secret REGION 'auto'",
    );
  }
  const amzDate = headers.get("x-amz-date") ?? "";
  if (!AMZ_DATE.test(amzDate) || amzDate.slice(0, 8) !== day) {
    throw new S3Error(
      "AuthorizationHeaderMalformed",
      "x-amz-date is missing or does not match the credential's date",
    );
  }
  const signed = signedHeaders.split(";");
  for (const needed of ["host", "x-amz-date", "x-amz-content-sha256"]) {
    if (!signed.includes(needed))
      throw new S3Error("AccessDenied", `the signature must cover the '${needed}' header`);
  }
  return { keyId, day, region, signedHeaders, signature, amzDate };
}

/** Milliseconds since the epoch of an `x-amz-date`. */
function amzDateMs(amzDate: string): number {
  const m = AMZ_DATE.exec(amzDate) as RegExpExecArray;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

const signingKeys = new Map<string, ArrayBuffer>();

export interface SignedRequest {
  method: string;
  /** The Host header as sent (part of what was signed). */
  host: string;
  /** Path and query exactly as sent (never resolved through `new URL()` first: decision 0102). */
  rawPathAndQuery: string;
  headers: Headers;
}

/**
 * The grant of the token that signed `req`, or an S3 error: skew first (cheap), then every candidate is
 * tried (each whatever matched before, so timing does not say which token signed).
 */
export async function verifySignature(
  req: SignedRequest,
  claim: SignedClaim,
  candidates: readonly SigningCandidate[],
  nowMs: number,
): Promise<Grant> {
  if (Math.abs(nowMs - amzDateMs(claim.amzDate)) > MAX_CLOCK_SKEW_MS) {
    throw new S3Error(
      "RequestTimeTooSkewed",
      `x-amz-date ${claim.amzDate} is more than ${MAX_CLOCK_SKEW_MS / 60000} minutes from the server's time`,
    );
  }
  if (candidates.length === 0) {
    throw new S3Error(
      "InvalidAccessKeyId",
      `no token covers the key id '${claim.keyId}' (the key id is the lake's name)`,
    );
  }
  if (candidates.length > MAX_SIGNING_CANDIDATES) {
    throw new S3Error(
      "InvalidAccessKeyId",
      `more than ${MAX_SIGNING_CANDIDATES} tokens cover lake '${claim.keyId}'; the S3 endpoint tries at most that many`,
    );
  }
  const signed = new Headers();
  for (const name of claim.signedHeaders.split(";")) {
    if (name === "host") continue;
    const value = req.headers.get(name);
    if (value === null) throw new S3Error("AccessDenied", `the signed header '${name}' is missing`);
    signed.set(name, value);
  }
  if (signingKeys.size > MAX_SIGNING_KEY_CACHE) signingKeys.clear();
  let found: Grant | undefined;
  for (const candidate of candidates) {
    const signer = new AwsV4Signer({
      method: req.method,
      url: `http://${req.host}${req.rawPathAndQuery}`,
      headers: signed,
      accessKeyId: claim.keyId,
      secretAccessKey: candidate.token,
      service: "s3",
      region: claim.region,
      datetime: claim.amzDate,
      allHeaders: true,
      cache: signingKeys,
    });
    const sameHeaders = signer.signedHeaders === claim.signedHeaders;
    const ok = constantTimeEqual(await signer.signature(), claim.signature) && sameHeaders;
    if (ok && found === undefined) found = candidate.grant;
  }
  if (found === undefined) {
    throw new S3Error(
      "SignatureDoesNotMatch",
      "the signature does not match: the secret must be a token valid for the lake named by the key id",
    );
  }
  return found;
}
