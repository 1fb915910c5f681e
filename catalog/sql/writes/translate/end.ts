/**
 * `UPDATE … SET end_snapshot`: versioned rows ended by key (tables, schemas, views, macros, columns,
 * files, partitions, sorts, tags).
 */
import { ValueKind } from "../../../codec.ts";
import { Unsupported } from "../../../errors.ts";
import { Kind, keys, NameSpace } from "../../../keys.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  DeleteFileRecord,
  MacroRecord,
  PartitionRecord,
  SchemaRecord,
  SortRecord,
  TableRecord,
  TagContainer,
  Versioned,
  ViewRecord,
} from "../../../records.ts";
import { endMacro } from "../../../verbs/ops/macros.ts";
import type { RowOp } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, int } from "./cells.ts";
import { liveTable } from "./checks.ts";
import { dropFiles } from "./delete-files.ts";

/** Versioned DuckLake tables whose rows are ended by `UPDATE … SET end_snapshot … WHERE <key> IN (…)`. */
const ENDABLE: Record<string, { kind: Kind; vk: ValueKind; key: string }> = {
  ducklake_column: { kind: Kind.column, vk: ValueKind.column, key: "table_id" },
  ducklake_data_file: { kind: Kind.dataFile, vk: ValueKind.dataFile, key: "table_id" },
  ducklake_delete_file: { kind: Kind.deleteFile, vk: ValueKind.deleteFile, key: "table_id" },
  ducklake_partition_info: { kind: Kind.partition, vk: ValueKind.partition, key: "table_id" },
  ducklake_sort_info: { kind: Kind.sort, vk: ValueKind.sort, key: "table_id" },
};

export async function end(batch: Batch, op: Extract<RowOp, { op: "end" }>): Promise<number> {
  if (op.endSnapshot !== batch.S) throw bad(`rows are ended at snapshot ${op.endSnapshot}, not ${batch.S}`);
  const ctx = batch.ctx;
  let n = 0;
  const spec = ENDABLE[op.table];
  if (spec && op.key === spec.key) {
    for (const t of op.ids) {
      batch.touched.add(t);
      for await (const kv of ctx.st.scan({ prefix: keys.current(spec.kind, t) })) {
        const rec = await ctx.read<Versioned & { table_id: number }>(kv.key, spec.vk, op.table);
        if (!rec) continue;
        const id = entityId(batch, op.table, rec);
        ctx.endVersion(spec.kind, [t, id], spec.vk, rec);
        n++;
      }
    }
    return n;
  }
  if (op.table === "ducklake_data_file" && op.key === "data_file_id") return dropFiles(batch, op.ids);
  if (op.table === "ducklake_table" && op.key === "table_id") {
    for (const t of op.ids) {
      const rec = await ctx.read<TableRecord>(keys.current(Kind.table, t), ValueKind.table, "table");
      if (!rec) continue;
      ctx.endVersion(Kind.table, [t], ValueKind.table, rec);
      await ctx.removeNameEntry(NameSpace.relation, rec.schema_id, rec.table_name);
      batch.endedTables.set(t, rec);
      batch.touched.add(t);
      n++;
    }
    return n;
  }
  if (op.table === "ducklake_schema" && op.key === "schema_id") {
    for (const id of op.ids) {
      const rec = await ctx.read<SchemaRecord>(keys.current(Kind.schema, id), ValueKind.schema, "schema");
      if (!rec) continue;
      ctx.endVersion(Kind.schema, [id], ValueKind.schema, rec);
      await ctx.removeNameEntry(NameSpace.schema, 0, rec.schema_name);
      ctx.droppedSchemaNames.set(id, rec.schema_name);
      n++;
    }
    return n;
  }
  if (op.table === "ducklake_macro" && op.key === "macro_id") {
    for (const id of op.ids) {
      const rec = await ctx.read<MacroRecord>(keys.current(Kind.macro, id), ValueKind.macro, "macro");
      if (!rec) continue;
      await endMacro(ctx, rec);
      n++;
    }
    return n;
  }
  if (op.table === "ducklake_view" && op.key === "view_id") {
    for (const v of op.ids) {
      const rec = await ctx.read<ViewRecord>(keys.current(Kind.view, v), ValueKind.view, "view");
      if (!rec) continue;
      ctx.endVersion(Kind.view, [v], ValueKind.view, rec);
      await ctx.removeNameEntry(NameSpace.relation, rec.schema_id, rec.view_name);
      batch.endedViews.set(v, rec);
      n++;
    }
    return n;
  }
  if (
    (op.table === "ducklake_tag" && op.key === "object_id") ||
    (op.table === "ducklake_column_tag" && op.key === "table_id")
  ) {
    const kind = op.table === "ducklake_tag" ? Kind.tag : Kind.columnTag;
    for (const id of op.ids) {
      for await (const kv of ctx.st.scan({ prefix: keys.current(kind, id) })) {
        const c = (await ctx.read<TagContainer>(kv.key, ValueKind.tagContainer, "tag")) ?? { entries: [] };
        const live = c.entries.filter((e) => e.end_snapshot === null).length;
        if (live === 0) continue;
        n += live;
        const entries = c.entries
          .filter((e) => !(e.end_snapshot === null && e.begin_snapshot === batch.S))
          .map((e) => (e.end_snapshot === null ? { ...e, end_snapshot: batch.S } : e));
        ctx.write(kv.key, ValueKind.tagContainer, { entries });
      }
    }
    return n;
  }
  throw new Unsupported(`ending ${op.table} rows by ${op.key} is not translated yet`);
}

function entityId(_batch: Batch, table: string, rec: Versioned): number {
  switch (table) {
    case "ducklake_column":
      return (rec as ColumnRecord).column_id;
    case "ducklake_data_file":
      return (rec as DataFileRecord).data_file_id;
    case "ducklake_delete_file":
      return (rec as DeleteFileRecord).delete_file_id;
    case "ducklake_partition_info":
      return (rec as PartitionRecord).partition_id;
    default:
      return (rec as SortRecord).sort_id;
  }
}

export async function endColumns(batch: Batch, op: Extract<RowOp, { op: "end_columns" }>): Promise<number> {
  if (op.endSnapshot !== batch.S)
    throw bad(`columns are ended at snapshot ${op.endSnapshot}, not ${batch.S}`);
  let n = 0;
  for (const row of op.rows) {
    const t = int(row[0], "tid");
    const c = int(row[1], "cid");
    await liveTable(batch, t);
    const rec = await batch.ctx.read<ColumnRecord>(
      keys.current(Kind.column, t, c),
      ValueKind.column,
      "column",
    );
    if (!rec) continue;
    batch.ctx.endVersion(Kind.column, [t, c], ValueKind.column, rec);
    n++;
  }
  return n;
}
