import { describe, expect, it } from "vitest";
import { newDataFileRecord, newDeleteFileRecord } from "../../catalog/file-records.ts";
import { DUCKLAKE_TABLES } from "../../catalog/reads/ducklake-tables.ts";
import type { DataFileRecord } from "../../catalog/records.ts";

const dataInput = {
  data_file_id: 7,
  table_id: 2,
  begin_snapshot: 5,
  path: "a.parquet",
  path_is_relative: true,
  file_format: "parquet",
  record_count: 10,
  file_size_bytes: 400,
  row_id_start: 20,
};

describe("record builders (the one constructor of file records, decision 0740)", () => {
  it("a new data file is live, with DuckLake's NULLs and no child rows for what the door leaves out", () => {
    expect(newDataFileRecord(dataInput)).toEqual({
      ...dataInput,
      end_snapshot: null,
      file_order: null,
      footer_size: null,
      partition_id: null,
      encryption_key: null,
      mapping_id: null,
      partial_max: null,
      x_column_stats: [],
      x_variant_stats: [],
      x_partition_values: [],
    });
  });

  it("internal flags are stored only when set, and an ended record given as input comes out live", () => {
    const plain = newDataFileRecord(dataInput);
    expect("x_row_ids_in_file" in plain).toBe(false);
    expect("x_row_id_start_shown" in plain).toBe(false);
    const ended: DataFileRecord = { ...plain, end_snapshot: 9 };
    const derived = newDataFileRecord({ ...ended, x_row_ids_in_file: true });
    expect(derived.end_snapshot).toBeNull();
    expect(derived.x_row_ids_in_file).toBe(true);
  });

  it("keeps DuckLake's column order in the stored form (the same bytes from every door)", () => {
    const columns = DUCKLAKE_TABLES.ducklake_data_file ?? [];
    expect(columns.length).toBeGreaterThan(10);
    expect(Object.keys(newDataFileRecord(dataInput)).slice(0, columns.length)).toEqual(columns);
  });

  it("a new delete file is live, NULLs for what the door leaves out, x_max_snapshot only when given", () => {
    const input = {
      delete_file_id: 8,
      table_id: 2,
      data_file_id: 7,
      begin_snapshot: 6,
      path: "d.parquet",
      path_is_relative: true,
      format: "parquet",
      delete_count: 3,
      file_size_bytes: 90,
    };
    expect(newDeleteFileRecord(input)).toEqual({
      ...input,
      end_snapshot: null,
      footer_size: null,
      encryption_key: null,
      partial_max: null,
    });
    expect("x_max_snapshot" in newDeleteFileRecord(input)).toBe(false);
    expect(Object.keys(newDeleteFileRecord(input))).toEqual(DUCKLAKE_TABLES.ducklake_delete_file);
    expect(newDeleteFileRecord({ ...input, x_max_snapshot: 9 }).x_max_snapshot).toBe(9);
  });
});
