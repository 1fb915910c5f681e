/**
 * Classifies a lost head race with DuckLake's conflict matrix (CheckForConflicts): our change set against
 * the union of every snapshot committed since our premise. Table-grained and directional, as DuckLake's
 * is, with two refinements the commit protocol requires:
 *  - delete vs delete on one table compares the targeted data files (DuckLake's file-grain check); an
 *    inlined delete (on either side) or a change set whose file ids we did not author falls back to
 *    table grain;
 *  - creating or dropping schemas is checked at schema-list grain (any two such commits conflict).
 * Same-name creates are not reported here: the re-run of the verb list against the new head re-resolves
 * the name and answers AlreadyExists, which is the definitive answer DuckLake's own retry would reach.
 */
import { type ChangeSet, foldForCompare, type QualifiedName } from "./conflict-support.ts";

export interface ConflictSide {
  changes: ChangeSet;
  /** Data files targeted by this side's delete files (from records we authored). */
  deletedDataFileIds: number[];
  /** True when some delete on this side names no file, or the file ids are unknown. */
  deletesUntargeted: boolean;
}

export interface OurSide extends ConflictSide {
  /** Names of the schemas we drop, by id (DuckLake compares their names with theirs created entries). */
  droppedSchemaNames: Map<number, string>;
  /** Ids of the schemas our created tables, views and macros live in, by folded schema name. */
  createdInSchemaIds: Map<string, number>;
}

const has = (ids: number[], id: number): boolean => ids.includes(id);

/** Returns a description of the first true conflict, or null when the race is benign. */
export function findConflict(ours: OurSide, theirs: ConflictSide): string | null {
  const o = ours.changes;
  const t = theirs.changes;
  if (t.unknown.length > 0 && !isEmpty(o)) {
    return `a concurrent commit recorded a change this catalog cannot classify (${t.unknown[0]})`;
  }
  for (const id of o.droppedTables) {
    if (has(t.droppedTables, id)) return `dropping table ${id}, which a concurrent commit also dropped`;
  }
  for (const id of o.droppedViews) {
    if (has(t.droppedViews, id)) return `dropping view ${id}, which a concurrent commit also dropped`;
  }
  for (const id of o.droppedScalarMacros) {
    if (has(t.droppedScalarMacros, id)) return `dropping macro ${id}, which a concurrent commit also dropped`;
  }
  for (const id of o.droppedTableMacros) {
    if (has(t.droppedTableMacros, id)) return `dropping macro ${id}, which a concurrent commit also dropped`;
  }
  const oursTouchSchemas = o.createdSchemas.length > 0 || o.droppedSchemas.length > 0;
  const theirsTouchSchemas = t.createdSchemas.length > 0 || t.droppedSchemas.length > 0;
  if (oursTouchSchemas && theirsTouchSchemas) {
    return "changing the schema list, which a concurrent commit also changed";
  }
  for (const id of o.droppedSchemas) {
    const name = ours.droppedSchemaNames.get(id);
    if (name === undefined) continue;
    const inIt = (q: QualifiedName) => foldForCompare(q.schema) === foldForCompare(name);
    if (t.createdTables.some(inIt) || t.createdViews.some(inIt)) {
      return `dropping schema ${id}, in which a concurrent commit created an entry`;
    }
  }
  for (const q of [
    ...o.createdTables,
    ...o.createdViews,
    ...o.createdScalarMacros,
    ...o.createdTableMacros,
  ]) {
    const schemaId = ours.createdInSchemaIds.get(foldForCompare(q.schema));
    if (schemaId !== undefined && has(t.droppedSchemas, schemaId)) {
      return `creating an entry in schema ${schemaId}, which a concurrent commit dropped`;
    }
  }
  for (const id of [...o.insertedIntoTable, ...o.inlinedInsert]) {
    if (has(t.droppedTables, id) || has(t.alteredTable, id)) {
      return `inserting into table ${id}, which a concurrent commit dropped or altered`;
    }
    if (has(t.deletedFromTable, id) || has(t.inlinedDelete, id)) {
      return `inserting into table ${id}, from which a concurrent commit deleted`;
    }
  }
  for (const id of o.deletedFromTable) {
    if (has(t.droppedTables, id) || has(t.alteredTable, id)) {
      return `deleting from table ${id}, which a concurrent commit dropped or altered`;
    }
    if (has(t.mergeAdjacent, id) || has(t.rewriteDelete, id)) {
      return `deleting from table ${id}, whose files a concurrent commit compacted`;
    }
    if (has(t.insertedIntoTable, id) || has(t.inlinedInsert, id)) {
      return `deleting from table ${id}, into which a concurrent commit inserted`;
    }
    // The delete-vs-delete rule (docs/decisions/0463-commit-protocol-rules.md): an inlined delete names no file, so it meets ours at table grain
    // (DuckLake itself misses this pair, duckdb/ducklake#1215).
    if (has(t.inlinedDelete, id))
      return `deleting from table ${id}, from which a concurrent commit deleted inlined rows`;
    if (has(t.deletedFromTable, id)) {
      if (ours.deletesUntargeted || theirs.deletesUntargeted) {
        return `deleting from table ${id}, from which a concurrent commit also deleted`;
      }
      const shared = ours.deletedDataFileIds.find((f) => theirs.deletedDataFileIds.includes(f));
      if (shared !== undefined) {
        return `deleting from data file ${shared} of table ${id}, from which a concurrent commit also deleted`;
      }
    }
  }
  for (const id of o.inlinedDelete) {
    if (has(t.droppedTables, id) || has(t.alteredTable, id)) {
      return `deleting inlined rows of table ${id}, which a concurrent commit dropped or altered`;
    }
    if (has(t.inlinedDelete, id) || has(t.inlineFlush, id) || has(t.deletedFromTable, id)) {
      return `deleting inlined rows of table ${id}, which a concurrent commit also deleted or flushed`;
    }
    if (has(t.mergeAdjacent, id) || has(t.rewriteDelete, id)) {
      return `deleting inlined rows of table ${id}, whose files a concurrent commit compacted`;
    }
    if (has(t.insertedIntoTable, id) || has(t.inlinedInsert, id)) {
      return `deleting inlined rows of table ${id}, into which a concurrent commit inserted`;
    }
  }
  for (const id of o.inlineFlush) {
    if (has(t.droppedTables, id) || has(t.inlinedDelete, id) || has(t.inlineFlush, id)) {
      return `flushing inlined rows of table ${id}, which a concurrent commit dropped, deleted from or flushed`;
    }
  }
  for (const id of [...o.mergeAdjacent, ...o.rewriteDelete]) {
    // Its inputs' deletes (Parquet or inlined) would be lost, and an alter changes the layout it wrote.
    if (
      has(t.droppedTables, id) ||
      has(t.deletedFromTable, id) ||
      has(t.inlinedDelete, id) ||
      has(t.alteredTable, id)
    ) {
      return `compacting table ${id}, which a concurrent commit dropped, altered or deleted from`;
    }
    if (has(t.mergeAdjacent, id) || has(t.rewriteDelete, id)) {
      return `compacting table ${id}, which a concurrent commit also compacted`;
    }
  }
  for (const id of o.alteredTable) {
    if (has(t.droppedTables, id) || has(t.alteredTable, id)) {
      return `altering table ${id}, which a concurrent commit dropped or altered`;
    }
  }
  for (const id of o.alteredView) {
    if (has(t.alteredView, id)) return `altering view ${id}, which a concurrent commit also altered`;
  }
  return null;
}

function isEmpty(set: ChangeSet): boolean {
  return Object.values(set).every((v) => (v as unknown[]).length === 0);
}
