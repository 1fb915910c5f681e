/**
 * The contract between storage/ and its callers (catalog/, durable-objects/, worker/).
 *
 * storage/ is an ordered byte-key/value store on an R2-shaped bucket. It knows nothing of DuckLake.
 * Everything a caller may rely on is declared here; implementation files may add detail but must not
 * weaken these promises.
 */

/** Keys and values are raw bytes, ordered lexicographically (unsigned byte compare). */
export type Bytes = Uint8Array;

/**
 * A position orders every batch ever applied to a store: strictly increasing, never reused, and it
 * survives reopening (recovery restores the last one). It is the read-your-writes token: a cut at
 * position P contains every batch with position <= P and nothing later.
 */
export type Position = number;

/** A key range for scans: [start, end) in byte order; `prefix` narrows both ends. */
export interface ScanRange {
  /** Inclusive lower bound. */
  start?: Bytes;
  /** Exclusive upper bound. */
  end?: Bytes;
  /** Only keys beginning with these bytes (combined with start/end when both are given). */
  prefix?: Bytes;
  /** Stop after this many entries. */
  limit?: number;
}

export interface KeyValue {
  key: Bytes;
  value: Bytes;
}

/**
 * A read hint: a key range a caller is about to read. `last` asks only for what holds the range's last
 * key (the newest record of a kind whose keys grow with time), not the whole range.
 */
export interface PrefetchRange extends ScanRange {
  last?: boolean;
}

/**
 * A consistent cut of the store. Reads are async because a cut may need blocks from R2.
 * Scans are ordered, forward-only and streaming.
 */
export interface ReadView {
  readonly position: Position;
  get(key: Bytes): Promise<Bytes | undefined>;
  scan(range: ScanRange): AsyncIterable<KeyValue>;
  /**
   * Optional hint (stateless readers implement it): fetch, together, what reads of `ranges` will need,
   * so the dependent lookups that follow cost no further round trips. Only a hint: bounded in bytes,
   * ranges past the bound are read lazily as before; never changes what a read returns
   * (docs/decisions/0170-plan-prefetch.md).
   */
  prefetch?(ranges: readonly PrefetchRange[]): Promise<void>;
}

/** One mutation in an atomic batch. A `value` of undefined is a delete. */
export interface Mutation {
  key: Bytes;
  value: Bytes | undefined;
}

/** Returned by every successful commit or batch write. */
export interface CommitHandle {
  /** The position of this batch; visible to the writer's reads from now on. */
  readonly position: Position;
  /**
   * Settles when the WAL segment holding this batch has been durably written (and published: the
   * newest segment names the cut that contains it). Rejects with Fenced or OutcomeUnknown if that
   * can no longer happen or cannot be known. The store never flushes on its own for this promise;
   * its host calls `flush()`.
   */
  readonly durable: Promise<void>;
}

/**
 * Writes that depend on the position the batch is about to get (a record of that position, say).
 * `Transaction.commit` calls it synchronously once the position is fixed, before the conflict check;
 * its writes join the batch (replacing buffered writes of the same key), so they are checked and applied
 * with it. It is not called for a transaction with no buffered writes (that one commits trivially).
 * Why: docs/decisions/0112-idempotent-replay-position.md.
 */
export type PositionStamp = (position: Position) => readonly Mutation[];

/**
 * A snapshot-isolated transaction: a ReadView taken at begin plus buffered writes. Reads see the
 * transaction's own buffered writes first.
 */
export interface Transaction extends ReadView {
  put(key: Bytes, value: Bytes): void;
  delete(key: Bytes): void;
  /**
   * Checks write-write conflicts and applies the batch in one synchronous step (no await between the
   * check and the apply). Throws TransactionConflict if any key this transaction writes was written
   * by another commit or plain batch applied after it began. A transaction with no writes commits
   * trivially and returns a handle at its begin position that is already durable if that was.
   */
  commit(stamp?: PositionStamp): CommitHandle;
  /** Releases the transaction (and its hold on conflict-detection history). Idempotent. */
  abort(): void;
}

