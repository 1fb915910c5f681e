/**
 * The WAL head listing, shared by the opens of one lake that arrive while a listing is in flight — but only
 * with a listing that starts after they arrived. A commit acknowledged (to anyone) before an open arrives is
 * durable in R2 before it arrives, and R2 lists what it stored, so a listing started after the arrival sees
 * it: sharing such a listing keeps every read exactly as fresh as a listing of its own (read-your-writes and
 * linearisable latest reads unchanged), while a burst of opens costs one listing in flight plus one queued
 * behind it, instead of one each. A listing already in flight when an open arrives started before it and may
 * miss a commit acknowledged just before the open: the open never joins it; it queues the next one.
 *
 * Per store identity and lake, within an isolate; an entry exists only while a listing is in flight or
 * queued, so nothing is kept between bursts. The shared listing runs through the bucket (and counters) of
 * the open that started it. docs/decisions/0761-read-staleness-contract.md.
 */
import type { SegmentSummary } from "../segment.ts";

type Head = SegmentSummary | undefined;

interface Lane {
  /** The listing in flight (started before any open that finds it here). */
  current?: Promise<Head>;
  /** The listing queued behind `current`: it has not started yet, so it starts after every open that joins. */
  next?: Promise<Head>;
}

const bySource = new WeakMap<object, Map<string, Lane>>();

/**
 * `list()` for this open, or the queued listing that will start after this call: never a listing that
 * started before it.
 */
export function sharedHeadListing(source: object, lake: string, list: () => Promise<Head>): Promise<Head> {
  let lanes = bySource.get(source);
  if (lanes === undefined) {
    lanes = new Map();
    bySource.set(source, lanes);
  }
  const all = lanes;
  let lane = all.get(lake);
  if (lane === undefined) {
    lane = {};
    all.set(lake, lane);
  }
  const own = lane;
  if (own.next !== undefined) return own.next;
  const start = (): Promise<Head> => {
    const p = list();
    own.current = p;
    const settle = (): void => {
      if (own.current === p) own.current = undefined;
      if (own.current === undefined && own.next === undefined && all.get(lake) === own) all.delete(lake);
    };
    p.then(settle, settle);
    return p;
  };
  const inFlight = own.current;
  if (inFlight === undefined) return start();
  const next: Promise<Head> = inFlight
    .then(
      () => undefined,
      () => undefined,
    )
    .then(() => {
      // Cleared in the same turn the listing starts: an open arriving from here on queues its own.
      if (own.next === next) own.next = undefined;
      return start();
    });
  own.next = next;
  return next;
}
