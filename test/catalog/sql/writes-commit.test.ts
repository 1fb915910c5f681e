/**
 * A SQL write is one atomic commit of the same core as verb commits: a batch that fails at statement k
 * writes nothing (for several k), a batch stamped against an older head answers CommitConflict (text
 * DuckLake retries on) and writes nothing, concurrent batches share one coalesced batch without
 * poisoning each other, idempotency keys replay, and lake creation follows `mayCreateLake`.
 */
import { describe, expect, it } from "vitest";
import { DUCKLAKE_TABLES, ducklakeTable } from "../../../catalog/index.ts";
import { splitStatements } from "../../../catalog/sql/lexer.ts";
import type { SqlWriteAnswer, SqlWriteRequest } from "../../../catalog/sql/writes/contract.ts";
import type { Envelope } from "../../../durable-objects/envelope.ts";
import type { HeadAnswer } from "../../../durable-objects/types.ts";
import { openLatest } from "../../../storage/index.ts";
import { lakeName, realBucket, rigLake, stub, walPuts } from "../../durable-objects/support.ts";
import fixture from "../../support/quack-writes.ts";

interface Step {
  step: string;
  writes: string[];
}
const core = (fixture as unknown as { scenarios: Record<string, { steps: Step[] }> }).scenarios.core;
const view = (fixture as unknown as { scenarios: Record<string, { steps: Step[] }> }).scenarios.view;

function writesOf(steps: Step[] | undefined, step: string): string[] {
  const s = steps?.find((x) => x.step === step);
  if (!s) throw new Error(`fixture has no step ${step}`);
  return s.writes;
}
const INIT = writesOf(core?.steps, "attach_new")[0] as string;
const CREATE_SCHEMA = writesOf(core?.steps, "create_schema")[0] as string;
const CREATE_TABLE = writesOf(core?.steps, "create_table")[0] as string;
const INSERT_INLINED = writesOf(core?.steps, "insert_inlined")[0] as string;
/** The view scenario's CREATE TABLE: the same snapshot id as core's, a different table. */
const OTHER_CREATE_TABLE = writesOf(view?.steps, "create_table")[0] as string;

interface Rpc {
  sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
  head(lake: string): Promise<Envelope<HeadAnswer>>;
}
function rpc(lake: string): Rpc {
  return stub(lake) as unknown as Rpc;
}

async function write(
  lake: string,
  sql: string,
  extra: Partial<SqlWriteRequest> = {},
): Promise<Envelope<SqlWriteAnswer>> {
  return rpc(lake).sqlWrite(lake, { sql, mayCreateLake: false, ...extra });
}

function ok(e: Envelope<SqlWriteAnswer>): SqlWriteAnswer {
  if (!e.ok) throw new Error(`expected success, got ${e.error.code}: ${e.error.message}`);
  return e.value;
}

async function allRows(lake: string, position: number): Promise<Record<string, unknown[]>> {
  const v = await openLatest(realBucket(), lake, { after: position });
  const out: Record<string, unknown[]> = {};
  for (const t of Object.keys(DUCKLAKE_TABLES)) out[t] = await ducklakeTable(v, t);
  return out;
}

async function lakeAt(tag: string, batches: string[]): Promise<{ lake: string; position: number }> {
  const lake = lakeName(tag);
  rigLake(lake);
  let position = ok(await write(lake, INIT, { mayCreateLake: true })).position;
  for (const b of batches) position = ok(await write(lake, b)).position;
  return { lake, position };
}

/** A statement that fails while staging: stats for a table that does not exist. */
const FAILING = 'INSERT INTO "main".ducklake_table_stats VALUES (999, 0, 0, 0)';

