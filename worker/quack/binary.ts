/**
 * DuckDB's BinarySerializer format, as Quack v1 uses it (serialization compatibility index 7): an object
 * is a run of fields, each a little-endian uint16 field id followed by its value, ended by field id
 * 0xFFFF. Integers are LEB128 (unsigned) or SLEB128 (signed); booleans one byte; strings and blobs a
 * varint length then the bytes; lists a varint count then the elements; a nullable value a presence byte
 * then the value. Fields equal to their default are omitted by the writer, so the reader treats a field
 * whose id is not next as absent (decision record `docs/decisions/0201-quack-wire-codec.md`).
 */
import { QuackProtocolError } from "./errors.ts";

/** Field id that ends an object. */
export const OBJECT_END = 0xffff;

/** Largest element count accepted for one list on decode (bounded again by the bytes left). */
export const MAX_LIST_ELEMENTS = 16 * 1024 * 1024;

/**
 * Values a decode may materialise per byte of the message (rows of every vector, list entries copied
 * out): a vector of N rows is backed by at least N bits of validity or N bytes of data, so honest
 * messages stay far below this, while a row count that no bytes back (a STRUCT without fields, a LIST
 * child of millions of empty rows) is refused before anything is allocated
 * (docs/decisions/0400-quack-door-limits.md).
 */
export const DECODED_VALUES_PER_BYTE = 16;
/** Most values one decode materialises, whatever the message's size (a 128 MB isolate's share). */
export const MAX_DECODED_VALUES = 4 * 1024 * 1024;

const UTF8 = new TextEncoder();
const UTF8_DECODER = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export class BinaryWriter {
  private buf: Uint8Array;
  private len = 0;

  constructor(initial = 1024) {
    this.buf = new Uint8Array(initial);
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  get length(): number {
    return this.len;
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.len++] = v & 0xff;
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  fieldId(id: number): void {
    this.u8(id & 0xff);
    this.u8(id >> 8);
  }

  end(): void {
    this.fieldId(OBJECT_END);
  }

  uleb(value: number | bigint): void {
    let v = BigInt(value);
    if (v < 0n) throw new QuackProtocolError(`cannot write negative ${v} as unsigned LEB128`);
    if (typeof value === "number" && value < 0x80) {
      this.u8(value);
      return;
    }
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      this.u8(byte);
    } while (v !== 0n);
  }

  sleb(value: number | bigint): void {
    let v = BigInt(value);
    for (;;) {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      const signBit = (byte & 0x40) !== 0;
      if ((v === 0n && !signBit) || (v === -1n && signBit)) {
        this.u8(byte);
        return;
      }
      this.u8(byte | 0x80);
    }
  }

  bool(v: boolean): void {
    this.u8(v ? 1 : 0);
  }

  blob(bytes: Uint8Array): void {
    this.uleb(bytes.length);
    this.raw(bytes);
  }

  string(s: string): void {
    this.blob(UTF8.encode(s));
  }

  /** A list: count, then each element written by `each`. */
  list<V>(items: readonly V[], each: (item: V, i: number) => void): void {
    this.uleb(items.length);
    items.forEach(each);
  }

  /** An object value: `body` writes fields, then the end marker. */
  object(body: () => void): void {
    body();
    this.end();
  }

  /** DuckDB's BinarySerializer writes hugeint_t as two varints: signed upper, unsigned lower. */
  hugeint(v: bigint): void {
    this.sleb(BigInt.asIntN(64, v >> 64n));
    this.uleb(BigInt.asUintN(64, v));
  }
}

export class BinaryReader {
  private pos = 0;
  private readonly view: DataView;
  /** Values this decode may still materialise (DECODED_VALUES_PER_BYTE, MAX_DECODED_VALUES). */
  private budget: number;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.budget = Math.min(MAX_DECODED_VALUES, DECODED_VALUES_PER_BYTE * buf.length);
  }

  /**
   * Takes `n` values from the decode's budget before they are allocated; a message that claims more
   * values than its bytes can back is refused here.
   */
  charge(n: number, what: string): void {
    if (n > this.budget) {
      throw new QuackProtocolError(
        `${what} claims ${n} values at offset ${this.pos}, more than a message of ${this.buf.length} bytes can carry (at most ${DECODED_VALUES_PER_BYTE} per byte, ${MAX_DECODED_VALUES} in all)`,
      );
    }
    this.budget -= n;
  }

  /** What is left of the decode's value budget (tests measure the work a message cost). */
  get valuesLeft(): number {
    return this.budget;
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) {
      throw new QuackProtocolError(`message truncated: need ${n} bytes at offset ${this.pos}`);
    }
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }

  raw(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  peekFieldId(): number {
    this.need(2);
    return this.view.getUint16(this.pos, true);
  }

  /** True (and consumed) when the next field is `id`; false when it is absent (default value). */
  field(id: number): boolean {
    if (this.peekFieldId() !== id) return false;
    this.pos += 2;
    return true;
  }

  /** Consumes a field that must be present. */
  requireField(id: number, name: string): void {
    const next = this.peekFieldId();
    if (next !== id) {
      throw new QuackProtocolError(`expected field ${id} (${name}) at offset ${this.pos}, found ${next}`);
    }
    this.pos += 2;
  }

  /** Consumes the object end marker. */
  end(): void {
    const next = this.peekFieldId();
    if (next !== OBJECT_END) {
      throw new QuackProtocolError(`expected end of object at offset ${this.pos}, found field ${next}`);
    }
    this.pos += 2;
  }

  ulebBig(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 19; i++) {
      const byte = this.u8();
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new QuackProtocolError(`LEB128 value too long at offset ${this.pos}`);
  }

  uleb(): number {
    const v = this.ulebBig();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new QuackProtocolError(`unsigned value ${v} does not fit a count at offset ${this.pos}`);
    }
    return Number(v);
  }

  slebBig(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 19; i++) {
      const byte = this.u8();
      result |= BigInt(byte & 0x7f) << shift;
      shift += 7n;
      if ((byte & 0x80) === 0) {
        if (byte & 0x40) result -= 1n << shift;
        return result;
      }
    }
    throw new QuackProtocolError(`SLEB128 value too long at offset ${this.pos}`);
  }

  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw new QuackProtocolError(`boolean byte ${b} at offset ${this.pos - 1}`);
    return b === 1;
  }

  blob(): Uint8Array {
    const n = this.uleb();
    return this.raw(n);
  }

  string(): string {
    const bytes = this.blob();
    try {
      return UTF8_DECODER.decode(bytes);
    } catch {
      throw new QuackProtocolError(`invalid UTF-8 string at offset ${this.pos - bytes.length}`);
    }
  }

  /** A list's count, checked against the limit and the bytes left (each element takes a byte at least). */
  count(): number {
    const n = this.uleb();
    if (n > MAX_LIST_ELEMENTS || n > this.remaining) {
      throw new QuackProtocolError(`list of ${n} elements at offset ${this.pos} exceeds the message`);
    }
    return n;
  }

  list<V>(each: (i: number) => V): V[] {
    const n = this.count();
    const out: V[] = [];
    for (let i = 0; i < n; i++) out.push(each(i));
    return out;
  }

  hugeint(): bigint {
    const upper = this.slebBig();
    const lower = this.ulebBig();
    return (upper << 64n) | BigInt.asUintN(64, lower);
  }
}
