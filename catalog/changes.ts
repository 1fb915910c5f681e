/**
 * `changes_made` in DuckLake's own grammar: `kind:payload` entries joined by `,` with no spaces; created
 * entries carry double-quoted names (embedded `"` doubled), every other entry a decimal id. Written in
 * DuckLake's writer order (WriteSnapshotChanges) and parsed with its parser's rules (ParseChangesMade),
 * except that an unknown kind or a malformed entry is kept as `unknown` (conservatively a conflict)
 * instead of throwing.
 */

export interface QualifiedName {
  schema: string;
  name: string;
}

export interface ChangeSet {
  droppedSchemas: number[];
  droppedTables: number[];
  droppedViews: number[];
  createdSchemas: string[];
  createdTables: QualifiedName[];
  createdViews: QualifiedName[];
  createdScalarMacros: QualifiedName[];
  createdTableMacros: QualifiedName[];
  droppedScalarMacros: number[];
  droppedTableMacros: number[];
  insertedIntoTable: number[];
  deletedFromTable: number[];
  alteredTable: number[];
  alteredView: number[];
  inlinedInsert: number[];
  inlinedDelete: number[];
  inlineFlush: number[];
  mergeAdjacent: number[];
  rewriteDelete: number[];
  /** Parse-only in DuckLake 1.0; never written. */
  compactedTable: number[];
  /** Entries this parser does not model or cannot parse, verbatim. */
  unknown: string[];
}

export function emptyChangeSet(): ChangeSet {
  return {
    droppedSchemas: [],
    droppedTables: [],
    droppedViews: [],
    createdSchemas: [],
    createdTables: [],
    createdViews: [],
    createdScalarMacros: [],
    createdTableMacros: [],
    droppedScalarMacros: [],
    droppedTableMacros: [],
    insertedIntoTable: [],
    deletedFromTable: [],
    alteredTable: [],
    alteredView: [],
    inlinedInsert: [],
    inlinedDelete: [],
    inlineFlush: [],
    mergeAdjacent: [],
    rewriteDelete: [],
    compactedTable: [],
    unknown: [],
  };
}

type IdField =
  | "droppedSchemas"
  | "droppedTables"
  | "droppedViews"
  | "droppedScalarMacros"
  | "droppedTableMacros"
  | "insertedIntoTable"
  | "deletedFromTable"
  | "alteredTable"
  | "alteredView"
  | "inlinedInsert"
  | "inlinedDelete"
  | "inlineFlush"
  | "mergeAdjacent"
  | "rewriteDelete"
  | "compactedTable";

type NameField = "createdTables" | "createdViews" | "createdScalarMacros" | "createdTableMacros";

const ID_KINDS: Record<string, IdField> = {
  dropped_schema: "droppedSchemas",
  dropped_table: "droppedTables",
  dropped_view: "droppedViews",
  dropped_scalar_macro: "droppedScalarMacros",
  dropped_table_macro: "droppedTableMacros",
  inserted_into_table: "insertedIntoTable",
  deleted_from_table: "deletedFromTable",
  altered_table: "alteredTable",
  altered_view: "alteredView",
  inlined_insert: "inlinedInsert",
  inlined_delete: "inlinedDelete",
  inline_flush: "inlineFlush",
  flushed_inlined: "inlineFlush",
  merge_adjacent: "mergeAdjacent",
  rewrite_delete: "rewriteDelete",
  compacted_table: "compactedTable",
};

const NAME_KINDS: Record<string, NameField> = {
  created_table: "createdTables",
  created_view: "createdViews",
  created_scalar_macro: "createdScalarMacros",
  created_table_macro: "createdTableMacros",
};

