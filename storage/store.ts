/**
 * The writer-side store: memtable + sorted layers for reads, the last-write index for conflicts, and the
 * segment pipeline for durability. Every segment and manifest PUT runs through one serial chain, so at
 * most one is in flight, ids land in order, and manifest writes never race each other.
 */
import type {
  Bucket,
  Bytes,
  CheckpointInfo,
  CheckpointOptions,
  CheckpointWriter,
  CommitHandle,
  MaintainOptions,
  MaintenanceBytes,
  MaintenancePolicy,
  MaintenanceReport,
  Mutation,
  Position,
  ReadView,
  SortedSource,
  Store,
  Transaction,
} from "./api.ts";
import { keyString, rangeBounds } from "./bytes.ts";
import { LruCache, type ObjectCache } from "./cache.ts";
import { type CheckpointHost, deleteCheckpoint, listCheckpoints, mintCheckpoint } from "./checkpoints.ts";
import type { CompactionStepResult } from "./compaction/step.ts";
import { type CodedError, Fenced, StoreClosed, TransactionConflict } from "./errors.ts";
import type { GcResult } from "./gc.ts";
import { manifestKey, walKey } from "./keys.ts";
import { LastWriteIndex } from "./last-writes.ts";
import { layersFromManifest } from "./layers.ts";
import {
  type FrozenMemtable,
  type MaintenanceContext,
  MaintenanceCounters,
  maintenancePolicy,
} from "./maintenance.ts";
import { encodeManifest, type Manifest } from "./manifest.ts";
import { asAsync, type MemTree, memEntries, newMemTree } from "./memtable.ts";
import { copyBatch } from "./mutations.ts";
import { putOnce } from "./put-once.ts";
import { Cut } from "./read-view.ts";
import type { RetryPolicy } from "./retry.ts";
import { encodedSegmentSize, encodeSegment, type Segment, segmentSummary } from "./segment.ts";
import { ReadCounters } from "./sst/counters.ts";
import { capFences } from "./table-record.ts";
import { Txn, type TxnHost } from "./transaction.ts";
import { Maintainer } from "./writer-maintenance.ts";

/** Default size of the writer's table cache (metadata and blocks of sorted tables). */
export const DEFAULT_CACHE_BYTES = 16 * 1024 * 1024;

interface PendingBatch {
  position: Position;
  mutations: Mutation[];
  durable: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Everything recovery hands to a new writer. */
export interface WriterState {
  bucket: Bucket;
  lake: string;
  epoch: number;
  /** This open's random instance id (16 hex), written into every segment and manifest. */
  instance: string;
  identity: string;
  manifest: Manifest;
  /** Id the next segment will take. */
  nextSegmentId: number;
  /** Recovered (durable) position. */
  position: Position;
  mem: MemTree;
  retry: RetryPolicy;
  now: () => number;
  takeover?: { identity: string; epoch: number; writtenAt: number };
  /** Background-work tuning (defaults in maintenance.ts). */
  policy?: MaintenancePolicy;
  /** Keys no run partition straddles, validated and sorted (WriterOptions.partitionCuts). */
  partitionCuts?: readonly Bytes[];
  cache?: ObjectCache;
  /** The manifest's layers, already opening (open.ts starts their metadata GETs during the fence PUT). */
  tables?: { layers: readonly SortedSource[]; counters: ReadCounters };
  /** Sizes of the replayed tail segments (ids after the manifest's replay point). */
  tail?: readonly { id: number; bytes: number }[];
}

function settled(p: Promise<void>): Promise<void> {
  // Callers may drop a handle without awaiting it; a terminal rejection must not surface as unhandled.
  p.catch(() => {});
  return p;
}

export class LakeStore implements Store, TxnHost, CheckpointWriter {
  readonly lake: string;
  readonly epoch: number;
  readonly takeover: { identity: string; epoch: number; writtenAt: number } | undefined;
  private readonly bucket: Bucket;
  private readonly instance: string;
  private readonly identity: string;
  private readonly retry: RetryPolicy;
  private readonly now: () => number;
  private appliedPosition: Position;
  private durable: Position;
  private mem: MemTree;
  /** Sorted layers beneath the memtable, newest first (sorted tables slot in here). */
  private layers: readonly SortedSource[] = [];
  private cutCache: Cut | undefined;
  private readonly lastWrites = new LastWriteIndex();
  private readonly live = new Set<Txn>();
  private unflushed: PendingBatch[] = [];
  private inflight: PendingBatch[] = [];
  private chain: Promise<void> = Promise.resolve();
  private currentManifest: Manifest;
  private nextSegmentId: number;
  private terminal: CodedError | undefined;
  /** The memtable a memtable flush froze, read beneath the live one until its table is published. */
  private frozen: FrozenMemtable | undefined;
  /** Layers of the current manifest's sorted tables (`layers` = frozen memtable + these). */
  private tables: readonly SortedSource[] = [];
  /** Sizes of the segments written after the current manifest's replay point. */
  private tail: { id: number; bytes: number }[];
  /** Table metadata and blocks, shared by every cut of this writer. */
  readonly cache: ObjectCache;
  /** Sorted-table read cost (GETs, bytes, blocks resident) of this writer's reads and maintenance. */
  readonly readCounters: ReadCounters;
  /** Memtable flushes, compaction bytes, GC deletions. */
  readonly maintenanceCounters = new MaintenanceCounters();

