/**
 * Stored record shapes. Field names are DuckLake 1.0's column names, so a record is its `ducklake_*` row
 * (plus embedded child rows); `end_snapshot` is null in `current` and set in `history`. Internal fields
 * that DuckLake does not have are prefixed with `x_`.
 */

export interface FormatRecord {
  format_version: number;
  writer: string;
}

/** `{snapshot id, batch count}`: every batch writes it, so it is the commit's conflict anchor. */
export interface HeadRecord {
  snapshot_id: number;
  batch_count: number;
  /**
   * `ducklake_snapshot_changes` rows a client appended for snapshots not minted yet: shown as rows of that
   * table, and the commit that would mint one of them fails on its primary key
   * (docs/decisions/0710-metadata-appends.md). Absent when there are none.
   */
  x_reserved_changes?: ReservedChanges[];
}

/** One appended `ducklake_snapshot_changes` row waiting for its snapshot (on the head). */
export interface ReservedChanges {
  snapshot_id: number;
  changes_made: string | null;
  author: string | null;
  commit_message: string | null;
  commit_extra_info: string | null;
}

/** One snapshot: ducklake_snapshot + ducklake_snapshot_changes + what the conflict classifier needs. */
export interface SnapshotRecord {
  snapshot_id: number;
  /** Microseconds since the epoch, UTC. */
  snapshot_time: number;
  schema_version: number;
  next_catalog_id: number;
  next_file_id: number;
  changes_made: string | null;
  author: string | null;
  commit_message: string | null;
  commit_extra_info: string | null;
  /** Tables whose state this commit touched (any kind, including stats-only). */
  x_touched_table_ids: number[];
  /** Data files this commit's delete files target. */
  x_deleted_data_file_ids: number[];
  /** Some delete in this commit names no file (an inlined delete): classify at table grain. */
  x_deletes_untargeted: boolean;
}

export interface Versioned {
  begin_snapshot: number;
  end_snapshot: number | null;
}

export interface SchemaRecord extends Versioned {
  schema_id: number;
  schema_uuid: string;
  schema_name: string;
  path: string;
  path_is_relative: boolean;
}

export interface TableRecord extends Versioned {
  table_id: number;
  table_uuid: string;
  schema_id: number;
  table_name: string;
  path: string;
  path_is_relative: boolean;
}

export interface ViewRecord extends Versioned {
  view_id: number;
  view_uuid: string;
  schema_id: number;
  view_name: string;
  dialect: string;
  sql: string;
  column_aliases: string | null;
}

export interface ColumnRecord extends Versioned {
  column_id: number;
  table_id: number;
  column_order: number;
  column_name: string;
  column_type: string;
  initial_default: string | null;
  default_value: string | null;
  nulls_allowed: boolean;
  parent_column: number | null;
  default_value_type: string | null;
  default_value_dialect: string | null;
}

export interface FileColumnStats {
  column_id: number;
  column_size_bytes: number | null;
  value_count: number | null;
  null_count: number | null;
  min_value: string | null;
  max_value: string | null;
  contains_nan: boolean | null;
  extra_stats: string | null;
}

export interface FileVariantStats {
  column_id: number;
  variant_path: string;
  shredded_type: string | null;
  column_size_bytes: number | null;
  value_count: number | null;
  null_count: number | null;
  min_value: string | null;
  max_value: string | null;
  contains_nan: boolean | null;
  extra_stats: string | null;
}

export interface DataFileRecord extends Versioned {
  data_file_id: number;
  table_id: number;
  file_order: number | null;
  path: string;
  path_is_relative: boolean;
  file_format: string;
  record_count: number;
  file_size_bytes: number;
  footer_size: number | null;
  row_id_start: number;
  partition_id: number | null;
  encryption_key: string | null;
  mapping_id: number | null;
  partial_max: number | null;
  /**
   * The file carries its rows' ids (`_ducklake_internal_row_id`) and they need not be contiguous (a
   * rewrite, or a merge of non-adjacent files): DuckLake registers `row_id_start` NULL for it, which the
   * `ducklake_*` tables show; `row_id_start` here keeps the lowest id (decision 0322).
   */
  x_row_ids_in_file?: true;
  /**
   * With `x_row_ids_in_file`: DuckLake registers this file's lowest id as `row_id_start` (a flushed file
   * whose ids are not its positions: a partition's share of a flush, or updated rows' versions), so the
   * `ducklake_*` tables show it (docs/decisions/0617-partitioned-flush.md).
   */
  x_row_id_start_shown?: true;
  /** ducklake_file_column_stats rows of this file. */
  x_column_stats: FileColumnStats[];
  /** ducklake_file_variant_stats rows: one per shredded field of a VARIANT column (decision 0620). */
  x_variant_stats: FileVariantStats[];
  /** ducklake_file_partition_value rows. */
  x_partition_values: { partition_key_index: number; partition_value: string | null }[];
}