/** Writer-side store handle. Only one live writer per lake: opening fences the previous one. */
export interface Store extends CheckpointWriter {
  /** Newest applied (visible, maybe not yet durable) position. */
  readonly position: Position;
  /** Newest position known durable. */
  readonly durablePosition: Position;
  /**
   * Newest position the sorted tables cover (the manifest's `wal.lastPosition`). Batches above it exist
   * only in the memtable and the WAL tail, which a reopen replays; a memtable flush moves it up to
   * `position`. A host compares the two to know whether a flush would change anything.
   */
  readonly coveredPosition: Position;
  /**
   * The writer epoch this handle writes under. A host that persists it (a Durable Object's own storage)
   * may pass it back as `WriterOptions.heldEpoch` on its next activation to skip minting a new epoch.
   */
  readonly epoch: number;
  /**
   * Set when the writer this open superseded had a different identity: two deployments may share a
   * bucket, and the host should say so loudly. Undefined for a first open or a same-identity reopen.
   */
  readonly takeover?: { identity: string; epoch: number; writtenAt: number };
  /** A consistent cut at the newest applied position. */
  snapshot(): ReadView;
  begin(): Transaction;
  /** A plain atomic batch; counts as a write for transaction conflict detection. */
  write(mutations: readonly Mutation[]): CommitHandle;
  /**
   * Writes one WAL segment holding every applied-but-unflushed batch. An empty flush writes nothing.
   * At most one segment PUT is in flight; a flush called while one is in flight waits for it and then
   * writes the rest. Resolves when those batches are durable.
   */
  flush(): Promise<void>;
  /** Number of batches applied but not yet in a durable segment. */
  readonly unflushedBatches: number;
  /** Stops the writer; pending durability promises reject. */
  close(): Promise<void>;
  /**
   * True when background work is due: the WAL tail passed the memtable-flush threshold, L0 tables await
   * compaction (or one is half done), or unreferenced objects passed their grace period. The host calls
   * `maintain()` while this holds (after its flushes and from its alarm). See storage/README.md
   * "Maintenance" for the contract.
   */
  readonly needsMaintenance: boolean;
  /**
   * Wall-clock ms at which GC work falls due if nothing else happens (for the host's alarm), or undefined
   * when nothing waits on time.
   */
  readonly nextMaintenanceAt: number | undefined;
  /**
   * Runs one bounded step of background work: a memtable flush if due, one compaction step, one GC pass.
   * Each publishes through a new manifest version; a fenced writer publishes nothing. Safe to call at any
   * time and concurrently with commits; calls are serialised.
   */
  maintain(options?: MaintainOptions): Promise<MaintenanceReport>;
  /**
   * Bytes this store's maintenance has written since it opened, by kind (the backstop's own steps
   * included): L0 tables by memtable flushes, sorted-run partitions by compaction, and partitions moved
   * into a run unchanged (counted, not written).
   */
  readonly maintenanceBytes: MaintenanceBytes;
}

/** What `Store.maintenanceBytes` answers. */
export interface MaintenanceBytes {
  flushed: number;
  compacted: number;
  moved: number;
}

/** Tuning of the writer's background work; defaults and their reasons in storage/maintenance.ts. */
export interface MaintenancePolicy {
  /** Flush the memtable to an L0 table once the WAL tail after the manifest has this many segments. */
  flushAfterSegments?: number;
  /** ... or this many bytes. */
  flushAfterBytes?: number;
  /** Backstop when the host never calls maintain(): the store starts a memtable flush itself. */
  forceFlushAfterSegments?: number;
  /** Merge L0 into a new sorted run once this many L0 tables exist. */
  l0CompactionTrigger?: number;
  /** Target size of a sorted-run partition (bytes). */
  partitionBytes?: number;
  /** Input bytes one compaction step may rewrite before it publishes (at least one partition). */
  stepBytes?: number;
  /** How long an object stays after it stopped being referenced before GC may delete it (ms). */
  gcGraceMs?: number;
}

