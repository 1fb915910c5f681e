/**
 * Named checkpoints, writer side: minting, listing, deleting, and what live checkpoints pin for GC.
 *
 * Mint (`LakeStore.createCheckpoint`): flush, then inside the serial write chain capture the durable cut
 * (the current manifest's tail start, the last segment written, the durable position) and write manifest
 * version + 1 recording it; then put the descriptor (put-if-absent) naming that version and the WAL range.
 * The cut's manifest is the recording version (same tables and replay point as the one before), so a
 * reader fetches one manifest and can check the record is there. A crash between the two PUTs leaves a
 * record without a descriptor: opening the id is refused (not found) and the record pins until it expires
 * or is deleted — harmless. A fenced writer cannot mint: it refuses up front, and the manifest PUT of a
 * writer that does not yet know it is fenced collides.
 *
 * Delete: put the tombstone `<id>.deleted` first (readers refuse the id from then on), then a manifest
 * edit that removes the record and lists the descriptor as unreferenced with the checkpoint's cut
 * attached, so GC keeps the cut for its grace period (readers already open keep serving) and then
 * collects the descriptor. The tombstone is never collected: it is what keeps a deleted id refused even
 * from a cached descriptor, and it is ~100 bytes per explicit delete. A superseded writer that does not yet
 * know it is fenced may land a tombstone before its manifest PUT collides: the id is then refused while the
 * new writer still lists (and pins) it until its own delete — safe, and repeating the delete completes it.
 *
 * Expiry: a record whose `expiresAt` passed is moved to `unreferenced` (since = expiresAt) by the next
 * checkpoint edit, or by GC calling `pruneExpiredCheckpoints`.
 */
import type { Bucket, CheckpointInfo, CheckpointOptions, Position } from "./api.ts";
import type { ObjectCache } from "./cache.ts";
import {
  checkCheckpointId,
  checkpointKey,
  checkpointTombstoneKey,
  encodeDescriptor,
  encodeTombstone,
  newCheckpointId,
} from "./checkpoint-format.ts";
import { type CodedError, Corruption, InvalidArgument } from "./errors.ts";
import { manifestKey, walKey } from "./keys.ts";
import type { CheckpointRecord, Manifest, UnreferencedRecord } from "./manifest.ts";
import { putOnce } from "./put-once.ts";
import { CheckpointNotFound } from "./reader/errors.ts";
import { type ReaderOptions, readContext, readCutManifest } from "./reader/objects.ts";
import { publishedHead } from "./recovery.ts";
import type { RetryPolicy } from "./retry.ts";

/** `expiresAt` of a manifest record for a checkpoint without a lifetime (the record field is a number). */
export const NO_EXPIRY = Number.MAX_SAFE_INTEGER;

/** What the store hands the checkpoint code: its identity, clock, and the serial write chain. */
export interface CheckpointHost {
  bucket: Bucket;
  lake: string;
  epoch: number;
  retry: RetryPolicy;
  now(): number;
  /** Set once the writer is Fenced, OutcomeUnknown or closed. */
  failure(): CodedError | undefined;
  manifest(): Manifest;
  /** Valid inside the write chain only (no segment PUT in flight): last segment written, durable position. */
  durableCut(): { lastSegment: number; position: Position };
  flush(): Promise<void>;
  writeManifest(edit: (m: Manifest) => Manifest): Promise<Manifest>;
}

/** A released checkpoint's cut, kept on its `unreferenced` entry so GC holds it for the grace period. */
interface ReleasedCut {
  id: string;
  manifestVersion: number;
  walFrom: number;
  walTo: number;
}

