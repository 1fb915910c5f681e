import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ChangeSet,
  displayChanges,
  emptyChangeSet,
  parseChangesMade,
  quoteIdentifier,
  unionChangeSets,
  writeChangesMade,
} from "../../catalog/changes.ts";
import { assertProperty } from "../support/property.ts";

const name = fc.string({
  minLength: 1,
  maxLength: 12,
  unit: fc.constantFrom("a", "B", '"', ",", ":", ".", " ", "é", "_"),
});
const ids = fc.uniqueArray(fc.nat({ max: 1000 }), { maxLength: 4 });
const qnames = fc.uniqueArray(fc.record({ schema: name, name }), {
  maxLength: 3,
  selector: (q) => `${q.schema}\u0000${q.name}`,
});

const changeSet: fc.Arbitrary<ChangeSet> = fc.record({
  droppedSchemas: ids,
  droppedTables: ids,
  droppedViews: ids,
  createdSchemas: fc.uniqueArray(name, { maxLength: 3 }),
  createdTables: qnames,
  createdViews: qnames,
  createdScalarMacros: qnames,
  createdTableMacros: qnames,
  droppedScalarMacros: ids,
  droppedTableMacros: ids,
  insertedIntoTable: ids,
  deletedFromTable: ids,
  alteredTable: ids,
  alteredView: ids,
  inlinedInsert: ids,
  inlinedDelete: ids,
  inlineFlush: ids,
  mergeAdjacent: ids,
  rewriteDelete: ids,
  compactedTable: fc.constant([]),
  unknown: fc.constant([]),
});

function normalized(set: ChangeSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(set)) {
    const arr = v as unknown[];
    out[k] = [...arr].map((x) => JSON.stringify(x)).sort();
  }
  return out;
}

describe("changes_made grammar", () => {
  it("writes DuckLake's order, quoting and ids", () => {
    const set = emptyChangeSet();
    set.insertedIntoTable.push(9, 4);
    set.createdTables.push({ schema: "main", name: 'we"ird' });
    set.droppedTables.push(52);
    set.createdSchemas.push("s,1");
    set.alteredTable.push(3);
    expect(writeChangesMade(set)).toBe(
      'dropped_table:52,created_schema:"s,1",created_table:"main"."we""ird",inserted_into_table:4,inserted_into_table:9,altered_table:3',
    );
    expect(writeChangesMade(emptyChangeSet())).toBeNull();
    expect(quoteIdentifier('a"b')).toBe('"a""b"');
  });

  it("parses the example from DuckLake issue #1283 and bootstrap's entry", () => {
    const set = parseChangesMade('dropped_table:52,created_table:"main"."_tmp_w4",inserted_into_table:232');
    expect(set.droppedTables).toEqual([52]);
    expect(set.createdTables).toEqual([{ schema: "main", name: "_tmp_w4" }]);
    expect(set.insertedIntoTable).toEqual([232]);
    expect(parseChangesMade('created_schema:"main"').createdSchemas).toEqual(["main"]);
    expect(displayChanges(parseChangesMade('created_schema:"main"'))).toEqual({ schemas_created: ["main"] });
  });

  it("accepts DuckLake's aliases and case-insensitive kinds", () => {
    const set = parseChangesMade("FLUSHED_INLINED:3,inline_flush:4,compacted_table:5,Altered_Table:6");
    expect(set.inlineFlush).toEqual([3, 4]);
    expect(set.compactedTable).toEqual([5]);
    expect(set.alteredTable).toEqual([6]);
    expect(set.unknown).toEqual([]);
  });

  it("keeps unknown or malformed entries as unknown instead of throwing", () => {
    const set = parseChangesMade('future_kind:1,inserted_into_table:x,created_table:"a",no_colon');
    expect(set.unknown).toEqual(["future_kind:1", "inserted_into_table:x", 'created_table:"a"', "no_colon"]);
    expect(parseChangesMade(null)).toEqual(emptyChangeSet());
  });

  it("round-trips any change set through writer and parser", () => {
    assertProperty(
      fc.property(changeSet, (set) => {
        const text = writeChangesMade(set);
        expect(normalized(parseChangesMade(text))).toEqual(normalized(set));
      }),
      { numRuns: 300 },
    );
  });

  it("parses a STRING_AGG of several snapshots as their union", () => {
    assertProperty(
      fc.property(changeSet, changeSet, (a, b) => {
        const joined = [writeChangesMade(a), writeChangesMade(b)].filter((x) => x !== null).join(",");
        expect(normalized(parseChangesMade(joined))).toEqual(normalized(unionChangeSets([a, b])));
      }),
      { numRuns: 200 },
    );
  });
});
