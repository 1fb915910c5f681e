/**
 * What a verb sees while it stages one commit (one snapshot): the overlay, the premise snapshot, the
 * in-memory counters it allocates from, and the change set, schema-version flag and conflict facts it
 * accumulates. Record, version and name-index helpers live here so every verb ends versions the same
 * way: ending deletes the current key and writes the history key in the same batch.
 */
import type { Bytes } from "../../storage/api.ts";
import {
  addCreatedSchema,
  addId,
  addName,
  type ChangeSet,
  emptyChangeSet,
  type QualifiedName,
} from "../changes.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { AlreadyExists, NotFound, quoteName } from "../errors.ts";
import { foldName, hash53, Kind, keys, NameSpace } from "../keys.ts";
import type {
  ColumnRecord,
  NameEntry,
  SchemaRecord,
  SnapshotRecord,
  TableRecord,
  Versioned,
  ViewRecord,
} from "../records.ts";
import type { Staging } from "../staging.ts";
import type { ColumnRef, RelationRef, SchemaRef } from "./schema.ts";
import type { ShapeMemo } from "./shape-memo.ts";

/** Ids a verb hands back to its caller. */
export type Assigned = Record<string, number | number[]>;

export interface VerbEnv {
  now: () => number;
  dataPath: string;
  /**
   * The data path the lake writer reaches (`lakeDataUrl`, decision 0502), where the host says; absent, every
   * lake counts as reached and decision 0105 applies in full.
   */
  ownDataPath?: string;
  uuid: () => string;
  /** The batch's memo of resolved table shapes (verbs/shape-memo.ts); absent outside a group commit. */
  shapes?: ShapeMemo;
}

export const MAIN_SCHEMA = "main";

export class VerbContext {
  readonly snapshotId: number;
  nextCatalogId: number;
  nextFileId: number;
  schemaChanged = false;
  /** A write that mints a snapshot was staged (options alone do not). */
  mintsSnapshot = false;
  readonly changes: ChangeSet = emptyChangeSet();
  readonly touchedTables = new Set<number>();
  readonly deletedDataFileIds = new Set<number>();
  deletesUntargeted = false;
  readonly droppedSchemaNames = new Map<number, string>();
  readonly createdInSchemaIds = new Map<string, number>();
  /** Tables that got inlined inserts / new data files (DuckLake bumps next_file_id for inline-only ones). */
  readonly inlinedInsertTables = new Set<number>();
  readonly newFileTables = new Set<number>();
  /** Tables whose ducklake_schema_versions row / inlined-table rotation this commit owes. */
  readonly schemaVersionTables = new Set<number>();
  readonly inlineRotationTables = new Set<number>();
  /** Rows this commit inlined so far (bounded by MAX_INLINED_ROWS_PER_COMMIT). */
  inlinedRows = 0;
  /** Inlined deletes this commit staged so far (bounded by MAX_INLINED_DELETES_PER_COMMIT). */
  inlinedDeletes = 0;

  constructor(
    readonly st: Staging,
    readonly premise: SnapshotRecord,
    readonly env: VerbEnv,
  ) {
    this.snapshotId = premise.snapshot_id + 1;
    this.nextCatalogId = premise.next_catalog_id;
    this.nextFileId = premise.next_file_id;
  }

  /** The schema_version this commit will carry. */
  get schemaVersion(): number {
    return this.premise.schema_version + (this.schemaChanged ? 1 : 0);
  }

  /** Marks a structural change; returns the schema_version the commit will carry. */
  bumpSchema(): number {
    this.schemaChanged = true;
    this.mintsSnapshot = true;
    return this.schemaVersion;
  }

  catalogId(): number {
    return this.nextCatalogId++;
  }

  fileId(): number {
    return this.nextFileId++;
  }

  touch(tableId: number): void {
    this.touchedTables.add(tableId);
    this.mintsSnapshot = true;
  }

  // --- change set -----------------------------------------------------------------------------------
  change(field: Parameters<typeof addId>[1], id: number): void {
    addId(this.changes, field, id);
    this.mintsSnapshot = true;
  }
  createdName(field: Parameters<typeof addName>[1], q: QualifiedName, schemaId: number): void {
    addName(this.changes, field, q);
    this.createdInSchemaIds.set(foldName(q.schema), schemaId);
    this.mintsSnapshot = true;
  }
  createdSchema(name: string): void {
    addCreatedSchema(this.changes, name);
    this.mintsSnapshot = true;
  }

