/**
 * The writer's background work — memtable flush (flush.ts), compaction (compaction/), GC (gc.ts) — and
 * what they share: the policy defaults, the counters, the narrow view of the store they act through, and
 * the one way a table is written (put-if-absent, ambiguity resolved by read-back, a taken key = Fenced).
 */
import type { Bucket, Bytes, MaintenancePolicy } from "./api.ts";
import type { ObjectCache } from "./cache.ts";
import { type CodedError, Fenced } from "./errors.ts";
import type { Manifest } from "./manifest.ts";
import type { MemTree } from "./memtable.ts";
import { putOnce } from "./put-once.ts";
import type { RetryPolicy } from "./retry.ts";
import type { BuiltSst } from "./sst/builder.ts";
import type { ReadCounters } from "./sst/counters.ts";
import { sstKey } from "./sst/key.ts";
import { type TableRecord, tableRecord } from "./table-record.ts";

/**
 * Defaults, and why:
 * - flushAfterSegments 8 / flushAfterBytes 4 MiB: a reader (and a reopening writer) replays the whole tail,
 *   six segment GETs at a time; 8 segments is two parallel rounds, 4 MiB a fraction of a second to fetch
 *   and decode, and it bounds the memtable the writer keeps in a 128 MB isolate. Smaller would cost three
 *   PUTs (table, manifest, publish segment) too often under a steady commit stream.
 * - forceFlushAfterSegments 64: a host that never calls maintain() still gets a bounded tail (the store
 *   starts a flush itself); far enough above 8 that a well-behaved host never trips it.
 * - l0CompactionTrigger 4: a point read consults every L0 table whose key range covers the key (one bloom
 *   check each, a block GET on a hit); four keeps that to a handful while a compaction runs every fourth flush.
 * - partitionBytes 2 MiB: opening a partition fetches its index + bloom (~40 KiB at 2 MiB) and a compaction
 *   rewrites only partitions that receive keys, so smaller partitions mean less rewriting for local key
 *   churn; 2 MiB is ~500 objects per GiB of catalog.
 * - stepBytes 8 MiB: one step reads and writes a few partitions, a second or so of event-loop time split
 *   between awaits, so commits interleave; the rest resumes on the next call.
 * - gcGraceMs 10 min: readers open a cut per request and read it for seconds (a long streaming response for
 *   a minute or two); anything needing a cut longer mints a checkpoint. Ten minutes is a wide margin, and
 *   the only cost is that dead objects linger that long.
 */
export const DEFAULT_POLICY: Required<MaintenancePolicy> = {
  flushAfterSegments: 8,
  flushAfterBytes: 4 * 1024 * 1024,
  forceFlushAfterSegments: 64,
  l0CompactionTrigger: 4,
  partitionBytes: 2 * 1024 * 1024,
  stepBytes: 8 * 1024 * 1024,
  gcGraceMs: 10 * 60 * 1000,
};

export function maintenancePolicy(p: MaintenancePolicy | undefined): Required<MaintenancePolicy> {
  const out = { ...DEFAULT_POLICY };
  for (const [k, v] of Object.entries(p ?? {}) as [keyof MaintenancePolicy, number | undefined][]) {
    if (v === undefined) continue;
    if (!Number.isFinite(v) || v < 0)
      throw new RangeError(`maintenance.${k} must be a number >= 0, got ${v}`);
    out[k] = v;
  }
  out.flushAfterSegments = Math.max(1, Math.floor(out.flushAfterSegments));
  out.forceFlushAfterSegments = Math.max(out.flushAfterSegments, Math.floor(out.forceFlushAfterSegments));
  out.l0CompactionTrigger = Math.max(1, Math.floor(out.l0CompactionTrigger));
  out.partitionBytes = Math.max(256, out.partitionBytes);
  return out;
}

/**
 * Input bytes between two returns to the event loop, for every maintenance loop over in-memory data (the
 * compaction merge, the memtable flush's table build). Without it a step would hold the isolate for its
 * whole input and every commit would wait behind it; 256 KiB is a few milliseconds of work.
 */
export const YIELD_EVERY_BYTES = 256 * 1024;

