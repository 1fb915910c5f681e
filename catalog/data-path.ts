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
import type { ReadView } from "../storage/api.ts";
import { InvalidRequest, Unsupported } from "./errors.ts";
import { writerReaches } from "./file-paths.ts";
import { dataPathOf } from "./maintenance/paths.ts";
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

/** The bucket name of wrangler.toml, used when a deployment does not say (`BUCKET_NAME`). */
export const DEFAULT_BUCKET_NAME = "ducklake-edge";

/** A lake's own data path: its prefix in this deployment's bucket (the default at creation). */
export function lakeDataUrl(bucketName: string | undefined, lake: string): string {
  return `r2://${bucketName ?? DEFAULT_BUCKET_NAME}/lakes/${lake}/data/`;
}

/**
 * Why the lake writer cannot reach a lake's data path, or null when it can: the one rule of which lakes
 * the writer writes files for (docs/decisions/0502-external-data-paths.md). The writer PUTs and reads
 * only `lakes/<lake>/data/` of its own bucket, so it reaches exactly `r2://<bucket>/lakes/<lake>/data/`
 * (or the same as `s3://`, which DuckDB may name through the S3 endpoint). Any other data path — a local
 * directory, another bucket, another prefix, as `ATTACH … (DATA_PATH …)` creates them — is external:
 * DuckDB reads and writes it itself, and the writer's file-writing jobs (flush_inlined, merge_adjacent,
 * rewrite), its rows flusher and `writePath: "lake"` are off, since a file they wrote would be registered
 * where the data path does not hold it.
 */
export function externalDataPathReason(
  dataPath: string,
  bucketName: string | undefined,
  lake: string,
): string | null {
  const own = lakeDataUrl(bucketName, lake);
  if (writerReaches(dataPath, own)) return null;
  const shown = dataPath === "" ? "(none)" : `'${dataPath.slice(0, 200)}'`;
  return `the lake's data_path ${shown} is external (not its own prefix ${own}): DuckDB reads and writes it itself, and the writer writes and reads no files there, so jobs flush_inlined, merge_adjacent and rewrite, the rows API's flush and writePath "lake" are off for this lake`;
}

/** The rule's refusal, for a file-writing step asked of a lake whose data path is external. */
export class DataPathExternal extends Unsupported {}

/** The rule applied to the data path a lake's catalog holds (`ducklake_metadata`). */
export async function lakeDataPathExternal(
  view: ReadView,
  bucketName: string | undefined,
  lake: string,
): Promise<string | null> {
  return externalDataPathReason(await dataPathOf(view), bucketName, lake);
}

/** Reads a lake's data files only where its data path is the writer's; elsewhere every read is refused. */
export interface LakeFileSource {
  read(relativeToDataPath: string, sizeBytes: number): Promise<Uint8Array>;
}

/**
 * The source unchanged for a lake whose data path is its own prefix; for an external one, a source that
 * refuses every read with the rule's reason, so no file is ever read from R2 in the external path's place.
 */
export function guardedFileSource(external: string | null, source: LakeFileSource): LakeFileSource {
  if (external === null) return source;
  return {
    read: () => Promise.reject(new DataPathExternal(external)),
  };
}
