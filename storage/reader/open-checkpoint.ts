/**
 * `openCheckpoint`: a reader pinned to a named checkpoint. It reads only objects the checkpoint names —
 * its descriptor, the manifest version that records it, its WAL segments, that manifest's sorted tables —
 * plus two HEADs that must never be cached: the checkpoint's tombstone (deleted?) and the lake's deleted
 * marker. No list, no write, no polling; it never sees a commit after its cut.
 *
 * Refusals, before any cut is read: a malformed id (InvalidCheckpointId, no bucket call), an unknown or
 * deleted id (CheckpointNotFound), an expired one (CheckpointExpired), a deleted lake (LakeDeleted). The
 * descriptor may come from the object cache (it is immutable), but expiry is checked against the clock on
 * every open and the tombstone HEAD is issued on every open, so a cached descriptor never outlives its
 * checkpoint's lifetime or its deletion.
 */
import type { Bucket } from "../api.ts";
import {
  type CheckpointDescriptor,
  checkCheckpointId,
  checkpointKey,
  checkpointTombstoneKey,
  decodeDescriptor,
} from "../checkpoint-format.ts";
import { Corruption, LakeDeleted } from "../errors.ts";
import { deletedMarkerKey } from "../keys.ts";
import { readWithRetry } from "../retry.ts";
import { CheckpointExpired, CheckpointNotFound } from "./errors.ts";
import { buildReader, type LakeReader } from "./lake-reader.ts";
import {
  type ReaderOptions,
  readContext,
  readCutManifest,
  readCutSegments,
  readImmutable,
} from "./objects.ts";

export interface OpenCheckpointOptions extends ReaderOptions {
  /** Clock for the expiry check (tests pass a fake). */
  now?: () => number;
}

export async function openCheckpoint(
  bucket: Bucket,
  lake: string,
  id: string,
  options: OpenCheckpointOptions = {},
): Promise<LakeReader> {
  checkCheckpointId(id);
  const ctx = readContext(bucket, lake, options);
  const key = checkpointKey(lake, id);
  const tombstone = checkpointTombstoneKey(lake, id);
  const exists = (k: string) =>
    readWithRetry(ctx.policy, `checking ${k}`, async () => (await ctx.bucket.head(k)) !== null);
  const [desc, deleted, lakeGone] = await Promise.all([
    readImmutable(ctx, key, (bytes): CheckpointDescriptor => {
      const d = decodeDescriptor(bytes, key);
      if (d.id !== id || d.lake !== lake)
        throw new Corruption(`checkpoint descriptor ${key} names checkpoint ${d.id} of lake ${d.lake}`);
      return d;
    }),
    exists(tombstone),
    exists(deletedMarkerKey(lake)),
  ]);
  if (lakeGone) throw new LakeDeleted(`lake ${lake} was deleted; its checkpoints cannot be opened`);
  if (deleted)
    throw new CheckpointNotFound(`checkpoint ${id} of lake ${lake} was deleted; mint a new checkpoint`);
  if (desc === null)
    throw new CheckpointNotFound(
      `lake ${lake} has no checkpoint ${id} (never minted, or expired and collected); check the id or mint a new checkpoint`,
    );
  const now = (options.now ?? Date.now)();
  if (desc.expiresAt !== null && now >= desc.expiresAt) {
    throw new CheckpointExpired(
      `checkpoint ${id} of lake ${lake} expired at ${new Date(desc.expiresAt).toISOString()}; mint a new checkpoint`,
    );
  }
  const named = `checkpoint ${id}`;
  const manifest = await readCutManifest(ctx, desc.manifestVersion, named);
  if (!manifest.checkpoints.some((c) => c.id === id)) {
    throw new Corruption(
      `manifest version ${desc.manifestVersion} of lake ${lake} does not record ${named}, which names it`,
    );
  }
  const segments = await readCutSegments(ctx, desc.walFrom, desc.walTo, named);
  const reader = buildReader(ctx, manifest, segments, {
    lake,
    epoch: desc.epoch,
    wal: { from: desc.walFrom, to: desc.walTo },
    checkpointId: id,
  });
  if (reader.position !== desc.position) {
    throw new Corruption(
      `${named} of lake ${lake} is at position ${desc.position} but its WAL range replays to ${reader.position}`,
    );
  }
  return reader;
}
