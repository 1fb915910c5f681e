/**
 * DuckLake's name maps (`ducklake_column_mapping` + `ducklake_name_mapping`): how the columns of a Parquet
 * file registered by `ducklake_add_data_files` (no field ids, its own column names) map to a table's field
 * ids. One home for the record both commit paths build: the client-side batch's rows and the server-side
 * commit's staged tree (docs/decisions/0600-staged-name-maps.md).
 */
import { ValueKind } from "../../codec.ts";
import { InvalidRequest, NotFound } from "../../errors.ts";
import { Kind, keys } from "../../keys.ts";
import type { MappingRecord, TableRecord } from "../../records.ts";
import type { VerbContext } from "../context.ts";

/** The one mapping type DuckLake 1.5.5 writes (`DuckLakeTransactionState::GetNewNameMaps`). */
export const MAP_BY_NAME = "map_by_name";

export type NameMapColumn = MappingRecord["x_names"][number];

/** One entry of a name map's tree: a source column (or nested field) of the file and its target field id. */
export interface NameMapEntry {
  sourceName: string;
  targetFieldId: number;
  hivePartition: boolean;
  children: NameMapEntry[];
}

/**
 * A tree as DuckLake flattens it into `ducklake_name_mapping`: depth first, each entry before its children,
 * `column_id` counting from 0 in that order and `parent_column` the parent's `column_id`.
 */
export function flattenNameMap(roots: readonly NameMapEntry[]): NameMapColumn[] {
  const out: NameMapColumn[] = [];
  const visit = (e: NameMapEntry, parent: number | null): void => {
    const id = out.length;
    out.push({
      column_id: id,
      source_name: e.sourceName,
      target_field_id: e.targetFieldId,
      parent_column: parent,
      is_partition: e.hivePartition,
    });
    for (const c of e.children) visit(c, id);
  };
  for (const r of roots) visit(r, null);
  return out;
}

/**
 * Stores a new name map of a live table. Its columns must be the flattening DuckLake writes (ids 0..n-1 in
 * order, every parent an earlier column), so a read of it answers as stock's does.
 */
export async function writeNameMap(ctx: VerbContext, rec: MappingRecord): Promise<void> {
  const table = await ctx.read<TableRecord>(keys.current(Kind.table, rec.table_id), ValueKind.table, "table");
  if (!table) throw new NotFound(`name map ${rec.mapping_id}: table id ${rec.table_id} does not exist`);
  if (rec.type !== MAP_BY_NAME) {
    throw new InvalidRequest(`name map ${rec.mapping_id} has type '${rec.type}', not '${MAP_BY_NAME}'`);
  }
  rec.x_names.forEach((c, i) => {
    if (c.column_id !== i || (c.parent_column !== null && (c.parent_column < 0 || c.parent_column >= i))) {
      throw new InvalidRequest(
        `name map ${rec.mapping_id}: column ${c.column_id} is not DuckLake's depth-first numbering (position ${i}, parent ${c.parent_column})`,
      );
    }
  });
  const key = keys.current(Kind.mapping, rec.table_id, rec.mapping_id);
  if ((await ctx.st.get(key)) !== undefined) {
    throw new InvalidRequest(`name map ${rec.mapping_id} of table ${rec.table_id} already exists`);
  }
  ctx.write(key, ValueKind.mapping, rec);
}

/** A data file's `mapping_id` must name a name map of its own table (committed or written by this commit). */
export async function checkFileMapping(ctx: VerbContext, tableId: number, mappingId: number): Promise<void> {
  const rec = await ctx.read<MappingRecord>(
    keys.current(Kind.mapping, tableId, mappingId),
    ValueKind.mapping,
    "name map",
  );
  if (!rec) {
    throw new InvalidRequest(
      `a data file of table ${tableId} names mapping ${mappingId}, not a name map of it`,
    );
  }
}
