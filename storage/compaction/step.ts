/**
 * One resumable compaction step: merge a group of newer inputs (the oldest L0 tables, or a window of
 * sorted runs; plan.ts chooses) into an older target run, partition by partition, and publish the result
 * as the next manifest version (docs/decisions/0162-tiered-runs.md).
 *
 * - The group holds everything newer than the target that is older than every other newer layer, so a
 *   superseded version can be dropped from the output; tombstones are dropped only when no run is older
 *   than the target. Read views and checkpoints that need the old versions read the old tables, which GC
 *   keeps.
 * - Only target partitions that receive at least one input key are rewritten; keys that fall in a gap
 *   between partitions (or past the last) become new partitions without touching their neighbours. Keys
 *   below the first partition merge into it, unless a move lies below it (then they are a gap too).
 * - A step stops between partitions once it has read `budget` bytes and publishes: rewritten partitions
 *   are replaced, every remaining group table records `mergedBelow` = the first key not yet merged (and
 *   `mergeInto` = the target), so readers skip what the target already holds and the next step resumes
 *   there; group tables wholly below it leave. The step that reaches the end drops the group from the
 *   manifest. Replaced inputs are recorded as unreferenced for GC.
 * - The merge gives the event loop back every YIELD_EVERY_BYTES of input, so commits interleave with it.
 * - Crash-safe at every write: outputs not yet named by a manifest are orphans for the GC sweep; a fenced
 *   writer's manifest PUT collides, so it publishes nothing.
 */
import type { Bytes, MaintenancePolicy, SortedEntry } from "../api.ts";
import { compareBytes, fromHex, toHex } from "../bytes.ts";
import {
  type MaintenanceContext,
  throwIfFailed,
  YIELD_EVERY_BYTES,
  yieldToEventLoop,
} from "../maintenance.ts";
import type { Manifest, SortedTableRecord } from "../manifest.ts";
import { mergeNewestFirst } from "../merge.ts";
import type { SstReader } from "../sst/reader.ts";
import { assertRunsDisjoint, manifestTables, runsOf, type TableRef, tableRef } from "../table-record.ts";
import { movablePartitions, movedRecord } from "./moves.ts";
import { PartitionWriter } from "./partition-writer.ts";
import { planCompaction } from "./plan.ts";
import { runInput } from "./run-input.ts";
import { loadWholeTable } from "./whole-table.ts";

export interface CompactionStepResult {
  kind: "l0" | "runs";
  targetRun: number;
  partitionsReplaced: number;
  partitionsWritten: number;
  /** Input partitions moved into the target unchanged (moves.ts), and their bytes: nothing written. */
  partitionsMoved: number;
  bytesMoved: number;
  bytesIn: number;
  bytesWritten: number;
  /** The group is fully merged and gone from the manifest. */
  finished: boolean;
}

/** Whether a compaction is half done, L0 has reached the trigger, or a tier of runs is due. */
export function compactionDue(
  lake: string,
  manifest: Manifest,
  policy: Required<MaintenancePolicy>,
): boolean {
  return planCompaction(lake, manifest, policy, false) !== undefined;
}

/** Lookahead of one over an async iterator. */
class Peekable {
  private head: SortedEntry | undefined;
  private done = false;
  constructor(private readonly it: AsyncIterator<SortedEntry>) {}

  async peek(): Promise<SortedEntry | undefined> {
    if (this.head === undefined && !this.done) {
      const r = await this.it.next();
      if (r.done) this.done = true;
      else this.head = r.value;
    }
    return this.head;
  }

  take(): void {
    this.head = undefined;
  }

  async close(): Promise<void> {
    await this.it.return?.();
  }
}

