/**
 * Opening a lake as its writer, newest writer wins:
 *   1. read the newest manifest (list limit 1 + get), or write the genesis manifest (version 1, epoch 1);
 *   2. otherwise mint epoch + 1 in manifest version + 1, put-if-absent (skipped by the held-epoch shortcut);
 *   3. replay the WAL tail after the manifest's replay point (listed and fetched while step 1 runs:
 *      tail-prefetch.ts);
 *   4. put an empty fence segment at the next id (started beside the tail GETs once the listing names the
 *      ids). It is also the publish segment of step 2's manifest. If it collides with a segment an older
 *      writer just wrote, replay that one (it may hold acknowledged commits) and fence the next id.
 * Any older writer's next segment or manifest PUT then collides and it becomes Fenced.
 */
import type { Bucket, OpenWriter, WriterOptions } from "./api.ts";
import { randomId } from "./bytes.ts";
import { LruCache } from "./cache.ts";
import { partitionCuts } from "./compaction/partition-writer.ts";
import { Corruption, LakeDeleted, OpenRaced, StoreUnavailable } from "./errors.ts";
import { checkLakeName, manifestKey, walKey } from "./keys.ts";
import { layersFromManifest, lazyTables, PREFETCH_TABLES_MAX } from "./layers.ts";
import { encodeManifest, MANIFEST_FORMAT_VERSION, type Manifest } from "./manifest.ts";
import {
  openAll,
  openInLanes,
  PREFETCH_CONNECTIONS,
  prefetchLayers,
  WRITER_WAKE_PREFETCH_BYTES_MAX,
} from "./prefetch.ts";
import { putOnce } from "./put-once.ts";
import { newestManifest, replaySegment, startReplay } from "./recovery.ts";
import { type RetryPolicy, retryPolicy } from "./retry.ts";
import { decodeSegment, encodedSegmentSize, encodeSegment, type Segment, segmentSummary } from "./segment.ts";
import { ReadCounters } from "./sst/counters.ts";
import { DEFAULT_CACHE_BYTES, LakeStore } from "./store.ts";
import { prefetchTail, settled, type TailPrefetch, tailIds, tailSegments } from "./tail-prefetch.ts";

/** How many consecutive fence collisions an open tolerates before reporting the lake as contended. */
const MAX_FENCE_COLLISIONS = 64;

async function mintManifest(
  bucket: Bucket,
  lake: string,
  m: Manifest,
  policy: RetryPolicy,
  genesis: boolean,
): Promise<void> {
  const r = await putOnce(bucket, manifestKey(lake, m.version), encodeManifest(m), undefined, policy);
  if (r.kind === "theirs") {
    throw new OpenRaced(
      genesis
        ? `another writer created lake ${lake} at the same moment and won; open it again (the retry takes over from that writer)`
        : `another writer opened lake ${lake} at the same moment (manifest version ${m.version} is taken); open it again to take over`,
    );
  }
}

export const openWriter: OpenWriter = async (bucket, lake, options: WriterOptions = {}) => {
  checkLakeName(lake);
  // Validated and sorted once, before any I/O: a bad cut list fails the open with InvalidArgument.
  const opts: WriterOptions = { ...options, partitionCuts: partitionCuts(options.partitionCuts) };
  const policy = retryPolicy(options.retry);
  // The WAL is listed and its tail fetched while the manifest is read (tail-prefetch.ts), with one
  // connection of the six left to the manifest GET. A failed speculation is not an error (the tail is
  // then read the ordinary way after the manifest); a failed open waits for it, so nothing stays in flight.
  const prefetched = prefetchTail(bucket, lake, policy).catch((e: unknown) =>
    e instanceof LakeDeleted ? Promise.reject(e) : undefined,
  );
  prefetched.catch(() => {});
  const inFlight: Promise<unknown>[] = [];
  try {
    return await openAfterPrefetch(bucket, lake, opts, policy, prefetched, inFlight);
  } catch (e) {
    await settled(await prefetched.catch(() => undefined));
    await Promise.allSettled(inFlight);
    throw e;
  }
};

