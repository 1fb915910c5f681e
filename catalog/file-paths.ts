/**
 * Where a registered data or delete file may live: inside the lake's own data path (DuckLake's
 * `data_path`), and nowhere else. The data path is whatever the lake was created with (today
 * `r2://<bucket>/lakes/<lake>/data/`; a directory or an r2:// / s3:// URL once lake creation takes one), so
 * "inside" is a prefix of that text, never a hard-coded one. A path given with `pathIsRelative: false`
 * must start with the data path; a relative one resolves under the table's directory, which lies under
 * it. Either way the part below the data path must be plain segments: no empty, `.` or `..` segment in
 * any spelling (`%2e%2e`), no backslash, no control character, so no reader's normalisation can move it
 * out. Decision: docs/decisions/0105-registered-file-paths.md.
 */
import { DEFAULT_DATA_PATH } from "./bootstrap.ts";
import { quoteName } from "./errors.ts";
import { CONTROL_CHARACTER } from "./name-rules.ts";

/**
 * Whether the lake writer reaches a data path, given its own prefix (`lakeDataUrl`): that prefix, the same
 * as `s3://`, or DEFAULT_DATA_PATH (the catalog's own default, a lake bootstrapped with no data path). The
 * one rule of decision 0502 (`externalDataPathReason` words it), here beside the rule it relaxes (0601).
 */
export function writerReaches(dataPath: string, own: string): boolean {
  return dataPath === own || dataPath === `s3${own.slice("r2".length)}` || dataPath === DEFAULT_DATA_PATH;
}

/** Joins a directory and a relative path with exactly one '/'. */
export function joinPath(base: string, rel: string): string {
  return base === "" || base.endsWith("/") ? `${base}${rel}` : `${base}/${rel}`;
}

/** A schema's or table's stored path: relative to its parent's directory, or a directory of its own. */
export interface StoredDir {
  path: string;
  path_is_relative: boolean;
}

/** The directory of a schema (under the data path) or a table (under its schema's directory). */
export function dirUnder(parent: string, rec: StoredDir): string {
  return rec.path_is_relative ? joinPath(parent, rec.path) : rec.path;
}

/**
 * A table's directory, as every reader and writer resolves it: the lake's data path, then the schema's
 * path, then the table's path, each relative to the one before unless stored absolute.
 */
export function tableDirOf(dataPath: string, schema: StoredDir, table: StoredDir): string {
  return dirUnder(dirUnder(dataPath, schema), table);
}

// `.`, `..` and their percent-encoded spellings, which URL readers resolve as dot segments.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Why `rest` (a path below the data path) is not plain segments, or null. */
function relativeProblem(rest: string): string | null {
  if (rest === "") return "it names no file";
  if (CONTROL_CHARACTER.test(rest)) return "it contains a control character";
  if (rest.includes("\\")) return "it contains a backslash";
  for (const seg of rest.split("/")) {
    if (seg === "") return "it has an empty segment ('//' or a leading or trailing '/')";
    if (DOT_SEGMENT.test(seg)) return `it has the dot segment '${seg}'`;
  }
  return null;
}

/** The lake's data path with exactly one trailing '/'. */
export function dataPathPrefix(dataPath: string): string {
  return dataPath === "" || dataPath.endsWith("/") ? dataPath : `${dataPath}/`;
}

/**
 * Why the file cannot be registered, or null when it may. `tableDir` is the table's resolved directory
 * (`data_path` → schema → table); `path` is the verb's, relative to it when `relative`.
 */
export function registeredPathProblem(
  dataPath: string,
  tableDir: string,
  path: string,
  relative: boolean,
  /**
   * The lake's data path is one the writer cannot reach (decision 0502): the Worker reads, writes and
   * deletes none of its files, so an absolute path outside it is DuckDB's own business, as on a stock
   * server (`ducklake_add_data_files`; docs/decisions/0601-external-lake-added-files.md).
   */
  externalLake = false,
): string | null {
  if (externalLake && !relative) {
    if (path === "") return "it names no file";
    return CONTROL_CHARACTER.test(path) ? "it contains a control character" : null;
  }
  const prefix = dataPathPrefix(dataPath);
  if (prefix === "") return "the lake has no data path, so no file can be registered";
  const full = relative ? joinPath(tableDir, path) : path;
  if (relative) {
    const own = relativeProblem(path);
    if (own !== null) return `its relative path is not plain: ${own}`;
  }
  if (!full.startsWith(prefix)) {
    return relative
      ? `it resolves to a path outside the lake's data path ${quoteName(prefix)}`
      : `every registered file must lie inside the lake's data path ${quoteName(prefix)}`;
  }
  const below = relativeProblem(full.slice(prefix.length));
  return below === null ? null : `its path below the data path is not plain: ${below}`;
}
