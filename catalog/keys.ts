/**
 * The catalog keyspace: `subspace · kind · fixed-width big-endian u64 components`, so byte order is
 * numeric order and "everything about table T" is one contiguous range (per-table kinds put the table id
 * first). No strings in keys: names live in values, and the name index keys a 64-bit hash of the
 * case-folded name. Golden vectors in test/catalog/keys.test.ts pin every kind's bytes.
 */
import type { Bytes } from "../storage/api.ts";

export const Subspace = {
  system: 0x01,
  snapshot: 0x02,
  current: 0x03,
  history: 0x04,
  inline: 0x05,
  names: 0x06,
  idempotency: 0x07,
  /** The row-ingestion log, its head, key indexes and settings (catalog/ingest/keys.ts). */
  ingest: 0x08,
  /** The lake's maintenance history (catalog/maintenance/runs.ts). */
  maintenance: 0x09,
} as const;

export const SystemKind = { format: 0x01, head: 0x02 } as const;
export const SnapshotKind = { record: 0x01 } as const;

/**
 * Entity kinds under `current` (and, for versioned ones, `history`). The DuckLake table each one holds is
 * listed in catalog/README.md; child tables with no lifecycle of their own are embedded in their parent.
 */
export const Kind = {
  schema: 0x01, // (schema_id)                        ducklake_schema
  table: 0x02, // (table_id)                          ducklake_table
  view: 0x03, // (view_id)                            ducklake_view
  column: 0x04, // (table_id, column_id)              ducklake_column
  dataFile: 0x05, // (table_id, data_file_id)         ducklake_data_file (+ file stats, partition values)
  deleteFile: 0x06, // (table_id, delete_file_id)     ducklake_delete_file
  partition: 0x07, // (table_id, partition_id)        ducklake_partition_info (+ partition_column)
  sort: 0x08, // (table_id, sort_id)                  ducklake_sort_info (+ sort_expression)
  macro: 0x09, // (macro_id)                          ducklake_macro (+ impl, parameters)
  tableStats: 0x0a, // (table_id)                     ducklake_table_stats (holds next_row_id)
  tableColumnStats: 0x0b, // (table_id, column_id)    ducklake_table_column_stats
  tag: 0x0c, // (object_id)                           ducklake_tag (container, entries versioned inside)
  columnTag: 0x0d, // (table_id, column_id)           ducklake_column_tag (container)
  option: 0x0e, // (scope_kind, scope_id)             ducklake_metadata (unversioned, last write wins)
  inlinedTable: 0x0f, // (table_id, schema_version)   ducklake_inlined_data_tables
  schemaVersion: 0x10, // (table_id, begin_snapshot)  ducklake_schema_versions
  mapping: 0x11, // (table_id, mapping_id)            ducklake_column_mapping (+ name_mapping)
  gcFile: 0x12, // (data_file_id)                     ducklake_files_scheduled_for_deletion
  tableMeta: 0x13, // (table_id)                      internal: next_column_id
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

export const InlineKind = { row: 0x01, fileDelete: 0x02, flushMark: 0x03 } as const;
export const NameSpace = { schema: 0x01, relation: 0x02, macro: 0x03 } as const;
export type NameSpace = (typeof NameSpace)[keyof typeof NameSpace];
/**
 * `record`: a client's key, by two components of its SHA-256; `expiry`: the sweep's index by expiry time;
 * `minted`: a key the Worker minted (`mintIdempotencyKey`), by its mint time, so these records only
 * append (docs/decisions/0189-time-ordered-minted-keys.md).
 */
export const IdempotencyKind = { record: 0x01, expiry: 0x02, minted: 0x03 } as const;

/** Option scopes as stored (DuckLake: scope NULL / 'schema' / 'table'). */
export const OptionScope = { global: 0, schema: 1, table: 2 } as const;

const TWO32 = 0x1_0000_0000;

/** Writes `n` as 8 big-endian bytes. Ids are JS numbers, so they must be safe non-negative integers. */
function putU64(out: Uint8Array, at: number, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`key component ${n} is not a u64 id`);
  const hi = Math.floor(n / TWO32);
  const lo = n % TWO32;
  out[at] = hi >>> 24;
  out[at + 1] = (hi >>> 16) & 0xff;
  out[at + 2] = (hi >>> 8) & 0xff;
  out[at + 3] = hi & 0xff;
  out[at + 4] = lo >>> 24;
  out[at + 5] = (lo >>> 16) & 0xff;
  out[at + 6] = (lo >>> 8) & 0xff;
  out[at + 7] = lo & 0xff;
}