  get maintenanceBytes(): MaintenanceBytes {
    const c = this.maintenanceCounters;
    return { flushed: c.bytesFlushed, compacted: c.bytesRewritten, moved: c.bytesMoved };
  }
  private readonly maintainer: Maintainer;
  private readonly partitionCuts: readonly Bytes[];

  constructor(s: WriterState) {
    this.bucket = s.bucket;
    this.lake = s.lake;
    this.epoch = s.epoch;
    this.takeover = s.takeover;
    this.instance = s.instance;
    this.identity = s.identity;
    this.retry = s.retry;
    this.now = s.now;
    this.currentManifest = s.manifest;
    this.nextSegmentId = s.nextSegmentId;
    this.appliedPosition = s.position;
    this.durable = s.position;
    this.mem = s.mem;
    this.tail = [...(s.tail ?? [])];
    this.cache = s.cache ?? new LruCache(DEFAULT_CACHE_BYTES);
    this.partitionCuts = s.partitionCuts ?? [];
    this.readCounters = s.tables?.counters ?? new ReadCounters();
    this.maintainer = new Maintainer(this.maintenanceContext(maintenancePolicy(s.policy)));
    this.adoptTables(s.tables?.layers);
  }

  get position(): Position {
    return this.appliedPosition;
  }

  get durablePosition(): Position {
    return this.durable;
  }

  get coveredPosition(): Position {
    return this.currentManifest.wal.lastPosition;
  }

  get unflushedBatches(): number {
    return this.unflushed.length + this.inflight.length;
  }

  /** The manifest this writer's segments build on. */
  get manifest(): Manifest {
    return this.currentManifest;
  }

  /** Why this writer stopped (Fenced, OutcomeUnknown, StoreClosed), or undefined while it is live. */
  get failure(): CodedError | undefined {
    return this.terminal;
  }

  /** Number of keys the conflict index remembers (bounded by the oldest live transaction). */
  get conflictIndexSize(): number {
    return this.lastWrites.size;
  }

  snapshot(): ReadView {
    return this.cut();
  }

  begin(): Transaction {
    this.throwIfTerminal();
    const t = new Txn(this, this.cut());
    this.live.add(t);
    return t;
  }

  write(mutations: readonly Mutation[]): CommitHandle {
    this.throwIfTerminal();
    const batch = copyBatch(mutations);
    if (batch.length === 0) return this.handleAt(this.appliedPosition);
    return this.apply(batch);
  }

  nextPosition(): Position {
    return this.appliedPosition + 1;
  }

