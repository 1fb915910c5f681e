/**
 * How deep a JSON request body may nest. A body nested thousands of levels deep parses, but it cannot
 * cross the RPC to a lake's writer (structured clone recurses: "Maximum call stack size exceeded"), and
 * no DuckLake value nests that deep; it is refused here as the client's error, before any route runs
 * (docs/decisions/0403-validation-is-not-an-outage.md).
 */
import { ApiError } from "./errors.ts";

/** Deepest nesting of arrays and objects accepted in a JSON request body. */
export const MAX_JSON_DEPTH = 128;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of `[` and `{` outside strings: one pass over the bytes, nothing allocated. */
export function jsonDepth(bytes: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
  }
  return deepest;
}

/** Refuses a body nested deeper than MAX_JSON_DEPTH with a 400 that says so. */
export function refuseDeepJson(bytes: Uint8Array): void {
  const depth = jsonDepth(bytes);
  if (depth > MAX_JSON_DEPTH) {
    throw new ApiError(
      "InvalidRequest",
      `the request body nests ${depth} levels deep, more than the ${MAX_JSON_DEPTH} this server accepts`,
    );
  }
}
