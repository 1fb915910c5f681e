/**
 * Literals of DuckLake's metadata reads: the TIMESTAMPTZ text expire_snapshots sends (`snapshot_time <
 * '...'`), read as DuckDB casts it, and ids that are not integers refused by name.
 */
import { describe, expect, it } from "vitest";
import { splitStatements } from "../../../catalog/sql/lexer.ts";
import { intLiteral, timestamptzMicros } from "../../../catalog/sql/metadata/common.ts";

const micros = (iso: string, extra = 0n): bigint => BigInt(Date.parse(iso)) * 1000n + extra;

describe("metadata read literals", () => {
  it("reads DuckLake's TIMESTAMPTZ literals as DuckDB does (offset applied, fraction to microseconds)", () => {
    expect(timestamptzMicros("2026-12-01T07:05:43.705537+00")).toBe(micros("2026-12-01T07:05:43.705Z", 537n));
    expect(timestamptzMicros("2026-12-01 07:05:43+00")).toBe(micros("2026-12-01T07:05:43Z"));
    expect(timestamptzMicros("2026-12-01 12:35:43.5+05:30")).toBe(micros("2026-12-01T07:05:43.500Z"));
    expect(timestamptzMicros("2026-12-01 01:05:43-06")).toBe(micros("2026-12-01T07:05:43Z"));
    expect(timestamptzMicros("2026-12-01 07:05:43")).toBe(micros("2026-12-01T07:05:43Z"));
    expect(timestamptzMicros("2026-12-01")).toBe(micros("2026-12-01T00:00:00Z"));
    expect(() => timestamptzMicros("yesterday")).toThrow(/not a timestamp/);
  });

  it("refuses an id literal that is not an integer", () => {
    const [stmt] = splitStatements("SELECT MAX(column_id) FROM \"main\".ducklake_column WHERE table_id='x'");
    if (!stmt) throw new Error("no statement");
    expect(() => intLiteral(stmt, 0)).toThrow(/not an integer id/);
  });
});