export interface MaintainOptions {
  /** Overrides `stepBytes` for this call. */
  budgetBytes?: number;
  /** Flush the memtable even below the threshold (e.g. before the host goes idle). */
  forceFlush?: boolean;
  /** Start a compaction even when none is due: L0 into a new run, else every run into the oldest. */
  forceCompaction?: boolean;
}

export interface MaintenanceReport {
  /** An L0 table (or only a replay-point move) was published. */
  memtableFlushed: boolean;
  /** Compaction step: partitions replaced and written, input bytes read, output bytes written. */
  compaction?: {
    /** What was merged: the oldest L0 tables into a new run, or a window of runs into its oldest. */
    kind: "l0" | "runs";
    /** The sorted run merged into (docs/decisions/0162-tiered-runs.md). */
    targetRun: number;
    partitionsReplaced: number;
    partitionsWritten: number;
    /** Partitions moved into the target unchanged, and their bytes (docs/decisions/0186-partition-moves.md). */
    partitionsMoved: number;
    bytesMoved: number;
    bytesIn: number;
    bytesWritten: number;
    finished: boolean;
  };
  /** Objects GC deleted in this call (0 when nothing was due or this writer is superseded). */
  objectsDeleted: number;
  /** Whether more work is due now (`needsMaintenance` after the call). */
  more: boolean;
}

/**
 * The R2-shaped bucket seam. The real `R2Bucket` binding satisfies this as-is; storage/ never imports
 * Cloudflare types, so these are structural copies of the parts it uses.
 */
export interface BucketConditional {
  etagMatches?: string;
  etagDoesNotMatch?: string;
}

export type BucketRange =
  | { offset: number; length?: number }
  | { offset?: number; length: number }
  | { suffix: number };

export interface BucketObject {
  key: string;
  size: number;
  etag: string;
  uploaded: Date;
  customMetadata?: Record<string, string>;
}

