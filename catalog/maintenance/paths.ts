/**
 * Where a file version lies, as DuckLake writes it into `ducklake_files_scheduled_for_deletion`: relative
 * to `data_path` when every step of data path → schema → table → file is relative (or the absolute path
 * lies under it), else absolute. Ended tables and schemas resolve through their newest version.
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { dataPathPrefix, joinPath } from "../file-paths.ts";
import { Kind, keys, OptionScope } from "../keys.ts";
import type {
  DataFileRecord,
  DeleteFileRecord,
  OptionRecord,
  SchemaRecord,
  TableRecord,
  Versioned,
} from "../records.ts";

async function newestVersion<T extends Versioned>(
  view: ReadView,
  kind: Kind,
  id: number,
  vk: ValueKind,
  what: string,
): Promise<T | undefined> {
  const raw = await view.get(keys.current(kind, id));
  if (raw !== undefined) return decodeValue<T>(vk, raw, what);
  let newest: T | undefined;
  for await (const kv of view.scan({ prefix: keys.historyPrefix(kind, id) })) {
    const rec = decodeValue<T>(vk, kv.value, what);
    if (!newest || (rec.end_snapshot ?? 0) > (newest.end_snapshot ?? 0)) newest = rec;
  }
  return newest;
}

/** Where a table's relative files lie, as DuckLake schedules them: relative to `data_path` when every step is. */
export async function tableDirOf(
  view: ReadView,
  tableId: number,
  dataPath: string,
): Promise<{ dir: string; relative: boolean }> {
  const table = await newestVersion<TableRecord>(view, Kind.table, tableId, ValueKind.table, "table");
  if (!table) return { dir: "", relative: true };
  if (!table.path_is_relative) return relativeTo(table.path, dataPath);
  const schema = await newestVersion<SchemaRecord>(
    view,
    Kind.schema,
    table.schema_id,
    ValueKind.schema,
    "schema",
  );
  if (!schema) return { dir: table.path, relative: true };
  const base = schema.path_is_relative
    ? { dir: schema.path, relative: true }
    : relativeTo(schema.path, dataPath);
  return { dir: joinPath(base.dir, table.path), relative: base.relative };
}

function relativeTo(path: string, dataPath: string): { dir: string; relative: boolean } {
  return dataPath !== "" && path.startsWith(dataPath)
    ? { dir: path.slice(dataPath.length), relative: true }
    : { dir: path, relative: false };
}

export async function scheduledPath(
  view: ReadView,
  rec: DataFileRecord | DeleteFileRecord,
  dataPath: string,
): Promise<{ path: string; relative: boolean }> {
  if (!rec.path_is_relative) {
    const r = relativeTo(rec.path, dataPath);
    return { path: r.dir, relative: r.relative };
  }
  const dir = await tableDirOf(view, rec.table_id, dataPath);
  return { path: joinPath(dir.dir, rec.path), relative: dir.relative };
}

export async function dataPathOf(view: ReadView): Promise<string> {
  const raw = await view.get(keys.current(Kind.option, OptionScope.global, 0));
  const rec =
    raw === undefined ? undefined : decodeValue<OptionRecord>(ValueKind.option, raw, "global options");
  return dataPathPrefix(rec?.values.data_path ?? "");
}