export interface DeleteFileRecord extends Versioned {
  delete_file_id: number;
  table_id: number;
  data_file_id: number;
  path: string;
  path_is_relative: boolean;
  format: string;
  delete_count: number;
  file_size_bytes: number;
  footer_size: number | null;
  encryption_key: string | null;
  partial_max: number | null;
  /**
   * The newest delete this file holds, when DuckLake leaves `partial_max` NULL although its deletes span
   * snapshots (a flush of inlined rows deleted in several snapshots); readers filter by it.
   */
  x_max_snapshot?: number;
}

export interface PartitionRecord extends Versioned {
  partition_id: number;
  table_id: number;
  x_columns: { partition_key_index: number; column_id: number; transform: string }[];
}

export interface SortRecord extends Versioned {
  sort_id: number;
  table_id: number;
  x_expressions: {
    sort_key_index: number;
    expression: string;
    dialect: string;
    sort_direction: "ASC" | "DESC";
    null_order: "NULLS_FIRST" | "NULLS_LAST";
  }[];
}

export interface MacroParameter {
  column_id: number;
  parameter_name: string;
  parameter_type: string;
  default_value: string | null;
  default_value_type: string | null;
}

export interface MacroImpl {
  impl_id: number;
  dialect: string;
  sql: string;
  type: "scalar" | "table";
  x_parameters: MacroParameter[];
}

export interface MacroRecord extends Versioned {
  macro_id: number;
  schema_id: number;
  macro_name: string;
  x_impls: MacroImpl[];
}

/** ducklake_table_stats, versioned here so time travel can answer it; holds the per-table next_row_id. */
export interface TableStatsRecord extends Versioned {
  table_id: number;
  record_count: number;
  next_row_id: number;
  file_size_bytes: number;
}

export interface TableColumnStatsRecord extends Versioned {
  table_id: number;
  column_id: number;
  contains_null: boolean | null;
  contains_nan: boolean | null;
  min_value: string | null;
  max_value: string | null;
  extra_stats: string | null;
}

/** Tag entries carry their own begin/end; the container is overwritten. Comments are key `comment`. */
export interface TagEntry {
  key: string;
  value: string | null;
  begin_snapshot: number;
  end_snapshot: number | null;
}

export interface TagContainer {
  entries: TagEntry[];
}

/** One scope's options (ducklake_metadata rows), unversioned, last write wins. */
export interface OptionRecord {
  scope: "schema" | "table" | null;
  scope_id: number | null;
  values: Record<string, string>;
}

export interface InlinedTableRecord {
  table_id: number;
  table_name: string;
  schema_version: number;
  /** The snapshot that created it: its columns are the table's top-level columns as of that snapshot. */
  x_begin_snapshot?: number;
}

export interface SchemaVersionRecord {
  begin_snapshot: number;
  schema_version: number;
  table_id: number;
}

export interface MappingRecord {
  mapping_id: number;
  table_id: number;
  type: string;
  x_names: {
    column_id: number;
    source_name: string;
    target_field_id: number;
    parent_column: number | null;
    is_partition: boolean;
  }[];
}

export interface GcFileRecord {
  data_file_id: number;
  path: string;
  path_is_relative: boolean;
  schedule_start: number;
}

export interface TableMetaRecord {
  table_id: number;
  next_column_id: number;
  /** The snapshot whose inlined file delete created `ducklake_inlined_delete_<table_id>` (DuckLake keeps it). */
  x_inlined_delete_since?: number;
  /** Inlined rows the table holds (not yet flushed), for the per-table cap; absent ⇒ count them once. */
  x_inlined_rows?: number;
  /**
   * The lowest row id any inlined-row key of the table may have (absent ⇒ 0): scans of its inlined rows
   * start here, past the tombstones of flushed rows (catalog/inline-floor.ts, decision 0182).
   */
  x_inlined_floor?: number;
}

/** An inlined value in its stored form: catalog/values/ owns the form per type. */
export type InlineValue = string | number | boolean | null | InlineValue[] | { [key: string]: InlineValue };

/** One inlined row (a row of `ducklake_inlined_data_<tid>_<sv>`). */
export interface InlineRowRecord {
  row_id: number;
  begin_snapshot: number;
  end_snapshot: number | null;
  schema_version: number;
  values: Record<string, InlineValue>;
}

/** One row of `ducklake_inlined_delete_<tid>`: a position deleted from a Parquet file. */
export interface InlineFileDeleteRecord {
  file_id: number;
  row_id: number;
  begin_snapshot: number;
}

/** A name-index bucket: every live name in one (namespace, parent) whose folded form hashes alike. */
export interface NameEntry {
  name: string;
  id: number;
  /**
   * For relations: tables and views share one namespace per schema. A scalar and a table macro may share a
   * name (DuckDB keeps them apart), so a table macro's entry is "table_macro" (an entry written before
   * that distinction says "macro" for both).
   */
  kind: "schema" | "table" | "view" | "macro" | "table_macro";
}

export interface IdempotencyRecord {
  key: string;
  request_hash: string;
  expires_at: number;
  result: unknown;
}
