/**
 * A lake's DuckLake `data_path` (where its Parquet files live), as a lake is created with it — over
 * the REST API (`PUT /v1/lakes/{lake}`) or by DuckLake's own ATTACH over Quack. It is stored once, in
 * `ducklake_metadata`, and that row is the single source every consumer resolves file paths against
 * (decision record `docs/decisions/0231-lake-creation-data-path.md`).
 *
 * Accepted: an object-store URL `r2://<bucket>/<prefix>/` or `s3://<bucket>/<prefix>/` (production),
 * or an absolute local directory `/dir/` or `file:///dir/` (`npm start`, tests, a local DuckDB). Always
 * normalized to end with `/`. Refused: relative paths (DuckLake resolves those against the metadata
 * file, which has no meaning here), other schemes, `.`/`..` segments, empty segments inside the path,
 * control characters, and anything longer than MAX_DATA_PATH.
 */
import { InvalidRequest } from "./errors.ts";
import { CONTROL_CHARACTER } from "./name-rules.ts";

/** Longest data path accepted (DuckLake stores it in every resolution; keep it bounded). */
export const MAX_DATA_PATH = 1024;

const URL_FORM = /^(r2|s3):\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/;

export function normalizeDataPath(raw: string): string {
  if (typeof raw !== "string" || raw.length === 0) throw new InvalidRequest("dataPath is empty");
  if (raw.length > MAX_DATA_PATH) {
    throw new InvalidRequest(`dataPath is longer than ${MAX_DATA_PATH} characters`);
  }
  if (CONTROL_CHARACTER.test(raw) || raw.includes("\\")) {
    throw new InvalidRequest("dataPath must not contain control characters or backslashes");
  }
  let path: string;
  const url = URL_FORM.exec(raw);
  if (url) path = url[3] ?? "/";
  else if (raw.startsWith("file:///")) path = raw.slice("file://".length);
  else if (raw.startsWith("/")) path = raw;
  else {
    throw new InvalidRequest(
      `dataPath ${JSON.stringify(raw.slice(0, 100))} must be r2://<bucket>/<prefix>/, s3://<bucket>/<prefix>/ or an absolute directory (/dir/ or file:///dir/)`,
    );
  }
  const segments = path.split("/").slice(1);
  if (segments[segments.length - 1] === "") segments.pop();
  for (const s of segments) {
    if (s === "" || s === "." || s === "..") {
      throw new InvalidRequest("dataPath must not contain empty, '.' or '..' segments");
    }
  }
  return raw.endsWith("/") ? raw : `${raw}/`;
}
