/**
 * The S3 endpoint's errors: S3's own codes and statuses, answered as S3's XML so httpfs reports them
 * (reference: shared/reference/duckdb-s3.md). The only home of the code → status table for `/s3/`.
 */
import { CodedError } from "../../storage/errors.ts";

const S3_STATUS = {
  AccessDenied: 403,
  InvalidAccessKeyId: 403,
  SignatureDoesNotMatch: 403,
  RequestTimeTooSkewed: 403,
  AuthorizationHeaderMalformed: 400,
  InvalidArgument: 400,
  InvalidRequest: 400,
  InvalidPart: 400,
  InvalidPartOrder: 400,
  MalformedXML: 400,
  EntityTooLarge: 400,
  EntityTooSmall: 400,
  IncompleteBody: 400,
  XAmzContentSHA256Mismatch: 400,
  MissingContentLength: 411,
  NoSuchBucket: 404,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  MethodNotAllowed: 405,
  PreconditionFailed: 412,
  OperationAborted: 409,
  InvalidRange: 416,
  InternalError: 500,
  ServiceUnavailable: 503,
} as const;

export type S3Code = keyof typeof S3_STATUS;

export class S3Error extends CodedError {
  readonly code: string;
  readonly s3Code: S3Code;
  constructor(code: S3Code, message: string) {
    super(message);
    this.code = `S3${code}`;
    this.s3Code = code;
  }
  get status(): number {
    return S3_STATUS[this.s3Code];
  }
}

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Text escaped for an XML element or attribute. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}

export const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** S3's error document; HEAD answers carry no body (as S3's do). */
export function s3ErrorResponse(err: S3Error, resource: string, requestId: string, head: boolean): Response {
  const body = `${XML_HEAD}<Error><Code>${err.s3Code}</Code><Message>${xmlEscape(err.message)}</Message><Resource>${xmlEscape(resource)}</Resource><RequestId>${xmlEscape(requestId)}</RequestId></Error>`;
  const headers = { "content-type": "application/xml", "x-amz-request-id": requestId };
  return new Response(head ? null : body, { status: err.status, headers });
}
