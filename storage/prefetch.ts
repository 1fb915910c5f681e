/**
 * Prefetching the blocks a caller is about to read (`ReadView.prefetch`): one round of range GETs for
 * every block the hinted ranges touch in every layer, so a chain of dependent lookups that follows
 * (a catalog resolving a name, then a record, then its children) reads held blocks instead of paying a
 * round trip each. Why and what it costs: docs/decisions/0170-plan-prefetch.md.
 *
 * Bounds: a cut holds at most its `prefetchBytes` (READER_PREFETCH_BYTES_MAX for stateless readers), a
 * range contributes at most PREFETCH_RANGE_BYTES_MAX per table, and the GETs of one call are merged
 * until at most PREFETCH_CONNECTIONS remain (adjacent runs of one table, smallest gap first), so they
 * all start together. Past a bound the hint is cut short, never refused: reads fetch the rest lazily.
 */
import type { Bytes, PrefetchRange, SortedSource } from "./api.ts";
import { compareBytes } from "./bytes.ts";
import { planWindows } from "./fence-windows.ts";
import { mergeSmallestGaps } from "./gap-merge.ts";
import { LazyTable, lazyTables, type PrefetchBudget, RunLayer } from "./layers.ts";
import type { SstReader } from "./sst/reader.ts";

/** The six concurrent connections a Worker or Durable Object may hold open. */
export const PREFETCH_CONNECTIONS = 6;
/**
 * Most bytes one hinted range brings in per layer (a run's partitions share it, in key order): a first
 * page of 1,000 file records is 0.7–1.2 MiB in the bench lakes, and 2 MiB is one run partition; a longer
 * scan reads on lazily (with its own coalesced readahead).
 */
export const PREFETCH_RANGE_BYTES_MAX = 2 * 1024 * 1024;
/**
 * What an opening writer may prefetch for its host's first reads (WriterOptions.prefetch), once per open:
 * a commit's lookups touch a few blocks of the control keys, not a table's file list.
 */
export const WRITER_WAKE_PREFETCH_BYTES_MAX = 1024 * 1024;
/** What one stateless reader's cut may hold of prefetched blocks, over all its prefetch calls. */
export const READER_PREFETCH_BYTES_MAX = 8 * 1024 * 1024;

interface Run {
  reader: SstReader;
  first: number;
  last: number;
}

const max = (a: Bytes | undefined, b: Bytes | undefined): Bytes | undefined =>
  a === undefined ? b : b === undefined ? a : compareBytes(a, b) >= 0 ? a : b;

/** The tables of `layer` a read of `range` reaches (for `last`, a run's last one only). */
function tablesFor(layer: SortedSource, range: PrefetchRange): LazyTable[] {
  if (layer instanceof LazyTable) return layer.overlaps(range) ? [layer] : [];
  if (!(layer instanceof RunLayer)) return [];
  const hit = layer.partitions.filter((p) => p.overlaps(range));
  return range.last === true ? hit.slice(-1) : hit;
}

/** Maximal runs of consecutive block numbers (sorted, distinct). */
function runsOf(reader: SstReader, blocks: readonly number[]): Run[] {
  const runs: Run[] = [];
  for (const b of blocks) {
    const r = runs.at(-1);
    if (r !== undefined && r.last + 1 === b) r.last = b;
    else runs.push({ reader, first: b, last: b });
  }
  return runs;
}

/** Merges adjacent runs of one table (smallest gap in blocks first) until at most `n` remain. */
function mergeRuns(runs: Run[], n: number): Run[] {
  // Runs of different tables cannot share a GET: the pool below runs them six at a time.
  return mergeSmallestGaps(runs, n, {
    gap: (a, b) => (a.reader === b.reader ? b.first - a.last : undefined),
    join: (a, b) => ({ ...a, last: b.last }),
  });
}

async function pool(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, lane));
}

/**
 * Opens each of `tables` not yet opening, at most `lanes` metadata GETs at a time (a failure is the read's
 * that needs the table to report). For an opening writer's tables its hint did not reach, once the hint
 * has landed: they are warm for later commits, and the lane left free is the first commit's PUT.
 */