export function checkpointInfo(r: CheckpointRecord): CheckpointInfo {
  const position = typeof r.position === "number" ? r.position : undefined;
  const createdAt = typeof r.createdAt === "number" ? r.createdAt : undefined;
  return {
    id: r.id,
    manifestVersion: r.manifestVersion,
    walRange: { from: r.walFrom, to: r.walTo },
    ...(position !== undefined ? { position } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
    expiresAt: r.expiresAt >= NO_EXPIRY ? null : r.expiresAt,
  };
}

function refuseIfFailed(host: CheckpointHost): void {
  const f = host.failure();
  if (f !== undefined) throw f;
}

function releasedEntry(lake: string, r: CheckpointRecord, since: number): UnreferencedRecord {
  const checkpoint: ReleasedCut = {
    id: r.id,
    manifestVersion: r.manifestVersion,
    walFrom: r.walFrom,
    walTo: r.walTo,
  };
  return { key: checkpointKey(lake, r.id), since, checkpoint };
}

/**
 * Moves records whose lifetime has passed to `unreferenced` (since = their expiry). A manifest edit: GC
 * calls it in its own edits; minting and deleting call it too.
 */
export function pruneExpiredCheckpoints(m: Manifest, now: number): Manifest {
  const expired = m.checkpoints.filter((c) => c.expiresAt <= now);
  if (expired.length === 0) return m;
  return {
    ...m,
    checkpoints: m.checkpoints.filter((c) => c.expiresAt > now),
    unreferenced: [...m.unreferenced, ...expired.map((c) => releasedEntry(m.lake, c, c.expiresAt))],
  };
}

export async function mintCheckpoint(
  host: CheckpointHost,
  options: CheckpointOptions = {},
): Promise<CheckpointInfo> {
  refuseIfFailed(host);
  const lifetime = options.lifetimeMs;
  if (lifetime !== undefined && !(Number.isSafeInteger(lifetime) && lifetime > 0)) {
    throw new InvalidArgument(
      `lifetimeMs must be a positive integer number of milliseconds, got ${String(lifetime)}`,
    );
  }
  // Everything applied before the call is in the cut: flush it first.
  await host.flush();
  const id = newCheckpointId(host.epoch);
  let record: CheckpointRecord | undefined;
  const written = await host.writeManifest((prev) => {
    refuseIfFailed(host);
    const now = host.now();
    const cut = host.durableCut();
    record = {
      id,
      manifestVersion: prev.version + 1,
      walFrom: prev.wal.replayAfter + 1,
      walTo: cut.lastSegment,
      expiresAt: lifetime === undefined ? NO_EXPIRY : now + lifetime,
      position: cut.position,
      createdAt: now,
    };
    const m = pruneExpiredCheckpoints(prev, now);
    return { ...m, checkpoints: [...m.checkpoints, record] };
  });
  if (record === undefined || written.version !== record.manifestVersion) {
    throw new Corruption(
      `checkpoint ${id} of lake ${host.lake} was recorded in an unexpected manifest version`,
    );
  }
  const info = checkpointInfo(record);
  const key = checkpointKey(host.lake, id);
  const body = encodeDescriptor({
    formatVersion: 1,
    id,
    lake: host.lake,
    epoch: host.epoch,
    manifestVersion: record.manifestVersion,
    walFrom: record.walFrom,
    walTo: record.walTo,
    position: record.position as number,
    createdAt: record.createdAt as number,
    expiresAt: info.expiresAt,
  });
  const r = await putOnce(host.bucket, key, body, undefined, host.retry);
  if (r.kind === "theirs") {
    throw new Corruption(`checkpoint descriptor ${key} already holds other bytes; 128 random bits collided`);
  }
  return info;
}

/** Checkpoints the writer's current manifest records and that have not expired. */
export function listCheckpoints(host: CheckpointHost): CheckpointInfo[] {
  const now = host.now();
  return host
    .manifest()
    .checkpoints.filter((c) => c.expiresAt > now)
    .map(checkpointInfo);
}

export async function deleteCheckpoint(host: CheckpointHost, id: string): Promise<void> {
  checkCheckpointId(id);
  refuseIfFailed(host);
  const notFound = () =>
    new CheckpointNotFound(
      `lake ${host.lake} records no checkpoint ${id} (never minted, already deleted, or expired); nothing to delete`,
    );
  if (!host.manifest().checkpoints.some((c) => c.id === id)) throw notFound();
  // Tombstone first: from here on readers refuse the id, even if the manifest edit below never lands.
  const tomb = checkpointTombstoneKey(host.lake, id);
  const r = await putOnce(host.bucket, tomb, encodeTombstone(host.lake, id), undefined, host.retry);
  if (r.kind === "theirs") throw new Corruption(`checkpoint tombstone ${tomb} holds unexpected bytes`);
  await host.writeManifest((prev) => {
    refuseIfFailed(host);
    const now = host.now();
    const rec = prev.checkpoints.find((c) => c.id === id);
    if (rec === undefined) throw notFound();
    const m = pruneExpiredCheckpoints(
      { ...prev, checkpoints: prev.checkpoints.filter((c) => c.id !== id) },
      now,
    );
    return { ...m, unreferenced: [...m.unreferenced, releasedEntry(host.lake, rec, now)] };
  });
}

/** Checkpoints recorded in the newest published manifest (1 list + 1 GET), without the writer. */
export async function listPublishedCheckpoints(
  bucket: Bucket,
  lake: string,
  options: ReaderOptions & { now?: number } = {},
): Promise<CheckpointInfo[]> {
  const ctx = readContext(bucket, lake, options);
  const head = await publishedHead(ctx.bucket, lake, ctx.policy);
  if (head === undefined) return [];
  const m = await readCutManifest(ctx, head.manifestVersion, `WAL segment ${head.segmentId}`);
  const now = options.now ?? Date.now();
  return m.checkpoints.filter((c) => c.expiresAt > now).map(checkpointInfo);
}

/** The cuts checkpoints pin at `now`, for GC. */
export interface CheckpointRefs {
  /** Ids of the checkpoints (live, or ended less than `graceMs` ago). */
  ids: string[];
  /** Manifest versions whose object — and every sorted table it lists — must be kept. */
  manifestVersions: number[];
  /** WAL segment ranges (inclusive) that must be kept. */
  walRanges: { from: number; to: number }[];
}

/**
 * What checkpoints pin in manifest `m` at `now`. A checkpoint pins its cut while it lives and for
 * `graceMs` after it ends (expiry or delete), the same grace GC gives any cut that stops being current, so
 * a reader opened on it just before the end keeps serving. Pure; no I/O.
 */
export function liveCheckpointRefs(m: Manifest, now: number, graceMs = 0): CheckpointRefs {
  const cuts: ReleasedCut[] = [];
  for (const c of m.checkpoints) if (c.expiresAt >= NO_EXPIRY || c.expiresAt + graceMs > now) cuts.push(c);
  for (const u of m.unreferenced) {
    const c = (u as { checkpoint?: unknown }).checkpoint as ReleasedCut | undefined;
    if (c !== undefined && typeof c.manifestVersion === "number" && u.since + graceMs > now) cuts.push(c);
  }
  return {
    ids: cuts.map((c) => c.id),
    manifestVersions: [...new Set(cuts.map((c) => c.manifestVersion))].sort((a, b) => a - b),
    walRanges: cuts.map((c) => ({ from: c.walFrom, to: c.walTo })),
  };
}

/**
 * Every object key the checkpoints of `m` pin at `now`: their descriptors, manifests, WAL segments and
 * the sorted tables those manifests list (read through `cache`; manifests are immutable). GC must not
 * delete any of them.
 */
export async function checkpointPinnedKeys(
  bucket: Bucket,
  lake: string,
  m: Manifest,
  options: { now: number; graceMs: number; cache?: ObjectCache; retry?: ReaderOptions["retry"] },
): Promise<Set<string>> {
  const refs = liveCheckpointRefs(m, options.now, options.graceMs);
  const keys = new Set<string>();
  for (const id of refs.ids) keys.add(checkpointKey(lake, id));
  for (const r of refs.walRanges) for (let i = r.from; i <= r.to; i++) keys.add(walKey(lake, i));
  const ctx = readContext(bucket, lake, {
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
  for (const v of refs.manifestVersions) {
    keys.add(manifestKey(lake, v));
    const pinned = v === m.version ? m : await readCutManifest(ctx, v, "a live checkpoint");
    for (const t of pinned.sortedTables) keys.add(t.key);
  }
  return keys;
}
