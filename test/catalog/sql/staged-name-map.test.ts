/**
 * The server-side commit's name maps (`ducklake_staged_name_map[_entry]`, docs/decisions/0600-staged-name-maps.md):
 * the tree DuckLake's `ReadStagedNameMaps` rebuilds, flattened as `WriteNewColumnMappings` writes it, maps in
 * local-id order, local (2^63 and up) and committed mapping ids told apart, and shapes DuckLake never stages
 * refused by name. The end-to-end proof against stock is test/quack's `add-data-files-mapped` session.
 */
import { describe, expect, it } from "vitest";
import type { Literal } from "../../../catalog/sql/writes/parse.ts";
import { fileMapping, stagedNameMaps } from "../../../catalog/sql/writes/staged-name-map.ts";
import {
  STAGED_TABLES,
  type StagedBatch,
  type StagedTable,
} from "../../../catalog/sql/writes/staged-parse.ts";
import { flattenNameMap } from "../../../catalog/verbs/ops/name-maps.ts";

const num = (n: bigint | number): Literal => ({ k: "num", text: String(n) });
const str = (v: string): Literal => ({ k: "str", v });
const NULL: Literal = { k: "null" };
const LOCAL = 1n << 63n;

function batch(
  maps: [bigint, number][],
  entries: [bigint, number, number | null, string, number][],
): StagedBatch {
  const rows = Object.fromEntries(
    Object.keys(STAGED_TABLES).map((t) => [t, []]),
  ) as unknown as StagedBatch["rows"];
  rows.name_map = maps.map(([m, t]) => ({ map_id: num(m), table_id: num(t) }));
  rows.name_map_entry = entries.map(([m, e, p, s, f]) => ({
    map_id: num(m),
    entry_id: num(e),
    parent_entry_id: p === null ? NULL : num(p),
    source_name: str(s),
    target_field_id: num(f),
    hive_partition: { k: "bool", v: false },
  }));
  return {
    rows: rows as Record<StagedTable, StagedBatch["rows"][StagedTable]>,
    call: { metadataSchema: "main", schemaVersion: 1, maxRetryCount: 1, retryWaitMs: 1, retryBackoff: 1.5 },
  };
}

describe("staged name maps", () => {
  it("rebuilds each tree and flattens it depth first, maps in local-id order", () => {
    const maps = stagedNameMaps(
      batch(
        [
          [LOCAL + 1n, 5],
          [LOCAL, 4],
        ],
        [
          [LOCAL + 1n, 0, null, "b", 1],
          [LOCAL, 0, null, "s", 2],
          [LOCAL, 1, 0, "x", 3],
          [LOCAL, 2, null, "id", 1],
          [LOCAL, 3, 1, "y", 4],
        ],
      ),
    );
    expect(maps.map((m) => [m.localId, m.tableId])).toEqual([
      [LOCAL, 4],
      [LOCAL + 1n, 5],
    ]);
    expect(flattenNameMap(maps[0]?.roots ?? [])).toEqual([
      { column_id: 0, source_name: "s", target_field_id: 2, parent_column: null, is_partition: false },
      { column_id: 1, source_name: "x", target_field_id: 3, parent_column: 0, is_partition: false },
      { column_id: 2, source_name: "y", target_field_id: 4, parent_column: 1, is_partition: false },
      { column_id: 3, source_name: "id", target_field_id: 1, parent_column: null, is_partition: false },
    ]);
  });

  it("refuses entries DuckLake never stages: of no staged map, under no staged entry, in a cycle", () => {
    expect(() => stagedNameMaps(batch([], [[LOCAL, 0, null, "a", 1]]))).toThrow(/not staged/);
    expect(() => stagedNameMaps(batch([[LOCAL, 1]], [[LOCAL, 0, 7, "a", 1]]))).toThrow(/hangs under entry 7/);
    expect(() =>
      stagedNameMaps(
        batch(
          [[LOCAL, 1]],
          [
            [LOCAL, 0, 1, "a", 1],
            [LOCAL, 1, 0, "b", 2],
          ],
        ),
      ),
    ).toThrow(/cycle/);
  });

  it("tells a staged map's local id from a committed mapping id", () => {
    expect(fileMapping(NULL)).toEqual({ kind: "none" });
    expect(fileMapping(num(LOCAL + 2n))).toEqual({ kind: "staged", localId: LOCAL + 2n });
    expect(fileMapping(num(7))).toEqual({ kind: "committed", id: 7 });
  });
});
