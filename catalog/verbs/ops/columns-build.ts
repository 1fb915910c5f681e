/** Turns nested column definitions into ducklake_column rows: ids pre-order from the table's counter. */
import { InvalidRequest, quoteName } from "../../errors.ts";
import { foldName } from "../../keys.ts";
import type { ColumnRecord } from "../../records.ts";
import { normalizeType } from "../../types.ts";
import type { ColumnDef } from "../schema.ts";

export function columnRows(
  tableId: number,
  defs: ColumnDef[],
  parent: number | null,
  firstId: number,
  snapshotId: number,
  initialDefaults: boolean,
): { rows: ColumnRecord[]; nextId: number } {
  const rows: ColumnRecord[] = [];
  let next = firstId;
  const seen = new Set<string>();
  const visit = (def: ColumnDef, parentId: number | null) => {
    const { type, nested } = normalizeType(def.type);
    const children = def.children ?? [];
    if (nested) {
      const need = type === "list" ? 1 : type === "map" ? 2 : undefined;
      if (need !== undefined ? children.length !== need : children.length === 0) {
        throw new InvalidRequest(
          `column ${quoteName(def.name)} of type ${type} needs ${need ?? "at least one"} child field(s), got ${children.length}`,
        );
      }
    } else if (children.length > 0) {
      throw new InvalidRequest(`column ${quoteName(def.name)} of type ${type} cannot have child fields`);
    }
    const id = next++;
    const hasDefault = def.default !== undefined;
    rows.push({
      column_id: id,
      begin_snapshot: snapshotId,
      end_snapshot: null,
      table_id: tableId,
      column_order: id,
      column_name: def.name,
      column_type: type,
      initial_default: initialDefaults && hasDefault ? (def.default ?? null) : null,
      default_value: hasDefault ? (def.default ?? "NULL") : "NULL",
      nulls_allowed: def.nullable ?? true,
      parent_column: parentId,
      // DuckLake writes '' for a nested column's default type and 'literal' for a primitive's.
      default_value_type: hasDefault ? (def.defaultType ?? "literal") : nested ? "" : "literal",
      default_value_dialect: "duckdb",
    });
    const names = new Set<string>();
    for (const child of children) {
      if (names.has(foldName(child.name))) {
        throw new InvalidRequest(`field ${quoteName(child.name)} appears twice in ${quoteName(def.name)}`);
      }
      names.add(foldName(child.name));
      visit(child, id);
    }
  };
  for (const def of defs) {
    if (seen.has(foldName(def.name))) throw new InvalidRequest(`column ${quoteName(def.name)} appears twice`);
    seen.add(foldName(def.name));
    visit(def, parent);
  }
  return { rows, nextId: next };
}
