/**
 * A flush of a data file's inlined deletes merged with its live delete file (DuckLake's
 * `FlushInlinedFileDeletions`): stock reads the live file's deleted positions with their snapshots (each
 * row's own, or the file's begin when it carries none), unites them with the inlined deletes and writes one
 * file begun at the oldest snapshot with `partial_max` the newest, replacing the live one
 * (docs/decisions/0731-flush-into-delete-file.md). Inlined deletes of a data file that has ended (a rewrite
 * left them with it) are flushed too, into a delete file of the ended file, which time travel before the
 * end reads (docs/decisions/0732-flush-deletes-of-ended-file.md).
 */
import { Kind, keys } from "../../keys.ts";
import type { DeleteFileRecord } from "../../records.ts";
import type { VerbContext } from "../../verbs/context.ts";

/** The oldest and newest snapshot of the deletes a live delete file holds. */
export function replacedSnapshots(d: DeleteFileRecord): [number, number] {
  return [d.begin_snapshot, d.partial_max ?? d.x_max_snapshot ?? d.begin_snapshot];
}

/** Whether data file `f` of table `t` existed and has ended (a version of it is in the history). */
export async function endedDataFile(ctx: Pick<VerbContext, "st">, t: number, f: number): Promise<boolean> {
  for await (const _ of ctx.st.scan({ prefix: keys.historyPrefix(Kind.dataFile, t, f), limit: 1 }))
    return true;
  return false;
}
