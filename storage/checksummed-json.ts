/**
 * The framing of the store's JSON objects (manifests, GC ledgers): UTF-8 `{"crc32c":"<8 hex>","<field>":{…}}`,
 * the checksum over the exact bytes of the inner value. JSON so an operator can read it; the checksum so a
 * flipped digit is Corruption rather than a different, valid-looking object.
 */
import { fromUtf8, utf8 } from "./bytes.ts";
import { Corruption } from "./errors.ts";
import { crc32c } from "./sst/crc32c.ts";

const PREFIX = '{"crc32c":"';

export function encodeChecksummedJson(field: string, value: unknown): Uint8Array {
  const body = utf8(JSON.stringify(value));
  const crc = crc32c(body).toString(16).padStart(8, "0");
  const head = utf8(`${PREFIX}${crc}","${field}":`);
  const out = new Uint8Array(head.length + body.length + 1);
  out.set(head, 0);
  out.set(body, head.length);
  out[out.length - 1] = "}".charCodeAt(0);
  return out;
}

/** The inner value, parsed but not validated; `where` names the object in the Corruption message. */
export function decodeChecksummedJson(bytes: Uint8Array, field: string, where: string): unknown {
  const bad = (what: string): Corruption =>
    new Corruption(
      `${where} is corrupt: ${what}. The lake cannot be opened from it; restore the object or investigate`,
    );
  const middle = `","${field}":`;
  const headLen = PREFIX.length + 8 + middle.length;
  if (bytes.length < headLen + 2) throw bad("too short");
  let head: string;
  try {
    head = fromUtf8(bytes.subarray(0, headLen));
  } catch {
    throw bad("header is not UTF-8");
  }
  if (!head.startsWith(PREFIX) || !head.endsWith(middle))
    throw bad("wrong framing (not an object of this format)");
  const crcHex = head.slice(PREFIX.length, PREFIX.length + 8);
  if (!/^[0-9a-f]{8}$/.test(crcHex)) throw bad("malformed checksum");
  if (bytes[bytes.length - 1] !== "}".charCodeAt(0)) throw bad("truncated");
  const body = bytes.subarray(headLen, bytes.length - 1);
  if (crc32c(body) !== Number.parseInt(crcHex, 16)) throw bad("checksum mismatch");
  try {
    return JSON.parse(fromUtf8(body));
  } catch {
    throw bad("body is not JSON");
  }
}