  // --- records --------------------------------------------------------------------------------------
  async read<T>(key: Bytes, kind: ValueKind, what: string): Promise<T | undefined> {
    const raw = await this.st.get(key);
    return raw === undefined ? undefined : decodeValue<T>(kind, raw, what);
  }

  write(key: Bytes, kind: ValueKind, record: unknown): void {
    this.st.put(key, encodeValue(kind, record));
  }

  async scan<T>(prefix: Bytes, kind: ValueKind, what: string): Promise<T[]> {
    const out: T[] = [];
    for await (const kv of this.st.scan({ prefix })) out.push(decodeValue<T>(kind, kv.value, what));
    return out;
  }

  /** Writes a new live version (begin = this snapshot). */
  putVersion<T extends Versioned>(kind: Kind, ids: number[], vk: ValueKind, record: T): T {
    const rec = { ...record, begin_snapshot: this.snapshotId, end_snapshot: null };
    this.write(keys.current(kind, ...ids), vk, rec);
    return rec;
  }

  /**
   * Ends a live version at this snapshot: the current key goes, the history key (ids + end) arrives in
   * the same batch. A version born in this very snapshot leaves no history (it was never visible).
   */
  endVersion<T extends Versioned>(kind: Kind, ids: number[], vk: ValueKind, record: T): void {
    this.st.delete(keys.current(kind, ...ids));
    if (record.begin_snapshot === this.snapshotId) return;
    this.write(keys.history(kind, ids, this.snapshotId), vk, { ...record, end_snapshot: this.snapshotId });
  }

  /** Ends `old` and writes `next` in its place (same key): a new version of the same entity. */
  replaceVersion<T extends Versioned>(kind: Kind, ids: number[], vk: ValueKind, old: T, next: T): T {
    this.endVersion(kind, ids, vk, old);
    return this.putVersion(kind, ids, vk, next);
  }

  // --- name index -----------------------------------------------------------------------------------
  private nameKey(ns: NameSpace, parent: number, name: string): Bytes {
    return keys.name(ns, parent, hash53(foldName(name)));
  }

  /** The entry named `name`; with `kind`, only an entry of that kind (a scalar or a table macro). */
  async lookupName(
    ns: NameSpace,
    parent: number,
    name: string,
    kind?: NameEntry["kind"],
  ): Promise<NameEntry | undefined> {
    const bucket = await this.read<NameEntry[]>(
      this.nameKey(ns, parent, name),
      ValueKind.nameEntries,
      "name",
    );
    const folded = foldName(name);
    return bucket?.find((e) => foldName(e.name) === folded && (kind === undefined || e.kind === kind));
  }

  /** Adds `entry`, replacing one of the same name (and, for macros, the same kind). */
  async addNameEntry(ns: NameSpace, parent: number, entry: NameEntry): Promise<void> {
    const k = this.nameKey(ns, parent, entry.name);
    const bucket = (await this.read<NameEntry[]>(k, ValueKind.nameEntries, "name")) ?? [];
    const kind = ns === NameSpace.macro ? entry.kind : undefined;
    this.write(k, ValueKind.nameEntries, [...bucket.filter((e) => !sameEntry(e, entry.name, kind)), entry]);
  }

  /** Removes the entry named `name` (with `kind`, only that kind's: a scalar or a table macro). */
  async removeNameEntry(
    ns: NameSpace,
    parent: number,
    name: string,
    kind?: NameEntry["kind"],
  ): Promise<void> {
    const k = this.nameKey(ns, parent, name);
    const bucket = (await this.read<NameEntry[]>(k, ValueKind.nameEntries, "name")) ?? [];
    const rest = bucket.filter((e) => !sameEntry(e, name, kind));
    if (rest.length === 0) this.st.delete(k);
    else this.write(k, ValueKind.nameEntries, rest);
  }

  async listNames(ns: NameSpace, parent: number, limit?: number): Promise<NameEntry[]> {
    const out: NameEntry[] = [];
    const range =
      limit === undefined
        ? { prefix: keys.namePrefix(ns, parent) }
        : { prefix: keys.namePrefix(ns, parent), limit };
    for await (const kv of this.st.scan(range)) {
      out.push(...decodeValue<NameEntry[]>(ValueKind.nameEntries, kv.value, "name"));
    }
    return out;
  }