export function openInLanes(tables: readonly LazyTable[], lanes: number): Promise<void> {
  const rest = tables.filter((t) => !t.isOpen && !t.opening);
  return pool(
    rest.map(
      (t) => () =>
        t.open().then(
          () => {},
          () => {},
        ),
    ),
    lanes,
  );
}

/** Options of one prefetch call. */
export interface PrefetchOptions {
  /**
   * Connections the caller keeps busy meanwhile (an opening writer's fence PUT): fence windows use only
   * what is left of PREFETCH_CONNECTIONS after these and the metadata GETs in flight.
   */
  reservedConnections?: number;
  /**
   * Tables the caller would like open though these ranges may not reach them (a reader with
   * `prefetchTables`, an opening writer): as many as fit in what the reached tables' metadata GETs and
   * the fence windows leave of their wave of PREFETCH_CONNECTIONS open beside them; the rest stay lazy
   * (a later hint that reaches one sends its windows beside its metadata). Opening all of them would
   * take the connections the windows need (docs/decisions/0184-cold-round-packing.md).
   */
  warm?: readonly LazyTable[];
}

/**
 * Opens each of `tables` that has not started opening (a failure is the first read's to report): the
 * eager opens of a reader with `prefetchTables` or a writer's wake without a hint. A caller with a hint
 * leaves them to `prefetchLayers`, which opens only the tables the hint reaches, so their metadata GETs
 * never take the connections the hint's fence windows need (docs/decisions/0184-cold-round-packing.md).
 */
export function openAll(tables: readonly LazyTable[]): void {
  for (const t of tables) if (!t.isOpen && !t.opening) t.open().catch(() => {});
}

/**
 * Opens every table the ranges reach (their metadata GETs together, or the ones already started by
 * `prefetchTables`), then fetches the blocks the ranges touch with ≤ PREFETCH_CONNECTIONS GETs. For a
 * table whose metadata is still to come and whose record has block fences, the ranges' windows are
 * fetched beside the metadata instead (fence-windows.ts, docs/decisions/0175-block-fences.md), and only
 * what they missed is fetched after it. Layers without a prefetch budget (the writer's) are left alone.
 */
export async function prefetchLayers(
  layers: readonly SortedSource[],
  ranges: readonly PrefetchRange[],
  options: PrefetchOptions = {},
): Promise<void> {
  // Per range and layer, the tables it reaches in key order (a run's partitions share the range's bytes).
  const reach: { range: PrefetchRange; tables: LazyTable[] }[] = [];
  const tables = new Set<LazyTable>();
  for (const range of ranges) {
    for (const layer of layers) {
      const ts = tablesFor(layer, range).filter((t) => t.prefetchBudget !== undefined);
      if (ts.length === 0) continue;
      reach.push({ range, tables: ts });
      for (const t of ts) tables.add(t);
    }
  }
  if (tables.size === 0) {
    openAll(options.warm ?? []);
    return;
  }
  // Which tables still wait for their metadata (checked before any open starts below).
  const list = [...tables];
  const wants = await Promise.all(list.map((t) => t.wantsWindow()));
  const windowed = new Set(list.filter((_, i) => wants[i]));
  // Connections: every metadata GET of the cut in flight or about to start here, and the caller's own.
  // The windows fill what those leave of their last wave of PREFETCH_CONNECTIONS, so they land with the
  // metadata: a full wave leaves none (a window queued behind it would only tie the ordinary path).
  let busy = options.reservedConnections ?? 0;
  for (const t of lazyTables(layers)) if (t.opening || (tables.has(t) && !t.isOpen)) busy++;
  const free = (PREFETCH_CONNECTIONS - (busy % PREFETCH_CONNECTIONS)) % PREFETCH_CONNECTIONS;
  const windows = planWindows(reach, windowed, free, PREFETCH_RANGE_BYTES_MAX);
  const withWindows = new Set(windows.map((w) => w.table));
  // A table that wanted a window the wave had no connection for: if small enough, its metadata GET
  // becomes the whole table, so its blocks still land in this round (docs/decisions/0188-small-tables-whole.md).
  for (const t of windowed) if (!withWindows.has(t) && !t.opening && t.openWhole()) withWindows.add(t);
  // Tables already open need no metadata round: their blocks go now, beside the metadata GETs and the
  // windows, in the connections those leave (waiting for the others' metadata would cost them a round).
  const inHand = new Map<LazyTable, SstReader>();
  for (const t of list) {
    const r = t.openReader;
    if (r !== undefined) inHand.set(t, r);
  }
  let spare = free - windows.length;
  const early = spare > 0 ? planRuns(reach, inHand, withWindows, spare) : [];
  spare -= early.length;
  // What the wave still leaves goes to the tables the caller would like warm (docs/decisions/0184-cold-round-packing.md).
  const warm = (options.warm ?? []).filter((t) => !tables.has(t) && !t.isOpen && !t.opening);
  openAll(warm.slice(0, Math.max(0, spare)));
  // A hint: a table that fails to open or a GET that fails here is fetched again by the read that needs
  // it, which reports the failure (after its own retries) as before.
  const readers = new Map<LazyTable, SstReader>();
  const fetchRuns = (runs: readonly Run[]): Promise<void> =>
    pool(
      runs.map((r) => () => r.reader.prefetchRun(r.first, r.last).catch(() => {})),
      PREFETCH_CONNECTIONS,
    );
  const first = fetchRuns(early);
  await Promise.all([
    ...list.map((t) =>
      t.open().then(
        (r) => void readers.set(t, r),
        () => {},
      ),
    ),
    ...windows.map((w) => w.table.fetchWindow(w.window)),
  ]);
  await Promise.all([first, fetchRuns(planRuns(reach, readers, withWindows, PREFETCH_CONNECTIONS))]);
}

