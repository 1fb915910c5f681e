/** Text-like DuckLake types as inlined values: boolean, varchar, json, blob, uuid. */
import type { StoredValue } from "./errors.ts";
import { refuse } from "./errors.ts";

/** DuckDB's BOOLEAN cast from text takes exactly these (any case). */
const BOOLEAN_TEXT: Record<string, boolean> = {
  true: true,
  t: true,
  yes: true,
  y: true,
  "1": true,
  false: false,
  f: false,
  no: false,
  n: false,
  "0": false,
};

export function parseBoolean(input: StoredValue, path: string): StoredValue {
  if (typeof input === "boolean") return input;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) refuse(path, "boolean", input, "not a finite number");
    return input !== 0;
  }
  if (typeof input === "string") {
    const b = BOOLEAN_TEXT[input.toLowerCase()];
    if (b === undefined) refuse(path, "boolean", input, "expected true/false, t/f, yes/no, y/n or 1/0");
    return b;
  }
  return refuse(path, "boolean", input, "expected a boolean");
}

/** A lone UTF-16 surrogate cannot be written as UTF-8, which DuckDB's VARCHAR requires. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** varchar takes strings only: a number's text would depend on how the client wrote it (0120). */
export function parseVarchar(type: string, input: StoredValue, path: string): string {
  if (typeof input !== "string") refuse(path, type, input, "expected a string");
  if (LONE_SURROGATE.test(input)) refuse(path, type, input, "holds an unpaired UTF-16 surrogate (not UTF-8)");
  return input;
}

/** json: the text of one JSON document, kept as written (DuckDB keeps it so too). */
export function parseJson(input: StoredValue, path: string): StoredValue {
  const text = parseVarchar("json", input, path);
  try {
    JSON.parse(text);
  } catch {
    refuse(path, "json", input, "not a JSON document");
  }
  return text;
}

/** Bytes DuckDB prints as themselves in a BLOB's text; every other byte is `\xHH`. */
function blobPrintable(byte: number): boolean {
  return byte >= 0x20 && byte <= 0x7e && byte !== 0x5c && byte !== 0x22 && byte !== 0x27;
}

/**
 * blob: DuckDB's blob literal, ASCII characters with `\xHH` escapes (as `'\xAA'::BLOB` reads it). Stored
 * as DuckDB's text for the bytes: printable ASCII kept, every other byte `\xHH` (upper-case hex).
 */
export function parseBlob(input: StoredValue, path: string): StoredValue {
  if (typeof input !== "string") refuse(path, "blob", input, "a blob is a string with \\xHH escapes");
  let out = "";
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    let byte: number;
    if (code === 0x5c) {
      const hex = /^\\x([0-9a-fA-F]{2})/.exec(input.slice(i, i + 4));
      if (!hex) refuse(path, "blob", input, `a backslash at offset ${i} must start a \\xHH escape`);
      byte = Number.parseInt(hex[1] ?? "", 16);
      i += 3;
    } else if (code > 0x7f) {
      refuse(path, "blob", input, `character at offset ${i} is not ASCII; write its bytes as \\xHH`);
    } else byte = code;
    out += blobPrintable(byte)
      ? String.fromCharCode(byte)
      : `\\x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

const UUID_RE =
  /^\{?([0-9a-fA-F]{8})(-?)([0-9a-fA-F]{4})\2([0-9a-fA-F]{4})\2([0-9a-fA-F]{4})\2([0-9a-fA-F]{12})\}?$/;

/** uuid: 32 hex digits, hyphens and braces optional; stored lower-case hyphenated. */
export function parseUuid(input: StoredValue, path: string): StoredValue {
  if (typeof input !== "string") refuse(path, "uuid", input, "a uuid is a string");
  const m = UUID_RE.exec(input);
  if (!m || input.startsWith("{") !== input.endsWith("}"))
    refuse(path, "uuid", input, "expected 32 hex digits");
  return [m[1], m[3], m[4], m[5], m[6]].join("-").toLowerCase();
}
