import { describe, expect, it } from "vitest";
import { splitStatements } from "../../../catalog/sql/index.ts";
import { MAX_METADATA_SCHEMA_CHARS, routeMetadataSchema } from "../../../catalog/sql/metadata-schema.ts";

const route = (sql: string) => routeMetadataSchema(splitStatements(sql));
const texts = (sql: string) => route(sql).statements.map((s) => s.text);

describe("METADATA_SCHEMA routing (docs/decisions/0721-metadata-schemas.md)", () => {
  it("leaves the default schema's requests as they are", () => {
    const sql = 'SELECT snapshot_id FROM "main".ducklake_snapshot; FROM duckdb_secrets()';
    const r = route(sql);
    expect(r.schema).toBeNull();
    expect(r.rewritten).toBe(false);
    expect(r.statements.map((s) => s.text)).toEqual(splitStatements(sql).map((s) => s.text));
  });

  it("counts only quoted qualifiers, as DuckLake always quotes its schema", () => {
    expect(route('SELECT t.ducklake_x FROM "main".ducklake_table t').schema).toBeNull();
    expect(route("SELECT t.ducklake_x FROM ducklake_table t").rewritten).toBe(false);
  });

  it("names the schema and rewrites its qualifiers, its commit call and its existence probe", () => {
    const r = route(
      `SELECT MAX(snapshot_id) FROM "metadata_s1".ducklake_snapshot s JOIN "metadata_s1".ducklake_schema USING (snapshot_id);
       SELECT * FROM ducklake_commit('metadata_s1', 1, max_retry_count => 10, retry_wait_ms => 100, retry_backoff => 1.5);
       SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'ducklake_metadata' AND table_schema = 'metadata_s1'`,
    );
    expect(r.schema).toBe("metadata_s1");
    expect(r.statements.map((s) => s.text)).toEqual([
      'SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot s JOIN "main".ducklake_schema USING (snapshot_id)',
      "SELECT * FROM ducklake_commit('main', 1, max_retry_count => 10, retry_wait_ms => 100, retry_backoff => 1.5)",
      "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'ducklake_metadata' AND table_schema = 'main'",
    ]);
  });

  it("rewrites only identifiers: a value spelling the qualifier stays the user's", () => {
    expect(
      texts(`INSERT INTO "metadata_s1".ducklake_tag VALUES (1, 1, NULL, 'k', '"metadata_s1".ducklake_x')`),
    ).toEqual([`INSERT INTO "main".ducklake_tag VALUES (1, 1, NULL, 'k', '"metadata_s1".ducklake_x')`]);
  });

  it("drops the CREATE SCHEMA heading an initialization batch", () => {
    const r = route(
      'CREATE SCHEMA IF NOT EXISTS "metadata_s2"; CREATE TABLE "metadata_s2".ducklake_metadata(key VARCHAR NOT NULL)',
    );
    expect(r.schema).toBe("metadata_s2");
    expect(r.statements.map((s) => s.text)).toEqual([
      'CREATE TABLE "main".ducklake_metadata(key VARCHAR NOT NULL)',
    ]);
    expect(route('CREATE SCHEMA IF NOT EXISTS "main"; SELECT 1').schema).toBeNull();
  });

  it("refuses two schemas in one request, names it cannot serve, and CREATE SCHEMA alone, by name", () => {
    expect(() => route('SELECT * FROM "a".ducklake_snapshot; SELECT * FROM "main".ducklake_table')).toThrow(
      /metadata schemas "a" and "main"/,
    );
    expect(() => route('SELECT * FROM "Mixed Case".ducklake_snapshot')).toThrow(/"Mixed Case" is not served/);
    expect(() =>
      route(`SELECT * FROM "${"s".repeat(MAX_METADATA_SCHEMA_CHARS + 1)}".ducklake_snapshot`),
    ).toThrow(/is not served/);
    expect(() => route('CREATE SCHEMA IF NOT EXISTS "s1"')).toThrow(/CREATE SCHEMA alone/);
    expect(() => route('CREATE SCHEMA IF NOT EXISTS "s1"')).toThrow(
      expect.objectContaining({ code: "Unsupported" }),
    );
  });
});
