/**
 * The alarm's merge choice (job 2, `catalog/maintenance/merge-tiers.ts`, decision 0333) against a model
 * of a table under a stream of small flushes: a long simulated history of appended files, the scheduled
 * choice run after each append and its runs applied (each run becomes one file holding its rows, in
 * place). Counted: rows rewritten per appended row, and the table's file count. The size-tiered choice
 * keeps both bounded over the whole history; DuckLake's greedy choice with the same minimum of 16 files
 * (the alarm's rule before decision 0333) rewrites the table's big file every 16 flushes, so its rows
 * rewritten per row appended grow with the history.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Candidate,
  DEFAULT_STEP_LIMITS,
  greedyRuns,
} from "../../catalog/maintenance/compaction-files.ts";
import { type RunSizes, tieredRuns } from "../../catalog/maintenance/merge-tiers.ts";
import { SCHEDULED_MERGE_GROWTH, SCHEDULED_MERGE_MIN_FILES } from "../../maintenance/registry.ts";
import { seeded } from "../../storage/fault-bucket.ts";
import { assertProperty } from "../support/property.ts";

/** DuckLake's default `target_file_size` (512 MB): far above anything the model builds. */
const TARGET = 512 * 1024 * 1024;
/** A Parquet file's bytes for its rows (the bench's single-BIGINT table: ~8 B a row, ~700 B of footer). */
const bytesFor = (rows: number): number => 700 + 8 * rows;

interface ModelFile {
  rows: number;
  bytes: number;
}
type Choose = (files: readonly ModelFile[]) => ModelFile[][];

const sizes = (f: ModelFile): RunSizes => ({ rows: f.rows, bytes: f.bytes, inputBytes: f.bytes });
const tiered: Choose = (files) =>
  tieredRuns(files, sizes, {
    target: TARGET,
    limits: DEFAULT_STEP_LIMITS,
    minInputs: SCHEDULED_MERGE_MIN_FILES,
    growth: SCHEDULED_MERGE_GROWTH,
  });
/** The alarm's choice before decision 0333: DuckLake's greedy runs, kept when they hold 16 files. */
const greedy: Choose = (files) => {
  const asCandidates = new Map<Candidate, ModelFile>();
  for (const f of files)
    asCandidates.set(
      { file: { file_size_bytes: f.bytes, record_count: f.rows, delete_file: null } } as unknown as Candidate,
      f,
    );
  return greedyRuns([...asCandidates.keys()], TARGET, (c) => c.file.file_size_bytes, DEFAULT_STEP_LIMITS)
    .filter((r) => r.length >= SCHEDULED_MERGE_MIN_FILES)
    .map((r) => r.map((c) => asCandidates.get(c) as ModelFile));
};

interface History {
  appendedRows: number;
  rewrittenRows: number;
  maxFiles: number;
  files: ModelFile[];
}

/** Appends `flushes` files (rows from `rowsOf`), running `choose` after each, as the alarm's passes do. */
function simulate(choose: Choose, flushes: number, rowsOf: (i: number) => number): History {
  const h: History = { appendedRows: 0, rewrittenRows: 0, maxFiles: 0, files: [] };
  for (let i = 0; i < flushes; i++) {
    const rows = rowsOf(i);
    h.files.push({ rows, bytes: bytesFor(rows) });
    h.appendedRows += rows;
    for (const run of choose(h.files)) {
      const start = h.files.indexOf(run[0] as ModelFile);
      const merged = run.reduce((n, f) => n + f.rows, 0);
      expect(h.files.slice(start, start + run.length)).toEqual(run); // a run is adjacent
      h.files.splice(start, run.length, { rows: merged, bytes: bytesFor(merged) });
      h.rewrittenRows += merged;
    }
    h.maxFiles = Math.max(h.maxFiles, h.files.length);
  }
  expect(h.files.reduce((n, f) => n + f.rows, 0)).toBe(h.appendedRows); // no row lost or duplicated
  return h;
}

/**
 * The bound: each rewrite of a row grows its file's rows `SCHEDULED_MERGE_GROWTH`-fold, from at least the
 * smallest flush, and no step holds more than `maxRows`; so a row is rewritten at most this many times.
 */
const rewritesBound = (smallestFlush: number): number =>
  Math.log(DEFAULT_STEP_LIMITS.maxRows / smallestFlush) / Math.log(SCHEDULED_MERGE_GROWTH);

describe("the alarm's merge choice (size tiers, decision 0333)", () => {
  it("rewrites a bounded number of rows per appended row over a long history; the greedy rule does not", () => {
    // 20,000 flushes of 25 rows (the bench's defaults section at 1,000,000 single-row commits). Measured:
    // tiered 3.84 rows rewritten per row appended (2.80 at a tenth of the history), at most 30 files;
    // greedy 240 (66.9 at a tenth).
    const flushes = 20_000;
    const t = simulate(tiered, flushes, () => 25);
    const g = simulate(greedy, flushes, () => 25);
    const tieredAmp = t.rewrittenRows / t.appendedRows;
    const greedyAmp = g.rewrittenRows / g.appendedRows;
    expect(tieredAmp).toBeLessThanOrEqual(rewritesBound(25));
    expect(greedyAmp).toBeGreaterThan(rewritesBound(25));
    // The greedy rule's figure grows with the history; the tiered one is under the same bound at any length.
    const short = simulate(tiered, flushes / 10, () => 25);
    const shortGreedy = simulate(greedy, flushes / 10, () => 25);
    expect(short.rewrittenRows / short.appendedRows).toBeLessThanOrEqual(rewritesBound(25));
    expect(greedyAmp).toBeGreaterThan(2 * (shortGreedy.rewrittenRows / shortGreedy.appendedRows));
    // The plan stays small: never more than 16 files per fourfold tier of the step's row bound.
    expect(t.maxFiles).toBeLessThanOrEqual(SCHEDULED_MERGE_MIN_FILES * Math.ceil(rewritesBound(25) + 1));
  });

  it("keeps the bound for flushes of random sizes (seeded histories)", () => {
    assertProperty(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 64 }),
        (seed, spread) => {
          const rnd = seeded(seed);
          const h = simulate(tiered, 4_000, () => 11 + Math.floor(rnd() * spread));
          expect(h.rewrittenRows / h.appendedRows).toBeLessThanOrEqual(rewritesBound(11));
          expect(h.maxFiles).toBeLessThanOrEqual(
            SCHEDULED_MERGE_MIN_FILES * Math.ceil(rewritesBound(11) + 1),
          );
        },
      ),
      { numRuns: 12, seed: 333 },
    );
  });

  it("never takes a run whose largest file holds more than 1/growth of its rows, nor fewer than 16 files", () => {
    assertProperty(
      fc.property(fc.array(fc.integer({ min: 1, max: 5_000 }), { maxLength: 200 }), (rows) => {
        const files = rows.map((r) => ({ rows: r, bytes: bytesFor(r) }));
        let at = 0;
        for (const run of tiered(files)) {
          const start = files.indexOf(run[0] as ModelFile, at);
          expect(start).toBeGreaterThanOrEqual(at); // in order, not overlapping
          at = start + run.length;
          const total = run.reduce((n, f) => n + f.rows, 0);
          expect(run.length).toBeGreaterThanOrEqual(SCHEDULED_MERGE_MIN_FILES);
          expect(Math.max(...run.map((f) => f.rows)) * SCHEDULED_MERGE_GROWTH).toBeLessThanOrEqual(total);
          expect(total).toBeLessThanOrEqual(DEFAULT_STEP_LIMITS.maxRows);
        }
      }),
      { numRuns: 200, seed: 334 },
    );
  });
});
