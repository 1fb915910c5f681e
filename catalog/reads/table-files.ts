/**
 * One table's `ducklake_data_file` and `ducklake_delete_file` rows (every version, ended ones included) as
 * a stock catalog holds them when snapshot S is the head, narrowed to one table id so that a per-table
 * read does not scan every table's files.
 *
 * One difference from `ducklakeTable`: a delete file that a flush merged into a new one is left out here,
 * as DuckLake deletes that row. The catalog ends it instead (test/catalog/ducklake-golden.test.ts
 * `endedInsteadOfRemoved`), but the merged file is backdated to the oldest delete it holds, so SQL that
 * selects delete files by snapshot would see both at the snapshots in between and answer twice for one
 * data file (decision record `docs/decisions/0220-quack-file-reads.md`).
 */
import type { ReadView } from "../../storage/api.ts";
import { ValueKind } from "../codec.ts";
import { resolveSnapshot } from "../head.ts";
import { Kind } from "../keys.ts";
import type { DataFileRecord, DeleteFileRecord } from "../records.ts";
import { allVersions, asOf } from "./versions.ts";

export interface TableFileRows {
  snapshot_id: number;
  /** By data_file_id. */
  data_files: DataFileRecord[];
  /** By delete_file_id. */
  delete_files: DeleteFileRecord[];
}

export async function tableFileRows(
  view: ReadView,
  tableId: number,
  snapshotId?: number,
): Promise<TableFileRows> {
  const snap = await resolveSnapshot(view, snapshotId);
  const s = snap.snapshot_id;
  const data = asOf(await allVersions<DataFileRecord>(view, Kind.dataFile, ValueKind.dataFile, tableId), s);
  const deletes = asOf(
    await allVersions<DeleteFileRecord>(view, Kind.deleteFile, ValueKind.deleteFile, tableId),
    s,
  );
  return {
    snapshot_id: s,
    delete_files: withoutMergedAway(deletes).sort((a, b) => a.delete_file_id - b.delete_file_id),
    data_files: data.sort((a, b) => a.data_file_id - b.data_file_id),
  };
}

/**
 * Delete file rows as SQL sees them: without the versions a flush merged into a newer file. A merge's
 * replacement begins at or before the file it replaced (backdated, and allocated later); a DELETE's
 * replacement begins exactly when the old one ends, after it began. `deletes` may span tables.
 */
export function withoutMergedAway(deletes: readonly DeleteFileRecord[]): DeleteFileRecord[] {
  const byDataFile = new Map<number, DeleteFileRecord[]>();
  for (const d of deletes) {
    const list = byDataFile.get(d.data_file_id);
    if (list) list.push(d);
    else byDataFile.set(d.data_file_id, [d]);
  }
  return deletes.filter(
    (d) =>
      d.end_snapshot === null ||
      !(byDataFile.get(d.data_file_id) ?? []).some(
        (n) => n.delete_file_id > d.delete_file_id && n.begin_snapshot <= d.begin_snapshot,
      ),
  );
}