/** DuckLake's identifier quoting: always double quotes, embedded quotes doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function pushUnique<T>(list: T[], item: T, same: (a: T, b: T) => boolean): void {
  if (!list.some((x) => same(x, item))) list.push(item);
}

export function addId(set: ChangeSet, field: IdField, id: number): void {
  pushUnique(set[field], id, (a, b) => a === b);
}

export function addName(set: ChangeSet, field: NameField, q: QualifiedName): void {
  pushUnique(set[field], q, (a, b) => a.schema === b.schema && a.name === b.name);
}

export function addCreatedSchema(set: ChangeSet, name: string): void {
  pushUnique(set.createdSchemas, name, (a, b) => a === b);
}

const ascending = (ids: number[]): number[] => [...ids].sort((a, b) => a - b);

/**
 * Writes a change set in DuckLake's writer order; returns null for an empty set (DuckLake stores NULL).
 * Created names have no defined order in DuckLake (hash containers); here tables and views are grouped by
 * schema in first-seen order, each in creation order.
 */
export function writeChangesMade(set: ChangeSet): string | null {
  const out: string[] = [];
  const ids = (kind: string, list: number[]) => {
    for (const id of ascending(list)) out.push(`${kind}:${id}`);
  };
  const qualified = (q: QualifiedName) => `${quoteIdentifier(q.schema)}.${quoteIdentifier(q.name)}`;
  ids("dropped_schema", set.droppedSchemas);
  ids("dropped_table", set.droppedTables);
  ids("dropped_view", set.droppedViews);
  for (const s of set.createdSchemas) out.push(`created_schema:${quoteIdentifier(s)}`);
  const schemaOrder: string[] = [];
  for (const q of [...set.createdTables, ...set.createdViews]) {
    if (!schemaOrder.includes(q.schema)) schemaOrder.push(q.schema);
  }
  for (const schema of schemaOrder) {
    for (const q of set.createdTables) if (q.schema === schema) out.push(`created_table:${qualified(q)}`);
    for (const q of set.createdViews) if (q.schema === schema) out.push(`created_view:${qualified(q)}`);
  }
  for (const q of set.createdScalarMacros) out.push(`created_scalar_macro:${qualified(q)}`);
  for (const q of set.createdTableMacros) out.push(`created_table_macro:${qualified(q)}`);
  ids("dropped_scalar_macro", set.droppedScalarMacros);
  ids("dropped_table_macro", set.droppedTableMacros);
  ids("inserted_into_table", set.insertedIntoTable);
  ids("deleted_from_table", set.deletedFromTable);
  ids("altered_table", set.alteredTable);
  ids("altered_view", set.alteredView);
  ids("inlined_insert", set.inlinedInsert);
  ids("inlined_delete", set.inlinedDelete);
  ids("inline_flush", set.inlineFlush);
  ids("merge_adjacent", set.mergeAdjacent);
  ids("rewrite_delete", set.rewriteDelete);
  return out.length === 0 ? null : out.join(",");
}

/** Reads one `"..."` value at `at`; returns the unquoted text and the index after the closing quote. */
function parseQuoted(text: string, at: number): { value: string; next: number } | undefined {
  if (text[at] !== '"') return undefined;
  let value = "";
  let i = at + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      if (text[i + 1] === '"') {
        value += '"';
        i += 2;
        continue;
      }
      return { value, next: i + 1 };
    }
    value += c;
    i++;
  }
  return undefined;
}

function parseQuotedValue(payload: string): string | undefined {
  const q = parseQuoted(payload, 0);
  return q && q.next === payload.length ? q.value : undefined;
}

function parseCatalogEntry(payload: string): QualifiedName | undefined {
  const first = parseQuoted(payload, 0);
  if (!first || payload[first.next] !== ".") return undefined;
  const second = parseQuoted(payload, first.next + 1);
  if (!second || second.next !== payload.length) return undefined;
  return { schema: first.value, name: second.value };
}

