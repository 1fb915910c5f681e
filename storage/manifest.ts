/**
 * The manifest codec. A manifest version is an immutable object naming everything a cut needs besides
 * the WAL tail: the writer that minted it (epoch, identity), the WAL replay point, and room for sorted
 * tables, checkpoints, unreferenced-object records and the recorded log store (filled by the sorted-table,
 * checkpoint and GC work; empty until then).
 *
 * Body: UTF-8 JSON `{"crc32c":"<8 hex>","manifest":{...}}` (checksummed-json.ts).
 */
import { z } from "zod";
import { decodeChecksummedJson, encodeChecksummedJson } from "./checksummed-json.ts";
import { Corruption } from "./errors.ts";

export const MANIFEST_FORMAT_VERSION = 1;

const safeInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * A sorted table the cut reads. Only the object key is fixed here; the sorted-table work records its own
 * fields (size, key range, level, newest position, ...) beside it, and the codec preserves them.
 */
const sortedTableSchema = z.object({ key: z.string() }).loose();

/**
 * A named checkpoint: a pinned cut (manifest version + WAL range) that GC must keep until it expires.
 * `manifestVersion` is the version that records it; `expiresAt` = Number.MAX_SAFE_INTEGER when it has no
 * lifetime. What it pins, for GC: `liveCheckpointRefs` / `checkpointPinnedKeys` in checkpoints.ts.
 */
const checkpointSchema = z
  .object({
    id: z.string(),
    manifestVersion: safeInt,
    walFrom: safeInt,
    walTo: safeInt,
    expiresAt: safeInt,
    /** The cut's position and the mint time (optional only so older records still parse). */
    position: safeInt.optional(),
    createdAt: safeInt.optional(),
  })
  .loose();

/**
 * An object no longer referenced by the newest cut, and since when (ms); GC deletes after a grace period.
 * A released checkpoint's descriptor carries `checkpoint: {id, manifestVersion, walFrom, walTo}`: its cut
 * stays pinned for the grace period (checkpoints.ts).
 */
const unreferencedSchema = z.object({ key: z.string(), since: safeInt }).loose();

/**
 * A GC ledger: an immutable object holding unreferenced records sealed out of the manifest, so the
 * manifest does not grow with commit rate × GC grace (gc-ledger.ts). `sinceMin`/`sinceMax` bound the
 * records' `since`; `records` counts them.
 */
const gcLedgerRefSchema = z
  .object({ key: z.string(), records: safeInt, sinceMin: safeInt, sinceMax: safeInt })
  .loose();

const manifestSchema = z.object({
  formatVersion: z.literal(MANIFEST_FORMAT_VERSION),
  version: safeInt.min(1),
  lake: z.string(),
  writer: z.object({
    epoch: safeInt.min(1),
    identity: z.string(),
    /** Random per open: tells two instances of one identity apart. */
    instance: z.string(),
  }),
  wal: z.object({
    /** Segments with id <= replayAfter are covered by sorted tables; replay starts at replayAfter + 1. */
    replayAfter: safeInt,
    /** Newest batch position covered by sorted tables (positions continue above it). */
    lastPosition: safeInt,
  }),
  /** Name of the separate log store the WAL lives in; null = this bucket (the only option today). */
  logStore: z.string().nullable(),
  sortedTables: z.array(sortedTableSchema),
  checkpoints: z.array(checkpointSchema),
  unreferenced: z.array(unreferencedSchema),
  /** Sealed batches of unreferenced records (absent in manifests written before ledgers existed). */
  gcLedgers: z.array(gcLedgerRefSchema).optional(),
  writtenAt: safeInt,
});

export type Manifest = z.infer<typeof manifestSchema>;
export type SortedTableRecord = z.infer<typeof sortedTableSchema>;
export type CheckpointRecord = z.infer<typeof checkpointSchema>;
export type UnreferencedRecord = z.infer<typeof unreferencedSchema>;
export type GcLedgerRef = z.infer<typeof gcLedgerRefSchema>;

/** The manifest's ledger references ([] for a manifest without the field). */
export const ledgerRefs = (m: Manifest): GcLedgerRef[] => m.gcLedgers ?? [];

export function encodeManifest(m: Manifest): Uint8Array {
  return encodeChecksummedJson("manifest", m);
}

export function decodeManifest(bytes: Uint8Array, where = "manifest"): Manifest {
  const json = decodeChecksummedJson(bytes, "manifest", where);
  const bad = (what: string): Corruption =>
    new Corruption(
      `${where} is corrupt: ${what}. The lake cannot be opened from it; restore the object or investigate`,
    );
  const version = (json as { formatVersion?: unknown } | null)?.formatVersion;
  if (version !== MANIFEST_FORMAT_VERSION) throw bad(`unknown format version ${JSON.stringify(version)}`);
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw bad(`invalid fields: ${parsed.error.issues[0]?.path.join(".") ?? "?"}`);
  return parsed.data;
}