/**
 * The block runs the ranges of `reach` touch in the tables of `readers` that are neither held nor
 * arriving, charged to the cut's budget and merged to at most `connections` GETs. A table in `windowed`
 * was meant to get its blocks from a fence window: what it still misses is counted as a fallback.
 */
function planRuns(
  reach: readonly { range: PrefetchRange; tables: LazyTable[] }[],
  readers: ReadonlyMap<LazyTable, SstReader>,
  windowed: ReadonlySet<LazyTable>,
  connections: number,
): Run[] {
  const blocks = new Map<SstReader, Set<number>>();
  const budgets = new Map<SstReader, PrefetchBudget>();
  const owners = new Map<SstReader, LazyTable>();
  for (const { range, tables: ts } of reach) {
    let left = PREFETCH_RANGE_BYTES_MAX;
    for (const t of ts) {
      const reader = readers.get(t);
      if (reader === undefined || reader.fetchedWhole || left <= 0) continue;
      // Below `mergedBelow` the table holds nothing a read sees (rangeBounds keeps any prefix).
      const start = max(range.start, t.ref.mergedBelow);
      const got = reader.blocksIn(start === undefined ? range : { ...range, start }, left);
      for (const b of got) left -= reader.blockBytes(b);
      const set = blocks.get(reader) ?? new Set<number>();
      for (const b of got) set.add(b);
      blocks.set(reader, set);
      budgets.set(reader, t.prefetchBudget as PrefetchBudget);
      owners.set(reader, t);
    }
  }
  let runs: Run[] = [];
  let taken = 0;
  for (const [reader, set] of blocks) {
    const budget = budgets.get(reader) as PrefetchBudget;
    const take: number[] = [];
    const windowedReader = windowed.has(owners.get(reader) as LazyTable);
    for (const b of [...set].sort((x, y) => x - y)) {
      if (reader.holds(b) || reader.fetching(b)) continue;
      const bytes = reader.blockBytes(b);
      if (bytes > budget.left) break;
      // A block a window was meant to bring (cut short by a bound, failed, or its fences disagreed).
      if (windowedReader) reader.counters.fenceFallbacks++;
      budget.left -= bytes;
      taken += bytes;
      take.push(b);
    }
    runs.push(...runsOf(reader, take));
  }
  runs = mergeRuns(runs, connections);
  // Blocks in the gaps a merge spanned are fetched and held too: charge them to the cut's budget (its
  // tables share one), so it ends short rather than exceeded by more than the gaps of one call.
  let fetched = 0;
  for (const r of runs) for (let b = r.first; b <= r.last; b++) fetched += r.reader.blockBytes(b);
  const shared = budgets.values().next().value;
  if (shared !== undefined) shared.left -= fetched - taken;
  return runs;
}
