/** The catalog at snapshot S (DuckLake's BuildCatalogForSnapshot): every entity visible at S. */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { resolveSnapshot } from "../head.ts";
import { Kind, keyIds, keys } from "../keys.ts";
import type {
  ColumnRecord,
  InlinedTableRecord,
  MacroRecord,
  OptionRecord,
  PartitionRecord,
  SchemaRecord,
  SnapshotRecord,
  SortRecord,
  TableRecord,
  TagContainer,
  ViewRecord,
} from "../records.ts";
import { scanAll, versionsAt, visibleAt } from "./versions.ts";

export type Tags = Record<string, string | null>;

export interface ColumnNode extends ColumnRecord {
  tags: Tags;
  children: ColumnNode[];
}

export interface TableState extends TableRecord {
  schema_name: string;
  columns: ColumnNode[];
  partition: PartitionRecord | null;
  sort: SortRecord | null;
  tags: Tags;
  inlined_tables: InlinedTableRecord[];
}

export interface CatalogState {
  snapshot: SnapshotRecord;
  schemas: (SchemaRecord & { tags: Tags })[];
  tables: TableState[];
  views: (ViewRecord & { schema_name: string; tags: Tags })[];
  macros: (MacroRecord & { schema_name: string })[];
  /** Options are outside the snapshot protocol: always the latest values. */
  options: {
    global: Record<string, string>;
    schemas: Record<number, Record<string, string>>;
    tables: Record<number, Record<string, string>>;
  };
}

export function tagsAt(container: TagContainer | undefined, s: number): Tags {
  const out: Tags = {};
  for (const e of container?.entries ?? []) if (visibleAt(e, s)) out[e.key] = e.value;
  return out;
}

async function tagMap(view: ReadView, kind: Kind, s: number): Promise<Map<string, Tags>> {
  const out = new Map<string, Tags>();
  for await (const kv of view.scan({ prefix: keys.current(kind) })) {
    const c = decodeValue<TagContainer>(ValueKind.tagContainer, kv.value, "tag");
    out.set(keyIds(kv.key, 2).join("/"), tagsAt(c, s));
  }
  return out;
}

export function columnTree(cols: ColumnRecord[], tagsOf: (c: ColumnRecord) => Tags): ColumnNode[] {
  const sorted = [...cols].sort((a, b) => a.column_order - b.column_order);
  const build = (parent: number | null): ColumnNode[] =>
    sorted
      .filter((c) => c.parent_column === parent)
      .map((c) => ({ ...c, tags: tagsOf(c), children: build(c.column_id) }));
  return build(null);
}

export async function catalogAt(view: ReadView, snapshotId?: number): Promise<CatalogState> {
  const snapshot = await resolveSnapshot(view, snapshotId);
  const s = snapshot.snapshot_id;
  const tags = await tagMap(view, Kind.tag, s);
  const columnTags = await tagMap(view, Kind.columnTag, s);
  const schemas = await versionsAt<SchemaRecord>(view, s, Kind.schema, ValueKind.schema);
  const schemaName = new Map(schemas.map((x) => [x.schema_id, x.schema_name]));
  const tables = await versionsAt<TableRecord>(view, s, Kind.table, ValueKind.table);
  const columns = await versionsAt<ColumnRecord>(view, s, Kind.column, ValueKind.column);
  const partitions = await versionsAt<PartitionRecord>(view, s, Kind.partition, ValueKind.partition);
  const sorts = await versionsAt<SortRecord>(view, s, Kind.sort, ValueKind.sort);
  const inlined = (
    await scanAll<InlinedTableRecord>(
      view,
      keys.current(Kind.inlinedTable),
      ValueKind.inlinedTable,
      "inlined table",
    )
  ).filter((r) => r.schema_version <= snapshot.schema_version);
  const views = await versionsAt<ViewRecord>(view, s, Kind.view, ValueKind.view);
  const macros = await versionsAt<MacroRecord>(view, s, Kind.macro, ValueKind.macro);
  const options: CatalogState["options"] = { global: {}, schemas: {}, tables: {} };
  for (const o of await scanAll<OptionRecord>(view, keys.current(Kind.option), ValueKind.option, "option")) {
    if (o.scope === null) options.global = o.values;
    else if (o.scope === "schema") options.schemas[o.scope_id ?? 0] = o.values;
    else options.tables[o.scope_id ?? 0] = o.values;
  }
  const byTable = <T extends { table_id: number }>(rows: T[]): Map<number, T[]> => {
    const out = new Map<number, T[]>();
    for (const r of rows) {
      const list = out.get(r.table_id);
      if (list) list.push(r);
      else out.set(r.table_id, [r]);
    }
    return out;
  };
  const columnsOf = byTable(columns);
  // A partition version without columns is DuckLake's "partitioning reset" marker: no partitioning.
  const partitionOf = byTable(partitions.filter((p) => p.x_columns.length > 0));
  const sortOf = byTable(sorts);
  const inlinedOf = byTable(inlined);
  return {
    snapshot,
    schemas: schemas
      .sort((a, b) => a.schema_id - b.schema_id)
      .map((x) => ({ ...x, tags: tags.get(String(x.schema_id)) ?? {} })),
    tables: tables
      .sort((a, b) => a.table_id - b.table_id)
      .map((t) => ({
        ...t,
        schema_name: schemaName.get(t.schema_id) ?? "",
        columns: columnTree(
          columnsOf.get(t.table_id) ?? [],
          (c) => columnTags.get(`${t.table_id}/${c.column_id}`) ?? {},
        ),
        partition: partitionOf.get(t.table_id)?.[0] ?? null,
        sort: sortOf.get(t.table_id)?.[0] ?? null,
        tags: tags.get(String(t.table_id)) ?? {},
        inlined_tables: inlinedOf.get(t.table_id) ?? [],
      })),
    views: views
      .sort((a, b) => a.view_id - b.view_id)
      .map((v) => ({
        ...v,
        schema_name: schemaName.get(v.schema_id) ?? "",
        tags: tags.get(String(v.view_id)) ?? {},
      })),
    macros: macros
      .sort((a, b) => a.macro_id - b.macro_id)
      .map((m) => ({ ...m, schema_name: schemaName.get(m.schema_id) ?? "" })),
    options,
  };
}
