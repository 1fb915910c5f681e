/**
 * A sorted run as a compaction input: its partitions in key order, each read whole (one GET,
 * whole-table.ts) when the merge reaches it, the next one fetched while the current one is merged. A run
 * merge therefore holds at most two partitions per input run in memory, whatever the run's size.
 */
import type { Bytes, SortedEntry } from "../api.ts";
import { compareBytes } from "../bytes.ts";
import type { MaintenanceContext } from "../maintenance.ts";
import type { SstReader } from "../sst/reader.ts";
import type { TableRef } from "../table-record.ts";
import { loadWholeTable } from "./whole-table.ts";

export async function* runInput(
  ctx: MaintenanceContext,
  parts: readonly TableRef[],
  from: Bytes | undefined,
): AsyncGenerator<SortedEntry> {
  const todo = parts.filter((p) => from === undefined || compareBytes(p.maxKey, from) >= 0);
  let next: Promise<SstReader> | undefined = todo[0] ? loadWholeTable(ctx, todo[0]) : undefined;
  try {
    for (let i = 0; i < todo.length; i++) {
      const reader: SstReader = await next!;
      const following = todo[i + 1];
      next = following ? loadWholeTable(ctx, following) : undefined;
      yield* reader.scan(from === undefined ? {} : { start: from });
    }
  } finally {
    // An abandoned prefetch must not surface as an unhandled rejection.
    next?.catch(() => {});
  }
}
