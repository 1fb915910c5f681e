/** Byte-string helpers shared by the store: the one definition of key order lives here. */
import type { Bytes, ScanRange } from "./api.ts";

/** Unsigned lexicographic order: the order of every key in the store, on disk and in memory. */
export function compareBytes(a: Bytes, b: Bytes): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function bytesEqual(a: Bytes, b: Bytes): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The smallest key greater than every key starting with `prefix`; undefined when none exists (all 0xff). */
export function prefixEnd(prefix: Bytes): Bytes | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const out = prefix.slice(0, i + 1);
      out[i] = prefix[i]! + 1;
      return out;
    }
  }
  return undefined;
}

/** A scan range reduced to plain bounds: [lo, hi), either side open when undefined. */
export interface Bounds {
  lo: Bytes | undefined;
  hi: Bytes | undefined;
}

export function rangeBounds(range: ScanRange): Bounds {
  let lo = range.start;
  let hi = range.end;
  if (range.prefix !== undefined) {
    if (lo === undefined || compareBytes(range.prefix, lo) > 0) lo = range.prefix;
    const pe = prefixEnd(range.prefix);
    if (pe !== undefined && (hi === undefined || compareBytes(pe, hi) < 0)) hi = pe;
  }
  return { lo, hi };
}

export function inBounds(key: Bytes, b: Bounds): boolean {
  return (
    (b.lo === undefined || compareBytes(key, b.lo) >= 0) &&
    (b.hi === undefined || compareBytes(key, b.hi) < 0)
  );
}

/**
 * A key as a JS string with one char per byte, for Map lookups. Binary-string rather than hex: half the
 * length, and equal bytes give equal strings, which is all a Map needs.
 */
export function keyString(key: Bytes): string {
  let s = "";
  for (let i = 0; i < key.length; i += 4096) {
    s += String.fromCharCode.apply(null, key.subarray(i, i + 4096) as unknown as number[]);
  }
  return s;
}

export function toHex(bytes: Bytes): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

export function fromHex(hex: string): Bytes | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function utf8(s: string): Bytes {
  return encoder.encode(s);
}

/** Strict UTF-8 decode; throws TypeError on invalid sequences. */
export function fromUtf8(b: Bytes): string {
  return decoder.decode(b);
}

/** A fresh random 64-bit id as 16 hex chars: tells two writer instances apart in bytes they write. */
export function randomId(): string {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return toHex(b);
}
