import { describe, expect, it } from "vitest";
import { CommitRequestSchema, VerbSchema } from "../../catalog/index.ts";
import { nameProblem } from "../../catalog/name-rules.ts";

const BAD_NAMES: Record<string, string> = {
  nul: "a\u0000b",
  "line feed": "a\nb",
  tab: "a\tb",
  delete: "a\u007fb",
  "C1 control": "a\u0085b",
  "lone high surrogate": "\ud800",
  "lone low surrogate": "x\udc00",
  "reversed pair": "\udc00\ud800",
};

const T = { schema: "main", name: "t" };

/** One verb per kind of name a verb carries, with that name replaced by `n`. */
const NAME_KINDS: Record<string, (n: string) => unknown> = {
  schema: (n) => ({ op: "create_schema", name: n }),
  table: (n) => ({ op: "create_table", name: n, columns: [{ name: "a", type: "int32" }] }),
  "table's schema reference": (n) => ({
    op: "create_table",
    schema: n,
    name: "t",
    columns: [{ name: "a", type: "int32" }],
  }),
  column: (n) => ({ op: "create_table", name: "t", columns: [{ name: n, type: "int32" }] }),
  "nested column": (n) => ({
    op: "add_column",
    table: T,
    column: { name: "s", type: "struct", children: [{ name: n, type: "int32" }] },
  }),
  "renamed table": (n) => ({ op: "rename_table", table: T, newName: n }),
  "renamed column": (n) => ({ op: "rename_column", table: T, column: "a", newName: n }),
  "column path": (n) => ({ op: "drop_column", table: T, column: { path: ["s", n] } }),
  view: (n) => ({ op: "create_view", name: n, sql: "SELECT 1" }),
  "renamed view": (n) => ({ op: "rename_view", view: T, newName: n }),
  macro: (n) => ({ op: "create_macro", name: n, impls: [{ sql: "1" }] }),
  "macro parameter": (n) => ({
    op: "create_macro",
    name: "m",
    impls: [{ sql: "1", parameters: [{ name: n }] }],
  }),
  "tag key": (n) => ({ op: "set_tag", target: { table: T }, key: n, value: "v" }),
  "removed tag key": (n) => ({ op: "remove_tag", target: { table: T }, key: n }),
  option: (n) => ({ op: "set_option", name: n, value: "1" }),
};

describe("names no engine can use are refused (one rule, catalog/name-rules.ts)", () => {
  it("accepts ordinary names, including non-ASCII and paired surrogates", () => {
    for (const ok of ["orders", "Straße", "日本語", "emoji 😀", "with space", "a-b_c.d"]) {
      expect(nameProblem(ok)).toBeNull();
    }
  });

  for (const [what, bad] of Object.entries(BAD_NAMES)) {
    it(`refuses a name with a ${what}`, () => {
      expect(nameProblem(bad)).not.toBeNull();
    });
  }

  for (const [kind, build] of Object.entries(NAME_KINDS)) {
    it(`the verb schema refuses a bad ${kind} name with a clear reason`, () => {
      expect(VerbSchema.safeParse(build("fine")).success).toBe(true);
      for (const bad of Object.values(BAD_NAMES)) {
        const r = CommitRequestSchema.safeParse({ verbs: [build(bad)] });
        expect(r.success).toBe(false);
        const messages = r.error?.issues.map((i) => i.message).join("; ") ?? "";
        expect(messages).toMatch(/control characters|valid Unicode text/);
      }
    });
  }
});