export interface BucketObjectBody extends BucketObject {
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface BucketPutOptions {
  onlyIf?: BucketConditional;
  customMetadata?: Record<string, string>;
}

export interface BucketGetOptions {
  range?: BucketRange;
}

export interface BucketListOptions {
  prefix?: string;
  startAfter?: string;
  cursor?: string;
  limit?: number;
  /** Groups keys by the next occurrence of this string after the prefix (R2: only "/" is useful). */
  delimiter?: string;
  include?: ("httpMetadata" | "customMetadata")[];
}

export interface BucketListResult {
  objects: BucketObject[];
  truncated: boolean;
  cursor?: string;
  /** With `delimiter`: the distinct key prefixes up to and including the delimiter. */
  delimitedPrefixes?: string[];
}

export interface Bucket {
  /** Resolves null when `onlyIf` fails (nothing stored). */
  put(
    key: string,
    value: ArrayBuffer | ArrayBufferView | string | ReadableStream | null,
    options?: BucketPutOptions,
  ): Promise<BucketObject | null>;
  get(key: string, options?: BucketGetOptions): Promise<BucketObjectBody | null>;
  head(key: string): Promise<BucketObject | null>;
  list(options?: BucketListOptions): Promise<BucketListResult>;
  delete(keys: string | string[]): Promise<void>;
}

/**
 * One sorted layer beneath the memtable (a WAL tail replay, an L0 table, a sorted-run partition).
 * The store's read path merges layers newest first; `value: undefined` is a tombstone that hides
 * older layers. Sorted tables (storage/sst/) implement this.
 */
export interface SortedEntry {
  key: Bytes;
  /** undefined = tombstone. */
  value: Bytes | undefined;
}

export interface SortedSource {
  /** undefined: this layer says nothing about the key; `{value: undefined}`: a tombstone. */
  get(key: Bytes): Promise<SortedEntry | undefined>;
  /** Ordered, forward-only, streaming; includes tombstones. */
  scan(range: ScanRange): AsyncIterable<SortedEntry>;
  /**
   * Optional: fetch whatever a `get(key)` would need before it can look (a table's metadata), so a
   * lookup over many layers opens them all in one round instead of one after another.
   */
  prepare?(key: Bytes): Promise<void>;
}

/** Options for opening a lake's store as its writer. */
export interface WriterOptions {
  /** Recorded in the manifest; a takeover by a different identity is reported to the host. */
  identity?: string;
  /** Clock for records that need wall time (tests pass a fake). */
  now?: () => number;
  /**
   * The epoch this host's previous writer opened with, if the host kept it. When the newest manifest still
   * carries that epoch and this identity, the open reuses it instead of writing a new manifest version
   * (one PUT fewer per activation); the fence segment still fences any other instance.
   */
  heldEpoch?: number;
  /**
   * Bound on bucket retries: a read failing this many times is StoreUnavailable; a write whose outcome is
   * still unknown after this many tries is OutcomeUnknown. Defaults: 5 attempts, 100 ms doubling to 2 s.
   */
  retry?: { attempts?: number; backoffMs?: number; maxBackoffMs?: number };
  /** Background-work tuning (memtable flush, compaction, GC). */
  maintenance?: MaintenancePolicy;
  /**
   * Cache for sorted-table metadata and blocks (immutable, by key); default an in-memory LRU of 16 MiB.
   * Structurally `ObjectCache` from storage/cache.ts.
   */
  cache?: { get(key: string): Promise<Bytes | undefined>; put(key: string, value: Bytes): Promise<void> };
  /**
   * Key ranges the host's first reads after this open will touch (a catalog's commit path): their blocks
   * are fetched right after the tables' metadata, beside the tail reads and the fence PUT, so the first
   * commit's dependent lookups read held blocks. At most WRITER_WAKE_PREFETCH_BYTES_MAX, once per open
   * (docs/decisions/0171-wake-prefetch.md).
   */
  prefetch?: readonly PrefetchRange[];
  /**
   * Keys no sorted-run partition straddles: compaction starts a new partition at each of them. A host
   * names the bounds of its append-only key ranges (a log whose keys only grow), so those ranges form
   * partitions of their own that later run merges move instead of rewriting
   * (docs/decisions/0186-partition-moves.md). At most PARTITION_CUTS_MAX keys of at most
   * PARTITION_CUT_KEY_BYTES_MAX bytes each; InvalidArgument otherwise. Memtable flushes (L0) ignore them.
   */
  partitionCuts?: readonly Bytes[];
}

/** `storage/index.ts` exports `openWriter: OpenWriter`. Opening fences any previous writer of the lake. */
export type OpenWriter = (bucket: Bucket, lake: string, options?: WriterOptions) => Promise<Store>;

/** Options for minting a named checkpoint. */
export interface CheckpointOptions {
  /** How long the checkpoint may be opened (ms); omitted = until deleted. */
  lifetimeMs?: number;
}

/** A named checkpoint: a pinned, durable cut any reader can open by id (`openCheckpoint`). */
export interface CheckpointInfo {
  /** `<writer epoch>-<32 hex>`: unguessable, so it can serve as a public read selector. */
  id: string;
  /** The manifest version that records the checkpoint and whose sorted tables the cut reads. */
  manifestVersion: number;
  /** WAL segments replayed over that manifest, inclusive (empty when to < from). */
  walRange: { from: number; to: number };
  /** The cut's position: every batch <= it, nothing later. */
  position?: Position;
  createdAt?: number;
  /** Wall-clock ms after which opening it is refused; null = until deleted. */
  expiresAt: number | null;
}

/** The writer's checkpoint operations (part of `Store`). All refuse on a fenced writer. */
export interface CheckpointWriter {
  /** Flushes, then pins the durable cut under a new id recorded in the next manifest version. */
  createCheckpoint(options?: CheckpointOptions): Promise<CheckpointInfo>;
  /** Live (unexpired) checkpoints the writer's current manifest records. */
  listCheckpoints(): CheckpointInfo[];
  /** Refuses the id to readers from now on and releases its cut to GC (after the grace period). */
  deleteCheckpoint(id: string): Promise<void>;
}
