/**
 * `CALL lake.set_option(...)`'s read: DuckLake 1.5.5 counts the global `ducklake_metadata` rows of the
 * option's key before it writes. Stock answers one BIGINT column `count_star()`.
 */
import { describe, expect, it } from "vitest";
import { head } from "../../../catalog/index.ts";
import { answerRead, splitStatements } from "../../../catalog/sql/index.ts";
import { shapeOf } from "../../../catalog/sql/lexer.ts";
import { fresh } from "../support.ts";

const SHAPE = 'SELECT COUNT ( * ) FROM "main" . ducklake_metadata WHERE key = ? AND scope IS NULL';

async function count(sql: string): Promise<unknown> {
  const { store } = await fresh("qg-option-count", { dataPath: "data/" });
  const view = store.snapshot();
  await head(view);
  const [stmt] = splitStatements(sql);
  if (!stmt) throw new Error("no statement");
  expect(shapeOf(stmt.tokens)).toBe(SHAPE);
  return answerRead({ view, memo: new Map() }, stmt);
}

describe("set_option's global option count", () => {
  it("counts the global rows of the key, as stock does", async () => {
    const sql = (key: string): string =>
      `SELECT COUNT(*) FROM "main".ducklake_metadata WHERE key = '${key}' AND scope IS NULL`;
    expect(await count(sql("data_path"))).toEqual({
      columns: [{ name: "count_star()", type: { id: "BIGINT" } }],
      rows: [[1n]],
    });
    expect(await count(sql("data_inlining_row_limit"))).toMatchObject({ rows: [[0n]] });
  });
});
