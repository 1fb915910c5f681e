/**
 * Differential test of time travel: random verb sequences drive both the catalog (on the real store) and
 * the independent model in model.ts; at every snapshot the `ducklake_*` tables must agree row for row.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DUCKLAKE_TABLES, ducklakeTable, type Verb } from "../../catalog/index.ts";
import { seeded } from "../../storage/fault-bucket.ts";
import { assertProperty } from "../support/property.ts";
import { Model, type Row } from "./model.ts";
import { fresh, settle } from "./support.ts";

const COMPARED = [
  "ducklake_snapshot",
  "ducklake_schema",
  "ducklake_table",
  "ducklake_view",
  "ducklake_column",
  "ducklake_data_file",
  "ducklake_delete_file",
  "ducklake_tag",
  "ducklake_table_stats",
  "ducklake_schema_versions",
];
const VOLATILE = new Set(["schema_uuid", "table_uuid", "view_uuid", "snapshot_time"]);

function normalize(table: string, rows: Row[]): string[] {
  const columns = (DUCKLAKE_TABLES[table] ?? []).filter((c) => !VOLATILE.has(c));
  return rows.map((r) => JSON.stringify(columns.map((c) => r[c] ?? null))).sort();
}

/** Picks one valid action for the model's current state, applies it to the model, returns the verb. */
function step(m: Model, rnd: () => number, k: number): Verb | undefined {
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(rnd() * xs.length)];
  const tables = m.liveTables();
  const table = pick(tables);
  const tid = table?.table_id as number;
  const ref = (): { id: number } | { schema: string; name: string } =>
    rnd() < 0.5
      ? { id: tid }
      : { schema: m.schemaName(table?.schema_id as number), name: table?.table_name as string };
  switch (Math.floor(rnd() * 14)) {
    case 0:
      m.createSchema(`s${k}`);
      return { op: "create_schema", name: `s${k}` };
    case 1: {
      const empty = m
        .liveSchemas()
        .filter(
          (s) =>
            s.schema_id !== 0 &&
            !m.liveTables().some((t) => t.schema_id === s.schema_id) &&
            !m.liveViews().some((v) => v.schema_id === s.schema_id),
        );
      const s = pick(empty);
      if (!s) return undefined;
      m.dropSchema(s.schema_id as number);
      return { op: "drop_schema", schema: s.schema_name as string };
    }
    case 2:
    case 3: {
      const s = pick(m.liveSchemas()) as Row;
      const n = 1 + Math.floor(rnd() * 3);
      const names = Array.from({ length: n }, (_, i) => `c${i}`);
      m.createTable(s.schema_id as number, `t${k}`, names);
      return {
        op: "create_table",
        schema: s.schema_name as string,
        name: `t${k}`,
        columns: names.map((name) => ({ name, type: "int64" })),
      };
    }
    case 4:
      if (!table) return undefined;
      m.renameTable(tid, `r${k}`);
      return { op: "rename_table", table: ref(), newName: `r${k}` };
    case 5:
      if (!table || rnd() < 0.5) return undefined;
      m.dropTable(tid);
      return { op: "drop_table", table: ref() };
    case 6:
      if (!table) return undefined;
      m.addColumn(tid, `a${k}`);
      return { op: "add_column", table: ref(), column: { name: `a${k}`, type: "int64" } };
    case 7: {
      const col = table && pick(m.liveColumns(tid));
      if (!col) return undefined;
      m.renameColumn(tid, col.column_id as number, `n${k}`);
      return { op: "rename_column", table: ref(), column: { id: col.column_id as number }, newName: `n${k}` };
    }
    case 8: {
      const live = table ? m.liveColumns(tid) : [];
      const col = pick(live);
      if (!col || live.length < 2) return undefined;
      m.dropColumn(tid, col.column_id as number);
      return { op: "drop_column", table: ref(), column: col.column_name as string };
    }
    case 9:
    case 10: {
      if (!table) return undefined;
      const n = 1 + Math.floor(rnd() * 20);
      m.registerDataFile(tid, `f${k}.parquet`, n);
      return {
        op: "register_data_file",
        table: ref(),
        file: { path: `f${k}.parquet`, recordCount: n, fileSizeBytes: n * 10 },
      };
    }
    case 11: {
      const f = table && pick(m.liveFiles(tid));
      if (!f) return undefined;
      m.registerDeleteFile(tid, f.data_file_id as number, `d${k}.parquet`);
      return {
        op: "register_delete_file",
        table: ref(),
        dataFileId: f.data_file_id as number,
        file: { path: `d${k}.parquet`, deleteCount: 1, fileSizeBytes: 1 },
      };
    }
    case 12: {
      if (!table) return undefined;
      if (rnd() < 0.5) {
        const n = 1 + Math.floor(rnd() * 4);
        m.inlineInsert(tid, n);
        return { op: "inline_insert", table: ref(), rows: Array.from({ length: n }, () => ({})) };
      }
      m.comment(tid, `comment ${k}`);
      return { op: "set_comment", target: { table: ref() }, comment: `comment ${k}` };
    }
    default: {
      const v = pick(m.liveViews());
      if (v && rnd() < 0.4) {
        m.dropView(v.view_id as number);
        return { op: "drop_view", view: { id: v.view_id as number } };
      }
      const s = pick(m.liveSchemas()) as Row;
      m.createView(s.schema_id as number, `v${k}`, `select ${k}`);
      return { op: "create_view", schema: { id: s.schema_id as number }, name: `v${k}`, sql: `select ${k}` };
    }
  }
}

describe("time travel against an independent model of the 28 tables", () => {
  it("agrees at every snapshot over random verb sequences", async () => {
    await assertProperty(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const rnd = seeded(seed);
        const m = new Model();
        const { store, catalog } = await fresh("diff");
        let k = 0;
        for (let commit = 0; commit < 25; commit++) {
          m.begin();
          const verbs: Verb[] = [];
          const width = 1 + Math.floor(rnd() * 3);
          for (let i = 0; i < width; i++) {
            const v = step(m, rnd, k++);
            if (v) verbs.push(v);
          }
          if (verbs.length === 0) continue;
          m.end();
          const out = await catalog.commit({ verbs });
          await settle(store, out.durable);
          expect(out.snapshotId).toBe(m.head.snapshot_id);
        }
        const view = store.snapshot();
        for (let s = 0; s <= (m.head.snapshot_id as number); s++) {
          for (const table of COMPARED) {
            const ours = normalize(table, await ducklakeTable(view, table, s));
            const theirs = normalize(table, m.asOf(table, s));
            expect(ours, `${table} at snapshot ${s} (seed ${seed})`).toEqual(theirs);
          }
        }
        await expect(
          ducklakeTable(view, "ducklake_table", (m.head.snapshot_id as number) + 1),
        ).rejects.toMatchObject({ code: "NotFound" });
      }),
      { numRuns: 6 },
    );
  });
});
