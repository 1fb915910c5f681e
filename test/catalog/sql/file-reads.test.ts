/**
 * The file and row read templates (catalog/sql/reads-files.ts) against stock DuckDB 1.5.5: every read
 * statement a stock DuckLake client sent over Quack during tools/quack-file-reads-golden.py's scenarios
 * is answered from a catalog built by the same golden scenario's verbs (ducklake-golden-scenarios.ts) at
 * the same step, and must give stock's column names, DuckDB types and values (paths' uuids and Parquet
 * byte sizes normalised as the tool does), or stock's error. And every captured read of this family is
 * recognised.
 */
import { describe, expect, it } from "vitest";
import { MissingRelation } from "../../../catalog/errors.ts";
import type { CommitRequest } from "../../../catalog/index.ts";
import { head } from "../../../catalog/index.ts";
import { answerRead, findReadTemplate, splitStatements } from "../../../catalog/sql/index.ts";
import { FILE_READS } from "../../../catalog/sql/reads-files.ts";
import type { SqlResult, SqlType, SqlValue } from "../../../catalog/sql/result.ts";
import fixture from "../../fixtures/quack/file-reads.json";
import { SCENARIO_COMMITS } from "../ducklake-golden-scenarios.ts";
import { fresh, settle } from "../support.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Read {
  after: number;
  sent_by: string;
  sql: string;
  columns?: [string, string][];
  rows?: Json[][];
  error?: string;
}
interface Scenario {
  scenario: string;
  statements: string[];
  reads: Read[];
}
const FIXTURE = fixture as unknown as {
  captured: { step: string; example: string }[];
  scenarios: Scenario[];
};

function typeName(t: SqlType): string {
  switch (t.id) {
    case "DECIMAL":
      return `DECIMAL(${t.width},${t.scale})`;
    case "LIST":
      return `${typeName(t.child)}[]`;
    case "ARRAY":
      return `${typeName(t.child)}[${t.size}]`;
    case "STRUCT":
      return `STRUCT(${t.fields.map((f) => `${f.name} ${typeName(f.type)}`).join(", ")})`;
    case "MAP":
      return `MAP(${typeName(t.key)}, ${typeName(t.value)})`;
    default:
      return t.id;
  }
}

/** tools/quack-file-reads-golden.py's OWN_SCENARIOS as verbs, one commit per statement. */
const stat = (column: string, min: string, max: string) => ({
  column,
  columnSizeBytes: 30,
  valueCount: 20,
  nullCount: 0,
  min,
  max,
});
const OWN_COMMITS: Record<string, CommitRequest[]> = {
  rotate: [
    {
      verbs: [
        {
          op: "create_table",
          name: "t",
          columns: [
            { name: "id", type: "int32" },
            { name: "s", type: "varchar" },
          ],
        },
      ],
    },
    {
      verbs: [
        {
          op: "inline_insert",
          table: { name: "t" },
          rows: [
            { id: 1, s: "a" },
            { id: 2, s: "b" },
          ],
        },
      ],
    },
    {
      verbs: [
        { op: "add_column", table: { name: "t" }, column: { name: "note", type: "varchar", default: "n" } },
      ],
    },
    { verbs: [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: 3, s: "c", note: "z" }] }] },
    { verbs: [{ op: "inline_delete", table: { name: "t" }, rowIds: [1] }] },
  ],
  typed: [
    {
      verbs: [
        {
          op: "create_table",
          name: "tv",
          columns: [
            { name: "i", type: "int32" },
            { name: "b", type: "int64" },
            { name: "d", type: "decimal(10,2)" },
            { name: "s", type: "varchar" },
            { name: "dt", type: "date" },
            { name: "ts", type: "timestamp" },
            { name: "f", type: "float64" },
            { name: "ok", type: "boolean" },
            { name: "u", type: "uuid" },
            { name: "h", type: "int128" },
          ],
        },
      ],
    },
    {
      verbs: [
        {
          op: "inline_insert",
          table: { name: "tv" },
          rows: [
            {
              i: 1,
              b: "10000000000",
              d: "1.50",
              s: "a",
              dt: "2026-01-02",
              ts: "2026-01-02 03:04:05.123456",
              f: 1.25,
              ok: true,
              u: "00000000-0000-0000-0000-000000000001",
              h: "123",
            },
            { i: 2, b: null, d: "-2.05", s: null, dt: null, ts: null, f: null, ok: false, u: null, h: null },
          ],
        },
      ],
    },
    {
      verbs: [
        {
          op: "create_table",
          name: "tf",
          columns: [
            { name: "id", type: "int32" },
            { name: "d", type: "decimal(10,2)" },
            { name: "s", type: "varchar" },
            { name: "dt", type: "date" },
          ],
        },
      ],
    },
    {
      verbs: [
        {
          op: "register_data_file",
          table: { name: "tf" },
          file: {
            path: `ducklake-${crypto.randomUUID()}.parquet`,
            recordCount: 20,
            fileSizeBytes: 900,
            footerSize: 400,
            columnStats: [
              stat("id", "0", "19"),
              stat("d", "0.00", "4.75"),
              stat("s", "k0", "k9"),
              stat("dt", "2026-01-01", "2026-01-20"),
            ],
          },
        },
      ],
    },
    { verbs: [{ op: "inline_delete", table: { name: "tv" }, rowIds: [1] }] },
  ],
};