  commitTransaction(begin: Position, mutations: Mutation[], expected?: Position): CommitHandle {
    this.throwIfTerminal();
    if (expected !== undefined && expected !== this.appliedPosition + 1) {
      // A stamp recorded a position this batch would not get: refuse rather than store a false record.
      throw new Error(
        `invariant: a stamped transaction expected position ${expected} but the next is ${this.appliedPosition + 1}`,
      );
    }
    // Check and apply with no await in between: nothing else can land in the gap.
    for (const m of mutations) {
      if (this.lastWrites.writtenAfter(keyString(m.key), begin)) {
        throw new TransactionConflict(
          `a key this transaction writes was written after it began (at position ${begin}); re-read and retry the transaction`,
        );
      }
    }
    return this.apply(mutations);
  }

  handleAt(position: Position): CommitHandle {
    return { position, durable: settled(this.durableAt(position)) };
  }

  release(txn: Txn): void {
    if (this.live.delete(txn)) this.trim();
  }

  /** Replaces the sorted layers beneath the memtable (newest first). Existing cuts keep their layers. */
  setLayers(layers: readonly SortedSource[]): void {
    this.tables = [...layers];
    this.refreshLayers();
  }

  get needsMaintenance(): boolean {
    return this.maintainer.needs();
  }

  get nextMaintenanceAt(): number | undefined {
    return this.maintainer.nextAt();
  }

  /** One bounded round of memtable flush / compaction step / GC (storage/README.md "Maintenance"). */
  maintain(options?: MaintainOptions): Promise<MaintenanceReport> {
    return this.maintainer.maintain(options);
  }

  /** Flushes the memtable to an L0 table now, whatever the policy says. True if a manifest was published. */
  flushMemtable(): Promise<boolean> {
    return this.maintainer.flushMemtable();
  }

  /** One compaction step (`force`: even below the L0 trigger). */
  compact(options?: { budgetBytes?: number; force?: boolean }): Promise<CompactionStepResult | undefined> {
    return this.maintainer.compact(options);
  }

  /** One GC pass. */
  collectGarbage(): Promise<GcResult> {
    return this.maintainer.collectGarbage();
  }

  /** The last error of a backstop memtable flush the store started on its own, if any. */
  get backgroundError(): unknown {
    return this.maintainer.backgroundError;
  }

  private refreshLayers(): void {
    const f = this.frozen;
    this.layers = f === undefined ? this.tables : [memSource(f.tree), ...this.tables];
    this.cutCache = undefined;
  }

  /** Reads from the current manifest's tables and drops the frozen memtable (its table is published). */
  private adoptTables(opened?: readonly SortedSource[]): void {
    const m = this.currentManifest;
    this.tables =
      opened ??
      layersFromManifest(this.bucket, this.lake, m, {
        cache: this.cache,
        counters: this.readCounters,
      });
    if (this.frozen !== undefined && this.frozen.lastSegment <= m.wal.replayAfter) this.frozen = undefined;
    this.tail = this.tail.filter((t) => t.id > m.wal.replayAfter);
    this.refreshLayers();
  }

  /**
   * Freezes the memtable exactly at a segment boundary: inside the write chain no segment is in flight,
   * and the pending batches are taken into the next segment in the same synchronous step as the swap.
   */
  private rotateMemtable(): Promise<FrozenMemtable> {
    if (this.terminal) return Promise.reject(this.terminal);
    let frozen: FrozenMemtable | undefined;
    return this.enqueue(async () => {
      if (this.terminal) return;
      const tree = this.mem;
      const position = this.appliedPosition;
      this.mem = newMemTree();
      this.frozen = { tree, position, lastSegment: this.nextSegmentId - 1 };
      this.refreshLayers();
      const writing = this.writeSegment(false);
      this.frozen.lastSegment = this.nextSegmentId - 1;
      frozen = this.frozen;
      await writing;
    }).then(() => {
      if (frozen === undefined || this.terminal)
        throw this.terminal ?? new StoreClosed("flush did not start");
      return frozen;
    });
  }