describe("a SQL write is one atomic commit", () => {
  it("a batch failing at statement k writes nothing, for several k", async () => {
    const { lake, position } = await lakeAt("atomic", [CREATE_SCHEMA]);
    const before = await allRows(lake, position);
    const statements = splitStatements(CREATE_TABLE).map((s) => s.text);
    expect(statements.length).toBeGreaterThan(4);
    for (const k of [1, 2, Math.floor(statements.length / 2), statements.length - 1]) {
      const broken = [...statements.slice(0, k), FAILING, ...statements.slice(k)].join(";\n");
      const r = await write(lake, broken);
      expect(r.ok ? "ok" : r.error.code, `failing at statement ${k}`).toBe("NotFound");
      const h = await rpc(lake).head(lake);
      expect(h.ok && h.value.position, `head unchanged after failing at ${k}`).toBe(position);
      expect(await allRows(lake, position), `rows unchanged after failing at ${k}`).toEqual(before);
    }
    // The same batch without the failing statement lands whole.
    const landed = ok(await write(lake, CREATE_TABLE));
    expect(landed.position).toBeGreaterThan(position);
    expect(landed.result).toEqual({ columns: [{ name: "Count", type: { id: "BIGINT" } }], rows: [[1n]] });
    const rows = await allRows(lake, landed.position);
    expect(rows.ducklake_table?.length).toBe(1);
    expect(rows.ducklake_column?.length).toBe(3);
  });

  it("a batch stamped against an older head answers CommitConflict and writes nothing", async () => {
    const { lake, position } = await lakeAt("race", [CREATE_SCHEMA, CREATE_TABLE]);
    const before = await allRows(lake, position);
    // Built on snapshot 1, as another client's CREATE TABLE was; snapshot 2 is the head now.
    const r = await write(lake, OTHER_CREATE_TABLE);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("CommitConflict");
    // DuckLake 1.5.5 re-drives a commit whose error contains primary key, unique, conflict or concurrent.
    expect(r.error.message).toMatch(/conflict/);
    const h = await rpc(lake).head(lake);
    expect(h.ok && h.value.position).toBe(position);
    expect(await allRows(lake, position)).toEqual(before);
    // A replay of a batch that already landed is the same lost race.
    const again = await write(lake, CREATE_TABLE);
    expect(again.ok ? "ok" : again.error.code).toBe("CommitConflict");
  });

  it("two batches racing for one snapshot: one lands, the other gets CommitConflict, neither poisons", async () => {
    const { lake, position } = await lakeAt("race2", [CREATE_SCHEMA]);
    const [a, b] = await Promise.all([write(lake, CREATE_TABLE), write(lake, OTHER_CREATE_TABLE)]);
    const codes = [a, b].map((r) => (r.ok ? "ok" : r.error.code)).sort();
    expect(codes).toEqual(["CommitConflict", "ok"]);
    const winner = (a.ok ? a : b) as { ok: true; value: SqlWriteAnswer };
    expect(winner.value.position).toBeGreaterThan(position);
    const rows = await allRows(lake, winner.value.position);
    expect(rows.ducklake_table?.length).toBe(1);
    expect(rows.ducklake_snapshot?.length).toBe(3);
  });

  it("reads at the answered position see the write (read-your-writes)", async () => {
    const { lake, position } = await lakeAt("ryw", [CREATE_SCHEMA, CREATE_TABLE]);
    const r = ok(await write(lake, INSERT_INLINED));
    expect(r.position).toBeGreaterThan(position);
    const v = await openLatest(realBucket(), lake, { after: r.position });
    expect(v.cut.position).toBeGreaterThanOrEqual(r.position);
    const stats = await ducklakeTable(v, "ducklake_table_stats");
    expect(stats).toEqual([{ table_id: 2, record_count: 3, next_row_id: 3, file_size_bytes: 0 }]);
    expect(r.result.rows).toEqual([[1n]]);
  });

  it("an idempotency key replays the first answer and writes nothing more", async () => {
    const { lake, position } = await lakeAt("idem", []);
    const first = ok(await write(lake, CREATE_SCHEMA, { idempotencyKey: "k-1" }));
    expect(first.position).toBeGreaterThan(position);
    const replay = ok(await write(lake, CREATE_SCHEMA, { idempotencyKey: "k-1" }));
    expect(replay.result).toEqual(first.result);
    expect((await allRows(lake, replay.position)).ducklake_schema?.length).toBe(2);
    const reused = await write(lake, CREATE_TABLE, { idempotencyKey: "k-1" });
    expect(reused.ok ? "ok" : reused.error.code).toBe("IdempotencyKeyReused");
  });

  it("statements outside DuckLake's commit templates are refused by shape", async () => {
    const { lake } = await lakeAt("unsup", []);
    const r = await write(lake, "DELETE FROM ducklake_snapshot WHERE snapshot_id = 0");
    expect(r.ok ? "ok" : r.error.code).toBe("Unsupported");
    if (!r.ok) expect(r.error.message).toContain("DELETE FROM ducklake_snapshot WHERE snapshot_id = ?");
  });
});