/** Index of the last partition whose minKey <= key (-1 if none). */
function floor(parts: readonly TableRef[], key: Bytes): number {
  let lo = 0;
  let hi = parts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (compareBytes(parts[mid]!.minKey, key) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const entryBytes = (e: SortedEntry): number => e.key.length + (e.value?.length ?? 0);

/**
 * Runs one step. Returns undefined when there is nothing to do (plan.ts: no merge in progress, L0 below
 * the trigger and no tier due, unless `force`).
 */
export async function compactStep(
  ctx: MaintenanceContext,
  options: { budgetBytes?: number; force?: boolean } = {},
): Promise<CompactionStepResult | undefined> {
  throwIfFailed(ctx);
  const budget = Math.max(1, options.budgetBytes ?? ctx.policy.stepBytes);
  const plan = planCompaction(ctx.lake, ctx.manifest(), ctx.policy, options.force === true);
  if (plan === undefined) return undefined;
  const from = plan.from === undefined ? undefined : fromHex(plan.from);
  const parts = plan.target.parts;
  const targetRun = plan.target.id;
  // Input partitions no other input or target partition overlaps move instead of being rewritten: they
  // are left out of the merge stream, and the output is cut at each one's first key so no output
  // partition straddles it (docs/decisions/0186-partition-moves.md).
  const moves = movablePartitions(plan, from, ctx.policy.partitionBytes);
  const moving = new Set(moves.map((t) => t.record.key));
  const moved: TableRef[] = [];
  // L0 inputs are read whole, a few at a time (at most six connections per Durable Object); input runs
  // stream one partition at a time (run-input.ts), so a step holds a bounded number of tables.
  const sources: AsyncIterable<SortedEntry>[] = [];
  if (plan.kind === "l0") {
    const inputs: SstReader[] = [];
    for (let i = 0; i < plan.inputs.length; i += 4) {
      inputs.push(...(await Promise.all(plan.inputs.slice(i, i + 4).map((t) => loadWholeTable(ctx, t)))));
    }
    for (const r of inputs) sources.push(r.scan(from === undefined ? {} : { start: from }));
  } else {
    for (const r of plan.inputRuns) {
      sources.push(
        runInput(
          ctx,
          r.parts.filter((t) => !moving.has(t.record.key)),
          from,
        ),
      );
    }
  }

  const writer = new PartitionWriter(ctx, ctx.policy.partitionBytes, targetRun);
  const replaced: TableRef[] = [];
  let bytesIn = 0;
  let nextYield = YIELD_EVERY_BYTES;
  let stopAt: Bytes | undefined;
  const keep = (e: SortedEntry): boolean => e.value !== undefined || !plan.bottom;
  const l0Stream = new Peekable(mergeNewestFirst(sources)[Symbol.asyncIterator]());
  try {
    for (;;) {
      const head = await l0Stream.peek();
      if (head === undefined) break;
      // Every move that starts at or below the next key is passed now (the writer was cut at the end of
      // the last round), even when the step stops here: a move below the stop must not be left behind.
      while (moves[moved.length] !== undefined && compareBytes(moves[moved.length]!.minKey, head.key) <= 0) {
        moved.push(moves[moved.length]!);
      }
      if (bytesIn >= budget) {
        stopAt = head.key;
        break;
      }
      // The next partition to move bounds this round too: the output is cut before it.
      const nextMove = moves[moved.length]?.minKey;
      let p = floor(parts, head.key);
      // Keys below the target's first partition merge into it, unless a move lies before that partition:
      // the round would end at the move and the next round would merge the same partition again, writing
      // two outputs that hold its keys. Then the keys up to the move are a gap before it instead.
      if (
        p < 0 &&
        parts.length > 0 &&
        (nextMove === undefined || compareBytes(nextMove, parts[0]!.minKey) > 0)
      )
        p = 0;
      const part = parts[p];
      // With p = -1 (a gap below the first partition) this is the first partition's first key.
      const hi = parts[p + 1]?.minKey;
      // Every incoming key of this partition's range lies past its last key: a gap, append without rewriting.
      const gap = part === undefined || compareBytes(head.key, part.maxKey) > 0;
      // Merging into a partition takes the incoming keys up to its last key; the keys past it (up to the
      // next partition) are a gap the next round appends, where the step may stop.
      const last = gap ? undefined : part.maxKey;
      const incoming = async function* (): AsyncGenerator<SortedEntry> {
        for (;;) {
          const e = await l0Stream.peek();
          if (e === undefined || (hi !== undefined && compareBytes(e.key, hi) >= 0)) return;
          if (last !== undefined && compareBytes(e.key, last) > 0) return;
          if (nextMove !== undefined && compareBytes(e.key, nextMove) >= 0) return;
          l0Stream.take();
          bytesIn += entryBytes(e);
          if (bytesIn >= nextYield) {
            nextYield = bytesIn + YIELD_EVERY_BYTES;
            await yieldToEventLoop();
          }
          yield e;
        }
      };
      if (gap) {
        for await (const e of incoming()) {
          if (!keep(e)) continue;
          const before = writer.written.length;
          await writer.add(e);
          // Inside a gap a step may stop after any written partition: nothing existing was half replaced.
          if (writer.written.length > before && bytesIn >= budget) break;
        }
        await writer.cut();
        continue;
      }
      bytesIn += part.record.size;
      const existing = await loadWholeTable(ctx, part);
      for await (const e of mergeNewestFirst([incoming(), existing.scan({})])) {
        if (!keep(e)) continue;
        await writer.add(e);
      }
      await writer.cut();
      replaced.push(part);
    }
  } catch (e) {
    if (writer.written.length > 0) ctx.orphansPossible = true;
    throw e;
  } finally {
    await l0Stream.close();
  }
  throwIfFailed(ctx);
  // The merge reached the end: the moves past its last key are passed too.
  if (stopAt === undefined) moved.push(...moves.slice(moved.length));
  const movedKeys = new Set(moved.map((t) => t.record.key));
  const bytesMoved = moved.reduce((n, t) => n + t.record.size, 0);

  const groupKeys = new Set(plan.inputs.map((t) => t.record.key));
  const replacedKeys = new Set(replaced.map((t) => t.record.key));
  const finished = stopAt === undefined;
  const mergedBelow = stopAt === undefined ? undefined : toHex(stopAt);
  // Group tables wholly below the resume point are fully merged: they leave now.
  const done = (t: TableRef): boolean =>
    finished || (stopAt !== undefined && compareBytes(t.maxKey, stopAt) < 0);
  try {
    await ctx.writeManifest((m) => {
      const since = ctx.now();
      const gone: string[] = [...replacedKeys];
      const current = manifestTables(ctx.lake, m.sortedTables);
      const marked = (t: TableRef): TableRef => ({
        ...t,
        record: { ...t.record, mergedBelow: mergedBelow!, mergeInto: targetRun },
      });
      const l0Now: SortedTableRecord[] = [];
      for (const t of current.l0) {
        if (!groupKeys.has(t.record.key)) l0Now.push(t.record);
        else if (done(t)) gone.push(t.record.key);
        else l0Now.push(marked(t).record);
      }
      const runNow: TableRef[] = [];
      for (const t of current.run) {
        if (replacedKeys.has(t.record.key)) continue;
        if (movedKeys.has(t.record.key)) {
          runNow.push(tableRef(ctx.lake, movedRecord(t, targetRun)));
          continue;
        }
        if (!groupKeys.has(t.record.key)) runNow.push(t);
        else if (done(t)) gone.push(t.record.key);
        else runNow.push(marked(t));
      }
      const outputs = writer.written.map((record) => tableRef(ctx.lake, record));
      const runs = runsOf([...runNow, ...outputs]);
      // Moves and outputs must leave every run's partitions disjoint: checked before the manifest exists,
      // since a reader would refuse it (layers.ts) and the lake would not open.
      assertRunsDisjoint(ctx.lake, m.version + 1, runs);
      const runRecords = runs.flatMap((r) => r.parts.map((t) => t.record as SortedTableRecord));
      return {
        ...m,
        sortedTables: [...l0Now, ...runRecords],
        unreferenced: [...m.unreferenced, ...gone.map((key) => ({ key, since }))],
      };
    });
  } catch (e) {
    if (writer.written.length > 0) ctx.orphansPossible = true;
    throw e;
  }
  ctx.adoptTables();
  ctx.counters.compactionSteps++;
  ctx.counters.bytesRewritten += writer.bytesWritten;
  ctx.counters.compactionBytesIn += bytesIn;
  ctx.counters.partitionsWritten += writer.written.length;
  ctx.counters.partitionsMoved += moved.length;
  ctx.counters.bytesMoved += bytesMoved;
  return {
    kind: plan.kind,
    targetRun,
    partitionsReplaced: replaced.length,
    partitionsWritten: writer.written.length,
    partitionsMoved: moved.length,
    bytesMoved,
    bytesIn,
    bytesWritten: writer.bytesWritten,
    finished,
  };
}
