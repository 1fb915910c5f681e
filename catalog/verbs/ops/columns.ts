/**
 * add_column / rename_column / alter_column / drop_column. Column ids come from the table's own counter
 * and are never reused; every change is a new column version and an `altered_table` entry. Shape changes
 * (add, drop, rename, type) also rotate the table's inlined-data table, as DuckLake does.
 */
import { decodeValue, ValueKind } from "../../codec.ts";
import { AlreadyExists, Constraint, InvalidRequest, quoteName, Unsupported } from "../../errors.ts";
import { scanInlineRows } from "../../inline-floor.ts";
import { foldName, Kind, keys } from "../../keys.ts";
import type {
  ColumnRecord,
  InlineRowRecord,
  PartitionRecord,
  TableMetaRecord,
  TableRecord,
} from "../../records.ts";
import { normalizeType } from "../../types.ts";
import { canPromote, columnTree, parseValue } from "../../values/index.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";
import { columnRows } from "./columns-build.ts";

function altered(ctx: VerbContext, table: TableRecord, rotate: boolean): void {
  ctx.change("alteredTable", table.table_id);
  ctx.bumpSchema();
  ctx.touch(table.table_id);
  ctx.schemaVersionTables.add(table.table_id);
  if (rotate) ctx.inlineRotationTables.add(table.table_id);
}

async function tableMeta(ctx: VerbContext, tableId: number): Promise<TableMetaRecord> {
  const meta = await ctx.read<TableMetaRecord>(
    keys.current(Kind.tableMeta, tableId),
    ValueKind.tableMeta,
    "table meta",
  );
  if (!meta) throw new InvalidRequest(`table ${tableId} has no column counter`);
  return meta;
}

export async function addColumn(ctx: VerbContext, v: VerbOf<"add_column">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const cols = await ctx.columns(table.table_id);
  let parent: ColumnRecord | undefined;
  if (v.parent !== undefined) {
    parent = ctx.column(table, cols, v.parent);
    if (parent.column_type !== "struct") {
      throw new Constraint(
        `fields can only be added to a struct; column ${parent.column_id} is a ${parent.column_type}`,
      );
    }
  }
  const parentId = parent?.column_id ?? null;
  if (cols.some((c) => c.parent_column === parentId && foldName(c.column_name) === foldName(v.column.name))) {
    throw new AlreadyExists(`column ${quoteName(v.column.name)} already exists in table ${table.table_id}`);
  }
  const meta = await tableMeta(ctx, table.table_id);
  const { rows, nextId } = columnRows(
    table.table_id,
    [v.column],
    parentId,
    meta.next_column_id,
    ctx.snapshotId,
    true,
  );
  for (const row of rows) ctx.putVersion(Kind.column, [table.table_id, row.column_id], ValueKind.column, row);
  ctx.write(keys.current(Kind.tableMeta, table.table_id), ValueKind.tableMeta, {
    ...meta,
    next_column_id: nextId,
  });
  altered(ctx, table, true);
  return { columnId: rows[0]?.column_id ?? meta.next_column_id, columnIds: rows.map((r) => r.column_id) };
}

export async function renameColumn(ctx: VerbContext, v: VerbOf<"rename_column">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const cols = await ctx.columns(table.table_id);
  const col = ctx.column(table, cols, v.column);
  const clash = cols.find(
    (c) =>
      c.parent_column === col.parent_column &&
      c.column_id !== col.column_id &&
      foldName(c.column_name) === foldName(v.newName),
  );
  if (clash)
    throw new AlreadyExists(`column ${quoteName(v.newName)} already exists in table ${table.table_id}`);
  ctx.replaceVersion(Kind.column, [table.table_id, col.column_id], ValueKind.column, col, {
    ...col,
    column_name: v.newName,
  });
  altered(ctx, table, true);
  return { columnId: col.column_id };
}

/**
 * A type change must hold for every live inlined row, as DuckDB's cast would on reading them: each row's
 * value is re-checked under the new type (the work is bounded by MAX_INLINED_ROWS_PER_TABLE). Any type
 * reads as json except text that is not a JSON document.
 */
