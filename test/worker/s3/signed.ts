/**
 * A SigV4-signing S3 client for the Worker's `/s3/` endpoint, as stock httpfs signs (host, x-amz-date and
 * x-amz-content-sha256 signed; key id = lake, secret = token), sending the URL exactly as given: a `Request`
 * built in JS resolves dot segments at once, so the request reaches `serveS3` as a client put it on the wire.
 */
import { env } from "cloudflare:workers";
import { AwsV4Signer } from "aws4fetch";
import { serveS3 } from "../../../worker/s3/serve.ts";
import { asSent } from "../../support/http.ts";

export const HOST = "edge.test";
export const BUCKET = "ducklake-edge";

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export interface SignedOptions {
  keyId: string;
  secret: string;
  body?: Uint8Array;
  headers?: Record<string, string>;
  /** The signing time (default now). */
  date?: Date;
  /** Sign this path+query but send `sendPath` (a replay onto another request). */
  sendPath?: string;
  sendMethod?: string;
  /** Send this body instead of the signed one (a replay with a substituted body). */
  sendBody?: Uint8Array;
  /** Claim this body hash instead of the body's own. */
  claimedSha256?: string;
  region?: string;
  /** Rewrites the signed Authorization header before sending (malformed-header cases). */
  mangleAuth?: (header: string) => string;
}

/** Signs `method pathAndQuery` (raw, as on the wire) and sends it to the endpoint. */
export async function s3(method: string, pathAndQuery: string, o: SignedOptions): Promise<Response> {
  const body = o.body ?? new Uint8Array(0);
  const amzDate = (o.date ?? new Date()).toISOString().replace(/[:-]|\.\d{3}/g, "");
  const headers: Record<string, string> = {
    "x-amz-content-sha256": o.claimedSha256 ?? (await sha256Hex(body)),
    "x-amz-date": amzDate,
    ...o.headers,
  };
  const signer = new AwsV4Signer({
    method,
    url: `http://${HOST}${pathAndQuery}`,
    headers,
    accessKeyId: o.keyId,
    secretAccessKey: o.secret,
    service: "s3",
    region: o.region ?? "auto",
    datetime: amzDate,
  });
  const signed = await signer.sign();
  const sendHeaders = new Headers(signed.headers);
  sendHeaders.set("host", HOST);
  if (o.mangleAuth) sendHeaders.set("authorization", o.mangleAuth(sendHeaders.get("authorization") ?? ""));
  const sent = o.sendBody ?? body;
  if (method === "PUT" || method === "POST") sendHeaders.set("content-length", String(sent.byteLength));
  const init: RequestInit = { method: o.sendMethod ?? method, headers: sendHeaders };
  if ((o.sendMethod ?? method) !== "GET" && (o.sendMethod ?? method) !== "HEAD") init.body = sent;
  return serveS3(asSent(`http://${HOST}${o.sendPath ?? pathAndQuery}`, init), env);
}
