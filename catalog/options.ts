/**
 * DuckLake's option lookup, in one home (DuckLake's own is one function, `GetConfigOption`): a table's
 * option is its table-scoped value, else its schema's, else the global one, else the caller's default.
 * Options live outside the snapshot protocol (`ducklake_metadata` rows, last write wins), so every reader
 * sees the latest values. The loaded form is `catalogAt`'s `options`; the stored form is one
 * `OptionRecord` per scope (`keys.current(Kind.option, scope, id)`).
 */
import type { ReadView } from "../storage/api.ts";
import { decodeValue, ValueKind } from "./codec.ts";
import { Kind, keys, OptionScope } from "./keys.ts";
import type { OptionRecord } from "./records.ts";

/** Every scope's values, as `catalogAt` loads them. */
export interface ScopedOptions {
  global: Record<string, string>;
  schemas: Record<number, Record<string, string>>;
  tables: Record<number, Record<string, string>>;
}

/**
 * The scopes a table's option is looked up in, in order. `tableId` undefined: the table cannot have
 * table-scoped options yet (created by the commit that asks), so that read is skipped.
 */
export function optionScopes(tableId: number | undefined, schemaId: number): [scope: number, id: number][] {
  return [
    ...(tableId !== undefined ? [[OptionScope.table, tableId] as [number, number]] : []),
    [OptionScope.schema, schemaId],
    [OptionScope.global, 0],
  ];
}

/** A table's option from loaded options: table, then schema, then global scope. */
export function tableOption(
  options: ScopedOptions,
  tableId: number,
  schemaId: number,
  name: string,
): string | undefined {
  return options.tables[tableId]?.[name] ?? options.schemas[schemaId]?.[name] ?? options.global[name];
}

/** One scope's stored values (undefined: nothing set at that scope). */
export type ReadScope = (scope: number, id: number) => Promise<Readonly<Record<string, string>> | undefined>;

/** A table's option read scope by scope (`readScope`: from the store, or from a commit's staging). */
export async function readTableOption(
  readScope: ReadScope,
  tableId: number | undefined,
  schemaId: number,
  name: string,
): Promise<string | undefined> {
  for (const [scope, id] of optionScopes(tableId, schemaId)) {
    const value = (await readScope(scope, id))?.[name];
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A `ReadScope` over a read view. */
export function storedScope(view: Pick<ReadView, "get">): ReadScope {
  return async (scope, id) => {
    const raw = await view.get(keys.current(Kind.option, scope, id));
    return raw === undefined ? undefined : decodeValue<OptionRecord>(ValueKind.option, raw, "option").values;
  };
}
