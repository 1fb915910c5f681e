/**
 * Catalog entries: `ducklake_schema`, `ducklake_table`, `ducklake_column`, `ducklake_schema_versions`,
 * `ducklake_view` and `ducklake_macro` rows as versioned records with their name-index entries.
 */
import { ValueKind } from "../../../codec.ts";
import { AlreadyExists, NotFound, quoteName } from "../../../errors.ts";
import { Kind, keys, NameSpace } from "../../../keys.ts";
import type {
  ColumnRecord,
  MacroRecord,
  SchemaRecord,
  SchemaVersionRecord,
  TableMetaRecord,
  TableRecord,
  ViewRecord,
} from "../../../records.ts";
import { macroEntryKind } from "../../../verbs/ops/macros.ts";
import type { Batch } from "./batch.ts";
import { bad, bool, type Cells, int, intOrNull, str, strOrNull } from "./cells.ts";
import { catalogId, checkBegin, liveTable, noEnd } from "./checks.ts";

export async function insertSchema(batch: Batch, r: Cells): Promise<void> {
  const ctx = batch.ctx;
  const id = catalogId(batch, int(r.schema_id, "schema_id"), "schema");
  checkBegin(batch, r.begin_snapshot, "schema");
  noEnd(r.end_snapshot, "schema");
  const name = str(r.schema_name, "schema_name");
  const existing = await ctx.lookupName(NameSpace.schema, 0, name);
  if (existing) throw new AlreadyExists(`schema ${quoteName(name)} already exists (id ${existing.id})`);
  ctx.putVersion<SchemaRecord>(Kind.schema, [id], ValueKind.schema, {
    schema_id: id,
    schema_uuid: str(r.schema_uuid, "schema_uuid"),
    begin_snapshot: batch.S,
    end_snapshot: null,
    schema_name: name,
    path: str(r.path, "path"),
    path_is_relative: bool(r.path_is_relative, "path_is_relative"),
  });
  await ctx.addNameEntry(NameSpace.schema, 0, { name, id, kind: "schema" });
}

export async function insertTable(batch: Batch, r: Cells): Promise<void> {
  const ctx = batch.ctx;
  const given = int(r.table_id, "table_id");
  // ALTER TABLE ... RENAME TO ends the table's row and inserts its next version under the same id and
  // uuid (columns, stats and files stay); any other insert must take a fresh catalog id.
  const previous = batch.endedTables.get(given);
  const id = previous ? given : catalogId(batch, given, "table");
  if (previous) {
    batch.endedTables.delete(given);
    if (str(r.table_uuid, "table_uuid") !== previous.table_uuid)
      throw bad(`table id ${id} is re-inserted with a different table_uuid`);
  }
  checkBegin(batch, r.begin_snapshot, "table");
  noEnd(r.end_snapshot, "table");
  const schema = await ctx.schemaById(int(r.schema_id, "schema_id"));
  const name = str(r.table_name, "table_name");
  await ctx.ensureRelationNameFree(schema, name);
  ctx.putVersion<TableRecord>(Kind.table, [id], ValueKind.table, {
    table_id: id,
    table_uuid: str(r.table_uuid, "table_uuid"),
    begin_snapshot: batch.S,
    end_snapshot: null,
    schema_id: schema.schema_id,
    table_name: name,
    path: str(r.path, "path"),
    path_is_relative: bool(r.path_is_relative, "path_is_relative"),
  });
  if (!previous)
    ctx.write(keys.current(Kind.tableMeta, id), ValueKind.tableMeta, {
      table_id: id,
      next_column_id: 1,
    } satisfies TableMetaRecord);
  await ctx.addNameEntry(NameSpace.relation, schema.schema_id, { name, id, kind: "table" });
  ctx.createdInSchemaIds.set(schema.schema_name.toLowerCase(), schema.schema_id);
  batch.touched.add(id);
}

export async function insertColumn(batch: Batch, r: Cells): Promise<void> {
  const ctx = batch.ctx;
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  const id = int(r.column_id, "column_id");
  checkBegin(batch, r.begin_snapshot, "column");
  noEnd(r.end_snapshot, "column");
  const k = keys.current(Kind.column, t, id);
  if (await ctx.read<ColumnRecord>(k, ValueKind.column, "column")) {
    throw bad(`column ${id} of table ${t} is already live`);
  }
  const parent = intOrNull(r.parent_column, "parent_column");
  if (
    parent !== null &&
    !(await ctx.read<ColumnRecord>(keys.current(Kind.column, t, parent), ValueKind.column, "column"))
  ) {
    throw new NotFound(`parent column ${parent} of table ${t} does not exist`);
  }
  ctx.putVersion<ColumnRecord>(Kind.column, [t, id], ValueKind.column, {
    column_id: id,
    table_id: t,
    column_order: int(r.column_order, "column_order"),
    column_name: str(r.column_name, "column_name"),
    column_type: str(r.column_type, "column_type"),
    initial_default: strOrNull(r.initial_default, "initial_default"),
    default_value: strOrNull(r.default_value, "default_value"),
    nulls_allowed: bool(r.nulls_allowed, "nulls_allowed"),
    parent_column: parent,
    default_value_type: strOrNull(r.default_value_type, "default_value_type"),
    default_value_dialect: strOrNull(r.default_value_dialect, "default_value_dialect"),
    begin_snapshot: batch.S,
    end_snapshot: null,
  });
  const mk = keys.current(Kind.tableMeta, t);
  const meta = (await ctx.read<TableMetaRecord>(mk, ValueKind.tableMeta, "table meta")) ?? {
    table_id: t,
    next_column_id: 1,
  };
  if (id + 1 > meta.next_column_id) ctx.write(mk, ValueKind.tableMeta, { ...meta, next_column_id: id + 1 });
}

