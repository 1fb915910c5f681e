/**
 * DuckLake's client-side commit batches through the writer's sqlWrite, against stock DuckDB 1.5.5:
 * `test/fixtures/quack/writes/<scenario>.json` (tools/quack-write-capture.py; loaded by
 * test/support/quack-writes.ts) holds, per scenario and step, every write request a stock DuckLake client
 * sent a stock Quack server and the server's `ducklake_*` rows after the step. Each scenario is replayed from a lake created by its own initialization batch; after
 * every step our rows must equal stock's (values DuckDB mints at the server — times, the main schema's
 * UUID, created_by — excepted). Also: atomicity (a batch failing at statement k writes nothing), the
 * lost race (CommitConflict, nothing written), read-your-writes positions, lake creation rules.
 */
import { describe, expect, it } from "vitest";
import { ducklakeTable, inlinedTablesAt, type Row } from "../../../catalog/index.ts";
import { DUCKLAKE_TABLES } from "../../../catalog/reads/ducklake-tables.ts";
import type { SqlWriteAnswer, SqlWriteRequest } from "../../../catalog/sql/writes/contract.ts";
import { toText } from "../../../catalog/values/index.ts";
import type { Envelope } from "../../../durable-objects/envelope.ts";
import { openLatest } from "../../../storage/index.ts";
import { lakeName, realBucket, rigLake, stub, unwrap } from "../../durable-objects/support.ts";
import fixture from "../../support/quack-writes.ts";

type StockRow = Record<string, unknown>;
interface Step {
  step: string;
  sql: string[];
  errors: string[];
  writes: string[];
  rows: Record<string, StockRow[]>;
}
const scenarios = (fixture as unknown as { scenarios: Record<string, { dataPath: string; steps: Step[] }> })
  .scenarios;

/** Steps whose batches we translate; every other captured step must be refused as Unsupported. */
const TRANSLATED: Record<string, string[]> = {
  core: [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_inlined",
    "insert_file",
    "insert_file_2",
    "update_inlined",
    "delete_inlined",
    "update_file",
    "delete_file",
    "alter_add_column",
    "insert_after_alter",
    "create_table_2",
    "drop_table",
  ],
  types: ["attach_new", "create_schema", "create_table", "create_typed", "insert_typed"],
  nested: ["attach_new", "create_schema", "create_table", "create_nested", "insert_nested"],
  update_many: ["attach_new", "create_schema", "create_table", "insert_file", "update_many", "delete_many"],
  cleanup: [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_file",
    "insert_file_2",
    "merge",
    "cleanup",
  ],
  view: ["attach_new", "create_schema", "create_table", "create_view"],
  macro: ["attach_new", "create_schema", "create_table", "create_macro"],
  comment: ["attach_new", "create_schema", "create_table", "comment", "comment_again", "comment_column"],
  option: [
    "attach_new",
    "create_schema",
    "create_table",
    "set_option",
    "set_option_again",
    "set_table_option",
  ],
  partition: ["attach_new", "create_schema", "create_table", "set_partitioned"],
  alter: ["attach_new", "create_schema", "create_table", "rename_column", "drop_column", "rename_table"],
  drop_schema: ["attach_new", "create_schema", "create_table", "drop_schema"],
  flush: ["attach_new", "create_schema", "create_table", "insert_inlined", "flush"],
  rewrite: [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_file",
    "delete_file",
    "delete_file_2",
    "rewrite",
  ],
  rewrite_some: [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_file",
    "insert_file_2",
    "delete_file",
    "delete_file_2",
    "rewrite",
    "drop_file",
  ],
  flush_deletes: [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_file",
    "delete_inlined",
    "delete_inlined_2",
    "flush",
  ],
  maintenance: [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_file",
    "insert_file_2",
    "merge",
    "expire",
    "cleanup",
  ],
};

/** Values the stock server mints itself (NOW(), UUID(), its build) or that name this writer. */
function minted(table: string, row: StockRow, col: string): boolean {
  if (table === "ducklake_snapshot" && col === "snapshot_time") return true;
  if (table === "ducklake_schema" && col === "schema_uuid" && row.schema_id === 0) return true;
  if (table === "ducklake_metadata" && col === "value" && row.key === "created_by") return true;
  if (table === "ducklake_files_scheduled_for_deletion" && col === "schedule_start") return true;
  return false;
}