  private maintenanceContext(policy: MaintenanceContext["policy"]): MaintenanceContext {
    return {
      bucket: this.bucket,
      lake: this.lake,
      epoch: this.epoch,
      instance: this.instance,
      retry: this.retry,
      now: this.now,
      policy,
      partitionCuts: this.partitionCuts,
      cache: this.cache,
      reads: this.readCounters,
      counters: this.maintenanceCounters,
      orphansPossible: true,
      manifest: () => this.currentManifest,
      frozen: () => this.frozen,
      rotateMemtable: () => this.rotateMemtable(),
      writeManifest: (edit) => this.writeManifest(edit),
      adoptTables: () => this.adoptTables(),
      fence: (err) => this.fail(err),
      failure: () => this.terminal,
      tail: () => {
        const after = this.currentManifest.wal.replayAfter;
        let bytes = 0;
        for (const t of this.tail) if (t.id > after) bytes += t.bytes;
        return { segments: Math.max(0, this.nextSegmentId - 1 - after), bytes };
      },
    };
  }

  flush(): Promise<void> {
    if (this.terminal) return Promise.reject(this.terminal);
    const target = this.appliedPosition;
    return this.enqueue(() => this.writeSegment(false)).then(() => {
      if (this.durable < target) throw this.terminal ?? new StoreClosed("flush did not complete");
    });
  }

  /**
   * Writes the next manifest version (put-if-absent at version + 1, same epoch) built by `edit`, then a
   * publish segment naming it. Serialised with every other segment and manifest write. A collision means
   * another writer minted that version: this writer becomes Fenced.
   */
  writeManifest(edit: (m: Manifest) => Manifest): Promise<Manifest> {
    if (this.terminal) return Promise.reject(this.terminal);
    let written: Manifest | undefined;
    return this.enqueue(async () => {
      const prev = this.currentManifest;
      const edited = recordSuperseded(
        edit(structuredClone(prev)),
        manifestKey(this.lake, prev.version),
        this.now(),
      );
      const next: Manifest = {
        ...edited,
        // Block fences over all records stay within MANIFEST_FENCE_BYTES_MAX (table-record.ts).
        sortedTables: capFences(edited.sortedTables),
        version: prev.version + 1,
        lake: prev.lake,
        writer: { epoch: this.epoch, identity: this.identity, instance: this.instance },
        writtenAt: this.now(),
      };
      const key = manifestKey(this.lake, next.version);
      try {
        const r = await putOnce(this.bucket, key, encodeManifest(next), undefined, this.retry);
        if (r.kind === "theirs") {
          this.fail(
            new Fenced(
              `manifest version ${next.version} of lake ${this.lake} was written by another writer; this writer is fenced and writes nothing more: discard it and reopen`,
            ),
          );
          return;
        }
      } catch (e) {
        this.fail(e as CodedError);
        return;
      }
      this.currentManifest = next;
      await this.writeSegment(true);
      if (this.terminal === undefined) written = next;
    }).then(() => {
      if (written === undefined) throw this.terminal ?? new StoreClosed("manifest write did not complete");
      return written;
    });
  }

  /** Named checkpoints (checkpoints.ts): mint, list, delete. Refused once this writer is fenced. */
  createCheckpoint(options?: CheckpointOptions): Promise<CheckpointInfo> {
    return mintCheckpoint(this.checkpointHost(), options);
  }

  listCheckpoints(): CheckpointInfo[] {
    return listCheckpoints(this.checkpointHost());
  }

  deleteCheckpoint(id: string): Promise<void> {
    return deleteCheckpoint(this.checkpointHost(), id);
  }

  private checkpointHost(): CheckpointHost {
    return {
      bucket: this.bucket,
      lake: this.lake,
      epoch: this.epoch,
      retry: this.retry,
      now: this.now,
      failure: () => this.terminal,
      manifest: () => this.currentManifest,
      durableCut: () => ({ lastSegment: this.nextSegmentId - 1, position: this.durable }),
      flush: () => this.flush(),
      writeManifest: (edit) => this.writeManifest(edit),
    };
  }

  async close(): Promise<void> {
    if (!this.terminal) {
      this.terminal = new StoreClosed(`the store of lake ${this.lake} was closed; open it again to write`);
    }
    await this.chain;
    this.rejectPending(this.terminal);
    for (const t of [...this.live]) t.abort();
  }

  private cut(): Cut {
    if (this.cutCache === undefined || this.cutCache.position !== this.appliedPosition) {
      this.cutCache = new Cut(this.appliedPosition, this.mem.clone(), this.layers);
    }
    return this.cutCache;
  }

