/** The public face of storage/: everything catalog/, durable-objects/, worker/ and tests may import. */
export type * from "./api.ts";
export { compareBytes, fromUtf8, utf8 } from "./bytes.ts";
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
export { mergeNewestFirst, visibleEntries } from "./merge.ts";
export { openWriter } from "./open.ts";
export { LakeStore } from "./store.ts";
