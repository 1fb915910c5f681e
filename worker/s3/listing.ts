/** ListObjectsV2 over the lake's data prefix (what httpfs sends for globs and listings). */
import type { Env } from "../env.ts";
import { S3Error, xmlEscape } from "./errors.ts";
import { scopedListPrefix } from "./scope.ts";
import { xmlResponse } from "./xml.ts";

/** Most keys one listing page answers (S3's and R2's own bound). */
export const MAX_LIST_KEYS = 1000;

export async function listObjects(
  env: Env,
  bucket: string,
  lake: string,
  query: URLSearchParams,
): Promise<Response> {
  if (query.get("list-type") !== "2") {
    throw new S3Error("InvalidArgument", "only ListObjectsV2 (list-type=2) is served");
  }
  const prefix = scopedListPrefix(lake, query.get("prefix") ?? "");
  const delimiter = query.get("delimiter") ?? undefined;
  if (delimiter !== undefined && delimiter !== "/")
    throw new S3Error("InvalidArgument", "the only delimiter served is '/'");
  const maxText = query.get("max-keys");
  const maxKeys = maxText === null ? MAX_LIST_KEYS : Number(maxText);
  if (!Number.isInteger(maxKeys) || maxKeys < 0)
    throw new S3Error("InvalidArgument", "max-keys must be an integer ≥ 0");
  const limit = Math.min(Math.max(maxKeys, 1), MAX_LIST_KEYS);
  const urlEncoded = query.get("encoding-type") === "url";
  const enc = (k: string): string => xmlEscape(urlEncoded ? encodeURIComponent(k).replace(/%2F/g, "/") : k);
  const cursor = query.get("continuation-token") ?? undefined;
  const startAfter = query.get("start-after") ?? undefined;
  let listed: R2Objects;
  try {
    listed = await env.BUCKET.list({ prefix, delimiter, cursor, startAfter, limit });
  } catch (err) {
    if (cursor !== undefined) throw new S3Error("InvalidArgument", "the continuation token is not valid");
    throw err;
  }
  let out = `<Name>${xmlEscape(bucket)}</Name><Prefix>${enc(prefix)}</Prefix>`;
  if (delimiter) out += `<Delimiter>${enc(delimiter)}</Delimiter>`;
  if (urlEncoded) out += "<EncodingType>url</EncodingType>";
  out += `<MaxKeys>${limit}</MaxKeys><KeyCount>${listed.objects.length + listed.delimitedPrefixes.length}</KeyCount>`;
  out += `<IsTruncated>${listed.truncated}</IsTruncated>`;
  if (cursor) out += `<ContinuationToken>${xmlEscape(cursor)}</ContinuationToken>`;
  if (listed.truncated) out += `<NextContinuationToken>${xmlEscape(listed.cursor)}</NextContinuationToken>`;
  for (const o of listed.objects) {
    out += `<Contents><Key>${enc(o.key)}</Key><LastModified>${o.uploaded.toISOString()}</LastModified><ETag>${xmlEscape(o.httpEtag)}</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
  }
  for (const p of listed.delimitedPrefixes)
    out += `<CommonPrefixes><Prefix>${enc(p)}</Prefix></CommonPrefixes>`;
  return xmlResponse("ListBucketResult", out);
}
