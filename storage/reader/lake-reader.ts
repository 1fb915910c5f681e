/**
 * A stateless reader's view: one consistent cut (a manifest, the WAL segments replayed over it, the
 * sorted tables it lists) plus where it came from. Built by open-latest.ts or open-checkpoint.ts; holds no
 * connection and polls nothing, so closing only stops further reads.
 */
import type { Bytes, KeyValue, Position, PrefetchRange, ReadView, ScanRange } from "../api.ts";
import { StoreClosed } from "../errors.ts";
import { layersFromManifest, lazyTables, PREFETCH_TABLES_MAX } from "../layers.ts";
import type { Manifest } from "../manifest.ts";
import { READER_PREFETCH_BYTES_MAX } from "../prefetch.ts";
import { Cut } from "../read-view.ts";
import { type Replayed, replaySegment, startReplay } from "../recovery.ts";
import type { Segment } from "../segment.ts";
import type { ReaderCounters } from "./counters.ts";
import type { ReadContext } from "./objects.ts";

/** Where a reader's cut came from. */
export interface ReaderCut {
  lake: string;
  /** Every batch with position <= this, nothing later. The read-your-writes token. */
  position: Position;
  /** The manifest the cut reads its sorted tables from. */
  manifestVersion: number;
  /** Writer epoch that published the cut (the newest segment's, or the checkpoint's minter). */
  epoch: number;
  /** WAL segments replayed over the manifest, inclusive (empty when to < from). */
  wal: { from: number; to: number };
  /** Set when the reader was opened on a named checkpoint. */
  checkpointId?: string;
}

export class LakeReader implements ReadView {
  private closed = false;

  constructor(
    readonly cut: ReaderCut,
    private readonly view: Cut,
    /** Every bucket call and byte this reader (open included) cost; shared when the caller passed one. */
    readonly counters: ReaderCounters,
  ) {}

  get position(): Position {
    return this.cut.position;
  }

  async get(key: Bytes): Promise<Bytes | undefined> {
    this.check();
    return this.view.get(key);
  }

  /** See `ReadView.prefetch`: the blocks reads of `ranges` will need, in one round of GETs. */
  async prefetch(ranges: readonly PrefetchRange[]): Promise<void> {
    this.check();
    await this.view.prefetch(ranges);
  }

  async *scan(range: ScanRange): AsyncIterable<KeyValue> {
    this.check();
    yield* this.view.scan(range);
  }

  /** Stops further reads. Writes nothing and releases nothing remote: there is nothing to release. */
  close(): void {
    this.closed = true;
  }

  private check(): void {
    if (this.closed)
      throw new StoreClosed(`this reader of lake ${this.cut.lake} was closed; open a new reader to read`);
  }
}

/**
 * Replays `segments` over `manifest` (or over `base`, the replay of the segments before them on the
 * same manifest, copied in O(1): tail-replays.ts) and puts the manifest's sorted tables beneath them.
 * `replayed` receives the resulting memtable state, which the reader never writes.
 */
export function buildReader(
  ctx: ReadContext,
  manifest: Manifest,
  segments: readonly Segment[],
  cut: Omit<ReaderCut, "position" | "manifestVersion">,
  base?: Replayed,
  replayed?: (state: Replayed) => void,
): LakeReader {
  const state = base ? { mem: base.mem.clone(), position: base.position } : startReplay(manifest);
  segments.forEach((seg) => {
    replaySegment(state, seg, `WAL segment ${seg.header.segmentId} of lake ${ctx.lake}`);
    for (const b of seg.batches) ctx.counters.mutationsReplayed += b.mutations.length;
  });
  replayed?.(state);
  const layers = layersFromManifest(ctx.bucket, ctx.lake, manifest, {
    ...(ctx.cache ? { cache: ctx.cache } : {}),
    counters: ctx.counters.tables,
    // A reader lives for one request: it may hold prefetched blocks (storage/prefetch.ts).
    prefetchBytes: READER_PREFETCH_BYTES_MAX,
  });
  // Opened with the cut's first read, not awaited: the opens overlap that read, which awaits the same
  // promises; a first prefetch opens the tables its ranges reach first (docs/decisions/0184-cold-round-packing.md).
  // A failure here is retried by the read that needs the table.
  const warm =
    ctx.prefetchTables && manifest.sortedTables.length <= PREFETCH_TABLES_MAX ? lazyTables(layers) : [];
  return new LakeReader(
    { ...cut, position: state.position, manifestVersion: manifest.version },
    new Cut(state.position, state.mem, layers, warm),
    ctx.counters,
  );
}
