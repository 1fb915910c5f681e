/**
 * A flush of a data file's inlined deletes merged with its live delete file (DuckLake's
 * `FlushInlinedFileDeletions`): stock reads the live file's deleted positions with their snapshots (each
 * row's own, or the file's begin when it carries none), unites them with the inlined deletes and writes one
 * file begun at the oldest snapshot with `partial_max` the newest, replacing the live one
 * (docs/decisions/0731-flush-into-delete-file.md).
 */
import type { DeleteFileRecord } from "../../records.ts";

/** The oldest and newest snapshot of the deletes a live delete file holds. */
export function replacedSnapshots(d: DeleteFileRecord): [number, number] {
  return [d.begin_snapshot, d.partial_max ?? d.x_max_snapshot ?? d.begin_snapshot];
}