  // --- resolution -----------------------------------------------------------------------------------
  async schema(ref: SchemaRef): Promise<SchemaRecord> {
    let schemaId: number;
    if (typeof ref === "string") {
      const entry = await this.lookupName(NameSpace.schema, 0, ref);
      if (!entry) throw new NotFound(`schema ${quoteName(ref)} does not exist; create it first`);
      schemaId = entry.id;
    } else {
      schemaId = ref.id;
    }
    const rec = await this.read<SchemaRecord>(
      keys.current(Kind.schema, schemaId),
      ValueKind.schema,
      "schema",
    );
    if (!rec)
      throw new NotFound(
        `schema ${typeof ref === "string" ? quoteName(ref) : `id ${schemaId}`} does not exist`,
      );
    return rec;
  }

  /** Resolves a table or view reference to its name-index entry and schema. */
  async relation(
    ref: RelationRef,
    want: "table" | "view",
  ): Promise<{ id: number; schema: SchemaRecord | undefined }> {
    if ("id" in ref) return { id: ref.id, schema: undefined };
    const schema = await this.schema(ref.schema ?? MAIN_SCHEMA);
    const entry = await this.lookupName(NameSpace.relation, schema.schema_id, ref.name);
    // Built only for an error: quoting compiles regexes, and every row write resolves its table here.
    const label = () => `${quoteName(schema.schema_name)}.${quoteName(ref.name)}`;
    if (!entry) throw new NotFound(`${want} ${label()} does not exist`);
    if (entry.kind !== want) throw new NotFound(`${label()} is a ${entry.kind}, not a ${want}`);
    return { id: entry.id, schema };
  }

  async table(ref: RelationRef): Promise<TableRecord> {
    const { id } = await this.relation(ref, "table");
    const rec = await this.read<TableRecord>(keys.current(Kind.table, id), ValueKind.table, "table");
    if (!rec) throw new NotFound(`table id ${id} does not exist (or was dropped)`);
    return rec;
  }

  async view(ref: RelationRef): Promise<ViewRecord> {
    const { id } = await this.relation(ref, "view");
    const rec = await this.read<ViewRecord>(keys.current(Kind.view, id), ValueKind.view, "view");
    if (!rec) throw new NotFound(`view id ${id} does not exist (or was dropped)`);
    return rec;
  }

  async schemaById(schemaId: number): Promise<SchemaRecord> {
    return this.schema({ id: schemaId });
  }

  async columns(tableId: number): Promise<ColumnRecord[]> {
    return this.scan<ColumnRecord>(keys.current(Kind.column, tableId), ValueKind.column, "column");
  }

  /** Finds a live column by top-level name, nested path or id. */
  column(table: TableRecord, cols: ColumnRecord[], ref: ColumnRef): ColumnRecord {
    const label =
      typeof ref === "string"
        ? quoteName(ref)
        : "path" in ref
          ? quoteName(ref.path.join("."))
          : `id ${ref.id}`;
    let found: ColumnRecord | undefined;
    if (typeof ref === "object" && "id" in ref) {
      found = cols.find((c) => c.column_id === ref.id);
    } else {
      const path = typeof ref === "string" ? [ref] : ref.path;
      let parent: number | null = null;
      for (const part of path) {
        const p: number | null = parent;
        found = cols.find((c) => c.parent_column === p && foldName(c.column_name) === foldName(part));
        if (!found) break;
        parent = found.column_id;
      }
    }
    if (!found) throw new NotFound(`column ${label} does not exist in table ${table.table_id}`);
    return found;
  }

  async ensureRelationNameFree(schema: SchemaRecord, name: string): Promise<void> {
    const existing = await this.lookupName(NameSpace.relation, schema.schema_id, name);
    if (existing) {
      throw new AlreadyExists(
        `${quoteName(schema.schema_name)}.${quoteName(name)} is already a ${existing.kind} (id ${existing.id}); pick another name or drop it first`,
      );
    }
  }
}

/** `<name>/` when the name is path-safe, else `<uuid>/` (DuckLakeCatalog::GeneratePathFromName). */
export function pathFor(name: string, uuid: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? `${name}/` : `${uuid}/`;
}

/** Whether name-index entry `e` is the one named `name` (of `kind`, when given). */
function sameEntry(e: NameEntry, name: string, kind: NameEntry["kind"] | undefined): boolean {
  return foldName(e.name) === foldName(name) && (kind === undefined || e.kind === kind);
}
