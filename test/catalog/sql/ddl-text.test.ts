/**
 * The `CREATE TABLE` text duckdb_tables() shows for an inlined table, against DuckDB 1.5.5's own
 * rendering of the same declarations (expected strings printed by `SELECT sql FROM duckdb_tables()` after
 * these CREATE TABLEs on stock DuckDB): top-level names are quoted unless plain lower-case non-keywords,
 * struct fields unless plain identifiers (capitals allowed) and non-keywords, keywords case-insensitively.
 */
import { describe, expect, it } from "vitest";
import { createTableSql } from "../../../catalog/sql/metadata/attach.ts";
import { duckdbTypeName, type TypeNode } from "../../../catalog/types.ts";

const leaf = (name: string, type: string): TypeNode => ({ name, type, children: [] });
const node = (name: string, type: string, children: TypeNode[]): TypeNode => ({ name, type, children });
const col = (n: TypeNode): [string, string] => [n.name, duckdbTypeName(n)];

describe("inlined tables' CREATE TABLE text is DuckDB's", () => {
  it("quotes keywords, capitals and specials as DuckDB does, at top level and in structs", () => {
    // CREATE TABLE x("Key" int, "a b" int, "order" int, name int, "path" int, "ducklake" int,
    //   "s" STRUCT("key" int, "A" int), m MAP(varchar,int), dd DECIMAL(10,2), tz TIMESTAMPTZ, l int[])
    const cols = [
      leaf("Key", "int32"),
      leaf("a b", "int32"),
      leaf("order", "int32"),
      leaf("name", "int32"),
      leaf("path", "int32"),
      leaf("ducklake", "int32"),
      node("s", "struct", [leaf("key", "int32"), leaf("A", "int32")]),
      node("m", "map", [leaf("key", "varchar"), leaf("value", "int32")]),
      leaf("dd", "decimal(10,2)"),
      leaf("tz", "timestamptz"),
      node("l", "list", [leaf("element", "int32")]),
    ].map(col);
    expect(createTableSql("x", cols)).toBe(
      'CREATE TABLE x("Key" INTEGER, "a b" INTEGER, "order" INTEGER, "name" INTEGER, path INTEGER, ducklake INTEGER, s STRUCT("key" INTEGER, A INTEGER), m MAP(VARCHAR, INTEGER), dd DECIMAL(10,2), tz TIMESTAMP WITH TIME ZONE, l INTEGER[]);',
    );
  });

  it("treats keywords case-insensitively and doubles embedded quotes", () => {
    // CREATE TABLE x("KEY" int, s STRUCT("KEY" int, "Order" int, "x""y" int), "a""b" int)
    const cols = [
      leaf("KEY", "int32"),
      node("s", "struct", [leaf("KEY", "int32"), leaf("Order", "int32"), leaf('x"y', "int32")]),
      leaf('a"b', "int32"),
    ].map(col);
    expect(createTableSql("x", cols)).toBe(
      'CREATE TABLE x("KEY" INTEGER, s STRUCT("KEY" INTEGER, "Order" INTEGER, "x""y" INTEGER), "a""b" INTEGER);',
    );
  });
});
