/**
 * Data-file paths inside a lake's data prefix. A path is relative, '/'-separated, and every segment is
 * a plain name: no '.', '..', empty segments, backslashes or control characters, so no spelling of a
 * path can leave `lakes/<lake>/data/`.
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

export const dataObjectKey = (lake: string, path: string): string => `lakes/${lake}/data/${path}`;
