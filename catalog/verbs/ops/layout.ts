/**
 * set/clear partitioning and sorting. A partition version with no columns means "unpartitioned". Both are `altered_table` and bump schema_version (DuckLake adds
 * every ALTER to new_tables); only partitioning writes a ducklake_schema_versions row and rotates the
 * inlined-data table (SET_PARTITION_KEY is a column-schema change, SET_SORT_KEY is not).
 */
import { ValueKind } from "../../codec.ts";
import { NotFound } from "../../errors.ts";
import { Kind, keys } from "../../keys.ts";
import type { PartitionRecord, SortRecord, TableRecord } from "../../records.ts";
import type { Assigned, VerbContext } from "../context.ts";
import type { VerbOf } from "../schema.ts";

function altered(ctx: VerbContext, table: TableRecord, partition: boolean): void {
  ctx.change("alteredTable", table.table_id);
  ctx.bumpSchema();
  ctx.touch(table.table_id);
  if (partition) {
    ctx.schemaVersionTables.add(table.table_id);
    ctx.inlineRotationTables.add(table.table_id);
  }
}

async function endLive<T extends { begin_snapshot: number; end_snapshot: number | null }>(
  ctx: VerbContext,
  kind: Kind,
  vk: ValueKind,
  tableId: number,
  idOf: (r: T) => number,
): Promise<number> {
  const live = await ctx.scan<T>(keys.current(kind, tableId), vk, "layout");
  for (const r of live) ctx.endVersion(kind, [tableId, idOf(r)], vk, r);
  return live.length;
}

export async function setPartitioning(ctx: VerbContext, v: VerbOf<"set_partitioning">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const cols = await ctx.columns(table.table_id);
  const columns = v.columns.map((c, i) => ({
    partition_key_index: i,
    column_id: ctx.column(table, cols, c.column).column_id,
    transform: c.transform ?? "identity",
  }));
  await endLive<PartitionRecord>(
    ctx,
    Kind.partition,
    ValueKind.partition,
    table.table_id,
    (r) => r.partition_id,
  );
  const partitionId = ctx.catalogId();
  ctx.putVersion<PartitionRecord>(Kind.partition, [table.table_id, partitionId], ValueKind.partition, {
    partition_id: partitionId,
    table_id: table.table_id,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    x_columns: columns,
  });
  altered(ctx, table, true);
  return { partitionId };
}

/**
 * Like DuckLake's RESET PARTITIONED BY, ends the partitioning and opens a new partition_info row with no
 * columns (a fresh catalog id): "unpartitioned from here on" is itself a partition version.
 */
export async function clearPartitioning(
  ctx: VerbContext,
  v: VerbOf<"clear_partitioning">,
): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const live = await ctx.scan<PartitionRecord>(
    keys.current(Kind.partition, table.table_id),
    ValueKind.partition,
    "partition",
  );
  if (!live.some((p) => p.x_columns.length > 0)) {
    throw new NotFound(`table ${table.table_id} is not partitioned`);
  }
  for (const r of live)
    ctx.endVersion(Kind.partition, [table.table_id, r.partition_id], ValueKind.partition, r);
  const partitionId = ctx.catalogId();
  ctx.putVersion<PartitionRecord>(Kind.partition, [table.table_id, partitionId], ValueKind.partition, {
    partition_id: partitionId,
    table_id: table.table_id,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    x_columns: [],
  });
  altered(ctx, table, true);
  return { partitionId };
}

export async function setSorting(ctx: VerbContext, v: VerbOf<"set_sorting">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  await endLive<SortRecord>(ctx, Kind.sort, ValueKind.sort, table.table_id, (r) => r.sort_id);
  const sortId = ctx.catalogId();
  ctx.putVersion<SortRecord>(Kind.sort, [table.table_id, sortId], ValueKind.sort, {
    sort_id: sortId,
    table_id: table.table_id,
    begin_snapshot: ctx.snapshotId,
    end_snapshot: null,
    x_expressions: v.keys.map((k, i) => ({
      sort_key_index: i,
      expression: k.expression,
      dialect: k.dialect ?? "duckdb",
      sort_direction: k.direction ?? "ASC",
      null_order: k.nulls ?? "NULLS_LAST",
    })),
  });
  altered(ctx, table, false);
  return { sortId };
}

export async function clearSorting(ctx: VerbContext, v: VerbOf<"clear_sorting">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const n = await endLive<SortRecord>(ctx, Kind.sort, ValueKind.sort, table.table_id, (r) => r.sort_id);
  if (n === 0) throw new NotFound(`table ${table.table_id} has no sort order`);
  altered(ctx, table, false);
  return {};
}