  private apply(batch: Mutation[]): CommitHandle {
    const position = this.appliedPosition + 1;
    for (const m of batch) this.mem.set(m.key, m.value ?? null);
    this.appliedPosition = position;
    this.cutCache = undefined;
    // With no transaction live, every future one begins at or after this position: nothing to remember.
    if (this.live.size > 0)
      this.lastWrites.record(
        position,
        batch.map((m) => keyString(m.key)),
      );
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const durable = settled(
      new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      }),
    );
    this.unflushed.push({ position, mutations: batch, durable, resolve, reject });
    return { position, durable };
  }

  private trim(): void {
    let oldest = Number.POSITIVE_INFINITY;
    for (const t of this.live) if (t.position < oldest) oldest = t.position;
    this.lastWrites.trimThrough(oldest);
  }

  private durableAt(position: Position): Promise<void> {
    if (position <= this.durable) return Promise.resolve();
    const b =
      this.inflight.find((x) => x.position >= position) ?? this.unflushed.find((x) => x.position >= position);
    if (b) return b.durable;
    return Promise.reject(this.terminal ?? new StoreClosed("position is not pending in this store"));
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.chain.then(task);
    this.chain = run.catch(() => {});
    return run;
  }

  /** One segment PUT holding every applied-but-unflushed batch (or none, when `force` publishes). */
  private async writeSegment(force: boolean): Promise<void> {
    if (this.terminal) return;
    const batches = this.unflushed;
    if (batches.length === 0 && !force) return;
    this.unflushed = [];
    this.inflight = batches;
    const id = this.nextSegmentId;
    // The id is spent the moment a PUT may have been issued: it is never reused for other bytes.
    this.nextSegmentId = id + 1;
    const m = this.currentManifest;
    const seg: Segment = {
      header: {
        epoch: this.epoch,
        segmentId: id,
        manifestVersion: m.version,
        tailStart: m.wal.replayAfter + 1,
        writer: this.instance,
      },
      batches: batches.map((b) => ({ position: b.position, mutations: b.mutations })),
    };
    const key = walKey(this.lake, id);
    const bytes = encodeSegment(seg);
    let kind: "ours" | "theirs";
    try {
      kind = (await putOnce(this.bucket, key, bytes, segmentSummary(seg), this.retry)).kind;
    } catch (e) {
      this.fail(e as CodedError);
      return;
    }
    if (kind === "theirs") {
      this.fail(
        new Fenced(
          `WAL segment ${id} of lake ${this.lake} was written by another writer (a newer open fenced this one); this writer writes nothing more: discard it and reopen`,
        ),
      );
      return;
    }
    this.inflight = [];
    const last = batches[batches.length - 1];
    if (last !== undefined) this.durable = last.position;
    for (const b of batches) b.resolve();
    // Uncompressed bytes: the flush threshold bounds what a reopen replays into memory, not what R2 holds.
    this.tail.push({ id, bytes: encodedSegmentSize(seg.batches) });
    this.maintainer.afterSegment();
  }

  private fail(err: CodedError): void {
    if (this.terminal === undefined || this.terminal instanceof StoreClosed) this.terminal = err;
    this.rejectPending(err);
  }

  private rejectPending(err: unknown): void {
    const pending = [...this.inflight, ...this.unflushed];
    this.inflight = [];
    this.unflushed = [];
    for (const b of pending) b.reject(err);
  }

  private throwIfTerminal(): void {
    if (this.terminal) throw this.terminal;
  }
}

/** Every manifest version records the one it supersedes as unreferenced, so GC can collect it. */
function recordSuperseded(m: Manifest, key: string, since: number): Manifest {
  return { ...m, unreferenced: [...m.unreferenced, { key, since }] };
}

/** A frozen memtable as a read layer. */
function memSource(tree: MemTree): SortedSource {
  return {
    get: async (key) => {
      const v = tree.get(key);
      return v === undefined ? undefined : { key, value: v ?? undefined };
    },
    scan: (range) => asAsync(memEntries(tree, rangeBounds(range))),
  };
}
