/**
 * Every write statement template DuckLake 1.5.5 sends with client-side commit (the shared capture's 90
 * DDL/DML templates, and every statement of this repo's own stock captures) is either parsed into a row
 * operation or refused as Unsupported naming its shape — and the refused ones are exactly the list below
 * (empty since the flush of inlined deletes of Parquet files is translated; see
 * docs/decisions/0230-sql-write-translation.md, 0240-quack-flush-inlined-data.md and
 * 0245-quack-flush-inlined-deletes.md).
 */
import { describe, expect, it } from "vitest";
import { Unsupported } from "../../../catalog/errors.ts";
import { shapeOf, splitStatements } from "../../../catalog/sql/lexer.ts";
import { parseWrite } from "../../../catalog/sql/writes/parse.ts";
import templates from "../../fixtures/quack/templates-client-commit-writes.json";
import captured from "../../support/quack-writes.ts";

/** Shape prefixes of the statements we refuse (none today). */
const REFUSED: string[] = [];

function classify(sql: string): { shape: string; parsed: boolean }[] {
  return splitStatements(sql).map((stmt) => {
    const shape = shapeOf(stmt.tokens);
    try {
      parseWrite(stmt);
      return { shape, parsed: true };
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      expect(e.message).toContain(shape.slice(0, 60));
      return { shape, parsed: false };
    }
  });
}

function check(all: { shape: string; parsed: boolean }[]): void {
  for (const { shape, parsed } of all) {
    const refused = REFUSED.some((p) => shape.startsWith(p));
    expect(parsed, shape).toBe(!refused);
  }
}

describe("DuckLake 1.5.5's write templates", () => {
  it("every captured template is translated or refused by name, as listed", () => {
    const t = (templates as unknown as { templates: { example: string }[] }).templates;
    expect(t.length).toBe(90);
    check(t.flatMap((x) => classify(x.example)));
  });

  it("every statement of this repo's stock captures is translated or refused by name, as listed", () => {
    const sc = (captured as unknown as { scenarios: Record<string, { steps: { writes: string[] }[] }> })
      .scenarios;
    const all = Object.values(sc).flatMap((s) => s.steps.flatMap((st) => st.writes.flatMap(classify)));
    expect(all.length).toBeGreaterThan(100);
    check(all);
  });
});
