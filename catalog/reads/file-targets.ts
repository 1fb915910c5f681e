/**
 * Where the files a commit registers will live: each data or delete file a verb list registers, with its
 * path resolved by DuckLake's rules (data_path → schema path → table path → file) against the live catalog
 * of a cut. Lets the HTTP layer check that the object exists with the stated size before it commits.
 * Demand-loaded: the format option, and a name-index entry plus a record per referenced schema/table.
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { dirUnder, joinPath, tableDirOf } from "../file-paths.ts";
import { foldName, Kind, keys, NameSpace, OptionScope } from "../keys.ts";
import type { OptionRecord, SchemaRecord, TableRecord } from "../records.ts";
import { pathFor } from "../verbs/context.ts";
import type { RelationRef, Verb } from "../verbs/schema.ts";
import { nameEntry } from "./names.ts";

export interface FileTarget {
  /** Index of the verb in the list. */
  verb: number;
  kind: "data" | "delete";
  /** The full resolved path, or null when it cannot be known before the commit (see `reason`). */
  resolvedPath: string | null;
  reason?: string;
  fileSizeBytes: number;
  /** The table a `register_data_file` names, when it exists before the commit (its columns are checked). */
  tableId?: number;
  /**
   * Another verb of the same commit changes that table's columns or identity (or a table this check cannot
   * name before the commit): the columns the file must fit are not the head's (decision 0652).
   */
  columnsChangeInCommit?: true;
}

/** Verbs that change a table's columns or which table a name denotes. */
const COLUMN_CHANGING = new Set([
  "create_table",
  "rename_table",
  "move_table",
  "drop_table",
  "add_column",
  "rename_column",
  "alter_column",
  "drop_column",
  "drop_schema",
]);

/**
 * The ids (at the head) of the tables whose columns or names the verbs change, or "all" when a verb's table
 * cannot be resolved before the commit (it names a table renamed or created earlier in it, or drops a schema).
 * A create_table of a new name changes no existing table.
 */
async function tablesChanged(
  view: ReadView,
  dataPath: string,
  verbs: readonly Verb[],
): Promise<Set<number> | "all"> {
  const ids = new Set<number>();
  const none = { schemas: new Set<string>(), tables: new Map<string, string>() };
  for (const v of verbs) {
    if (!COLUMN_CHANGING.has(v.op)) continue;
    if (v.op === "drop_schema") return "all";
    const ref: RelationRef | undefined =
      v.op === "create_table"
        ? typeof v.schema === "object"
          ? undefined
          : { schema: v.schema ?? "main", name: v.name }
        : "table" in v
          ? (v.table as RelationRef)
          : undefined;
    if (ref === undefined) return "all";
    const at = await tableDir(view, dataPath, ref, none);
    if ("dir" in at && at.tableId !== undefined) ids.add(at.tableId);
    else if (v.op !== "create_table") return "all";
  }
  return ids;
}

const join = joinPath;

async function record<T>(
  view: ReadView,
  kind: Kind,
  id: number,
  vk: ValueKind,
  what: string,
): Promise<T | undefined> {
  const raw = await view.get(keys.current(kind, id));
  return raw === undefined ? undefined : decodeValue<T>(vk, raw, what);
}

/** The directory a table's relative files resolve against, or a reason it is not known yet. */
async function tableDir(
  view: ReadView,
  dataPath: string,
  ref: RelationRef,
  created: { schemas: Set<string>; tables: Map<string, string> },
): Promise<{ dir: string; tableId?: number } | { reason: string }> {
  if ("id" in ref) {
    const table = await record<TableRecord>(view, Kind.table, ref.id, ValueKind.table, "table");
    if (!table) return { reason: `table id ${ref.id} does not exist` };
    const schema = await record<SchemaRecord>(view, Kind.schema, table.schema_id, ValueKind.schema, "schema");
    if (!schema) return { reason: `schema id ${table.schema_id} does not exist` };
    return { dir: tableDirOf(dataPath, schema, table), tableId: table.table_id };
  }
  const schemaName = ref.schema ?? "main";
  const createdKey = `${foldName(schemaName)}.${foldName(ref.name)}`;
  const schemaEntry = await nameEntry(view, NameSpace.schema, 0, schemaName);
  const schema = schemaEntry
    ? await record<SchemaRecord>(view, Kind.schema, schemaEntry.id, ValueKind.schema, "schema")
    : undefined;
  const sdir = schema
    ? dirUnder(dataPath, schema)
    : created.schemas.has(foldName(schemaName)) && /^[A-Za-z0-9_-]+$/.test(schemaName)
      ? join(dataPath, pathFor(schemaName, ""))
      : undefined;
  if (sdir === undefined) return { reason: `schema "${schemaName}" is not known before this commit` };
  const tableEntry = schema
    ? await nameEntry(view, NameSpace.relation, schema.schema_id, ref.name)
    : undefined;
  if (tableEntry?.kind === "table") {
    const table = await record<TableRecord>(view, Kind.table, tableEntry.id, ValueKind.table, "table");
    if (table) return { dir: dirUnder(sdir, table), tableId: table.table_id };
  }
  const createdPath = created.tables.get(createdKey);
  if (createdPath !== undefined) return { dir: join(sdir, createdPath) };
  return { reason: `table "${schemaName}"."${ref.name}" is not known before this commit` };
}

