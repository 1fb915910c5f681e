/**
 * An independent model of the DuckLake 1.0 tables for the differential test: plain arrays of rows with
 * the spec's column names, changed the way DuckLake's own SQL changes them (INSERT a row; "end" = UPDATE
 * end_snapshot, or DELETE when the row was inserted by the same snapshot). It shares no code with
 * catalog/ — only the verb vocabulary.
 */
export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

interface Table {
  id: number;
  schemaId: number;
  name: string;
  nextColumnId: number;
  nextRowId: number;
  recordCount: number;
  fileBytes: number;
}

export class Model {
  snapshots: Row[] = [{ snapshot_id: 0, schema_version: 0, next_catalog_id: 1, next_file_id: 0 }];
  rows: Record<string, Row[]> = {
    ducklake_schema: [
      {
        schema_id: 0,
        begin_snapshot: 0,
        end_snapshot: null,
        schema_name: "main",
        path: "main/",
        path_is_relative: true,
      },
    ],
    ducklake_table: [],
    ducklake_view: [],
    ducklake_column: [],
    ducklake_data_file: [],
    ducklake_delete_file: [],
    ducklake_tag: [],
    ducklake_table_stats: [],
    ducklake_schema_versions: [],
  };
  tables = new Map<number, Table>();

  // Per-commit scratch.
  private s = 0;
  private nextCatalog = 1;
  private nextFile = 0;
  private structural = false;
  private versionTables = new Set<number>();
  private inlineOnly = new Set<number>();
  private fileTables = new Set<number>();

  get head(): Row {
    return this.snapshots[this.snapshots.length - 1] as Row;
  }

  begin(): void {
    const h = this.head;
    this.s = (h.snapshot_id as number) + 1;
    this.nextCatalog = h.next_catalog_id as number;
    this.nextFile = h.next_file_id as number;
    this.structural = false;
    this.versionTables = new Set();
    this.inlineOnly = new Set();
    this.fileTables = new Set();
  }

  end(): void {
    const sv = (this.head.schema_version as number) + (this.structural ? 1 : 0);
    for (const t of this.versionTables)
      this.rows.ducklake_schema_versions?.push({ begin_snapshot: this.s, schema_version: sv, table_id: t });
    for (const t of this.inlineOnly) if (!this.fileTables.has(t)) this.nextFile++;
    this.snapshots.push({
      snapshot_id: this.s,
      schema_version: sv,
      next_catalog_id: this.nextCatalog,
      next_file_id: this.nextFile,
    });
  }

  private live(table: string, pred: (r: Row) => boolean): Row[] {
    return (this.rows[table] ?? []).filter((r) => r.end_snapshot === null && pred(r));
  }

  /** UPDATE … SET end_snapshot = S, or DELETE when the row was born in S. */
  private endRow(table: string, row: Row): void {
    const list = this.rows[table] ?? [];
    if (row.begin_snapshot === this.s) list.splice(list.indexOf(row), 1);
    else row.end_snapshot = this.s;
  }

  private insert(table: string, row: Row): void {
    this.rows[table]?.push({ ...row, begin_snapshot: this.s, end_snapshot: null });
  }

  liveSchemas(): Row[] {
    return this.live("ducklake_schema", () => true);
  }
  liveTables(): Row[] {
    return this.live("ducklake_table", () => true);
  }
  liveViews(): Row[] {
    return this.live("ducklake_view", () => true);
  }
  liveColumns(tableId: number): Row[] {
    return this.live("ducklake_column", (r) => r.table_id === tableId);
  }
  liveFiles(tableId: number): Row[] {
    return this.live("ducklake_data_file", (r) => r.table_id === tableId);
  }
  schemaName(id: number): string {
    return this.liveSchemas().find((r) => r.schema_id === id)?.schema_name as string;
  }
  nameTaken(schemaId: number, name: string): boolean {
    const n = name.toLowerCase();
    return (
      this.liveTables().some(
        (t) => t.schema_id === schemaId && (t.table_name as string).toLowerCase() === n,
      ) ||
      this.liveViews().some((v) => v.schema_id === schemaId && (v.view_name as string).toLowerCase() === n)
    );
  }

  createSchema(name: string): void {
    const id = this.nextCatalog++;
    this.insert("ducklake_schema", {
      schema_id: id,
      schema_name: name,
      path: `${name}/`,
      path_is_relative: true,
    });
    this.structural = true;
  }

  dropSchema(id: number): void {
    for (const r of this.live("ducklake_schema", (x) => x.schema_id === id))
      this.endRow("ducklake_schema", r);
    this.structural = true;
  }

  createTable(schemaId: number, name: string, columnNames: string[]): void {
    const id = this.nextCatalog++;
    this.insert("ducklake_table", {
      table_id: id,
      schema_id: schemaId,
      table_name: name,
      path: `${name}/`,
      path_is_relative: true,
    });
    let c = 1;
    for (const col of columnNames) this.insertColumn(id, c++, col);
    this.tables.set(id, { id, schemaId, name, nextColumnId: c, nextRowId: 0, recordCount: 0, fileBytes: 0 });
    this.structural = true;
    this.versionTables.add(id);
  }

  private insertColumn(tableId: number, id: number, name: string): void {
    this.insert("ducklake_column", {
      column_id: id,
      table_id: tableId,
      column_order: id,
      column_name: name,
      column_type: "int64",
      initial_default: null,
      default_value: "NULL",
      nulls_allowed: true,
      parent_column: null,
      default_value_type: "literal",
      default_value_dialect: "duckdb",
    });
  }

