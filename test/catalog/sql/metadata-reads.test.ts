/**
 * QR1's metadata read templates against stock DuckDB 1.5.5: every golden scenario
 * (tools/ducklake-golden.py, replayed as verbs by ducklake-golden-scenarios.ts) is built here, and every
 * metadata read template is answered at every snapshot / table / schema the scenario has and compared —
 * column names, DuckDB types, rows — with what stock answers for the same catalog state
 * (test/fixtures/quack/metadata-reads.json, from tools/quack-reads-golden.py). Values DuckLake randomises
 * are masked on both sides the same way. Also: every read DuckLake sent over Quack in the capture is
 * recognised by exactly the family that owns it.
 */
import { describe, expect, it } from "vitest";
import { DUCKDB_KEYWORDS } from "../../../catalog/duckdb-keywords.ts";
import { head } from "../../../catalog/index.ts";
import {
  answerRead,
  findReadTemplate,
  type SqlResult,
  type SqlType,
  type SqlValue,
  splitStatements,
} from "../../../catalog/sql/index.ts";
import { shapeOf } from "../../../catalog/sql/lexer.ts";
import type { SqlReadContext } from "../../../catalog/sql/reads.ts";
import { METADATA_READS } from "../../../catalog/sql/reads-metadata.ts";
import type { ReadView } from "../../../storage/api.ts";
import captured from "../../fixtures/quack/captured-reads.json";
import golden from "../../fixtures/quack/metadata-reads.json";
import { SCENARIO_COMMITS } from "../ducklake-golden-scenarios.ts";
import { maintenanceStep } from "../golden-maintenance.ts";
import { fresh, ReadCounter, settle } from "../support.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Entry {
  scenario: string;
  template: string;
  params: Record<string, string | number>;
  columns: [string, string][];
  rows: Json[][];
  ordered: boolean;
}
const TEMPLATES = golden.templates as Record<string, string>;
const ENTRIES = golden.entries as unknown as Entry[];

/** Python's str.format over the tool's placeholders. */
function sqlOf(e: Entry): string {
  const text = TEMPLATES[e.template];
  if (!text) throw new Error(`no template text for ${e.template}`);
  return text
    .replace(/\{(\w+)\}/g, (_, k: string) => String(e.params[k]))
    .replace(/\{\{/g, "{")
    .replace(/\}\}/g, "}");
}

