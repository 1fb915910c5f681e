/**
 * The whole-table bloom filter. 10 bits per key with k = 7 probes gives a false-positive rate of about
 * 0.8% ((1 - e^(-7/10))^7): a lookup for a key the table lacks costs a block GET (tens of ms on R2) less
 * than once in a hundred tries, for 1.25 bytes per key of metadata fetched once per open. Doubling to 20
 * bits/key would cut misses to ~0.007% but double the open cost of every table; 1% is where the extra
 * GETs already cost less than the extra open bytes on R2.
 *
 * Probes use Kirsch–Mitzenmacher double hashing over one 32-bit MurmurHash3 of the key, so the builder
 * keeps only 4 bytes per key while the table is being written. Serialized form: [u8 k][bit array].
 */
import type { Bytes } from "../api.ts";

export const DEFAULT_BLOOM_BITS_PER_KEY = 10;

/** MurmurHash3 x86 32-bit. */
export function murmur3(key: Bytes, seed = 0): number {
  let h = seed >>> 0;
  const n = key.length;
  const blocks = n - (n & 3);
  for (let i = 0; i < blocks; i += 4) {
    let k = key[i]! | (key[i + 1]! << 8) | (key[i + 2]! << 16) | (key[i + 3]! << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = n & 3;
  if (tail > 0) {
    let k = key[blocks]!;
    if (tail > 1) k ^= key[blocks + 1]! << 8;
    if (tail > 2) k ^= key[blocks + 2]! << 16;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The second probe stride, derived from the first hash so one hash per key suffices. A full avalanche
 * mix rather than LevelDB's rotation: measured on catalog-shaped keys at 10 bits/key, the rotation gives
 * ~1.1% false positives, the mix the theoretical ~0.8%.
 */
function stride(h: number): number {
  let x = (h ^ 0x9e3779b9) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return (x | 1) >>> 0;
}

export function probesFor(bitsPerKey: number): number {
  return Math.min(30, Math.max(1, Math.round(bitsPerKey * Math.LN2)));
}

/** Serializes a filter over the given key hashes. */
export function buildBloom(hashes: Uint32Array, bitsPerKey: number): Uint8Array {
  const k = probesFor(bitsPerKey);
  const bits = Math.max(64, Math.ceil((hashes.length * bitsPerKey) / 8) * 8);
  const out = new Uint8Array(1 + bits / 8);
  out[0] = k;
  for (const h0 of hashes) {
    const delta = stride(h0);
    let h = h0;
    for (let i = 0; i < k; i++) {
      const bit = h % bits;
      out[1 + (bit >>> 3)]! |= 1 << (bit & 7);
      h = (h + delta) >>> 0;
    }
  }
  return out;
}

/** A decoded filter. `mayContain` false means the key is certainly absent. */
export class Bloom {
  private readonly k: number;
  private readonly bits: number;

  /** `filter` is a serialized filter whose checksum the caller has already verified. */
  constructor(private readonly filter: Uint8Array) {
    this.k = filter[0] ?? 0;
    this.bits = (filter.length - 1) * 8;
  }

  /** True if the serialized form is usable (at least one probe and one byte of bits). */
  get valid(): boolean {
    return this.k >= 1 && this.k <= 30 && this.bits >= 8;
  }

  mayContain(key: Bytes): boolean {
    const h0 = murmur3(key);
    const delta = stride(h0);
    let h = h0;
    for (let i = 0; i < this.k; i++) {
      const bit = h % this.bits;
      if ((this.filter[1 + (bit >>> 3)]! & (1 << (bit & 7))) === 0) return false;
      h = (h + delta) >>> 0;
    }
    return true;
  }
}