/** Lets timers and I/O callbacks (commits) run: a macrotask turn, not a microtask. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Counts for tests and benchmarks (R2 GETs of reads live in `ReadCounters`). */
export class MaintenanceCounters {
  memtableFlushes = 0;
  /** Bytes of L0 tables written by memtable flushes. */
  bytesFlushed = 0;
  compactionSteps = 0;
  /** Bytes of sorted-run partitions written by compaction. */
  bytesRewritten = 0;
  /** Partitions run merges moved into their target unchanged, and their bytes (compaction/moves.ts). */
  partitionsMoved = 0;
  bytesMoved = 0;
  /** Bytes of partitions and L0 tables compaction read as input. */
  compactionBytesIn = 0;
  partitionsWritten = 0;
  gcRuns = 0;
  objectsDeleted = 0;
  /** Tables found in the bucket that no manifest named, recorded for deletion. */
  orphansRecorded = 0;
  /** GC ledgers written (seals, merges, rewritten remainders). */
  ledgersWritten = 0;
  /** Bucket calls made by maintenance (puts, lists, manifest gets, deletes). */
  r2Puts = 0;
  r2Lists = 0;
  r2Gets = 0;
  r2Deletes = 0;
}

/** The memtable frozen at a segment boundary: every batch <= position lives in segments <= lastSegment. */
export interface FrozenMemtable {
  tree: MemTree;
  position: number;
  lastSegment: number;
}

/** The store as maintenance sees it (LakeStore builds one). */
export interface MaintenanceContext {
  readonly bucket: Bucket;
  readonly lake: string;
  readonly epoch: number;
  readonly instance: string;
  readonly retry: RetryPolicy;
  readonly now: () => number;
  readonly policy: Required<MaintenancePolicy>;
  /** Keys no run partition straddles, sorted (compaction/partition-writer.ts `partitionCuts`). */
  readonly partitionCuts: readonly Bytes[];
  readonly cache: ObjectCache;
  readonly reads: ReadCounters;
  readonly counters: MaintenanceCounters;
  manifest(): Manifest;
  /** The memtable a previous flush froze but did not publish, if any. */
  frozen(): FrozenMemtable | undefined;
  /** Freezes the memtable at a segment boundary (writes the pending segment first). */
  rotateMemtable(): Promise<FrozenMemtable>;
  writeManifest(edit: (m: Manifest) => Manifest): Promise<Manifest>;
  /** Reads from the current manifest's tables from now on and drops the frozen memtable. */
  adoptTables(): void;
  /** Stops the writer for good (another writer owns the lake). */
  fence(err: CodedError): void;
  failure(): CodedError | undefined;
  /** The WAL tail after the current manifest's replay point: segment count and bytes. */
  tail(): { segments: number; bytes: number };
  /** Whether tables may exist in the bucket that no manifest names (after a crash or a lost PUT). */
  orphansPossible: boolean;
}

/** Random ids: unique within an epoch without coordination, even across a same-epoch reopen after a crash. */
export function newTableId(): number {
  const r = new Uint32Array(2);
  crypto.getRandomValues(r);
  return (r[0]! & 0x1fffff) * 0x1_0000_0000 + r[1]!;
}

/**
 * Puts a built table if absent under a fresh key of this writer's epoch. Our own earlier attempt's bytes
 * (an ambiguous PUT) count as written; anyone else's bytes mean another writer of this epoch exists:
 * Fenced, and the store stops.
 */
export async function writeTable(
  ctx: MaintenanceContext,
  built: BuiltSst,
  level: 0 | 1,
  run?: number,
): Promise<TableRecord> {
  const id = newTableId();
  const key = sstKey(ctx.lake, ctx.epoch, id);
  ctx.counters.r2Puts++;
  let outcome: Awaited<ReturnType<typeof putOnce>>;
  try {
    outcome = await putOnce(ctx.bucket, key, built.bytes, undefined, ctx.retry);
  } catch (e) {
    // The table may or may not exist: it is an orphan for the sweep, not a reason to stop the writer.
    ctx.orphansPossible = true;
    throw e;
  }
  if (outcome.kind === "theirs") {
    const err = new Fenced(
      `sorted table ${key} was written by another writer of epoch ${ctx.epoch}; this writer is fenced and writes nothing more: discard it and reopen`,
    );
    ctx.fence(err);
    throw err;
  }
  return tableRecord({ key, epoch: ctx.epoch, id, ...built.summary }, level, run);
}

export function throwIfFailed(ctx: MaintenanceContext): void {
  const f = ctx.failure();
  if (f) throw f;
}
