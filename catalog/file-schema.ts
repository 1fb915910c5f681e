/**
 * Whether a Parquet file's columns fit a table, by DuckLake's own rules for `ducklake_add_data_files`
 * (docs/decisions/0482-registered-file-schema.md): every file column names a table column and every table
 * column is in the file (names compared case-insensitively); a table integer column takes the same or a
 * narrower integer (signed, or unsigned of a narrower width), a float column the same or a narrower float,
 * a timestamp column any timestamp of second to microsecond precision (nanoseconds only into timestamp or
 * timestamp_ns), a decimal column a decimal of no larger precision and scale, a nested column the same
 * kind; every other type must be exactly the table's. Refusal names the column and both types.
 */
import type { FooterField } from "../parquet/index.ts";
import type { ReadView } from "../storage/api.ts";
import { ValueKind } from "./codec.ts";
import { InvalidRequest, quoteName } from "./errors.ts";
import { Kind } from "./keys.ts";
import { head } from "./reads/snapshots.ts";
import { versionsAt } from "./reads/versions.ts";
import type { ColumnRecord } from "./records.ts";
import { duckdbTypeName } from "./types.ts";

const SIGNED = ["TINYINT", "SMALLINT", "INTEGER", "BIGINT"];
const UNSIGNED = ["UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"];
const FLOATS = ["FLOAT", "DOUBLE"];
const TIMESTAMPS = ["TIMESTAMP", "TIMESTAMP_MS", "TIMESTAMP_S"];

/** The file types a table column of DuckDB type `target` accepts, or a rule for decimals. */
function accepted(target: string): string[] | { decimal: [number, number] } {
  const signed = SIGNED.indexOf(target);
  // A signed column takes the signed types up to its width and the unsigned ones one width narrower.
  if (signed >= 0) return [...SIGNED.slice(0, signed + 1), ...UNSIGNED.slice(0, signed)];
  const unsigned = UNSIGNED.indexOf(target);
  if (unsigned >= 0) return UNSIGNED.slice(0, unsigned + 1);
  const float = FLOATS.indexOf(target);
  if (float >= 0) return FLOATS.slice(0, float + 1);
  if (target === "TIMESTAMP" || target === "TIMESTAMP_NS") return ["TIMESTAMP_NS", ...TIMESTAMPS];
  if (target === "TIMESTAMP_MS" || target === "TIMESTAMP_S") return TIMESTAMPS;
  const dec = /^DECIMAL\((\d+),(\d+)\)$/.exec(target);
  if (dec) return { decimal: [Number(dec[1]), Number(dec[2])] };
  return [target];
}

function fits(target: string, source: string): boolean {
  const rule = accepted(target);
  if (Array.isArray(rule)) return rule.includes(source);
  const dec = /^DECIMAL\((\d+),(\d+)\)$/.exec(source);
  return dec !== null && Number(dec[1]) <= rule.decimal[0] && Number(dec[2]) <= rule.decimal[1];
}

function describeAccepted(target: string): string {
  const rule = accepted(target);
  if (Array.isArray(rule)) return rule.length > 1 ? `one of ${rule.join(", ")}` : (rule[0] ?? target);
  return `DECIMAL with precision <= ${rule.decimal[0]} and scale <= ${rule.decimal[1]}`;
}

/** A table's top-level column: its name and DuckLake type (`list`, `decimal(4,2)`, ...). */
export interface TableColumnType {
  name: string;
  type: string;
}

/** Throws InvalidRequest naming the first column of `fields` that does not fit `columns`. */
export function checkFileColumns(
  what: { file: string; table: string },
  columns: readonly TableColumnType[],
  fields: readonly FooterField[],
): void {
  const byName = new Map(columns.map((c) => [c.name.toLowerCase(), c]));
  const seen = new Set<string>();
  const at = `data file '${what.file}' does not fit table ${what.table}`;
  for (const f of fields) {
    const col = byName.get(f.name.toLowerCase());
    if (!col) {
      throw new InvalidRequest(
        `${at}: the file has column ${quoteName(f.name)} (${f.type}), which the table does not (its columns: ${columns.map((c) => c.name).join(", ")})`,
      );
    }
    seen.add(col.name.toLowerCase());
    const nested = col.type === "struct" || col.type === "list" || col.type === "map";
    const target = nested
      ? col.type.toUpperCase()
      : duckdbTypeName({ name: col.name, type: col.type, children: [] });
    if (!fits(target, f.type)) {
      throw new InvalidRequest(
        `${at}: column ${quoteName(col.name)} is ${target} in the table and ${f.type} in the file (the table's column takes ${describeAccepted(target)})`,
      );
    }
  }
  const missing = columns.find((c) => !seen.has(c.name.toLowerCase()));
  if (missing) {
    throw new InvalidRequest(
      `${at}: table column ${quoteName(missing.name)} (${missing.type}) is not in the file`,
    );
  }
}

/** A table's top-level columns at the head of `view`, in column order. */
export async function tableColumnTypes(view: ReadView, tableId: number): Promise<TableColumnType[]> {
  const s = (await head(view)).snapshot_id;
  const cols = await versionsAt<ColumnRecord>(view, s, Kind.column, ValueKind.column, tableId);
  return cols
    .filter((c) => c.parent_column === null)
    .sort((a, b) => a.column_order - b.column_order)
    .map((c) => ({ name: c.column_name, type: c.column_type }));
}
