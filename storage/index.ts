/** The public face of storage/: everything catalog/, durable-objects/, worker/ and tests may import. */
export type * from "./api.ts";
export { compareBytes, fromUtf8, utf8 } from "./bytes.ts";
export { LruCache, type ObjectCache } from "./cache.ts";
export {
  type CheckpointRefs,
  checkpointPinnedKeys,
  listPublishedCheckpoints,
  liveCheckpointRefs,
  NO_EXPIRY,
  pruneExpiredCheckpoints,
} from "./checkpoints.ts";
export {
  CodedError,
  Corruption,
  Fenced,
  InvalidArgument,
  LakeDeleted,
  OpenRaced,
  OutcomeUnknown,
  StoreClosed,
  StoreUnavailable,
  TransactionClosed,
  TransactionConflict,
} from "./errors.ts";
export {
  type BucketOp,
  FaultBucket,
  type FaultRule,
  InjectedFault,
  type LatencyRule,
  type OpOutcome,
  type OpRecord,
} from "./fault-bucket.ts";
export { type LayerOptions, layersFromManifest } from "./layers.ts";
export { DEFAULT_POLICY as DEFAULT_MAINTENANCE_POLICY, MaintenanceCounters } from "./maintenance.ts";
export { mergeNewestFirst, visibleEntries } from "./merge.ts";
export { openWriter } from "./open.ts";
export {
  BUCKET_IDENTITY,
  bucketIdentity,
  CheckpointExpired,
  CheckpointNotFound,
  CountingBucket,
  CutNotYetVisible,
  InvalidCheckpointId,
  LakeNotFound,
  LakeReader,
  type OpenCheckpointOptions,
  type OpenLatestOptions,
  openCheckpoint,
  openLatest,
  ReaderCounters,
  type ReaderCountsSnapshot,
  type ReaderCut,
  type ReaderOptions,
} from "./reader/index.ts";
export { LakeStore } from "./store.ts";