/** Every file the verbs register, resolved against the live catalog of `view` plus the verbs before it. */
export async function fileTargets(view: ReadView, verbs: readonly Verb[]): Promise<FileTarget[]> {
  const rawGlobal = await view.get(keys.current(Kind.option, OptionScope.global, 0));
  const dataPath =
    rawGlobal === undefined
      ? ""
      : (decodeValue<OptionRecord>(ValueKind.option, rawGlobal, "option").values.data_path ?? "");
  const created = { schemas: new Set<string>(), tables: new Map<string, string>() };
  const out: FileTarget[] = [];
  for (const [i, v] of verbs.entries()) {
    if (v.op === "create_schema") created.schemas.add(foldName(v.name));
    if (v.op === "create_table" && /^[A-Za-z0-9_-]+$/.test(v.name)) {
      const schemaName =
        typeof v.schema === "string" ? v.schema : v.schema === undefined ? "main" : undefined;
      if (schemaName !== undefined)
        created.tables.set(`${foldName(schemaName)}.${foldName(v.name)}`, pathFor(v.name, ""));
    }
    const files: { kind: "data" | "delete"; path: string; relative: boolean; size: number }[] = [];
    if (v.op === "register_data_file")
      files.push({
        kind: "data",
        path: v.file.path,
        relative: v.file.pathIsRelative ?? true,
        size: v.file.fileSizeBytes,
      });
    if (v.op === "register_delete_file")
      files.push({
        kind: "delete",
        path: v.file.path,
        relative: v.file.pathIsRelative ?? true,
        size: v.file.fileSizeBytes,
      });
    if ((v.op === "merge_adjacent_files" || v.op === "rewrite_data_files") && v.file)
      files.push({
        kind: "data",
        path: v.file.path,
        relative: v.file.pathIsRelative ?? true,
        size: v.file.fileSizeBytes,
      });
    if (v.op === "flush_inlined") {
      if (v.file)
        files.push({
          kind: "data",
          path: v.file.path,
          relative: v.file.pathIsRelative ?? true,
          size: v.file.fileSizeBytes,
        });
      if (v.deleteFile)
        files.push({
          kind: "delete",
          path: v.deleteFile.path,
          relative: v.deleteFile.pathIsRelative ?? true,
          size: v.deleteFile.fileSizeBytes,
        });
    }
    if (files.length === 0) continue;
    const table = "table" in v ? (v.table as RelationRef) : undefined;
    // Resolved for absolute paths too: a registered data file's columns are checked wherever it lies.
    const dir = table ? await tableDir(view, dataPath, table, created) : undefined;
    const checked =
      v.op === "register_data_file" && dir && "dir" in dir && dir.tableId !== undefined
        ? { tableId: dir.tableId }
        : {};
    for (const f of files) {
      if (!f.relative)
        out.push({ verb: i, kind: f.kind, resolvedPath: f.path, fileSizeBytes: f.size, ...checked });
      else if (dir && "dir" in dir)
        out.push({
          verb: i,
          kind: f.kind,
          resolvedPath: join(dir.dir, f.path),
          fileSizeBytes: f.size,
          ...checked,
        });
      else
        out.push({
          verb: i,
          kind: f.kind,
          resolvedPath: null,
          reason: dir && "reason" in dir ? dir.reason : "no table",
          fileSizeBytes: f.size,
        });
    }
  }
  if (!out.some((t) => t.tableId !== undefined)) return out;
  const changed = await tablesChanged(view, dataPath, verbs);
  return out.map((t) =>
    t.tableId !== undefined && (changed === "all" || changed.has(t.tableId))
      ? { ...t, columnsChangeInCommit: true }
      : t,
  );
}
