/**
 * What the next compaction step merges (docs/decisions/0162-tiered-runs.md).
 *
 * The sorted tables below L0 form several sorted runs (tiers), numbered oldest = lowest. A merge takes a
 * group of NEWER inputs — the oldest L0 tables, or a contiguous window of runs — and merges them into a
 * TARGET run that is older than every input: a fresh run number above all others for an L0 merge (so it
 * rewrites nothing that exists), or the oldest run of the window for a run merge (only the target's
 * partitions that receive a key are rewritten, so appends cost nothing there).
 *
 * Choice, in order:
 * 1. an unfinished merge (inputs carry `mergedBelow` + `mergeInto`) resumes — an L0 one first;
 * 2. L0 at the trigger, once it holds L0_MERGE_MIN_FRACTION of a partition (or at L0_MERGE_MAX_FACTOR
 *    times the trigger whatever its size): all of L0 into a new run;
 * 3. size tiers, once there are RUN_MERGE_MIN_RUNS runs: a run's tier is
 *    floor(log_RUN_MERGE_WIDTH(bytes / (partitionBytes / 32))); the newest window of at least
 *    RUN_MERGE_WIDTH adjacent runs of one tier merges into its oldest; past MAX_RUNS runs the newest
 *    RUN_MERGE_WIDTH merge whatever their sizes (reads stay bounded);
 * 4. `force` (operators, tests): L0 into a new run, else every run into the oldest.
 * Each byte is rewritten about once per tier it climbs: log_4(lake / partition) times, not once per merge.
 */
import type { MaintenancePolicy } from "../api.ts";
import type { Manifest } from "../manifest.ts";
import { manifestTables, mergeTarget, type Run, runsOf, type TableRef } from "../table-record.ts";

/**
 * L0 bytes, as a fraction of `partitionBytes`, an L0 merge waits for once L0 is at the trigger
 * (docs/decisions/0187-l0-merges-wait-for-movable-output.md). The merge's output is a new run; the
 * partition it makes of an append-only range is moved by later run merges only if it is at least
 * MOVE_MIN_FRACTION of a partition (moves.ts), and rewritten by one of them otherwise. Merging four small
 * flushes made that partition just under the bar at 16 writers, so half the log paid one more copy.
 */
export const L0_MERGE_MIN_FRACTION = 1 / 2;
/**
 * L0 tables, as a multiple of `l0CompactionTrigger`, at which an L0 merge is due whatever L0's bytes: a
 * quiet lake's small flushes must not pile up layers every read consults.
 */
export const L0_MERGE_MAX_FACTOR = 2;

/** L0 is due to merge into a new run (see L0_MERGE_MIN_FRACTION). */
export function l0MergeDue(l0: readonly TableRef[], policy: Required<MaintenancePolicy>): boolean {
  // The policy's trigger is at least 1 (maintenancePolicy), so an empty L0 is never due.
  if (l0.length < policy.l0CompactionTrigger) return false;
  if (l0.length >= L0_MERGE_MAX_FACTOR * policy.l0CompactionTrigger) return true;
  const bytes = l0.reduce((a, t) => a + t.record.size, 0);
  return bytes >= policy.partitionBytes * L0_MERGE_MIN_FRACTION;
}

/** Runs of one tier that trigger their merge, and the growth factor from one tier to the next. */
export const RUN_MERGE_WIDTH = 4;
/** More runs than this merge the newest RUN_MERGE_WIDTH regardless of size (a read consults every run). */
export const MAX_RUNS = 12;
/**
 * A tier window is due only once there are at least this many runs (docs/decisions/0165-lazy-tiers.md).
 * Merging buys shorter reads at the price of rewriting bytes; below this count a read already opens few
 * enough layers (one round of six GETs covers L0 and the runs), so merging earlier only spends writes.
 * The read bound is unchanged: past MAX_RUNS the newest runs merge whatever their tiers.
 */
export const RUN_MERGE_MIN_RUNS = 8;

export interface CompactionPlan {
  kind: "l0" | "runs";
  /** Newer inputs, newest first (merge order): L0 tables, or the partitions of the window's newer runs. */
  inputs: TableRef[];
  /** For a run merge, the input runs newest first (each streamed partition by partition). */
  inputRuns: Run[];
  /** The run merged into: its number and its current partitions (empty for a new run). */
  target: Run;
  /** No run older than the target holds anything: tombstones have nothing left to hide. */
  bottom: boolean;
  /** The first key not yet merged (undefined at the start). */
  from: string | undefined;
}