export function readU64(b: Bytes, at: number): number {
  const hi =
    (((b[at] ?? 0) << 24) >>> 0) + ((b[at + 1] ?? 0) << 16) + ((b[at + 2] ?? 0) << 8) + (b[at + 3] ?? 0);
  const lo =
    (((b[at + 4] ?? 0) << 24) >>> 0) + ((b[at + 5] ?? 0) << 16) + ((b[at + 6] ?? 0) << 8) + (b[at + 7] ?? 0);
  return hi * TWO32 + lo;
}

/** A key: prefix bytes then u64 components. */
export function key(prefix: readonly number[], ...ids: number[]): Bytes {
  const out = new Uint8Array(prefix.length + ids.length * 8);
  out.set(prefix, 0);
  ids.forEach((id, i) => {
    putU64(out, prefix.length + i * 8, id);
  });
  return out;
}

/** Decodes the u64 components after a prefix of `prefixLength` bytes. */
export function keyIds(k: Bytes, prefixLength: number): number[] {
  const ids: number[] = [];
  for (let at = prefixLength; at + 8 <= k.length; at += 8) ids.push(readU64(k, at));
  return ids;
}

/** The exclusive upper bound of every key starting with `prefix` (prefix + 1 at the last non-0xff byte). */
export function prefixEnd(prefix: Bytes): Bytes | undefined {
  const out = prefix.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    if ((out[i] ?? 0) < 0xff) {
      out[i] = (out[i] ?? 0) + 1;
      return out.subarray(0, i + 1);
    }
  }
  return undefined;
}

export const keys = {
  format: (): Bytes => key([Subspace.system, SystemKind.format]),
  head: (): Bytes => key([Subspace.system, SystemKind.head]),
  snapshot: (snapshotId: number): Bytes => key([Subspace.snapshot, SnapshotKind.record], snapshotId),
  snapshotPrefix: (): Bytes => key([Subspace.snapshot, SnapshotKind.record]),
  current: (kind: Kind, ...ids: number[]): Bytes => key([Subspace.current, kind], ...ids),
  /** A history key is the current key's components with the end snapshot appended. */
  history: (kind: Kind, ids: readonly number[], endSnapshot: number): Bytes =>
    key([Subspace.history, kind], ...ids, endSnapshot),
  historyPrefix: (kind: Kind, ...ids: number[]): Bytes => key([Subspace.history, kind], ...ids),
  inlineRow: (tableId: number, rowId: number): Bytes =>
    key([Subspace.inline, InlineKind.row], tableId, rowId),
  inlineRowPrefix: (tableId: number): Bytes => key([Subspace.inline, InlineKind.row], tableId),
  /**
   * An earlier version of an inlined row whose row id a later version took over (DuckLake's UPDATE keeps
   * the row id: the old version ends, the new one begins under the same id). It sorts right after the
   * row's own key, inside `inlineRowPrefix`, so every reader of a table's rows sees both versions.
   */
  inlineRowVersion: (tableId: number, rowId: number, beginSnapshot: number): Bytes =>
    key([Subspace.inline, InlineKind.row], tableId, rowId, beginSnapshot),
  inlineFileDelete: (tableId: number, dataFileId: number, position: number): Bytes =>
    key([Subspace.inline, InlineKind.fileDelete], tableId, dataFileId, position),
  inlineFileDeletePrefix: (tableId: number, ...dataFileId: number[]): Bytes =>
    key([Subspace.inline, InlineKind.fileDelete], tableId, ...dataFileId),
  /**
   * The inlined rows one Quack connection's uncommitted `ducklake_flush_inlined_data` removed in stock's
   * eyes (by the hash of its connection id): that connection's reads skip them until its commit lands
   * (docs/decisions/0440-commit-space.md).
   */
  inlineFlushMark: (connectionHash: number): Bytes =>
    key([Subspace.inline, InlineKind.flushMark], connectionHash),
  name: (ns: NameSpace, parentId: number, hash: number): Bytes => key([Subspace.names, ns], parentId, hash),
  namePrefix: (ns: NameSpace, parentId: number): Bytes => key([Subspace.names, ns], parentId),
  idempotency: (h1: number, h2: number): Bytes => key([Subspace.idempotency, IdempotencyKind.record], h1, h2),
  idempotencyExpiry: (expiresAt: number, h1: number, h2: number): Bytes =>
    key([Subspace.idempotency, IdempotencyKind.expiry], expiresAt, h1, h2),
  idempotencyExpiryPrefix: (): Bytes => key([Subspace.idempotency, IdempotencyKind.expiry]),
  idempotencyMinted: (mintedAt: number, h: number): Bytes =>
    key([Subspace.idempotency, IdempotencyKind.minted], mintedAt, h),
  idempotencyMintedPrefix: (): Bytes => key([Subspace.idempotency, IdempotencyKind.minted]),
};