async function openAfterPrefetch(
  bucket: Bucket,
  lake: string,
  options: WriterOptions,
  policy: RetryPolicy,
  prefetched: Promise<TailPrefetch | undefined>,
  inFlight: Promise<unknown>[],
): Promise<LakeStore> {
  const now = options.now ?? Date.now;
  const identity = options.identity ?? "";
  const instance = randomId();

  const newest = await newestManifest(bucket, lake, policy);
  let manifest: Manifest;
  if (newest === undefined) {
    manifest = {
      formatVersion: MANIFEST_FORMAT_VERSION,
      version: 1,
      lake,
      writer: { epoch: 1, identity, instance },
      wal: { replayAfter: 0, lastPosition: 0 },
      logStore: null,
      sortedTables: [],
      checkpoints: [],
      unreferenced: [],
      writtenAt: now(),
    };
    await mintManifest(bucket, lake, manifest, policy, true);
  } else if (
    options.heldEpoch !== undefined &&
    newest.writer.epoch === options.heldEpoch &&
    newest.writer.identity === identity
  ) {
    // The host says it minted this epoch and still holds it: the fence segment below is what fences any
    // other instance, so a new manifest version would only cost a PUT.
    manifest = newest;
  } else {
    manifest = {
      ...newest,
      // The superseded version is unreferenced from now on; GC collects it after the grace period.
      unreferenced: [...newest.unreferenced, { key: manifestKey(lake, newest.version), since: now() }],
      version: newest.version + 1,
      writer: { epoch: newest.writer.epoch + 1, identity, instance },
      writtenAt: now(),
    };
    await mintManifest(bucket, lake, manifest, policy, false);
  }
  const epoch = manifest.writer.epoch;
  // Open the manifest's tables now (metadata GETs, ≤ PREFETCH_TABLES_MAX tables) so they land during the
  // tail reads and the fence PUT: the woken writer's first reads then cost a block GET, not two rounds.
  const cache = options.cache ?? new LruCache(DEFAULT_CACHE_BYTES);
  const counters = new ReadCounters();
  const layers = layersFromManifest(bucket, lake, manifest, {
    cache,
    counters,
    ...(options.prefetch !== undefined ? { prefetchBytes: WRITER_WAKE_PREFETCH_BYTES_MAX } : {}),
  });
  const warm = manifest.sortedTables.length <= PREFETCH_TABLES_MAX ? lazyTables(layers) : [];
  // The host's first reads, fetched right behind the metadata while the tail and the fence go on (with
  // block fences, beside the metadata: docs/decisions/0175-block-fences.md; one connection is the fence
  // PUT's); not awaited (a hint: a failure here is the first read's to report). With a hint the tables it
  // reaches open first, the others only in the connections its windows leave: opened all at once, their
  // metadata GETs would take the ones the windows need (docs/decisions/0184-cold-round-packing.md).
  // Once the hint has landed the rest open too (warm for later commits), leaving a connection free for
  // the first commit's PUT.
  if (options.prefetch !== undefined)
    void prefetchLayers(layers, options.prefetch, { reservedConnections: 1, warm })
      .catch(() => {})
      .then(() => openInLanes(warm, PREFETCH_CONNECTIONS - 1));
  else openAll(warm);

  // The fence goes at the id after the listed tail as soon as the ids are known, beside the tail GETs
  // (docs/decisions/0174-wake-tail-overlap.md): it needs the ids, not the segments' contents, so a long
  // tail no longer costs one more round after its last GET. Safe early: segments below it are immutable
  // and are still all replayed before the store exists; a failed open after it lands fences the old
  // writer exactly as a crash after the fence would.
  const pre = await prefetched;
  const ids = await tailIds(bucket, lake, manifest.wal.replayAfter, policy, pre);
  const putFence = async (id: number): Promise<{ id: number; theirs?: Segment }> => {
    const fence: Segment = {
      header: {
        epoch,
        segmentId: id,
        manifestVersion: manifest.version,
        tailStart: manifest.wal.replayAfter + 1,
        writer: instance,
      },
      batches: [],
    };
    const key = walKey(lake, id);
    const r = await putOnce(bucket, key, encodeSegment(fence), segmentSummary(fence), policy);
    if (r.kind === "ours") return { id };
    const theirs = decodeSegment(r.body, key);
    if (theirs.header.segmentId !== id)
      throw new Corruption(`WAL segment ${key} claims id ${theirs.header.segmentId}`);
    return { id, theirs };
  };
  let fenced = putFence((ids[ids.length - 1] ?? manifest.wal.replayAfter) + 1);
  fenced.catch(() => {});
  inFlight.push(fenced);
  // Empty segments built on the manifest read (publish, fence) come from their listed summaries.
  const segments = await tailSegments(bucket, lake, ids, policy, pre, {
    version: newest?.version ?? manifest.version,
    tailStart: manifest.wal.replayAfter + 1,
  });
  const state = startReplay(manifest);
  const tail: { id: number; bytes: number }[] = [];
  segments.forEach((seg, i) => {
    replaySegment(state, seg, walKey(lake, ids[i]!));
    tail.push({ id: ids[i]!, bytes: encodedSegmentSize(seg.batches) });
  });

  let next: number;
  for (let collisions = 0; ; collisions++) {
    if (collisions >= MAX_FENCE_COLLISIONS) {
      throw new StoreUnavailable(
        `lake ${lake}: ${collisions} fence segments in a row collided with another writer's segments; another writer is still active, retry the open`,
      );
    }
    const r = await fenced;
    next = r.id;
    if (r.theirs === undefined) break;
    if (r.theirs.header.epoch > epoch) {
      throw new OpenRaced(
        `a newer writer (epoch ${r.theirs.header.epoch}) opened lake ${lake} while this open was in progress; open again to take over`,
      );
    }
    // An older writer's segment that landed after our listing: it may hold acknowledged commits.
    replaySegment(state, r.theirs, walKey(lake, next));
    tail.push({ id: next, bytes: encodedSegmentSize(r.theirs.batches) });
    fenced = putFence(next + 1);
    fenced.catch(() => {});
    inFlight.push(fenced);
  }

  return new LakeStore({
    bucket,
    lake,
    epoch,
    instance,
    identity,
    manifest,
    nextSegmentId: next + 1,
    position: state.position,
    mem: state.mem,
    retry: policy,
    now,
    tail,
    ...(options.maintenance ? { policy: options.maintenance } : {}),
    ...(options.partitionCuts !== undefined ? { partitionCuts: options.partitionCuts } : {}),
    cache,
    tables: { layers, counters },
    ...(newest !== undefined && newest.writer.identity !== identity
      ? {
          takeover: {
            identity: newest.writer.identity,
            epoch: newest.writer.epoch,
            writtenAt: newest.writtenAt,
          },
        }
      : {}),
  });
}
