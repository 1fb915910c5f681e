/**
 * One table's `ducklake_data_file` and `ducklake_delete_file` rows (every version, ended ones included) as
 * a stock catalog holds them when snapshot S is the head — the rows `ducklakeTable` shows for those two
 * tables, narrowed to one table id so that a per-table read does not scan every table's files.
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
    data_files: data.sort((a, b) => a.data_file_id - b.data_file_id),
    delete_files: deletes.sort((a, b) => a.delete_file_id - b.delete_file_id),
  };
}
