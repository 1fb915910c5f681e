/**
 * The two XML bodies clients send the S3 endpoint (CompleteMultipartUpload, DeleteObjects), read with a
 * bounded reader: the body is at most MAX_S3_XML_BYTES, checked before it is read whole.
 */
import { S3Error, XML_HEAD } from "./errors.ts";

/** Largest XML request body accepted (10,000 parts or 1,000 keys fit well inside). */
export const MAX_S3_XML_BYTES = 2 * 1024 * 1024;
/** Most keys one DeleteObjects request may name (S3's own limit). */
export const MAX_DELETE_KEYS = 1000;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function xmlText(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith("#x")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    const known = ENTITIES[name];
    if (known === undefined) throw new S3Error("MalformedXML", `unknown XML entity '${whole}'`);
    return known;
  });
}

/**
 * The request body as text, refused unstarted when its stated or actual size passes the bound, and refused
 * unless it is exactly the body the signature covers: these bodies say which keys are deleted and which
 * parts make an object, so a captured signature replayed with another body must not pass
 * (docs/decisions/0751-s3-signature-replay.md). Object bodies are checked as they stream (body.ts).
 */
export async function readXmlBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (!Number.isFinite(declared) || declared > MAX_S3_XML_BYTES) {
    throw new S3Error("EntityTooLarge", `XML bodies are limited to ${MAX_S3_XML_BYTES} bytes`);
  }
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_S3_XML_BYTES) {
    throw new S3Error("EntityTooLarge", `XML bodies are limited to ${MAX_S3_XML_BYTES} bytes`);
  }
  const claimed = request.headers.get("x-amz-content-sha256") ?? "";
  const actual = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  if (claimed !== actual) {
    throw new S3Error(
      "XAmzContentSHA256Mismatch",
      "this request's XML body must be signed: x-amz-content-sha256 must be its hex SHA-256",
    );
  }
  return new TextDecoder().decode(bytes);
}

/** The text of each `<tag>…</tag>` inside `xml`, in order. */
function elements(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "g");
  for (const m of xml.matchAll(re)) out.push(m[1] ?? "");
  return out;
}

export interface CompletedPart {
  partNumber: number;
  etag: string;
}

/** `<CompleteMultipartUpload><Part><PartNumber>n</PartNumber><ETag>"…"</ETag></Part>…`. */
export function parseCompleteParts(xml: string): CompletedPart[] {
  const parts = elements(xml, "Part").map((part) => {
    const n = elements(part, "PartNumber")[0];
    const etag = elements(part, "ETag")[0];
    if (n === undefined || etag === undefined || !/^\s*\d{1,5}\s*$/.test(n)) {
      throw new S3Error("MalformedXML", "each Part needs a PartNumber and an ETag");
    }
    return { partNumber: Number(n), etag: xmlText(etag).trim().replace(/^"|"$/g, "") };
  });
  if (parts.length === 0) throw new S3Error("MalformedXML", "CompleteMultipartUpload names no parts");
  for (let i = 1; i < parts.length; i++) {
    if ((parts[i]?.partNumber ?? 0) <= (parts[i - 1]?.partNumber ?? 0)) {
      throw new S3Error("InvalidPartOrder", "parts must be listed in ascending PartNumber order");
    }
  }
  return parts;
}

/** `<Delete><Object><Key>…</Key></Object>…<Quiet>true</Quiet></Delete>`. */
export function parseDeleteKeys(xml: string): { keys: string[]; quiet: boolean } {
  const keys = elements(xml, "Object").map((o) => {
    const key = elements(o, "Key")[0];
    if (key === undefined) throw new S3Error("MalformedXML", "each Object needs a Key");
    return xmlText(key);
  });
  if (keys.length === 0) throw new S3Error("MalformedXML", "Delete names no objects");
  if (keys.length > MAX_DELETE_KEYS) {
    throw new S3Error("MalformedXML", `Delete names more than ${MAX_DELETE_KEYS} objects`);
  }
  return { keys, quiet: /<Quiet>\s*true\s*<\/Quiet>/i.test(xml) };
}

const NS = ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';

/** An S3 XML answer `<root xmlns=…>inner</root>`. */
export function xmlResponse(root: string, inner: string, status = 200): Response {
  return new Response(`${XML_HEAD}<${root}${NS}>${inner}</${root}>`, {
    status,
    headers: { "content-type": "application/xml" },
  });
}
