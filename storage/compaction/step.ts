/**
 * One resumable compaction step: merge the L0 tables into the sorted run, partition by partition, and
 * publish the result as the next manifest version.
 *
 * - The step merges the OLDEST L0 tables as a group (all of them when it starts). The run is the bottom
 *   level and the group holds everything newer than the run that is older than the rest of L0, so a
 *   superseded version and every tombstone can be dropped from the output: nothing older survives beneath
 *   it. Read views and checkpoints that need the old versions read the old tables, which GC keeps.
 * - Only partitions that receive at least one L0 key are rewritten; keys that fall in a gap between
 *   partitions (or past the last) become new partitions without touching their neighbours.
 * - A step stops between partitions once it has read `budget` bytes and publishes: rewritten partitions
 *   are replaced, and every group table records `mergedBelow` = the first key not yet merged, so readers
 *   skip what the run already holds and the next step resumes there. The step that reaches the end drops
 *   the group from the manifest. Replaced inputs are recorded as unreferenced for GC.
 * - Crash-safe at every write: outputs not yet named by a manifest are orphans for the GC sweep; a fenced
 *   writer's manifest PUT collides, so it publishes nothing.
 */
import type { Bytes, SortedEntry } from "../api.ts";
import { compareBytes, toHex } from "../bytes.ts";
import { type MaintenanceContext, throwIfFailed } from "../maintenance.ts";
import type { Manifest, SortedTableRecord } from "../manifest.ts";
import { mergeNewestFirst } from "../merge.ts";
import type { SstReader } from "../sst/reader.ts";
import { manifestTables, type TableRef } from "../table-record.ts";
import { PartitionWriter } from "./partition-writer.ts";
import { loadWholeTable } from "./whole-table.ts";

export interface CompactionStepResult {
  partitionsReplaced: number;
  partitionsWritten: number;
  bytesIn: number;
  bytesWritten: number;
  /** The group is fully merged and gone from the manifest. */
  finished: boolean;
}

/** Whether a compaction is half done or L0 has reached the trigger. */
export function compactionDue(lake: string, manifest: Manifest, trigger: number): boolean {
  const { l0 } = manifestTables(lake, manifest.sortedTables);
  return l0.length >= trigger || l0.some((t) => t.mergedBelow !== undefined);
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
 * Runs one step. Returns undefined when there is nothing to do (no L0 table, or fewer than the trigger
 * and no compaction in progress, unless `force`).
 */
export async function compactStep(
  ctx: MaintenanceContext,
  options: { budgetBytes?: number; force?: boolean } = {},
): Promise<CompactionStepResult | undefined> {
  throwIfFailed(ctx);
  const budget = Math.max(1, options.budgetBytes ?? ctx.policy.stepBytes);
  const { l0, run } = manifestTables(ctx.lake, ctx.manifest().sortedTables);
  if (l0.length === 0) return undefined;
  const first = l0.findIndex((t) => t.mergedBelow !== undefined);
  let group: TableRef[];
  if (first >= 0) {
    group = l0.slice(first);
  } else {
    if (!options.force && l0.length < ctx.policy.l0CompactionTrigger) return undefined;
    group = l0;
  }
  const from = group[0]!.mergedBelow;
  const parts = [...run].sort((a, b) => compareBytes(a.minKey, b.minKey));
  // Inputs are read whole, a few at a time (at most six connections per Durable Object).
  const inputs: SstReader[] = [];
  for (let i = 0; i < group.length; i += 4) {
    inputs.push(...(await Promise.all(group.slice(i, i + 4).map((t) => loadWholeTable(ctx, t)))));
  }

  const writer = new PartitionWriter(ctx, ctx.policy.partitionBytes);
  const replaced: TableRef[] = [];
  let bytesIn = 0;
  let stopAt: Bytes | undefined;
  const l0Stream = new Peekable(
    mergeNewestFirst(inputs.map((r) => r.scan(from === undefined ? {} : { start: from })))[
      Symbol.asyncIterator
    ](),
  );
  try {
    for (;;) {
      const head = await l0Stream.peek();
      if (head === undefined) break;
      if (bytesIn >= budget) {
        stopAt = head.key;
        break;
      }
      let p = floor(parts, head.key);
      if (p < 0 && parts.length > 0) p = 0;
      const part = parts[p];
      const hi = parts[p + 1]?.minKey;
      // Every incoming key of this partition's range lies past its last key: a gap, append without rewriting.
      const gap = part === undefined || compareBytes(head.key, part.maxKey) > 0;
      const incoming = async function* (): AsyncGenerator<SortedEntry> {
        for (;;) {
          const e = await l0Stream.peek();
          if (e === undefined || (hi !== undefined && compareBytes(e.key, hi) >= 0)) return;
          l0Stream.take();
          bytesIn += entryBytes(e);
          yield e;
        }
      };
      if (gap) {
        for await (const e of incoming()) {
          if (e.value === undefined) continue;
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
        // The run is the bottom level: a tombstone has nothing left to hide.
        if (e.value === undefined) continue;
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

  const groupKeys = new Set(group.map((t) => t.record.key));
  const replacedKeys = new Set(replaced.map((t) => t.record.key));
  const finished = stopAt === undefined;
  const mergedBelow = stopAt === undefined ? undefined : toHex(stopAt);
  try {
    await ctx.writeManifest((m) => {
      const since = ctx.now();
      const l0Now: SortedTableRecord[] = [];
      const runNow: TableRef[] = [];
      const current = manifestTables(ctx.lake, m.sortedTables);
      for (const t of current.l0) {
        if (!groupKeys.has(t.record.key)) l0Now.push(t.record);
        else if (!finished) l0Now.push({ ...t.record, mergedBelow });
      }
      for (const t of current.run) if (!replacedKeys.has(t.record.key)) runNow.push(t);
      const outputs = writer.written.map((r) => ({ r, min: r.minKey }));
      const runRecords = [
        ...runNow.map((t) => ({ r: t.record as SortedTableRecord, min: t.record.minKey })),
        ...outputs,
      ].sort((a, b) => (a.min < b.min ? -1 : a.min > b.min ? 1 : 0));
      const gone = [...replacedKeys, ...(finished ? groupKeys : [])].map((key) => ({ key, since }));
      return {
        ...m,
        sortedTables: [...l0Now, ...runRecords.map((x) => x.r)],
        unreferenced: [...m.unreferenced, ...gone],
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
  return {
    partitionsReplaced: replaced.length,
    partitionsWritten: writer.written.length,
    bytesIn,
    bytesWritten: writer.bytesWritten,
    finished,
  };
}
