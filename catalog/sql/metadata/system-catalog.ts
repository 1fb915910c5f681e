/**
 * What a stock DuckDB 1.5.5 Quack server's catalog holds besides the lake's rows, as its catalog functions
 * report it: the `CREATE TABLE` text of each of DuckLake 1.0's 28 tables exactly as `duckdb_tables().sql`
 * renders the DDL of DuckLake's initialization batch (DuckDB re-renders it: keywords quoted, TIMESTAMPTZ
 * spelled out, a trailing `;`), and the internal views `duckdb_views()` lists on every database.
 * Regenerate with tools/quack-reads-golden.py (its fixture checks both).
 */

/** Table name → DuckDB's rendering of its DDL. */
export const DUCKLAKE_TABLE_SQL: Readonly<Record<string, string>> = {
  ducklake_column:
    "CREATE TABLE ducklake_column(column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, table_id BIGINT, column_order BIGINT, column_name VARCHAR, column_type VARCHAR, initial_default VARCHAR, default_value VARCHAR, nulls_allowed BOOLEAN, parent_column BIGINT, default_value_type VARCHAR, default_value_dialect VARCHAR);",
  ducklake_column_mapping:
    'CREATE TABLE ducklake_column_mapping(mapping_id BIGINT, table_id BIGINT, "type" VARCHAR);',
  ducklake_column_tag:
    'CREATE TABLE ducklake_column_tag(table_id BIGINT, column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, "key" VARCHAR, "value" VARCHAR);',
  ducklake_data_file:
    "CREATE TABLE ducklake_data_file(data_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, file_order BIGINT, path VARCHAR, path_is_relative BOOLEAN, file_format VARCHAR, record_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, row_id_start BIGINT, partition_id BIGINT, encryption_key VARCHAR, mapping_id BIGINT, partial_max BIGINT);",
  ducklake_delete_file:
    "CREATE TABLE ducklake_delete_file(delete_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, data_file_id BIGINT, path VARCHAR, path_is_relative BOOLEAN, format VARCHAR, delete_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, encryption_key VARCHAR, partial_max BIGINT);",
  ducklake_file_column_stats:
    "CREATE TABLE ducklake_file_column_stats(data_file_id BIGINT, table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR);",
  ducklake_file_partition_value:
    "CREATE TABLE ducklake_file_partition_value(data_file_id BIGINT, table_id BIGINT, partition_key_index BIGINT, partition_value VARCHAR);",
  ducklake_file_variant_stats:
    "CREATE TABLE ducklake_file_variant_stats(data_file_id BIGINT, table_id BIGINT, column_id BIGINT, variant_path VARCHAR, shredded_type VARCHAR, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR);",
  ducklake_files_scheduled_for_deletion:
    "CREATE TABLE ducklake_files_scheduled_for_deletion(data_file_id BIGINT, path VARCHAR, path_is_relative BOOLEAN, schedule_start TIMESTAMP WITH TIME ZONE);",
  ducklake_inlined_data_tables:
    "CREATE TABLE ducklake_inlined_data_tables(table_id BIGINT, table_name VARCHAR, schema_version BIGINT);",
  ducklake_macro:
    "CREATE TABLE ducklake_macro(schema_id BIGINT, macro_id BIGINT, macro_name VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT);",
  ducklake_macro_impl:
    'CREATE TABLE ducklake_macro_impl(macro_id BIGINT, impl_id BIGINT, dialect VARCHAR, "sql" VARCHAR, "type" VARCHAR);',
  ducklake_macro_parameters:
    "CREATE TABLE ducklake_macro_parameters(macro_id BIGINT, impl_id BIGINT, column_id BIGINT, parameter_name VARCHAR, parameter_type VARCHAR, default_value VARCHAR, default_value_type VARCHAR);",
  ducklake_metadata:
    'CREATE TABLE ducklake_metadata("key" VARCHAR NOT NULL, "value" VARCHAR NOT NULL, "scope" VARCHAR, scope_id BIGINT);',
  ducklake_name_mapping:
    "CREATE TABLE ducklake_name_mapping(mapping_id BIGINT, column_id BIGINT, source_name VARCHAR, target_field_id BIGINT, parent_column BIGINT, is_partition BOOLEAN);",
  ducklake_partition_column:
    'CREATE TABLE ducklake_partition_column(partition_id BIGINT, table_id BIGINT, partition_key_index BIGINT, column_id BIGINT, "transform" VARCHAR);',
  ducklake_partition_info:
    "CREATE TABLE ducklake_partition_info(partition_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT);",
  ducklake_schema:
    "CREATE TABLE ducklake_schema(schema_id BIGINT PRIMARY KEY, schema_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_name VARCHAR, path VARCHAR, path_is_relative BOOLEAN);",
  ducklake_schema_versions:
    "CREATE TABLE ducklake_schema_versions(begin_snapshot BIGINT, schema_version BIGINT, table_id BIGINT);",
  ducklake_snapshot:
    "CREATE TABLE ducklake_snapshot(snapshot_id BIGINT PRIMARY KEY, snapshot_time TIMESTAMP WITH TIME ZONE, schema_version BIGINT, next_catalog_id BIGINT, next_file_id BIGINT);",
  ducklake_snapshot_changes:
    "CREATE TABLE ducklake_snapshot_changes(snapshot_id BIGINT PRIMARY KEY, changes_made VARCHAR, author VARCHAR, commit_message VARCHAR, commit_extra_info VARCHAR);",
  ducklake_sort_expression:
    "CREATE TABLE ducklake_sort_expression(sort_id BIGINT, table_id BIGINT, sort_key_index BIGINT, expression VARCHAR, dialect VARCHAR, sort_direction VARCHAR, null_order VARCHAR);",
  ducklake_sort_info:
    "CREATE TABLE ducklake_sort_info(sort_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT);",
  ducklake_table:
    "CREATE TABLE ducklake_table(table_id BIGINT, table_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, table_name VARCHAR, path VARCHAR, path_is_relative BOOLEAN);",
  ducklake_table_column_stats:
    "CREATE TABLE ducklake_table_column_stats(table_id BIGINT, column_id BIGINT, contains_null BOOLEAN, contains_nan BOOLEAN, min_value VARCHAR, max_value VARCHAR, extra_stats VARCHAR);",
  ducklake_table_stats:
    "CREATE TABLE ducklake_table_stats(table_id BIGINT, record_count BIGINT, next_row_id BIGINT, file_size_bytes BIGINT);",
  ducklake_tag:
    'CREATE TABLE ducklake_tag(object_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, "key" VARCHAR, "value" VARCHAR);',
  ducklake_view:
    'CREATE TABLE ducklake_view(view_id BIGINT, view_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, view_name VARCHAR, dialect VARCHAR, "sql" VARCHAR, column_aliases VARCHAR);',
};