/**
 * Tier 0 holds runs up to TIER_BASE_FRACTION of a partition (64 KiB at 2 MiB), each tier the next factor
 * of RUN_MERGE_WIDTH. Fine tiers matter: with tier 0 up to a few partitions, four-run merges would fold
 * a grown run together with small new ones again and again, rewriting it each time.
 */
export const TIER_BASE_FRACTION = 1 / 32;

const tier = (bytes: number, partitionBytes: number): number =>
  Math.floor(
    Math.log(Math.max(1, bytes / Math.max(1, partitionBytes * TIER_BASE_FRACTION))) /
      Math.log(RUN_MERGE_WIDTH),
  );

function runById(runs: readonly Run[], id: number): Run {
  return runs.find((r) => r.id === id) ?? { id, parts: [], bytes: 0 };
}

function isBottom(runs: readonly Run[], target: number): boolean {
  return runs.every((r) => r.id >= target || r.parts.length === 0);
}

function runMerge(runs: readonly Run[], window: readonly Run[]): CompactionPlan {
  const target = window.at(-1)!;
  const inputRuns = window.slice(0, -1);
  return {
    kind: "runs",
    inputs: inputRuns.flatMap((r) => r.parts),
    inputRuns,
    target,
    bottom: isBottom(runs, target.id),
    from: undefined,
  };
}

/** The newest window of >= RUN_MERGE_WIDTH adjacent same-tier runs, or the newest runs past MAX_RUNS. */
function tieredWindow(runs: readonly Run[], partitionBytes: number): Run[] | undefined {
  let start = 0;
  for (let i = 1; i <= runs.length; i++) {
    const same =
      i < runs.length && tier(runs[i]!.bytes, partitionBytes) === tier(runs[start]!.bytes, partitionBytes);
    if (same) continue;
    if (i - start >= RUN_MERGE_WIDTH) return runs.slice(start, i);
    start = i;
  }
  if (runs.length > MAX_RUNS) return runs.slice(0, RUN_MERGE_WIDTH);
  return undefined;
}

export function planCompaction(
  lake: string,
  manifest: Manifest,
  policy: Required<MaintenancePolicy>,
  force: boolean,
): CompactionPlan | undefined {
  const { l0, run } = manifestTables(lake, manifest.sortedTables);
  const runs = runsOf(run);
  const maxRun = runs.reduce((m, r) => Math.max(m, r.id), 0);

  // 1. Resume: an L0 merge first (it keeps L0, and so every read, short), then a run merge.
  const l0Group = l0.filter((t) => t.mergedBelow !== undefined);
  if (l0Group.length > 0) {
    const id = mergeTarget(l0Group[0]!)!;
    return {
      kind: "l0",
      inputs: l0Group,
      inputRuns: [],
      target: runById(runs, id),
      bottom: isBottom(runs, id),
      from: l0Group[0]!.record.mergedBelow,
    };
  }
  const pending = runs.filter((r) => r.parts.some((p) => p.mergedBelow !== undefined));
  const startL0 = (): CompactionPlan => {
    const id = maxRun + 1;
    return {
      kind: "l0",
      inputs: l0,
      inputRuns: [],
      target: runById(runs, id),
      bottom: runs.length === 0,
      from: undefined,
    };
  };
  if (l0MergeDue(l0, policy)) return startL0();
  if (pending.length > 0) {
    const first = pending[0]!.parts.find((p) => p.mergedBelow !== undefined)!;
    const target = mergeTarget(first)!;
    const window = runs.filter((r) => r.id >= target && pending.includes(r));
    const plan = runMerge(runs, [...window, runById(runs, target)]);
    return { ...plan, from: first.record.mergedBelow };
  }
  const window = runs.length >= RUN_MERGE_MIN_RUNS ? tieredWindow(runs, policy.partitionBytes) : undefined;
  if (window !== undefined) return runMerge(runs, window);
  if (!force) return undefined;
  if (l0.length > 0) return startL0();
  if (runs.length > 1) return runMerge(runs, runs);
  return undefined;
}
