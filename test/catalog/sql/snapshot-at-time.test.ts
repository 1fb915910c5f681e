/**
 * `AT (TIMESTAMP => t)`'s read: DuckLake 1.5.5 asks for the newest snapshot taken at or before t
 * (the statement text as the conformance run captured it). No snapshot that old: no row.
 */
import { describe, expect, it } from "vitest";
import { head } from "../../../catalog/index.ts";
import { answerRead, splitStatements } from "../../../catalog/sql/index.ts";
import { fresh } from "../support.ts";

const sql = (at: string): string =>
  `SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM "main".ducklake_snapshot WHERE snapshot_id = (SELECT snapshot_id FROM "main".ducklake_snapshot WHERE snapshot_time::TIMESTAMPTZ <= '${at}' ORDER BY snapshot_time::TIMESTAMPTZ DESC LIMIT 1)`;

describe("snapshot at a time", () => {
  it("answers the newest snapshot at or before the time, none before the first", async () => {
    const { store } = await fresh("qg-snapshot-at-time", { dataPath: "data/" });
    const view = store.snapshot();
    await head(view);
    const ask = async (at: string): Promise<unknown> => {
      const [stmt] = splitStatements(sql(at));
      if (!stmt) throw new Error("no statement");
      return answerRead({ view, memo: new Map() }, stmt);
    };
    const later = await ask("2999-01-01 00:00:00.123456+00");
    expect(later).toMatchObject({
      columns: [
        { name: "snapshot_id", type: { id: "BIGINT" } },
        { name: "schema_version", type: { id: "BIGINT" } },
        { name: "next_catalog_id", type: { id: "BIGINT" } },
        { name: "next_file_id", type: { id: "BIGINT" } },
      ],
      rows: [[0n, 0n, 1n, 0n]],
    });
    expect(await ask("2000-01-01 00:00:00+00")).toMatchObject({ rows: [] });
  });
});