/** `[schema_name, view_name]` of the internal views, in the order duckdb_views() lists them. */
export const SYSTEM_VIEWS: readonly (readonly [string, string])[] = [
  ["information_schema", "character_sets"],
  ["information_schema", "check_constraints"],
  ["information_schema", "columns"],
  ["information_schema", "constraint_column_usage"],
  ["information_schema", "constraint_table_usage"],
  ["information_schema", "key_column_usage"],
  ["information_schema", "referential_constraints"],
  ["information_schema", "schemata"],
  ["information_schema", "tables"],
  ["information_schema", "table_constraints"],
  ["information_schema", "views"],
  ["main", "duckdb_columns"],
  ["main", "duckdb_constraints"],
  ["main", "duckdb_databases"],
  ["main", "duckdb_indexes"],
  ["main", "duckdb_logs"],
  ["main", "duckdb_schemas"],
  ["main", "duckdb_tables"],
  ["main", "duckdb_types"],
  ["main", "duckdb_views"],
  ["main", "pragma_database_list"],
  ["main", "sqlite_master"],
  ["main", "sqlite_schema"],
  ["main", "sqlite_temp_master"],
  ["main", "sqlite_temp_schema"],
  ["pg_catalog", "pg_am"],
  ["pg_catalog", "pg_attrdef"],
  ["pg_catalog", "pg_attribute"],
  ["pg_catalog", "pg_class"],
  ["pg_catalog", "pg_collation"],
  ["pg_catalog", "pg_constraint"],
  ["pg_catalog", "pg_database"],
  ["pg_catalog", "pg_depend"],
  ["pg_catalog", "pg_description"],
  ["pg_catalog", "pg_enum"],
  ["pg_catalog", "pg_index"],
  ["pg_catalog", "pg_indexes"],
  ["pg_catalog", "pg_namespace"],
  ["pg_catalog", "pg_prepared_statements"],
  ["pg_catalog", "pg_proc"],
  ["pg_catalog", "pg_sequence"],
  ["pg_catalog", "pg_sequences"],
  ["pg_catalog", "pg_settings"],
  ["pg_catalog", "pg_tables"],
  ["pg_catalog", "pg_tablespace"],
  ["pg_catalog", "pg_type"],
  ["pg_catalog", "pg_views"],
];