function parseUnsigned(payload: string): number | undefined {
  if (!/^[0-9]+$/.test(payload)) return undefined;
  const n = Number(payload);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Parses `changes_made` (or several joined with `,`, as DuckLake's STRING_AGG does). The kind is matched
 * case-insensitively; the payload runs to the next comma outside quotes, toggling on every `"`.
 */
export function parseChangesMade(text: string | null): ChangeSet {
  const set = emptyChangeSet();
  if (text === null || text === "") return set;
  let pos = 0;
  while (pos < text.length) {
    const colon = text.indexOf(":", pos);
    if (colon < 0) {
      set.unknown.push(text.slice(pos));
      break;
    }
    const kind = text.slice(pos, colon).toLowerCase();
    let inQuotes = false;
    let end = colon + 1;
    for (; end < text.length; end++) {
      const c = text[end];
      if (c === '"') inQuotes = !inQuotes;
      else if (c === "," && !inQuotes) break;
    }
    const payload = text.slice(colon + 1, end);
    const entry = text.slice(pos, end);
    pos = end + 1;
    const idField = ID_KINDS[kind];
    const nameField = NAME_KINDS[kind];
    if (idField) {
      const id = parseUnsigned(payload);
      if (id === undefined) set.unknown.push(entry);
      else addId(set, idField, id);
    } else if (nameField) {
      const q = parseCatalogEntry(payload);
      if (!q) set.unknown.push(entry);
      else addName(set, nameField, q);
    } else if (kind === "created_schema") {
      const name = parseQuotedValue(payload);
      if (name === undefined) set.unknown.push(entry);
      else addCreatedSchema(set, name);
    } else {
      set.unknown.push(entry);
    }
  }
  return set;
}

/** The key/value map `ducklake_snapshots()` shows for a change set (DuckLake's display names). */
export function displayChanges(set: ChangeSet): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const put = (k: string, vals: string[]) => {
    if (vals.length > 0) out[k] = vals;
  };
  const q = (x: QualifiedName) => `${x.schema}.${x.name}`;
  const ids = (xs: number[]) => ascending(xs).map(String);
  put("schemas_created", set.createdSchemas);
  put("schemas_dropped", ids(set.droppedSchemas));
  put("tables_created", set.createdTables.map(q));
  put("views_created", set.createdViews.map(q));
  put("scalar_macros_created", set.createdScalarMacros.map(q));
  put("table_macros_created", set.createdTableMacros.map(q));
  put("tables_dropped", ids(set.droppedTables));
  put("tables_altered", ids(set.alteredTable));
  put("tables_inserted_into", ids(set.insertedIntoTable));
  put("tables_deleted_from", ids(set.deletedFromTable));
  put("views_dropped", ids(set.droppedViews));
  put("scalar_macros_dropped", ids(set.droppedScalarMacros));
  put("table_macros_dropped", ids(set.droppedTableMacros));
  put("views_altered", ids(set.alteredView));
  put("inlined_insert", ids(set.inlinedInsert));
  put("inlined_delete", ids(set.inlinedDelete));
  put("flushed_inlined", ids(set.inlineFlush));
  put("merge_adjacent", ids(set.mergeAdjacent));
  put("rewrite_delete", ids(set.rewriteDelete));
  if (set.unknown.length > 0) out.unknown = set.unknown;
  return out;
}

/** Union of several change sets (the theirs side of a lost race). */
export function unionChangeSets(sets: ChangeSet[]): ChangeSet {
  const out = emptyChangeSet();
  for (const s of sets) {
    for (const f of Object.values(ID_KINDS)) for (const id of s[f]) addId(out, f, id);
    for (const f of Object.values(NAME_KINDS)) for (const q of s[f]) addName(out, f, q);
    for (const n of s.createdSchemas) addCreatedSchema(out, n);
    out.unknown.push(...s.unknown);
  }
  return out;
}

/** Is a change set empty (nothing DuckLake would record)? */
export function isEmptyChangeSet(set: ChangeSet): boolean {
  return writeChangesMade(set) === null && set.unknown.length === 0;
}
