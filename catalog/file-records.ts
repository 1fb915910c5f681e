/**
 * The one constructor of a new data-file and a new delete-file record, used by every write door: the
 * verbs (`verbs/ops/files.ts`, and through them the server-side staged commit and maintenance), and the
 * client-side translator (`sql/writes/translate/`). A new record is live (`end_snapshot` NULL); the
 * columns a door may leave out take DuckLake's default here, once, so a new `ducklake_data_file` or
 * `ducklake_delete_file` column is added to the record type and to this file, and the type checker names
 * every door that must supply it (the checklist in `catalog/README.md`; docs/decisions/0740-record-builders.md).
 */
import type { DataFileRecord, DeleteFileRecord } from "./records.ts";

/** What a door gives for a new data file: every column it must decide; the rest default. */
export interface DataFileInput {
  data_file_id: number;
  table_id: number;
  begin_snapshot: number;
  path: string;
  path_is_relative: boolean;
  file_format: string;
  record_count: number;
  file_size_bytes: number;
  row_id_start: number;
  file_order?: number | null;
  footer_size?: number | null;
  partition_id?: number | null;
  encryption_key?: string | null;
  mapping_id?: number | null;
  partial_max?: number | null;
  x_row_ids_in_file?: true;
  x_row_id_start_shown?: true;
  x_column_stats?: DataFileRecord["x_column_stats"];
  x_variant_stats?: DataFileRecord["x_variant_stats"];
  x_partition_values?: DataFileRecord["x_partition_values"];
}

/** A new, live data-file record: NULL for each optional column left out, no child rows. */
export function newDataFileRecord(f: DataFileInput): DataFileRecord {
  const rec: DataFileRecord = {
    data_file_id: f.data_file_id,
    table_id: f.table_id,
    begin_snapshot: f.begin_snapshot,
    end_snapshot: null,
    file_order: f.file_order ?? null,
    path: f.path,
    path_is_relative: f.path_is_relative,
    file_format: f.file_format,
    record_count: f.record_count,
    file_size_bytes: f.file_size_bytes,
    footer_size: f.footer_size ?? null,
    row_id_start: f.row_id_start,
    partition_id: f.partition_id ?? null,
    encryption_key: f.encryption_key ?? null,
    mapping_id: f.mapping_id ?? null,
    partial_max: f.partial_max ?? null,
    x_column_stats: f.x_column_stats ?? [],
    x_variant_stats: f.x_variant_stats ?? [],
    x_partition_values: f.x_partition_values ?? [],
  };
  // Present only when set: a stored record without them is the common case (decisions 0322, 0617).
  if (f.x_row_ids_in_file) rec.x_row_ids_in_file = true;
  if (f.x_row_id_start_shown) rec.x_row_id_start_shown = true;
  return rec;
}

/** What a door gives for a new delete file: every column it must decide; the rest default. */
export interface DeleteFileInput {
  delete_file_id: number;
  table_id: number;
  data_file_id: number;
  begin_snapshot: number;
  path: string;
  path_is_relative: boolean;
  format: string;
  delete_count: number;
  file_size_bytes: number;
  footer_size?: number | null;
  encryption_key?: string | null;
  partial_max?: number | null;
  x_max_snapshot?: number;
}

/** A new, live delete-file record: NULL for each optional column left out. */
export function newDeleteFileRecord(f: DeleteFileInput): DeleteFileRecord {
  const rec: DeleteFileRecord = {
    delete_file_id: f.delete_file_id,
    table_id: f.table_id,
    begin_snapshot: f.begin_snapshot,
    end_snapshot: null,
    data_file_id: f.data_file_id,
    path: f.path,
    path_is_relative: f.path_is_relative,
    format: f.format,
    delete_count: f.delete_count,
    file_size_bytes: f.file_size_bytes,
    footer_size: f.footer_size ?? null,
    encryption_key: f.encryption_key ?? null,
    partial_max: f.partial_max ?? null,
  };
  if (f.x_max_snapshot !== undefined) rec.x_max_snapshot = f.x_max_snapshot;
  return rec;
}
