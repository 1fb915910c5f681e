/**
 * Which adjacent files the alarm's merge (job 2, scheduled) takes: runs whose output grows every row's
 * file by at least `growth` times, so a file is never rewritten again and again as a table grows
 * (decision docs/decisions/0333-merge-size-tiers.md). DuckLake's own choice (`greedyRuns`: from each start,
 * take files toward `target_file_size`) merges a table's big file with each new batch of small ones, so
 * the bytes rewritten per appended byte grow with the table. Here a run is taken only when its largest
 * file holds at most 1/`growth` of the run's rows: small files merge with small files, and a big file
 * waits until the small ones beside it together hold `growth - 1` times its rows. Each time a row is
 * rewritten its file's row count grows `growth`-fold, and a step's rows are bounded (`StepLimits`), so a row
 * is rewritten at most log_growth(maxRows / its first file's rows) times, whatever the history's length.
 * Pure and generic over what a file is (the planner passes `Candidate`s, the model test plain sizes).
 */
import type { StepLimits } from "./compaction-files.ts";

/** What the choice reads of one file. */
export interface RunSizes {
  rows: number;
  /** Its bytes, for `target_file_size` (the output estimate). */
  bytes: number;
  /** Bytes a step reads for it (its data file plus its delete file), for the step limit. */
  inputBytes: number;
}

export interface TieredRunOptions {
  /** The table's `target_file_size` (bytes): a run stops where its total would move away from it. */
  target: number;
  limits: StepLimits;
  /** Files a run takes at least. */
  minInputs: number;
  /** A run's rows are at least this many times its largest file's rows (> 1). */
  growth: number;
}

/**
 * Runs of consecutive files (indices into `files`, in order) that satisfy the growth rule, scanning from
 * the oldest: from each start the longest run within the step limits and the target whose rows are at
 * least `growth` times its largest file's and that has `minInputs` files; the scan goes on after it, or
 * from the next start when there is none. At most files² / 2 sizes are looked at (a pass plans from the
 * table's live files, already in memory).
 */
export function tieredRuns<T>(files: readonly T[], sizes: (f: T) => RunSizes, o: TieredRunOptions): T[][] {
  if (!(o.growth > 1)) throw new RangeError(`merge growth factor must exceed 1, got ${o.growth}`);
  const s = files.map(sizes);
  const runs: T[][] = [];
  let i = 0;
  while (i < files.length) {
    let best = -1;
    let total = 0;
    let inBytes = 0;
    let rows = 0;
    let maxRows = 0;
    for (let j = i; j < files.length; j++) {
      const f = s[j] as RunSizes;
      if (j > i && Math.abs(total + f.bytes - o.target) >= Math.abs(total - o.target)) break;
      if (j > i && (inBytes + f.inputBytes > o.limits.maxInputBytes || rows + f.rows > o.limits.maxRows))
        break;
      total += f.bytes;
      inBytes += f.inputBytes;
      rows += f.rows;
      maxRows = Math.max(maxRows, f.rows);
      if (j - i + 1 >= o.minInputs && maxRows * o.growth <= rows) best = j;
    }
    if (best < 0) {
      i++;
      continue;
    }
    runs.push(files.slice(i, best + 1));
    i = best + 1;
  }
  return runs;
}
