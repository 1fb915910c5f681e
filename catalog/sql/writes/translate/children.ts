/**
 * Child rows read before any statement runs (macro implementations and parameters, partition columns,
 * sort expressions, file stats, partition values, variant stats, name-map columns), embedded in their
 * parent's record when it is inserted; `leftovers` names those no parent claimed.
 */
import { quoteName } from "../../../errors.ts";
import { DUCKLAKE_TABLES } from "../../../reads/ducklake-tables.ts";
import type { FileColumnStats } from "../../../records.ts";
import type { Batch } from "./batch.ts";
import { bad, bool, boolOrNull, type Cells, cellsOf, int, intOrNull, str, strOrNull } from "./cells.ts";

/** The stats cells a `ducklake_file_column_stats` and a `ducklake_file_variant_stats` row share. */
function fileStatCells(r: Cells): FileColumnStats {
  return {
    column_id: int(r.column_id, "column_id"),
    column_size_bytes: intOrNull(r.column_size_bytes, "column_size_bytes"),
    value_count: intOrNull(r.value_count, "value_count"),
    null_count: intOrNull(r.null_count, "null_count"),
    min_value: strOrNull(r.min_value, "min_value"),
    max_value: strOrNull(r.max_value, "max_value"),
    contains_nan: boolOrNull(r.contains_nan, "contains_nan"),
    extra_stats: strOrNull(r.extra_stats, "extra_stats"),
  };
}

export function collectFileChildren(batch: Batch): void {
  for (const op of batch.ops) {
    if (op.op !== "insert") continue;
    if (op.table === "ducklake_macro_impl") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_macro_impl ?? [])) {
        const m = int(r.macro_id, "macro_id");
        const list = batch.macroImpls.get(m) ?? [];
        const type = str(r.type, "type");
        if (type !== "scalar" && type !== "table")
          throw bad(`macro type ${quoteName(type)} is not scalar or table`);
        list.push({
          impl_id: int(r.impl_id, "impl_id"),
          dialect: str(r.dialect, "dialect"),
          sql: str(r.sql, "sql"),
          type,
          x_parameters: [],
        });
        batch.macroImpls.set(m, list);
      }
    } else if (op.table === "ducklake_macro_parameters") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_macro_parameters ?? [])) {
        const key = `${int(r.macro_id, "macro_id")}/${int(r.impl_id, "impl_id")}`;
        const list = batch.macroParams.get(key) ?? [];
        list.push({
          column_id: int(r.column_id, "column_id"),
          parameter_name: str(r.parameter_name, "parameter_name"),
          parameter_type: str(r.parameter_type, "parameter_type"),
          default_value: strOrNull(r.default_value, "default_value"),
          default_value_type: strOrNull(r.default_value_type, "default_value_type"),
        });
        batch.macroParams.set(key, list);
      }
    } else if (op.table === "ducklake_partition_column") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_partition_column ?? [])) {
        const p = int(r.partition_id, "partition_id");
        const list = batch.partitionColumns.get(p) ?? [];
        list.push({
          partition_key_index: int(r.partition_key_index, "partition_key_index"),
          column_id: int(r.column_id, "column_id"),
          transform: str(r.transform, "transform"),
        });
        batch.partitionColumns.set(p, list);
      }
    }
    if (op.table === "ducklake_sort_expression") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_sort_expression ?? [])) {
        const id = int(r.sort_id, "sort_id");
        const direction = str(r.sort_direction, "sort_direction");
        const nulls = str(r.null_order, "null_order");
        if (direction !== "ASC" && direction !== "DESC")
          throw bad(`sort direction ${quoteName(direction)} is not ASC or DESC`);
        if (nulls !== "NULLS_FIRST" && nulls !== "NULLS_LAST")
          throw bad(`null order ${quoteName(nulls)} is not NULLS_FIRST or NULLS_LAST`);
        const list = batch.sortExpressions.get(id) ?? [];
        list.push({
          tableId: int(r.table_id, "table_id"),
          expr: {
            sort_key_index: int(r.sort_key_index, "sort_key_index"),
            expression: str(r.expression, "expression"),
            dialect: str(r.dialect, "dialect"),
            sort_direction: direction,
            null_order: nulls,
          },
        });
        batch.sortExpressions.set(id, list);
      }
    }
    if (op.table === "ducklake_file_column_stats") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_file_column_stats ?? [])) {
        const f = int(r.data_file_id, "data_file_id");
        const list = batch.fileStats.get(f) ?? [];
        list.push(fileStatCells(r));
        batch.fileStats.set(f, list);
      }
    } else if (op.table === "ducklake_name_mapping") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_name_mapping ?? [])) {
        const m = int(r.mapping_id, "mapping_id");
        const list = batch.nameMapColumns.get(m) ?? [];
        list.push({
          column_id: int(r.column_id, "column_id"),
          source_name: str(r.source_name, "source_name"),
          target_field_id: int(r.target_field_id, "target_field_id"),
          parent_column: intOrNull(r.parent_column, "parent_column"),
          is_partition: bool(r.is_partition, "is_partition"),
        });
        batch.nameMapColumns.set(m, list);
      }
    } else if (op.table === "ducklake_file_variant_stats") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_file_variant_stats ?? [])) {
        const f = int(r.data_file_id, "data_file_id");
        const list = batch.variantStats.get(f) ?? [];
        list.push({
          ...fileStatCells(r),
          variant_path: str(r.variant_path, "variant_path"),
          shredded_type: strOrNull(r.shredded_type, "shredded_type"),
        });
        batch.variantStats.set(f, list);
      }
    } else if (op.table === "ducklake_file_partition_value") {
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_file_partition_value ?? [])) {
        const f = int(r.data_file_id, "data_file_id");
        const list = batch.partitionValues.get(f) ?? [];
        list.push({
          partition_key_index: int(r.partition_key_index, "partition_key_index"),
          partition_value: strOrNull(r.partition_value, "partition_value"),
        });
        batch.partitionValues.set(f, list);
      }
    }
  }
}

/** Child rows (file stats, partition values and columns, macro impls and parameters) no parent claimed. */
export function leftovers(batch: Batch): string[] {
  return [
    ...[...batch.fileStats.keys(), ...batch.partitionValues.keys(), ...batch.variantStats.keys()].map(
      (f) => `data file ${f}`,
    ),
    ...[...batch.partitionColumns.keys()].map((p) => `partition ${p}`),
    ...[...batch.sortExpressions.keys()].map((x) => `sort ${x}`),
    ...[...batch.macroImpls.keys()].map((m) => `macro ${m}`),
    ...[...batch.macroParams.keys()].map((k) => `macro impl ${k}`),
  ];
}