function norm(table: string, rows: readonly StockRow[], columns: readonly string[]): string[] {
  return rows
    .map((r) =>
      JSON.stringify(columns.map((c) => (minted(table, r, c) ? "<minted>" : canonical(r[c] ?? null)))),
    )
    .sort();
}

/** One text per value: numbers and numeric text alike (DECIMAL 1.50 is JSON 1.5 from stock). */
function canonical(v: unknown): unknown {
  if (typeof v === "number") return String(v);
  if (typeof v === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(v)) return String(Number(v));
  return v;
}

async function compareWithStock(lake: string, position: number, step: Step, label: string): Promise<void> {
  const view = await openLatest(realBucket(), lake, { after: position });
  for (const [table, columns] of Object.entries(DUCKLAKE_TABLES)) {
    const ours = (await ducklakeTable(view, table)) as Row[];
    const stock = step.rows[table] ?? [];
    expect(norm(table, ours, columns), `${label}: ${table}`).toEqual(norm(table, stock, columns));
  }
  const inlined = await inlinedTablesAt(view);
  for (const [name, stock] of Object.entries(step.rows)) {
    if (!/^ducklake_inlined_(data_[0-9]+_[0-9]+|delete_[0-9]+)$/.test(name)) continue;
    const ours = inlined[name];
    expect(ours, `${label}: ${name} exists`).toBeDefined();
    if (!ours) continue;
    const cols = ours.columns.map(([c]) => c);
    // A non-finite float is stored as "NaN"/"Infinity" (catalog/values/, decision 0120); the capture
    // holds DuckDB's text for it ("nan", "inf"), which `toText` gives.
    const rows = ours.rows.map((r) =>
      Object.fromEntries(
        cols.map((c, k) => {
          const node = ours.types[k];
          const v = r[c] ?? null;
          const float = node !== undefined && (node.type === "float32" || node.type === "float64");
          return [c, float && typeof v === "string" ? toText(node, v) : v];
        }),
      ),
    );
    expect(norm(name, rows, cols), `${label}: ${name}`).toEqual(norm(name, stock, cols));
  }
}

/** The RPC, typed plainly (the stub's inferred types are too deep for the checker here). */
function sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>> {
  const s = stub(lake) as unknown as {
    sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
  };
  return s.sqlWrite(lake, req);
}

describe("DuckLake commit batches over sqlWrite, row-equal to stock DuckDB 1.5.5", () => {
  for (const [name, sc] of Object.entries(scenarios)) {
    it(`scenario ${name}`, async () => {
      const lake = lakeName(`w-${name}`);
      rigLake(lake);
      const s = stub(lake);
      let position = 0;
      const translated = TRANSLATED[name] ?? [];
      for (const step of sc.steps) {
        expect(step.errors, `${name}/${step.step}: stock ran it`).toEqual([]);
        if (!translated.includes(step.step)) {
          // Refused by name, and nothing written: the replay of this scenario ends here.
          const first = step.writes[0] as string;
          const r = await sqlWrite(lake, { sql: first, mayCreateLake: false });
          expect(r.ok ? "ok" : r.error.code, `${name}/${step.step}`).toBe("Unsupported");
          const after = unwrap(await s.head(lake));
          expect(after.position, `${name}/${step.step} wrote nothing`).toBe(position);
          break;
        }
        for (const sql of step.writes) {
          const r = await sqlWrite(lake, { sql, mayCreateLake: step.step === "attach_new" });
          if (!r.ok) throw new Error(`${name}/${step.step}: ${r.error.code}: ${r.error.message}`);
          // A request that changes nothing (the flush's lone pre-commit DELETE, expiry's removal of rows
          // that went with their parent) lands no batch: its position is the one before.
          expect(r.value.position, `${name}/${step.step}: position never goes back`).toBeGreaterThanOrEqual(
            position,
          );
          position = r.value.position;
        }
        await compareWithStock(lake, position, step, `${name}/${step.step}`);
      }
    });
  }
});