/**
 * The keyspace's append-only ranges, named to the store as partition cuts (`WriterOptions.partitionCuts`,
 * docs/decisions/0186-partition-moves.md): the snapshot log, whose ids only grow and which holds nearly all
 * of a busy lake's catalog bytes (one record per commit), and the idempotency records of minted keys and
 * the expiry index, which grow with time (one entry each per commit through the Worker;
 * docs/decisions/0189-time-ordered-minted-keys.md). With a partition boundary at each end of each, run
 * merges move their partitions instead of rewriting them.
 */
export function storePartitionCuts(): Bytes[] {
  return [keys.snapshotPrefix(), keys.idempotencyExpiryPrefix(), keys.idempotencyMintedPrefix()].flatMap(
    (start) => [start, prefixEnd(start)!],
  );
}

/** Number of id components each current kind carries (its history key has one more: the end snapshot). */
export const KIND_ARITY: Record<Kind, number> = {
  [Kind.schema]: 1,
  [Kind.table]: 1,
  [Kind.view]: 1,
  [Kind.column]: 2,
  [Kind.dataFile]: 2,
  [Kind.deleteFile]: 2,
  [Kind.partition]: 2,
  [Kind.sort]: 2,
  [Kind.macro]: 1,
  [Kind.tableStats]: 1,
  [Kind.tableColumnStats]: 2,
  [Kind.tag]: 1,
  [Kind.columnTag]: 2,
  [Kind.option]: 2,
  [Kind.inlinedTable]: 2,
  [Kind.schemaVersion]: 2,
  [Kind.mapping]: 2,
  [Kind.gcFile]: 1,
  [Kind.tableMeta]: 1,
};

/** Byte-order comparison (the store's order). */
export function compareBytes(a: Bytes, b: Bytes): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** A Map-friendly string whose JS ordering equals the byte ordering (one UTF-16 unit per byte). */
export function keyString(k: Bytes): string {
  let s = "";
  for (let i = 0; i < k.length; i++) s += String.fromCharCode(k[i] ?? 0);
  return s;
}

export function keyFromString(s: string): Bytes {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

/** FNV-1a 64 of the UTF-8 bytes, folded to 53 bits so it is a safe u64 key component. */
export function hash53(text: string): number {
  let h = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * FNV_PRIME) & MASK64;
  }
  return Number(h >> 11n);
}

/**
 * Names are case-insensitive in DuckDB's catalog (and DuckLake's conflict checks compare them so), so the
 * index hashes the folded name; the value keeps the name as written.
 */
export function foldName(name: string): string {
  return name.toLowerCase();
}