  renameTable(tableId: number, name: string): void {
    const row = this.live("ducklake_table", (r) => r.table_id === tableId)[0] as Row;
    this.endRow("ducklake_table", row);
    const { begin_snapshot: _b, end_snapshot: _e, ...rest } = row;
    this.insert("ducklake_table", { ...rest, table_name: name });
    this.structural = true;
    this.versionTables.add(tableId);
  }

  dropTable(tableId: number): void {
    for (const t of ["ducklake_table", "ducklake_column", "ducklake_data_file", "ducklake_delete_file"]) {
      for (const r of this.live(t, (x) => x.table_id === tableId)) this.endRow(t, r);
    }
    for (const r of this.live("ducklake_tag", (x) => x.object_id === tableId)) this.endRow("ducklake_tag", r);
    this.structural = true;
  }

  addColumn(tableId: number, name: string): void {
    const t = this.tables.get(tableId) as Table;
    this.insertColumn(tableId, t.nextColumnId++, name);
    this.structural = true;
    this.versionTables.add(tableId);
  }

  renameColumn(tableId: number, columnId: number, name: string): void {
    const row = this.live(
      "ducklake_column",
      (r) => r.table_id === tableId && r.column_id === columnId,
    )[0] as Row;
    this.endRow("ducklake_column", row);
    const { begin_snapshot: _b, end_snapshot: _e, ...rest } = row;
    this.insert("ducklake_column", { ...rest, column_name: name });
    this.structural = true;
    this.versionTables.add(tableId);
  }

  dropColumn(tableId: number, columnId: number): void {
    for (const r of this.live("ducklake_column", (x) => x.table_id === tableId && x.column_id === columnId))
      this.endRow("ducklake_column", r);
    this.structural = true;
    this.versionTables.add(tableId);
  }

  /** DuckLake's stats are current rows: the first write INSERTs, later ones UPDATE in place. */
  private writeStats(t: Table): void {
    const values = { record_count: t.recordCount, next_row_id: t.nextRowId, file_size_bytes: t.fileBytes };
    const row = this.live("ducklake_table_stats", (x) => x.table_id === t.id)[0];
    if (row) Object.assign(row, values);
    else this.insert("ducklake_table_stats", { table_id: t.id, ...values });
  }

  registerDataFile(tableId: number, path: string, n: number): void {
    const t = this.tables.get(tableId) as Table;
    this.insert("ducklake_data_file", {
      data_file_id: this.nextFile++,
      table_id: tableId,
      file_order: null,
      path,
      path_is_relative: true,
      file_format: "parquet",
      record_count: n,
      file_size_bytes: n * 10,
      footer_size: null,
      row_id_start: t.nextRowId,
      partition_id: null,
      encryption_key: null,
      mapping_id: null,
      partial_max: null,
    });
    t.nextRowId += n;
    t.recordCount += n;
    t.fileBytes += n * 10;
    this.writeStats(t);
    this.fileTables.add(tableId);
  }

  registerDeleteFile(tableId: number, dataFileId: number, path: string): void {
    for (const r of this.live("ducklake_delete_file", (x) => x.data_file_id === dataFileId))
      this.endRow("ducklake_delete_file", r);
    this.insert("ducklake_delete_file", {
      delete_file_id: this.nextFile++,
      table_id: tableId,
      data_file_id: dataFileId,
      path,
      path_is_relative: true,
      format: "parquet",
      delete_count: 1,
      file_size_bytes: 1,
      footer_size: null,
      encryption_key: null,
      partial_max: null,
    });
  }

  inlineInsert(tableId: number, n: number): void {
    const t = this.tables.get(tableId) as Table;
    t.nextRowId += n;
    t.recordCount += n;
    this.writeStats(t);
    this.inlineOnly.add(tableId);
  }

  comment(objectId: number, text: string): void {
    for (const r of this.live("ducklake_tag", (x) => x.object_id === objectId && x.key === "comment"))
      this.endRow("ducklake_tag", r);
    this.insert("ducklake_tag", { object_id: objectId, key: "comment", value: text });
    this.structural = true;
  }

  createView(schemaId: number, name: string, sql: string): void {
    this.insert("ducklake_view", {
      view_id: this.nextCatalog++,
      schema_id: schemaId,
      view_name: name,
      dialect: "duckdb",
      sql,
      column_aliases: "",
    });
    this.structural = true;
  }

  dropView(viewId: number): void {
    for (const r of this.live("ducklake_view", (x) => x.view_id === viewId)) this.endRow("ducklake_view", r);
    for (const r of this.live("ducklake_tag", (x) => x.object_id === viewId)) this.endRow("ducklake_tag", r);
    this.structural = true;
  }

  /** The table as it stood when snapshot `s` was the head. */
  asOf(table: string, s: number): Row[] {
    if (table === "ducklake_snapshot") return this.snapshots.filter((r) => (r.snapshot_id as number) <= s);
    const rows = this.rows[table] ?? [];
    if (table === "ducklake_schema_versions") return rows.filter((r) => (r.begin_snapshot as number) <= s);
    const shown = rows
      .filter((r) => (r.begin_snapshot as number) <= s)
      .map((r) =>
        r.end_snapshot !== null && (r.end_snapshot as number) > s ? { ...r, end_snapshot: null } : { ...r },
      );
    if (table === "ducklake_table_stats") {
      return shown
        .filter((r) => r.end_snapshot === null)
        .map((r) => {
          const { begin_snapshot: _b, end_snapshot: _e, ...rest } = r as Row;
          return rest;
        });
    }
    return shown;
  }
}
