/** UUID v7 (time-ordered), as DuckLake mints for schemas, tables and views. */
export function uuidv7(nowMs: number = Date.now()): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  let ms = Math.floor(nowMs);
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The top bit DuckDB flips when it holds a UUID as a 128-bit integer (so integer order is UUID order). */
const UUID_SIGN = 1n << 63n;

/** A canonical (lower-case, hyphenated) UUID as DuckDB's 128-bit integer form of it. */
export function uuidToInt128(uuid: string): bigint {
  const hex = uuid.replaceAll("-", "");
  const upper = BigInt(`0x${hex.slice(0, 16)}`) ^ UUID_SIGN;
  return (BigInt.asIntN(64, upper) << 64n) | BigInt(`0x${hex.slice(16)}`);
}

/** DuckDB's 128-bit integer form of a UUID back as its canonical text. */
export function int128ToUuid(v: bigint): string {
  const upper = BigInt.asUintN(64, v >> 64n) ^ UUID_SIGN;
  const hex = upper.toString(16).padStart(16, "0") + BigInt.asUintN(64, v).toString(16).padStart(16, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