describe("lake creation over Quack", () => {
  it("the initialization batch creates the lake only when the caller may create lakes", async () => {
    const lake = lakeName("init");
    rigLake(lake);
    const refused = await write(lake, INIT, { mayCreateLake: false });
    expect(refused.ok ? "ok" : refused.error.code).toBe("InvalidRequest");
    const absent = await rpc(lake).head(lake);
    expect(absent.ok ? "ok" : absent.error.code).toBe("NotFound");
    const notYet = await write(lake, CREATE_SCHEMA);
    expect(notYet.ok ? "ok" : notYet.error.code).toBe("NotFound");
    const created = ok(await write(lake, INIT, { mayCreateLake: true }));
    expect(created.result).toEqual({ columns: [{ name: "Count", type: { id: "BIGINT" } }], rows: [[1n]] });
    const rows = await allRows(lake, created.position);
    const meta = Object.fromEntries(
      (rows.ducklake_metadata as { key: string; value: string }[]).map((r) => [r.key, r.value]),
    );
    expect(meta.data_path).toMatch(/^\/tmp\/qd-capture-core-[^/]+\/data\/$/);
    expect(meta.version).toBe("1.0");
    const again = await write(lake, INIT, { mayCreateLake: true });
    expect(again.ok ? "ok" : again.error.code).toBe("AlreadyExists");
  });

  it("an initialization batch with values other than DuckLake's initial ones is refused", async () => {
    const lake = lakeName("init-bad");
    rigLake(lake);
    const r = await write(lake, INIT.replace("('encrypted', 'false')", "('encrypted', 'maybe')"), {
      mayCreateLake: true,
    });
    expect(r.ok ? "ok" : r.error.code).toBe("Unsupported");
    const absent = await rpc(lake).head(lake);
    expect(absent.ok ? "ok" : absent.error.code).toBe("NotFound");
  });

  it("ATTACH … (ENCRYPTED): the initialization batch creates a lake whose metadata says encrypted (0440)", async () => {
    const lake = lakeName("init-encrypted");
    rigLake(lake);
    const r = await write(lake, INIT.replace("('encrypted', 'false')", "('encrypted', 'true')"), {
      mayCreateLake: true,
    });
    if (!r.ok) throw new Error(r.error.message);
    const rows = await allRows(lake, r.value.position);
    const meta = Object.fromEntries(
      (rows.ducklake_metadata as { key: string; value: string }[]).map((x) => [x.key, x.value]),
    );
    expect(meta.encrypted).toBe("true");
  });
});

