/**
 * `openLatest`: a consistent cut at the newest published position, straight from R2, without the writer.
 *
 * The newest WAL segment's custom metadata names the manifest version it builds on and the first segment
 * of the tail after it, so one `list({limit: 1})` (never cached: it is the one mutable answer) gives the
 * newest published cut. Then: that manifest (1 GET), the tail segments (≤ 6 GETs in flight), and later only
 * the table blocks a read needs. Cost of an open: 1 list + 1 manifest + tail segments, less what the
 * object cache holds. A built cut is never kept for another request: its tables' pending fetches belong
 * to the request that started them (docs/decisions/0760-decoded-cut-cache.md).
 *
 * Read-your-writes: `after` is a position the caller knows is durable (a commit's handle). A cut older
 * than it re-lists once (the segment may have landed since) and otherwise fails with CutNotYetVisible.
 */
import type { Bucket, Position } from "../api.ts";
import { Corruption, InvalidArgument } from "../errors.ts";
import { publishedHead } from "../recovery.ts";
import type { SegmentSummary } from "../segment.ts";
import { CutNotYetVisible, LakeNotFound } from "./errors.ts";
import { buildReader, type LakeReader } from "./lake-reader.ts";
import {
  type ReadContext,
  type ReaderOptions,
  readContext,
  readCutManifest,
  readCutSegments,
} from "./objects.ts";
import { rememberTail, tailToExtend } from "./tail-replays.ts";

export interface OpenLatestOptions extends ReaderOptions {
  /** Only a cut at or after this position will do (read-your-writes). */
  after?: Position;
}

async function head(ctx: ReadContext): Promise<SegmentSummary> {
  // One listing per open, never shared with another request: workerd cancels a request that awaits a
  // listing another request started, as hung (docs/decisions/0761-read-staleness-contract.md).
  const h = await publishedHead(ctx.bucket, ctx.lake, ctx.policy);
  if (h === undefined)
    throw new LakeNotFound(
      `lake ${ctx.lake} has no WAL segment: no writer ever opened it; check the lake name or create the lake`,
    );
  return h;
}

async function readCut(ctx: ReadContext, h: SegmentSummary): Promise<LakeReader> {
  const named = `WAL segment ${h.segmentId}`;
  // A tail this isolate already replayed on the same manifest is extended by the segments since.
  const known = tailToExtend(ctx.source, ctx.lake, h.manifestVersion, h.tailStart, h.segmentId);
  // The head names both the manifest and the tail's range: read them in the same round. The manifest
  // takes one of the six connections, so the tail reads ≤ 5 at a time beside it.
  const segmentsRead = readCutSegments(ctx, known ? known.upTo + 1 : h.tailStart, h.segmentId, named, 5);
  segmentsRead.catch(() => {});
  const manifest = await readCutManifest(ctx, h.manifestVersion, named);
  if (h.tailStart !== manifest.wal.replayAfter + 1) {
    throw new Corruption(
      `${named} of lake ${ctx.lake} says the tail after manifest ${manifest.version} starts at ${h.tailStart}, the manifest says ${manifest.wal.replayAfter + 1}`,
    );
  }
  const segments = await segmentsRead;
  return buildReader(
    ctx,
    manifest,
    segments,
    { lake: ctx.lake, epoch: h.epoch, wal: { from: h.tailStart, to: h.segmentId } },
    known,
    (state) =>
      rememberTail(ctx.source, ctx.lake, {
        manifestVersion: manifest.version,
        tailStart: h.tailStart,
        upTo: h.segmentId,
        position: state.position,
        mem: state.mem,
      }),
  );
}

/** A position the head already shows to be older than `after`, without reading anything more. */
const visiblyOlder = (h: SegmentSummary, after: Position | undefined): boolean =>
  after !== undefined && h.lastPosition >= 0 && h.lastPosition < after;

function notYet(lake: string, after: Position, seen: Position): CutNotYetVisible {
  return new CutNotYetVisible(
    `the newest published cut of lake ${lake} is at position ${seen}, older than the requested ${after}, even after re-listing; the commit is not durable yet — retry shortly or read through the writer`,
  );
}

export async function openLatest(
  bucket: Bucket,
  lake: string,
  options: OpenLatestOptions = {},
): Promise<LakeReader> {
  const after = options.after;
  if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0)) {
    throw new InvalidArgument(`after must be a position (a non-negative integer), got ${String(after)}`);
  }
  const ctx = readContext(bucket, lake, options);
  let h = await head(ctx);
  let relisted = false;
  // A head holding batches names the cut's position itself: an older one is re-listed before any read.
  if (visiblyOlder(h, after)) {
    h = await head(ctx);
    relisted = true;
    if (visiblyOlder(h, after)) throw notYet(lake, after ?? 0, h.lastPosition);
  }
  const reader = await readCut(ctx, h);
  if (after === undefined || reader.position >= after) return reader;
  if (relisted) throw notYet(lake, after, reader.position);
  const again = await head(ctx);
  if (again.segmentId === h.segmentId) throw notYet(lake, after, reader.position);
  // Objects read for the first cut are reused (ctx.memo); only what is new is fetched.
  const newer = await readCut(ctx, again);
  if (newer.position < after) throw notYet(lake, after, newer.position);
  return newer;
}
