/** create_table / rename_table / move_table / drop_table. A rename writes a new version with the same id. */

import { ValueKind } from "../../codec.ts";
import { Kind, keys, NameSpace } from "../../keys.ts";
import { readTableOption } from "../../options.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  DeleteFileRecord,
  InlinedTableRecord,
  OptionRecord,
  PartitionRecord,
  SchemaVersionRecord,
  SortRecord,
  TableMetaRecord,
  TableRecord,
  TagContainer,
} from "../../records.ts";
import { type Assigned, MAIN_SCHEMA, pathFor, type VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";
import { columnRows } from "./columns-build.ts";
import { endTags } from "./schemas.ts";

export async function createTable(ctx: VerbContext, v: VerbOf<"create_table">): Promise<Assigned> {
  const schema = await ctx.schema(v.schema ?? MAIN_SCHEMA);
  await ctx.ensureRelationNameFree(schema, v.name);
  const tableId = ctx.catalogId();
  const uuid = ctx.env.uuid();
  const { rows, nextId } = columnRows(tableId, v.columns, null, 1, ctx.snapshotId, false);
  ctx.putVersion<TableRecord>(Kind.table, [tableId], ValueKind.table, {
    table_id: tableId,
    table_uuid: uuid,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    schema_id: schema.schema_id,
    table_name: v.name,
    path: pathFor(v.name, uuid),
    path_is_relative: true,
  });
  for (const row of rows) ctx.putVersion(Kind.column, [tableId, row.column_id], ValueKind.column, row);
  ctx.write(keys.current(Kind.tableMeta, tableId), ValueKind.tableMeta, {
    table_id: tableId,
    next_column_id: nextId,
  } satisfies TableMetaRecord);
  await ctx.addNameEntry(NameSpace.relation, schema.schema_id, { name: v.name, id: tableId, kind: "table" });
  ctx.createdName("createdTables", { schema: schema.schema_name, name: v.name }, schema.schema_id);
  ctx.bumpSchema();
  ctx.touch(tableId);
  ctx.schemaVersionTables.add(tableId);
  ctx.inlineRotationTables.add(tableId);
  return { tableId, columnIds: rows.map((r) => r.column_id) };
}

export async function renameTable(ctx: VerbContext, v: VerbOf<"rename_table">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const schema = await ctx.schemaById(table.schema_id);
  if (v.newName.toLowerCase() !== table.table_name.toLowerCase())
    await ctx.ensureRelationNameFree(schema, v.newName);
  await ctx.removeNameEntry(NameSpace.relation, schema.schema_id, table.table_name);
  await ctx.addNameEntry(NameSpace.relation, schema.schema_id, {
    name: v.newName,
    id: table.table_id,
    kind: "table",
  });
  ctx.replaceVersion(Kind.table, [table.table_id], ValueKind.table, table, {
    ...table,
    table_name: v.newName,
  });
  ctx.createdName("createdTables", { schema: schema.schema_name, name: v.newName }, schema.schema_id);
  ctx.bumpSchema();
  ctx.touch(table.table_id);
  ctx.schemaVersionTables.add(table.table_id);
  ctx.inlineRotationTables.add(table.table_id);
  return { tableId: table.table_id };
}

export async function moveTable(ctx: VerbContext, v: VerbOf<"move_table">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const from = await ctx.schemaById(table.schema_id);
  const to = await ctx.schema(v.toSchema);
  if (to.schema_id !== from.schema_id) {
    await ctx.ensureRelationNameFree(to, table.table_name);
    await ctx.removeNameEntry(NameSpace.relation, from.schema_id, table.table_name);
    await ctx.addNameEntry(NameSpace.relation, to.schema_id, {
      name: table.table_name,
      id: table.table_id,
      kind: "table",
    });
    ctx.replaceVersion(Kind.table, [table.table_id], ValueKind.table, table, {
      ...table,
      schema_id: to.schema_id,
    });
  }
  ctx.createdName("createdTables", { schema: to.schema_name, name: table.table_name }, to.schema_id);
  ctx.bumpSchema();
  ctx.touch(table.table_id);
  ctx.schemaVersionTables.add(table.table_id);
  return { tableId: table.table_id };
}

/** Ends every live row of a per-table versioned kind (columns, files, partitions, sorts). */
async function endAll<T extends { begin_snapshot: number; end_snapshot: number | null }>(
  ctx: VerbContext,
  kind: Kind,
  vk: ValueKind,
  tableId: number,
  idOf: (r: T) => number,
): Promise<void> {
  for (const rec of await ctx.scan<T>(keys.current(kind, tableId), vk, "table content")) {
    ctx.endVersion(kind, [tableId, idOf(rec)], vk, rec);
  }
}

export async function dropTable(ctx: VerbContext, v: VerbOf<"drop_table">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  ctx.endVersion(Kind.table, [t], ValueKind.table, table);
  await endAll<ColumnRecord>(ctx, Kind.column, ValueKind.column, t, (r) => r.column_id);
  await endAll<DataFileRecord>(ctx, Kind.dataFile, ValueKind.dataFile, t, (r) => r.data_file_id);
  await endAll<DeleteFileRecord>(ctx, Kind.deleteFile, ValueKind.deleteFile, t, (r) => r.delete_file_id);
  await endAll<PartitionRecord>(ctx, Kind.partition, ValueKind.partition, t, (r) => r.partition_id);
  await endAll<SortRecord>(ctx, Kind.sort, ValueKind.sort, t, (r) => r.sort_id);
  await endTags(ctx, t);
  for await (const kv of ctx.st.scan({ prefix: keys.current(Kind.columnTag, t) })) {
    const c = (await ctx.read<TagContainer>(kv.key, ValueKind.tagContainer, "column tag")) ?? { entries: [] };
    const entries = c.entries
      .filter((e) => !(e.end_snapshot === null && e.begin_snapshot === ctx.snapshotId))
      .map((e) => (e.end_snapshot === null ? { ...e, end_snapshot: ctx.snapshotId } : e));
    ctx.write(kv.key, ValueKind.tagContainer, { entries });
  }
  await ctx.removeNameEntry(NameSpace.relation, table.schema_id, table.table_name);
  ctx.change("droppedTables", t);
  ctx.bumpSchema();
  ctx.touch(t);
  return { tableId: t };
}

/** The effective `data_inlining_row_limit` option (table scope, then schema, then global) as a number. */
async function inliningLimit(ctx: VerbContext, table: TableRecord, isNew: boolean): Promise<number | null> {
  // A table created by this commit cannot have table-scoped options yet: skip the read.
  const value = await readTableOption(
    async (scope, id) =>
      (await ctx.read<OptionRecord>(keys.current(Kind.option, scope, id), ValueKind.option, "option"))
        ?.values,
    isNew ? undefined : table.table_id,
    table.schema_id,
    "data_inlining_row_limit",
  );
  return value === undefined ? null : Number(value);
}

/**
 * Registers `ducklake_inlined_data_<tid>_<sv>` (at creation and after each column-shape change), as
 * DuckLake does unless data inlining is switched off (`data_inlining_row_limit` 0) for the table.
 */
export async function registerInlinedTable(
  ctx: VerbContext,
  tableId: number,
  schemaVersion: number,
): Promise<void> {
  const table = await ctx.read<TableRecord>(keys.current(Kind.table, tableId), ValueKind.table, "table");
  if (!table) return; // dropped by this very commit
  if ((await inliningLimit(ctx, table, table.begin_snapshot === ctx.snapshotId)) === 0) return;
  ctx.write(keys.current(Kind.inlinedTable, tableId, schemaVersion), ValueKind.inlinedTable, {
    table_id: tableId,
    table_name: `ducklake_inlined_data_${tableId}_${schemaVersion}`,
    schema_version: schemaVersion,
    x_begin_snapshot: ctx.snapshotId,
  } satisfies InlinedTableRecord);
}

export function writeSchemaVersionRow(ctx: VerbContext, tableId: number, schemaVersion: number): void {
  ctx.write(keys.current(Kind.schemaVersion, tableId, ctx.snapshotId), ValueKind.schemaVersion, {
    begin_snapshot: ctx.snapshotId,
    schema_version: schemaVersion,
    table_id: tableId,
  } satisfies SchemaVersionRecord);
}