describe("rows DuckLake would never send are refused, and nothing is written", () => {
  const TABLE_ROW =
    /INSERT INTO "main"\.ducklake_table VALUES \(2, ('[^']+'), 2, NULL, 1, 't', 't\/', true\)/;
  const cases: [string, (sql: string) => string, string][] = [
    [
      "a table id outside the range the snapshot allocates",
      (s) =>
        s.replace(
          TABLE_ROW,
          "INSERT INTO \"main\".ducklake_table VALUES (7, $1, 2, NULL, 1, 't', 't/', true)",
        ),
      "InvalidRequest",
    ],
    [
      "a row begun at another snapshot",
      (s) =>
        s.replace(
          TABLE_ROW,
          "INSERT INTO \"main\".ducklake_table VALUES (2, $1, 1, NULL, 1, 't', 't/', true)",
        ),
      "InvalidRequest",
    ],
    [
      "a table in a schema that does not exist",
      (s) =>
        s.replace(
          TABLE_ROW,
          "INSERT INTO \"main\".ducklake_table VALUES (2, $1, 2, NULL, 9, 't', 't/', true)",
        ),
      "NotFound",
    ],
    [
      "next_catalog_id going backwards",
      (s) =>
        s.replace(
          "ducklake_snapshot VALUES (2, NOW(), 2, 3, 0)",
          "ducklake_snapshot VALUES (2, NOW(), 2, 1, 0)",
        ),
      "InvalidRequest",
    ],
    [
      "a schema_version that skips",
      (s) =>
        s.replace(
          "ducklake_snapshot VALUES (2, NOW(), 2, 3, 0)",
          "ducklake_snapshot VALUES (2, NOW(), 5, 3, 0)",
        ),
      "InvalidRequest",
    ],
    [
      "snapshot_changes for another snapshot",
      (s) => s.replace("ducklake_snapshot_changes VALUES (2,", "ducklake_snapshot_changes VALUES (4,"),
      "InvalidRequest",
    ],
  ];
  for (const [what, mutate, code] of cases) {
    it(what, async () => {
      const { lake, position } = await lakeAt("refuse", [CREATE_SCHEMA]);
      const sql = mutate(CREATE_TABLE);
      expect(sql).not.toBe(CREATE_TABLE);
      const r = await write(lake, sql);
      expect(r.ok ? "ok" : r.error.code).toBe(code);
      const h = await rpc(lake).head(lake);
      expect(h.ok && h.value.position).toBe(position);
    });
  }

  it("a second table of the same name, and inlined row ids beyond next_row_id", async () => {
    const { lake, position } = await lakeAt("refuse2", [CREATE_SCHEMA, CREATE_TABLE]);
    const dup = [
      'INSERT INTO "main".ducklake_snapshot VALUES (3, NOW(), 3, 4, 0)',
      "INSERT INTO \"main\".ducklake_table VALUES (3, '01a230f0-0000-7000-8000-000000000000', 3, NULL, 1, 'T', 't/', true)",
      'INSERT INTO "main".ducklake_snapshot_changes VALUES (3, \'created_table:"s"."T"\', NULL, NULL, NULL)',
    ].join(";");
    const r = await write(lake, dup);
    expect(r.ok ? "ok" : r.error.code).toBe("AlreadyExists");
    const short = INSERT_INLINED.replace(
      "ducklake_table_stats VALUES (2, 3, 3, 0)",
      "ducklake_table_stats VALUES (2, 3, 2, 0)",
    );
    expect(short).not.toBe(INSERT_INLINED);
    const r2 = await write(lake, short);
    expect(r2.ok ? "ok" : r2.error.code).toBe("InvalidRequest");
    if (!r2.ok) expect(r2.error.message).toContain("row ids");
    const h = await rpc(lake).head(lake);
    expect(h.ok && h.value.position).toBe(position);
  });
});

describe("staged-row and verb commits share the writer's coalescer", () => {
  it("a SQL write and verb commits arriving together land as consecutive snapshots in few segments", async () => {
    const lake = lakeName("mixed");
    const rig = rigLake(lake, { tunables: { flushSpacingMs: 1000 } });
    ok(await write(lake, INIT, { mayCreateLake: true }));
    ok(await write(lake, CREATE_SCHEMA));
    rig.bucket.resetCounters();
    const s = stub(lake) as unknown as {
      commit(
        lake: string,
        verbs: unknown,
      ): Promise<Envelope<{ snapshotId: number | null; position: number }>>;
    };
    // The SQL batch is stamped for snapshot 2, so it must stage first: it is sent first.
    const sqlAnswer = write(lake, CREATE_TABLE);
    const verbAnswers = [0, 1, 2].map((i) =>
      s.commit(lake, [{ op: "create_table", name: `v${i}`, columns: [{ name: "x", type: "int64" }] }]),
    );
    const [q, ...vs] = await Promise.all([sqlAnswer, ...verbAnswers]);
    const sql = ok(q as Envelope<SqlWriteAnswer>);
    const snaps = vs.map((v) => (v.ok ? v.value.snapshotId : -1)).sort();
    expect(snaps).toEqual([3, 4, 5]);
    expect(walPuts(rig.bucket, lake)).toBeLessThanOrEqual(2);
    const rows = await allRows(lake, Math.max(sql.position, ...vs.map((v) => (v.ok ? v.value.position : 0))));
    expect((rows.ducklake_table as { table_name: string }[]).map((t) => t.table_name).sort()).toEqual([
      "t",
      "v0",
      "v1",
      "v2",
    ]);
  });
});
