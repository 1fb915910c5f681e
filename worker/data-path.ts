/**
 * Data-file paths inside a lake's data prefix. A path is relative, '/'-separated, and every segment is
 * a plain name: no '.', '..', empty segments, backslashes or control characters, so no spelling of a
 * path can leave `lakes/<lake>/data/`.
 *
 * Request paths are read as sent (`rawPathOf`), never through `new URL()`, which would resolve `%2e%2e`
 * segments and so turn `/v1/lakes/a/data/%2e%2e/%2e%2e/b/data/x` into lake b's route. A path holding a dot
 * segment in any spelling is refused outright (`dotSegmentIn`): docs/decisions/0102-data-paths.md.
 */
import { invalid } from "./errors.ts";

const SEGMENT = /^[A-Za-z0-9._=+-]{1,255}$/;
const MAX_PATH = 768;

export function checkDataPath(raw: string): string {
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    throw invalid("data path is not valid percent-encoding");
  }
  if (path.length === 0) throw invalid("data path is empty");
  if (path.length > MAX_PATH) throw invalid(`data path is longer than ${MAX_PATH} characters`);
  const segments = path.split("/");
  for (const seg of segments) {
    if (seg === "" || seg === "." || seg === "..") {
      throw invalid("data path must be relative with no empty, '.' or '..' segments");
    }
    if (!SEGMENT.test(seg)) {
      throw invalid("data path segments may use only letters, digits and . _ = + -");
    }
  }
  return path;
}

/** The path of a request URL exactly as sent: no percent-decoding, no dot-segment resolution. */
export function rawPathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

// `.`, `..` and every mix of `.` with `%2e`/`%2E` (what the URL standard resolves as a dot segment).
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** The first segment of a raw path that is a dot segment in any spelling, or null. */
export function dotSegmentIn(rawPath: string): string | null {
  for (const seg of rawPath.split("/")) if (DOT_SEGMENT.test(seg)) return seg;
  return null;
}

export const dataObjectKey = (lake: string, path: string): string => `lakes/${lake}/data/${path}`;
