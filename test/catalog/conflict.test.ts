import { describe, expect, it } from "vitest";
import { type ChangeSet, emptyChangeSet, parseChangesMade } from "../../catalog/changes.ts";
import { type ConflictSide, findConflict, type OurSide } from "../../catalog/conflict.ts";

function side(text: string, files: number[] = [], untargeted = false): ConflictSide {
  return { changes: parseChangesMade(text), deletedDataFileIds: files, deletesUntargeted: untargeted };
}
function ours(text: string, files: number[] = [], untargeted = false, extra: Partial<OurSide> = {}): OurSide {
  return {
    ...side(text, files, untargeted),
    droppedSchemaNames: new Map(),
    createdInSchemaIds: new Map([["main", 0]]),
    ...extra,
  };
}
const conflicts = (o: OurSide, t: ConflictSide): boolean => findConflict(o, t) !== null;

describe("DuckLake's conflict matrix", () => {
  it("disjoint tables are benign whatever the kinds", () => {
    expect(
      conflicts(ours("altered_table:1,deleted_from_table:1"), side("dropped_table:2,altered_table:3")),
    ).toBe(false);
  });

  it("insert is benign against insert, compaction and flush of the same table", () => {
    for (const theirs of [
      "inserted_into_table:1",
      "inlined_insert:1",
      "merge_adjacent:1",
      "rewrite_delete:1",
      "inline_flush:1",
    ]) {
      expect(conflicts(ours("inserted_into_table:1"), side(theirs)), theirs).toBe(false);
      expect(conflicts(ours("inlined_insert:1"), side(theirs)), theirs).toBe(false);
    }
  });

  it("insert conflicts with drop, alter, delete and inlined delete of its table", () => {
    for (const theirs of ["dropped_table:1", "altered_table:1", "deleted_from_table:1", "inlined_delete:1"]) {
      expect(conflicts(ours("inserted_into_table:1"), side(theirs, [7])), theirs).toBe(true);
    }
  });

  it("delete vs delete is decided at data-file grain, with table-grain fallbacks", () => {
    expect(conflicts(ours("deleted_from_table:1", [10]), side("deleted_from_table:1", [11]))).toBe(false);
    expect(conflicts(ours("deleted_from_table:1", [10, 12]), side("deleted_from_table:1", [12]))).toBe(true);
    expect(conflicts(ours("deleted_from_table:1", [10]), side("deleted_from_table:1", [], true))).toBe(true);
    expect(conflicts(ours("deleted_from_table:1", [10], true), side("deleted_from_table:1", [11]))).toBe(
      true,
    );
  });

  it("delete conflicts with compaction and inserts of its table", () => {
    for (const theirs of [
      "merge_adjacent:1",
      "rewrite_delete:1",
      "inserted_into_table:1",
      "inlined_insert:1",
      "altered_table:1",
    ]) {
      expect(conflicts(ours("deleted_from_table:1", [3]), side(theirs)), theirs).toBe(true);
    }
  });

  it("inlined deletes are table grain", () => {
    expect(conflicts(ours("inlined_delete:1", [], true), side("inlined_delete:1", [], true))).toBe(true);
    expect(conflicts(ours("inlined_delete:1", [], true), side("inline_flush:1"))).toBe(true);
    expect(conflicts(ours("inlined_delete:1", [], true), side("inlined_delete:2"))).toBe(false);
  });

  it("flush, compaction and alter rows", () => {
    expect(conflicts(ours("inline_flush:1"), side("inline_flush:1"))).toBe(true);
    expect(conflicts(ours("inline_flush:1"), side("inlined_insert:1"))).toBe(false);
    expect(conflicts(ours("merge_adjacent:1"), side("deleted_from_table:1", [4]))).toBe(true);
    expect(conflicts(ours("merge_adjacent:1"), side("inserted_into_table:1"))).toBe(false);
    expect(conflicts(ours("altered_table:1"), side("altered_table:1"))).toBe(true);
    expect(conflicts(ours("altered_table:1"), side("inserted_into_table:1"))).toBe(false);
    expect(conflicts(ours("altered_view:5"), side("altered_view:5"))).toBe(true);
    expect(conflicts(ours("dropped_table:1"), side("dropped_table:1"))).toBe(true);
    expect(conflicts(ours("dropped_view:1"), side("dropped_view:1"))).toBe(true);
    expect(conflicts(ours("dropped_scalar_macro:1"), side("dropped_scalar_macro:1"))).toBe(true);
  });

  it("schema create/drop conflict at schema-list grain, and with creations inside a dropped schema", () => {
    expect(conflicts(ours('created_schema:"a"'), side('created_schema:"b"'))).toBe(true);
    expect(conflicts(ours("dropped_schema:3"), side('created_schema:"b"'))).toBe(true);
    expect(conflicts(ours('created_schema:"a"'), side("inserted_into_table:3"))).toBe(false);
    const dropS = ours("dropped_schema:3", [], false, { droppedSchemaNames: new Map([[3, "s"]]) });
    expect(conflicts(dropS, side('created_table:"S"."t"'))).toBe(true);
    const createInS = ours('created_table:"s"."t"', [], false, { createdInSchemaIds: new Map([["s", 3]]) });
    expect(conflicts(createInS, side("dropped_schema:3"))).toBe(true);
    expect(conflicts(createInS, side("dropped_schema:4"))).toBe(false);
  });

  it("same-name creates are left to the re-run (it answers AlreadyExists)", () => {
    expect(conflicts(ours('created_table:"main"."orders"'), side('created_table:"main"."orders"'))).toBe(
      false,
    );
  });

  it("an unknown kind on their side is conservatively a conflict", () => {
    expect(conflicts(ours("inserted_into_table:1"), side("future_kind:9"))).toBe(true);
    const empty: ChangeSet = emptyChangeSet();
    expect(findConflict({ ...ours(""), changes: empty }, side("future_kind:9"))).toBeNull();
  });
});

describe("inlined deletes meet file deletes at table grain (seed rule)", () => {
  it("conflicts both ways", () => {
    expect(
      findConflict(ours("deleted_from_table:1", [3]), side("inlined_delete:1", [], true)),
    ).not.toBeNull();
    expect(
      findConflict(ours("inlined_delete:1", [], true), side("deleted_from_table:1", [3])),
    ).not.toBeNull();
  });
});

describe("compaction (decision 0322)", () => {
  it("is benign against appends and a true conflict against deletes, drops, alters and compactions of its table", () => {
    for (const kind of ["merge_adjacent:1", "rewrite_delete:1"]) {
      for (const theirs of [
        "inserted_into_table:1",
        "inlined_insert:1",
        "inline_flush:1",
        "merge_adjacent:2",
      ])
        expect(conflicts(ours(kind), side(theirs)), `${kind} vs ${theirs}`).toBe(false);
      for (const theirs of [
        "deleted_from_table:1",
        "inlined_delete:1",
        "dropped_table:1",
        "altered_table:1",
        "merge_adjacent:1",
        "rewrite_delete:1",
      ])
        expect(conflicts(ours(kind), side(theirs, [4])), `${kind} vs ${theirs}`).toBe(true);
    }
  });

  it("an inlined delete conflicts with a concurrent compaction of its table", () => {
    for (const theirs of ["merge_adjacent:1", "rewrite_delete:1"]) {
      expect(conflicts(ours("inlined_delete:1", [], true), side(theirs)), theirs).toBe(true);
      expect(conflicts(ours("inlined_delete:2", [], true), side(theirs)), theirs).toBe(false);
    }
  });
});
