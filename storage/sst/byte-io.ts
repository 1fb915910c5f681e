/**
 * Byte I/O for the sorted-table codec: a growable writer and a bounds-checked reader. Every out-of-bounds or malformed read throws Corruption naming what was being decoded,
 * so a damaged object can never be misread as valid data.
 */
import type { Bytes } from "../api.ts";
import { Corruption } from "../errors.ts";

/** Length of the common prefix of a and b. */
export function sharedPrefix(a: Bytes, b: Bytes): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Bytes a LEB128 varint of `v` occupies. */
export function varintSize(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Appends to a buffer that doubles as needed. Numbers are non-negative safe integers. */
export class ByteWriter {
  private buf: Uint8Array;
  private len = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(Math.max(16, initial));
  }

  get length(): number {
    return this.len;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  byte(v: number): void {
    this.reserve(1);
    this.buf[this.len++] = v;
  }

  /** Unsigned LEB128; arithmetic instead of bit ops so values above 2^31 stay exact. */
  varint(v: number): void {
    if (v < 128 && v >= 0 && (v | 0) === v) {
      this.reserve(1);
      this.buf[this.len++] = v;
      return;
    }
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`varint out of range: ${v}`);
    this.reserve(8);
    while (v >= 128) {
      this.buf[this.len++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.buf[this.len++] = v;
  }

  bytes(b: Bytes, start = 0, end = b.length): void {
    const n = end - start;
    this.reserve(n);
    // Keys and catalog values are short; a loop beats TypedArray.set's fixed cost below ~32 bytes.
    if (n < 32) {
      const buf = this.buf;
      let at = this.len;
      for (let i = start; i < end; i++) buf[at++] = b[i]!;
    } else {
      this.buf.set(b.subarray(start, end), this.len);
    }
    this.len += n;
  }

  u16(v: number): void {
    this.reserve(2);
    this.buf[this.len++] = v & 0xff;
    this.buf[this.len++] = (v >>> 8) & 0xff;
  }

  u32(v: number): void {
    this.reserve(4);
    this.buf[this.len++] = v & 0xff;
    this.buf[this.len++] = (v >>> 8) & 0xff;
    this.buf[this.len++] = (v >>> 16) & 0xff;
    this.buf[this.len++] = (v >>> 24) & 0xff;
  }

  /** Little-endian 64-bit, from a safe integer (low word, then high word). */
  u64(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`u64 out of range: ${v}`);
    this.u32(v % 0x1_0000_0000);
    this.u32(Math.floor(v / 0x1_0000_0000));
  }

  /** The written bytes so far (a view, valid until the next write grows the buffer). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/** Reads what ByteWriter wrote; every overrun is Corruption naming `what`. */
export class ByteReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    private readonly what: string,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  fail(detail: string): never {
    throw new Corruption(
      `${this.what}: ${detail} at byte ${this.pos}; the object is damaged, restore or rebuild it`,
    );
  }

  private need(n: number): void {
    if (n < 0 || this.pos + n > this.end) this.fail(`truncated (needed ${n} more bytes)`);
  }

  byte(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      result += (b & 127) * mul;
      if (b < 128) {
        if (!Number.isSafeInteger(result)) this.fail("varint too large");
        return result;
      }
      mul *= 128;
    }
    return this.fail("varint longer than 8 bytes");
  }

  /** A view of the next n bytes (not a copy). */
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  u16(): number {
    this.need(2);
    const v = this.buf[this.pos]! | (this.buf[this.pos + 1]! << 8);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  u64(): number {
    const lo = this.u32();
    const hi = this.u32();
    const v = hi * 0x1_0000_0000 + lo;
    if (!Number.isSafeInteger(v)) this.fail("u64 above 2^53");
    return v;
  }
}
