/**
 * A batch's memo of resolved tables and their shapes (docs/decisions/0318-packed-log-runs.md): every row
 * write of a group-commit batch resolves its table by name and builds the shape its rows are validated
 * against, and in a batch of single-row writers that resolution is most of a member's work. One memo
 * lives for one attempt of one batch; it holds only what a member read while its own layer had no
 * structural change (so what it read is the batch's state so far), and the batch clears it after any
 * member that changed the schema (every verb writing table, column or name records bumps the schema
 * version) or that staged DuckLake's own rows, so a hit is always what a fresh resolution would read.
 */
import type { ColumnRecord, TableRecord } from "../records.ts";
import { columnTree, type TypeNode } from "../values/index.ts";
import type { VerbContext } from "./context.ts";
import type { RelationRef } from "./schema.ts";

/** A table's top-level columns with their type trees, looked up case-insensitively by name. */
export interface TableShape {
  tableId: number;
  cols: { col: ColumnRecord; node: TypeNode }[];
  byName: Map<string, { col: ColumnRecord; node: TypeNode }>;
}

export function tableShape(tableId: number, all: ColumnRecord[]): TableShape {
  const cols = all
    .filter((c) => c.parent_column === null)
    .map((col) => ({ col, node: columnTree(all, col) }));
  return { tableId, cols, byName: new Map(cols.map((c) => [c.col.column_name.toLowerCase(), c])) };
}

export interface ResolvedTable {
  table: TableRecord;
  shape: TableShape;
}

/** Tables one memo holds at most; past it, a resolution is simply not kept. */
export const MAX_MEMO_TABLES = 64;

export class ShapeMemo {
  private readonly tables = new Map<string, ResolvedTable>();

  private static key(ref: RelationRef): string {
    return "id" in ref ? `#${ref.id}` : JSON.stringify([ref.schema ?? null, ref.name]);
  }

  get(ref: RelationRef): ResolvedTable | undefined {
    return this.tables.get(ShapeMemo.key(ref));
  }

  set(ref: RelationRef, resolved: ResolvedTable): void {
    if (this.tables.size < MAX_MEMO_TABLES) this.tables.set(ShapeMemo.key(ref), resolved);
  }

  clear(): void {
    this.tables.clear();
  }
}

/** The table `ref` names and its shape, from the batch's memo when the member may use it. */
export async function resolveTableShape(ctx: VerbContext, ref: RelationRef): Promise<ResolvedTable> {
  const memo = ctx.schemaChanged ? undefined : ctx.env.shapes;
  const hit = memo?.get(ref);
  if (hit) return hit;
  const table = await ctx.table(ref);
  const resolved = { table, shape: tableShape(table.table_id, await ctx.columns(table.table_id)) };
  memo?.set(ref, resolved);
  return resolved;
}