/** DuckDB's spelling of a type (what Python's `str(description type)` shows). */
function typeName(t: SqlType): string {
  switch (t.id) {
    case "LIST":
      return `${typeName(t.child)}[]`;
    case "STRUCT":
      return `STRUCT(${t.fields
        .map(
          (f) =>
            `${/^[a-z_][a-z0-9_]*$/i.test(f.name) && !DUCKDB_KEYWORDS.has(f.name) ? f.name : `"${f.name}"`} ${typeName(f.type)}`,
        )
        .join(", ")})`;
    case "DECIMAL":
      return `DECIMAL(${t.width},${t.scale})`;
    case "MAP":
      return `MAP(${typeName(t.key)}, ${typeName(t.value)})`;
    case "ARRAY":
      return `${typeName(t.child)}[${t.size}]`;
    default:
      return t.id;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** tools/quack-reads-golden.py's `norm`, applied to our values (typed, so times and uuids by type). */
function norm(column: string, type: SqlType, v: SqlValue): Json {
  if (v === null) return null;
  if (type.id === "TIMESTAMP WITH TIME ZONE") return "<time>";
  if (type.id === "UUID") return "<uuid>";
  if (type.id === "LIST" && Array.isArray(v)) return v.map((x) => norm(column, type.child, x));
  if (type.id === "STRUCT" && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array)) {
    const rec = v as Record<string, SqlValue>;
    return Object.fromEntries(type.fields.map((f) => [f.name, norm(f.name, f.type, rec[f.name] ?? null)]));
  }
  if (typeof v === "bigint") {
    if (column === "file_size_bytes" && v !== 0n) return "<bytes>";
    return Number(v);
  }
  if (typeof v === "string") {
    if (column === "path") return v.replace(UUID_IN, "<uuid>");
    return UUID.test(v) ? "<uuid>" : v;
  }
  if (typeof v === "number" || typeof v === "boolean") return v;
  throw new Error(`unexpected value in ${column}: ${String(v)}`);
}

/** The JS representation result.ts promises the wire codec for each type (null allowed everywhere). */
function conforms(type: SqlType, v: SqlValue): boolean {
  if (v === null) return true;
  switch (type.id) {
    case "BIGINT":
    case "UBIGINT":
    case "HUGEINT":
    case "UHUGEINT":
    case "TIMESTAMP WITH TIME ZONE":
      return typeof v === "bigint";
    case "INTEGER":
      return typeof v === "number" && Number.isInteger(v);
    case "BOOLEAN":
      return typeof v === "boolean";
    case "VARCHAR":
      return typeof v === "string";
    case "UUID":
      return typeof v === "string" && UUID.test(v);
    case "LIST":
      return Array.isArray(v) && v.every((x) => conforms(type.child, x));
    case "STRUCT": {
      if (typeof v !== "object" || Array.isArray(v) || v instanceof Uint8Array) return false;
      const rec = v as Record<string, SqlValue>;
      const names = type.fields.map((f) => f.name);
      return (
        JSON.stringify(Object.keys(rec).sort()) === JSON.stringify([...names].sort()) &&
        type.fields.every((f) => conforms(f.type, rec[f.name] ?? null))
      );
    }
    default:
      return false;
  }
}

function ours(res: SqlResult, template: string): Json[][] {
  return res.rows.map((row) => {
    const out = row.map((v, i) => {
      const c = res.columns[i];
      if (!c) throw new Error("row wider than its columns");
      return norm(c.name, c.type, v);
    });
    // Deliberate (as in ducklake-golden.test.ts): created_by names the writer, data_path is the lake's root.
    if (template === "options.metadata" && (out[0] === "created_by" || out[0] === "data_path")) {
      out[1] = `<${out[0]}>`;
    }
    return out;
  });
}

const sortRows = (rows: Json[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

async function build(scenario: string): Promise<ReadView | null> {
  if (scenario === "empty") return null;
  const commits = SCENARIO_COMMITS[scenario];
  if (!commits) throw new Error(`no verb script for scenario ${scenario}`);
  const { store, catalog } = await fresh(`qr-${scenario}`, { dataPath: "data/" });
  for (const request of commits) {
    if ("maintenance" in request) await maintenanceStep(store, request);
    else await settle(store, (await catalog.commit(request)).durable);
  }
  const view = store.snapshot();
  await head(view);
  return view;
}

const SCENARIOS = [...new Set(ENTRIES.map((e) => e.scenario))];

describe("metadata read templates answer as stock DuckDB 1.5.5 does", () => {
  it("the fixture covers every metadata template, and every scenario", () => {
    expect(new Set(ENTRIES.map((e) => e.template))).toEqual(new Set(METADATA_READS.map((t) => t.name)));
    expect(new Set(SCENARIOS)).toEqual(new Set(["empty", ...Object.keys(SCENARIO_COMMITS)]));
  });

  for (const scenario of SCENARIOS) {
    it(`scenario ${scenario}: every template, every literal set`, async () => {
      const view = await build(scenario);
      const ctx: SqlReadContext = { view, memo: new Map() };
      const problems: string[] = [];
      for (const e of ENTRIES.filter((x) => x.scenario === scenario)) {
        const sql = sqlOf(e);
        const [stmt] = splitStatements(sql);
        if (!stmt) throw new Error("no statement");
        const label = `${e.template} ${JSON.stringify(e.params)}`;
        expect([label, findReadTemplate(stmt)?.name]).toEqual([label, e.template]);
        const res = await answerRead(ctx, stmt);
        const cols = res.columns.map((c) => [c.name, typeName(c.type)]);
        if (JSON.stringify(cols) !== JSON.stringify(e.columns)) {
          problems.push(
            `${label}: columns\n   ours   ${JSON.stringify(cols)}\n   duckdb ${JSON.stringify(e.columns)}`,
          );
          continue;
        }
        for (const row of res.rows) {
          row.forEach((v, i) => {
            const c = res.columns[i];
            if (!c || !conforms(c.type, v))
              problems.push(`${label}: ${c?.name} holds ${String(v)} (${typeof v})`);
          });
        }
        let mine = ours(res, e.template);
        let want = e.rows;
        if (e.template === "maintenance.files_scheduled_for_deletion") {
          // Deliberate (ducklake-golden.test.ts, endedInsteadOfRemoved): superseded delete files are ended,
          // not scheduled, until maintenance collects them; a merge's inputs are removed and scheduled as
          // DuckLake does (decision 0322). So ours is the part of DuckLake's schedule we removed: every row
          // of ours is one of DuckLake's.
          const theirs = new Set(e.rows.map((r) => JSON.stringify(r)));
          expect([label, mine.filter((r) => !theirs.has(JSON.stringify(r)))]).toEqual([label, []]);
          const kept = new Set(mine.map((r) => JSON.stringify(r)));
          want = e.rows.filter((r) => kept.has(JSON.stringify(r)));
          // Where only a merge scheduled files, the schedules are equal.
          if (scenario.startsWith("merge")) expect([label, mine.length]).toEqual([label, e.rows.length]);
        }
        const same = e.ordered
          ? JSON.stringify(mine) === JSON.stringify(want)
          : JSON.stringify(sortRows(mine)) === JSON.stringify(sortRows(want));
        if (!same) {
          mine = e.ordered ? mine : sortRows(mine).map((r) => JSON.parse(r) as Json[]);
          want = e.ordered ? want : sortRows(want).map((r) => JSON.parse(r) as Json[]);
          problems.push(`${label}\n   ours   ${JSON.stringify(mine)}\n   duckdb ${JSON.stringify(want)}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it("statements of one request share their loads (ctx.memo); per-table lookups read only that table", async () => {
    const view = await build("ddl");
    if (!view) throw new Error("no lake");
    const load = ENTRIES.find((e) => e.scenario === "ddl" && e.template === "catalog.tables_and_columns");
    const lookup = ENTRIES.find((e) => e.scenario === "ddl" && e.template === "stats.table");
    if (!load || !lookup) throw new Error("fixture lacks the ddl entries");
    const [stmt] = splitStatements(sqlOf(load));
    const [one] = splitStatements(sqlOf(lookup));
    if (!stmt || !one) throw new Error("no statement");
    const counter = new ReadCounter();
    const ctx: SqlReadContext = { view: counter.wrapView(view), memo: new Map() };
    await answerRead(ctx, stmt);
    const first = counter.reads;
    expect(first).toBeGreaterThan(0);
    await answerRead(ctx, stmt);
    expect(counter.reads).toBe(first);
    // One table's stats: two prefix scans (table stats, column stats), whatever the lake holds.
    counter.reset();
    await answerRead({ view: counter.wrapView(view), memo: new Map() }, one);
    expect([counter.gets, counter.scans]).toEqual([0, 2]);
  });

  it("with no lake yet, only the ATTACH probes answer; every other template is NotFound", async () => {
    const ctx: SqlReadContext = { view: null, memo: new Map() };
    for (const t of METADATA_READS) {
      const e = ENTRIES.find((x) => x.template === t.name);
      if (!e) throw new Error(`no entry for ${t.name}`);
      const [stmt] = splitStatements(sqlOf(e));
      if (!stmt) throw new Error("no statement");
      if (t.name.startsWith("attach.")) await expect(answerRead(ctx, stmt)).resolves.toBeDefined();
      else await expect(answerRead(ctx, stmt)).rejects.toMatchObject({ code: "NotFound" });
    }
  });
});

/** QR2's share (issue 11): reads touching file rows and per-table inlined rows. */
const FILE_FAMILY = [
  "ducklake_data_file",
  "ducklake_delete_file",
  "ducklake_file_column_stats",
  "ducklake_inlined_data_N",
  "ducklake_inlined_delete_N",
];

describe("every captured metadata read is recognised", () => {
  const reads = captured.reads as { template: string; example: string }[];
  const mineOnly = reads.filter((r) => !FILE_FAMILY.some((f) => r.template.includes(f)));
  const metadataNames = new Set(METADATA_READS.map((t) => t.name));

  it("the capture holds the 28 metadata reads of QR1's family", () => {
    expect(mineOnly).toHaveLength(28);
  });

  it("each captured metadata read, with the literals DuckLake sent, answers on a lake with data", async () => {
    const view = await build("data");
    const ctx: SqlReadContext = { view, memo: new Map() };
    for (const r of mineOnly) {
      const [stmt] = splitStatements(r.example);
      if (!stmt) throw new Error("no statement");
      const res = await answerRead(ctx, stmt);
      for (const row of res.rows) expect(row).toHaveLength(res.columns.length);
    }
  });

  for (const r of reads) {
    const mine = mineOnly.includes(r);
    it(`${mine ? "metadata" : "file family, not matched here"}: ${r.template.slice(0, 90)}`, () => {
      const stmts = splitStatements(r.example);
      expect(stmts).toHaveLength(1);
      const [stmt] = stmts;
      if (!stmt) throw new Error("no statement");
      const hit = METADATA_READS.find((t) => t.matches(shapeOf(stmt.tokens), stmt));
      if (mine) expect(hit?.name && metadataNames.has(hit.name)).toBe(true);
      else expect(hit?.name).toBeUndefined();
    });
  }
});
