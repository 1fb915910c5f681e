/**
 * What a bucket is for isolate-wide memory (the remembered WAL tails, tail-replays.ts): a wrapper that times
 * or counts calls on the same store (a per-request proxy, say) answers its store's identity under
 * BUCKET_IDENTITY, so a timed request shares that memory with an untimed one
 * (docs/decisions/0762-quack-speed-attribution.md). Only plain data is shared that way, never a pending
 * promise (docs/decisions/0760-decoded-cut-cache.md).
 */
import type { Bucket } from "../api.ts";

/** The symbol a wrapper answers its store's identity under. */
export const BUCKET_IDENTITY: unique symbol = Symbol.for("ducklake-edge.bucket-identity");

/** The object isolate-wide memory is keyed by for `bucket`. */
export function bucketIdentity(bucket: Bucket): object {
  const id = (bucket as unknown as { [BUCKET_IDENTITY]?: unknown })[BUCKET_IDENTITY];
  return typeof id === "object" && id !== null ? id : bucket;
}
