/**
 * CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum on every sorted-table block and
 * metadata section. Implemented here (slicing-by-8, ~40 lines) rather than pulled from npm: no small,
 * maintained package fits both workerd and Node without native code, and the golden vectors in
 * test/storage/sst pin the result. CRC32C rather than xxhash because it detects every burst error up to
 * 32 bits and every odd number of flipped bits, which is the failure mode of a torn or bit-rotted block.
 */

const POLY = 0x82f63b78;

function makeTables(): Uint32Array[] {
  const tables: Uint32Array[] = [];
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t0[n] = c >>> 0;
  }
  tables.push(t0);
  for (let t = 1; t < 8; t++) {
    const prev = tables[t - 1]!;
    const next = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      const p = prev[n]!;
      next[n] = ((p >>> 8) ^ t0[p & 0xff]!) >>> 0;
    }
    tables.push(next);
  }
  return tables;
}

const [T0, T1, T2, T3, T4, T5, T6, T7] = makeTables() as [
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
];

/** CRC32C of `bytes[start, end)`, as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  let i = start;
  const fast = end - ((end - start) & 7);
  while (i < fast) {
    const lo =
      (crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    crc =
      T7[lo & 0xff]! ^
      T6[(lo >>> 8) & 0xff]! ^
      T5[(lo >>> 16) & 0xff]! ^
      T4[lo >>> 24]! ^
      T3[bytes[i + 4]!]! ^
      T2[bytes[i + 5]!]! ^
      T1[bytes[i + 6]!]! ^
      T0[bytes[i + 7]!]!;
    i += 8;
  }
  while (i < end) crc = (crc >>> 8) ^ T0[(crc ^ bytes[i++]!) & 0xff]!;
  return (crc ^ 0xffffffff) >>> 0;
}