export async function insertSchemaVersion(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  checkBegin(batch, r.begin_snapshot, "schema version");
  const s = batch.snap as NonNullable<Batch["snap"]>;
  const sv = int(r.schema_version, "schema_version");
  if (sv !== s.schema_version) throw bad(`schema_versions row ${sv} is not the commit's ${s.schema_version}`);
  batch.ctx.write(keys.current(Kind.schemaVersion, t, batch.S), ValueKind.schemaVersion, {
    begin_snapshot: batch.S,
    schema_version: sv,
    table_id: t,
  } satisfies SchemaVersionRecord);
}

export async function insertView(batch: Batch, r: Cells): Promise<void> {
  const ctx = batch.ctx;
  const given = int(r.view_id, "view_id");
  // ALTER VIEW … RENAME TO ends the view's row and inserts its next version under the same id and uuid.
  const previous = batch.endedViews.get(given);
  const id = previous ? given : catalogId(batch, given, "view");
  if (previous) {
    batch.endedViews.delete(given);
    if (str(r.view_uuid, "view_uuid") !== previous.view_uuid)
      throw bad(`view id ${id} is re-inserted with a different view_uuid`);
  }
  checkBegin(batch, r.begin_snapshot, "view");
  noEnd(r.end_snapshot, "view");
  const schema = await ctx.schemaById(int(r.schema_id, "schema_id"));
  const name = str(r.view_name, "view_name");
  await ctx.ensureRelationNameFree(schema, name);
  ctx.putVersion<ViewRecord>(Kind.view, [id], ValueKind.view, {
    view_id: id,
    view_uuid: str(r.view_uuid, "view_uuid"),
    begin_snapshot: batch.S,
    end_snapshot: null,
    schema_id: schema.schema_id,
    view_name: name,
    dialect: str(r.dialect, "dialect"),
    sql: str(r.sql, "sql"),
    column_aliases: strOrNull(r.column_aliases, "column_aliases"),
  });
  await ctx.addNameEntry(NameSpace.relation, schema.schema_id, { name, id, kind: "view" });
  ctx.createdInSchemaIds.set(schema.schema_name.toLowerCase(), schema.schema_id);
}

export async function insertMacro(batch: Batch, r: Cells): Promise<void> {
  const ctx = batch.ctx;
  const id = catalogId(batch, int(r.macro_id, "macro_id"), "macro");
  checkBegin(batch, r.begin_snapshot, "macro");
  noEnd(r.end_snapshot, "macro");
  const schema = await ctx.schemaById(int(r.schema_id, "schema_id"));
  const name = str(r.macro_name, "macro_name");
  const impls = (batch.macroImpls.get(id) ?? []).map((i) => {
    const key = `${id}/${i.impl_id}`;
    const params = batch.macroParams.get(key) ?? [];
    batch.macroParams.delete(key);
    return { ...i, x_parameters: params };
  });
  batch.macroImpls.delete(id);
  if (impls.length === 0) throw bad(`macro ${id} has no ducklake_macro_impl row`);
  // A scalar and a table macro of one name coexist, as in DuckDB's catalog.
  const kind = macroEntryKind(impls.every((i) => i.type === "table") ? "table" : "scalar");
  const existing = await ctx.lookupName(NameSpace.macro, schema.schema_id, name, kind);
  if (existing)
    throw new AlreadyExists(`macro ${quoteName(schema.schema_name)}.${quoteName(name)} already exists`);
  ctx.putVersion<MacroRecord>(Kind.macro, [id], ValueKind.macro, {
    macro_id: id,
    schema_id: schema.schema_id,
    macro_name: name,
    begin_snapshot: batch.S,
    end_snapshot: null,
    x_impls: impls,
  });
  await ctx.addNameEntry(NameSpace.macro, schema.schema_id, { name, id, kind });
  ctx.createdInSchemaIds.set(schema.schema_name.toLowerCase(), schema.schema_id);
}
