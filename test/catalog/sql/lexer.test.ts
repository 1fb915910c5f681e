import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../../catalog/errors.ts";
import {
  literalsOf,
  MAX_SQL_BYTES,
  MAX_SQL_TOKENS,
  shapeOf,
  splitStatements,
  statementKind,
  tokenize,
} from "../../../catalog/sql/index.ts";

describe("catalog/sql lexer", () => {
  it("takes MAX_SQL_TOKENS tokens and refuses one more, by name, within the byte bound (decision 0661)", () => {
    // One-character tokens: the densest text, 2 bytes a token, far inside MAX_SQL_BYTES.
    const at = "1,".repeat(MAX_SQL_TOKENS / 2);
    expect(at.length).toBeLessThan(MAX_SQL_BYTES);
    expect(tokenize(at).length).toBe(MAX_SQL_TOKENS);
    const over = `${at}1`;
    expect(() => tokenize(over)).toThrow(InvalidRequest);
    expect(() => splitStatements(over)).toThrow(/more than 1048576 tokens \(MAX_SQL_TOKENS\)/);
  });

  it("re-bases each statement's token offsets to the statement", () => {
    const [a, b] = splitStatements("SELECT 1; SELECT 'x'");
    expect(a?.tokens.map((t) => t.at)).toEqual([0, 7]);
    expect(b?.tokens.map((t) => t.at)).toEqual([0, 7]);
    expect(b?.text.slice(b.tokens[1]?.at)).toBe("'x'");
  });

  it("splits at top-level semicolons only, never inside quotes or comments", () => {
    const stmts = splitStatements(
      `INSERT INTO "main".ducklake_tag VALUES (1, 'a;b', '''x;''');-- a; comment\nSELECT "we;ird" FROM t /* ; */ ;;`,
    );
    expect(stmts.map((s) => s.text)).toEqual([
      `INSERT INTO "main".ducklake_tag VALUES (1, 'a;b', '''x;''')`,
      `SELECT "we;ird" FROM t /* ; */`,
    ]);
    expect(literalsOf(stmts[0]?.tokens ?? []).map((t) => t.value)).toEqual(["1", "a;b", "'x;'"]);
    expect(stmts[1]?.tokens[1]).toMatchObject({ kind: "quoted", value: "we;ird" });
  });

  it("gives statements of one template the same shape whatever their literals and inlined table ids", () => {
    const a = splitStatements(`SELECT NULL FROM "main".ducklake_inlined_delete_12 LIMIT 1`)[0];
    const b = splitStatements(`select   NULL from "main".ducklake_inlined_delete_3\n LIMIT 7`)[0];
    expect(a && shapeOf(a.tokens)).toBe(`SELECT NULL FROM "main" . ducklake_inlined_delete_N LIMIT ?`);
    expect(b && shapeOf(b.tokens)).toBe(`select NULL from "main" . ducklake_inlined_delete_N LIMIT ?`);
    const c = splitStatements(
      `SELECT x FROM "main".ducklake_inlined_data_2_1 WHERE 4 >= begin_snapshot AND s = 'q'`,
    )[0];
    expect(c && shapeOf(c.tokens)).toBe(
      `SELECT x FROM "main" . ducklake_inlined_data_N_N WHERE ? >= begin_snapshot AND s = ?`,
    );
  });

  it("reads numbers, operators and casts as DuckDB writes them", () => {
    expect(tokenize(`a::VARCHAR >= 1.5e3 AND b <> .5`).map((t) => t.text)).toEqual([
      "a",
      "::",
      "VARCHAR",
      ">=",
      "1.5e3",
      "AND",
      "b",
      "<>",
      ".5",
    ]);
  });

  it("refuses unterminated strings, identifiers and comments", () => {
    expect(() => tokenize(`SELECT 'abc`)).toThrow(InvalidRequest);
    expect(() => tokenize(`SELECT "abc`)).toThrow(InvalidRequest);
    expect(() => tokenize(`SELECT /* abc`)).toThrow(InvalidRequest);
  });

  it("classifies reads, writes and transaction control", () => {
    const kind = (sql: string) => statementKind(splitStatements(sql)[0] ?? { text: "", tokens: [] });
    expect(kind(`SELECT 1`)).toBe("read");
    expect(kind(`FROM duckdb_secrets()`)).toBe("read");
    expect(kind(`WITH a AS (SELECT 1) SELECT * FROM a`)).toBe("read");
    expect(kind(`WITH v(a) AS (VALUES (1)) UPDATE "main".ducklake_table_stats SET x = 1 FROM v`)).toBe(
      "write",
    );
    expect(kind(`INSERT INTO "main".ducklake_snapshot VALUES (1, NOW(), 0, 1, 0)`)).toBe("write");
    expect(kind(`CREATE TABLE "main".ducklake_inlined_delete_2(file_id BIGINT)`)).toBe("write");
    expect(kind(`BEGIN TRANSACTION`)).toBe("transaction");
  });
});