const pad = (n: number | bigint, w = 2): string => String(n).padStart(w, "0");

/** Python's str() of a date / datetime (what the tool's fixture holds for DATE and TIMESTAMP). */
function dateText(days: number): string {
  const d = new Date(days * 86_400_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
function timestampText(micros: bigint): string {
  const days = micros >= 0n ? micros / 86_400_000_000n : -((-micros + 86_399_999_999n) / 86_400_000_000n);
  const rest = micros - days * 86_400_000_000n;
  const secs = rest / 1_000_000n;
  const frac = rest % 1_000_000n;
  const clock = `${pad(secs / 3600n)}:${pad((secs / 60n) % 60n)}:${pad(secs % 60n)}`;
  return `${dateText(Number(days))} ${clock}${frac === 0n ? "" : `.${pad(frac, 6)}`}`;
}

const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** tools/quack-file-reads-golden.py's `value`, applied to our SqlValues. */
function normal(column: string, type: SqlType, v: SqlValue): Json {
  if (v === null) return null;
  if ((column.endsWith("file_size_bytes") || column.endsWith("footer_size")) && v !== 0n && v !== 0)
    return "<bytes>";
  if (type.id === "DECIMAL" && typeof v === "bigint") {
    const neg = v < 0n;
    const digits = (neg ? -v : v).toString().padStart(type.scale + 1, "0");
    const text = type.scale > 0 ? `${digits.slice(0, -type.scale)}.${digits.slice(-type.scale)}` : digits;
    return neg ? `-${text}` : text;
  }
  // A user's uuid is data, kept as is (the tool only masks the uuids DuckLake generates into paths).
  if (type.id === "UUID" && typeof v === "string") return v;
  if (type.id === "DATE" && typeof v === "number") return dateText(v);
  if (type.id === "TIMESTAMP" && typeof v === "bigint") return timestampText(v);
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") return v.replace(UUID_IN, "<uuid>");
  if (Array.isArray(v)) return v.map((x) => normal("", type.id === "LIST" ? type.child : type, x));
  if (typeof v === "object" && type.id === "STRUCT" && !(v instanceof Uint8Array)) {
    const o = v as Record<string, SqlValue>;
    return Object.fromEntries(type.fields.map((f) => [f.name, normal(f.name, f.type, o[f.name] ?? null)]));
  }
  if (typeof v === "number" || typeof v === "boolean") return v;
  return String(v);
}

function asFixture(r: SqlResult): { columns: [string, string][]; rows: Json[][] } {
  return {
    columns: r.columns.map((c) => [c.name, typeName(c.type)]),
    rows: r.rows.map((row) =>
      row.map((v, i) => normal(r.columns[i]?.name ?? "", r.columns[i]?.type ?? { id: "SQLNULL" }, v)),
    ),
  };
}

const sorted = (rows: Json[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe("file and row reads answer as stock DuckDB 1.5.5 does", () => {
  it("recognises every captured form of a family read, and answers each on a fresh lake", async () => {
    const { store } = await fresh("file-reads-captured", { dataPath: "data/" });
    const view = store.snapshot();
    const problems: string[] = [];
    for (const c of FIXTURE.captured) {
      const [stmt] = splitStatements(c.example);
      if (!stmt) throw new Error("empty capture");
      const t = findReadTemplate(stmt);
      const label = `${c.step}: ${c.example.slice(0, 160)}`;
      if (t === undefined || !FILE_READS.includes(t)) {
        problems.push(`unrecognised: ${label}`);
        continue;
      }
      // The captured ids name tables this lake does not have: an answer, or stock's missing-table error.
      try {
        await answerRead({ view, memo: new Map() }, stmt);
      } catch (e) {
        if (!(e instanceof MissingRelation)) problems.push(`${label}: ${e instanceof Error ? e.message : e}`);
      }
    }
    expect(problems).toEqual([]);
    // The 22 statement templates of this family in shared/quack-capture/captures/templates-*.json.
    expect(FIXTURE.captured.length).toBeGreaterThanOrEqual(22);
  });

  for (const scenario of FIXTURE.scenarios) {
    it(`scenario ${scenario.scenario}: every family read at every step`, async () => {
      const commits = OWN_COMMITS[scenario.scenario] ?? SCENARIO_COMMITS[scenario.scenario];
      if (!commits) throw new Error(`no verb script for ${scenario.scenario}`);
      expect(commits.length).toBe(scenario.statements.length);
      const { store, catalog } = await fresh(`file-reads-${scenario.scenario}`, { dataPath: "data/" });
      const problems: string[] = [];
      let answered = 0;
      for (const [i, request] of commits.entries()) {
        if ("maintenance" in request) throw new Error("this scenario runs no maintenance step");
        const out = await catalog.commit(request);
        await settle(store, out.durable);
        const view = store.snapshot();
        await head(view);
        for (const read of scenario.reads.filter((r) => r.after === i)) {
          const [stmt] = splitStatements(read.sql);
          if (!stmt) throw new Error("empty statement");
          const label = `step ${i} (${read.sent_by}): ${stmt.text.replace(/\s+/g, " ").slice(0, 120)}`;
          let got: { columns: [string, string][]; rows: Json[][] } | { error: string };
          try {
            got = asFixture(await answerRead({ view, memo: new Map() }, stmt));
          } catch (e) {
            got = { error: e instanceof Error ? e.message : String(e) };
          }
          answered++;
          if (read.error !== undefined) {
            // Stock's first line, without the exception class DuckDB's client prefixes (decision 0220).
            const want = (read.error.split("\n")[0] ?? "").replace(/^Catalog Error: /, "");
            if (!("error" in got) || got.error !== want)
              problems.push(`${label}\n  want error ${want}\n  got ${JSON.stringify(got)}`);
            continue;
          }
          if ("error" in got) {
            problems.push(`${label}\n  error ${got.error}`);
            continue;
          }
          if (JSON.stringify(got.columns) !== JSON.stringify(read.columns)) {
            problems.push(
              `${label}\n  columns ours ${JSON.stringify(got.columns)}\n  stock ${JSON.stringify(read.columns)}`,
            );
          }
          const ordered = /ORDER BY/i.test(stmt.text) && !/^WITH/i.test(stmt.text);
          const ours = got.rows;
          const a = ordered ? ours.map((r) => JSON.stringify(r)) : sorted(ours);
          const b = ordered ? (read.rows ?? []).map((r) => JSON.stringify(r)) : sorted(read.rows ?? []);
          if (JSON.stringify(a) !== JSON.stringify(b))
            problems.push(`${label}\n  rows ours ${a.join(" ")}\n  stock ${b.join(" ")}`);
        }
      }
      expect(problems).toEqual([]);
      expect(answered).toBeGreaterThan(0);
    });
  }
});
