/** Stateless readers (see storage/README.md, "Readers and checkpoints"). */
export {
  CountingBucket,
  type ReaderCallKind,
  ReaderCounters,
  type ReaderCountsSnapshot,
} from "./counters.ts";
export {
  CheckpointExpired,
  CheckpointNotFound,
  CutNotYetVisible,
  InvalidCheckpointId,
  LakeNotFound,
} from "./errors.ts";
export { LakeReader, type ReaderCut } from "./lake-reader.ts";
export type { ReaderOptions } from "./objects.ts";
export { type OpenCheckpointOptions, openCheckpoint } from "./open-checkpoint.ts";
export { type OpenLatestOptions, openLatest } from "./open-latest.ts";
export { BUCKET_IDENTITY, bucketIdentity } from "./store-identity.ts";
