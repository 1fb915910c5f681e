/**
 * Memtable flush: freeze the memtable at a segment boundary, write it as an L0 table, then publish the next
 * manifest version listing the table with the replay point moved past the segments it covers (and those
 * segments recorded as unreferenced), then the publish segment (writeManifest does both).
 *
 * Crash-safe at every write: before the manifest lands the table is an orphan (the GC sweep records it)
 * and the WAL still holds everything; after it lands the table holds what the skipped segments held.
 * A flush that fails after freezing keeps the frozen memtable as a read layer and is resumed by the next
 * call rather than freezing again.
 */
import { walKey } from "./keys.ts";
import {
  type FrozenMemtable,
  type MaintenanceContext,
  throwIfFailed,
  writeTable,
  YIELD_EVERY_BYTES,
  yieldToEventLoop,
} from "./maintenance.ts";
import type { Manifest, UnreferencedRecord } from "./manifest.ts";
import { memEntries } from "./memtable.ts";
import { type BuiltSst, SstBuilder } from "./sst/builder.ts";
import type { TableRecord } from "./table-record.ts";

/** Segments after the manifest's replay point that a reader would replay. */
export function tailSegments(manifest: Manifest, lastSegment: number): number {
  return Math.max(0, lastSegment - manifest.wal.replayAfter);
}

/**
 * Builds the frozen memtable's L0 table, returning to the event loop every YIELD_EVERY_BYTES: a memtable
 * may hold up to 4 × flushAfterBytes (the backstop), and building it in one synchronous run held every
 * commit for that long (docs/decisions/0166-maintenance-yields.md).
 */
export async function buildL0Table(frozen: Pick<FrozenMemtable, "tree">): Promise<BuiltSst> {
  const b = new SstBuilder();
  let sinceYield = 0;
  for (const e of memEntries(frozen.tree, { lo: undefined, hi: undefined })) {
    b.add(e);
    sinceYield += e.key.length + (e.value?.length ?? 0);
    if (sinceYield >= YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  return b.finish();
}

/** Returns true when a new manifest version was published. */
export async function flushMemtable(ctx: MaintenanceContext): Promise<boolean> {
  throwIfFailed(ctx);
  const frozen = ctx.frozen() ?? (await ctx.rotateMemtable());
  throwIfFailed(ctx);
  const base = ctx.manifest();
  if (frozen.lastSegment <= base.wal.replayAfter) {
    ctx.adoptTables();
    return false;
  }
  let table: TableRecord | undefined;
  if (frozen.tree.size > 0) {
    // Tombstones are kept: older tables below may still hold the keys they delete.
    const built = await buildL0Table(frozen);
    table = await writeTable(ctx, built, 0);
    ctx.counters.bytesFlushed += built.bytes.length;
  }
  try {
    await ctx.writeManifest((m) => {
      const since = ctx.now();
      const segments: UnreferencedRecord[] = [];
      for (let id = m.wal.replayAfter + 1; id <= frozen.lastSegment; id++) {
        segments.push({ key: walKey(ctx.lake, id), since });
      }
      return {
        ...m,
        wal: {
          replayAfter: Math.max(m.wal.replayAfter, frozen.lastSegment),
          lastPosition: Math.max(m.wal.lastPosition, frozen.position),
        },
        sortedTables: table ? [table, ...m.sortedTables] : m.sortedTables,
        unreferenced: [...m.unreferenced, ...segments],
      };
    });
  } catch (e) {
    if (table) ctx.orphansPossible = true;
    throw e;
  }
  ctx.adoptTables();
  ctx.counters.memtableFlushes++;
  return true;
}