async function checkInlinedRows(
  ctx: VerbContext,
  table: TableRecord,
  cols: ColumnRecord[],
  col: ColumnRecord,
  type: string,
): Promise<void> {
  if (type === "json" && col.column_type !== "varchar") return;
  let top = col;
  while (top.parent_column !== null) {
    const parent = cols.find((c) => c.column_id === top.parent_column);
    if (!parent) break;
    top = parent;
  }
  const changed = cols.map((c) => (c.column_id === col.column_id ? { ...c, column_type: type } : c));
  const changedTop = changed.find((c) => c.column_id === top.column_id) ?? top;
  const node = columnTree(changed, changedTop);
  for await (const kv of scanInlineRows(ctx.st, table.table_id)) {
    const row = decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row");
    if (row.end_snapshot !== null || !(top.column_name in row.values)) continue;
    parseValue(node, row.values[top.column_name] ?? null, `inlined row ${row.row_id}.${top.column_name}`);
  }
}

export async function alterColumn(ctx: VerbContext, v: VerbOf<"alter_column">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const cols = await ctx.columns(table.table_id);
  const col = ctx.column(table, cols, v.column);
  const next: ColumnRecord = { ...col };
  let shape = false;
  if (v.type !== undefined) {
    const { type, nested } = normalizeType(v.type);
    if (nested || col.column_type === "struct" || col.column_type === "list" || col.column_type === "map") {
      throw new Unsupported(
        `changing the type of nested column ${col.column_id} (or to a nested type); add a new column instead`,
      );
    }
    shape = type !== col.column_type;
    if (shape) {
      if (!canPromote(col.column_type, type)) {
        throw new Unsupported(
          `column ${col.column_id} of table ${table.table_id} cannot change from ${col.column_type} to ${type}: DuckLake allows only widening type changes`,
        );
      }
      await checkInlinedRows(ctx, table, cols, col, type);
    }
    next.column_type = type;
  }
  if (v.default !== undefined) {
    next.default_value = v.default ?? "NULL";
    next.default_value_type = v.default === null ? "literal" : (v.defaultType ?? "literal");
  }
  if (v.nullable !== undefined) next.nulls_allowed = v.nullable;
  if (v.type === undefined && v.default === undefined && v.nullable === undefined) {
    throw new InvalidRequest("alter_column needs at least one of type, default, nullable");
  }
  ctx.replaceVersion(Kind.column, [table.table_id, col.column_id], ValueKind.column, col, next);
  altered(ctx, table, shape);
  return { columnId: col.column_id };
}

export async function dropColumn(ctx: VerbContext, v: VerbOf<"drop_column">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const cols = await ctx.columns(table.table_id);
  const col = ctx.column(table, cols, v.column);
  if (col.parent_column === null && cols.filter((c) => c.parent_column === null).length === 1) {
    throw new Constraint(
      `column ${col.column_id} is the only column of table ${table.table_id}; drop the table instead`,
    );
  }
  const siblings = cols.filter((c) => c.parent_column === col.parent_column);
  if (col.parent_column !== null && siblings.length === 1) {
    throw new Constraint(`field ${col.column_id} is the only field of its struct; drop the struct instead`);
  }
  const partitions = await ctx.scan<PartitionRecord>(
    keys.current(Kind.partition, table.table_id),
    ValueKind.partition,
    "partition",
  );
  if (partitions.some((p) => p.x_columns.some((pc) => pc.column_id === col.column_id))) {
    throw new Constraint(
      `column ${col.column_id} is a partition key of table ${table.table_id}; clear the partitioning first`,
    );
  }
  const doomed = new Set<number>([col.column_id]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of cols) {
      if (c.parent_column !== null && doomed.has(c.parent_column) && !doomed.has(c.column_id)) {
        doomed.add(c.column_id);
        grew = true;
      }
    }
  }
  for (const c of cols)
    if (doomed.has(c.column_id))
      ctx.endVersion(Kind.column, [table.table_id, c.column_id], ValueKind.column, c);
  altered(ctx, table, true);
  return { columnIds: [...doomed] };
}
