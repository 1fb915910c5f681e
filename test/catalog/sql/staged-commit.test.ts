/**
 * DuckLake's server-side commit (`ducklake_commit`) through the writer: the staged batch lands as one
 * member of the commit core, answers stock's `(committed_snapshot_id, committed_schema_version,
 * had_flushes)`, and a data-only commit that lost a benign race lands exactly as a sequential commit of
 * the same rows after the winner (differential, for inlined rows, files, deletes and mixed). Refused
 * shapes answer CommitConflict with the store unchanged; a burst lands in fewer WAL objects with
 * consecutive snapshots and dense row ids. docs/decisions/0260-staged-commit.md.
 */
import { describe, expect, it } from "vitest";
import { catalogAt, DUCKLAKE_TABLES, ducklakeTable } from "../../../catalog/index.ts";
import { inlinedTablesAt } from "../../../catalog/reads/inlined-tables.ts";
import type { SqlWriteAnswer, SqlWriteRequest } from "../../../catalog/sql/writes/contract.ts";
import { STAGED_TABLES, type StagedTable } from "../../../catalog/sql/writes/staged-parse.ts";
import type { CommitRequest } from "../../../catalog/verbs/schema.ts";
import type { Envelope } from "../../../durable-objects/envelope.ts";
import type { HeadAnswer } from "../../../durable-objects/types.ts";
import { openLatest } from "../../../storage/index.ts";
import { createTable, lakeName, realBucket, rigLake, stub, walPuts } from "../../durable-objects/support.ts";
import fixture from "../../support/quack-writes.ts";

interface Step {
  step: string;
  writes: string[];
}
const DATA = scenario("core").dataPath;
/** The first write of a captured scenario's step (the `core` scenario unless named). */
function writesOf(step: string, name = "core"): string {
  const s = scenario(name).steps.find((x) => x.step === step);
  if (!s) throw new Error(`fixture scenario ${name} has no step ${step}`);
  return s.writes[0] as string;
}
/**
 * Snapshots 1-3 as DuckLake wrote them: schema s, table t (id 2: id INTEGER, s VARCHAR, n DECIMAL), three
 * inlined rows; snapshot 4 a verb commit creating table u (id 3), which a winner on another table writes.
 */
const SETUP = ["create_schema", "create_table", "insert_inlined"].map((step) => writesOf(step));
const TABLE = 2;
/** The head the staged commits read: snapshot 4, schema version 3, next_catalog_id 4, next_file_id 1. */
const BASE = 4;

async function verbs(
  lake: string,
  v: CommitRequest["verbs"],
): Promise<{ snapshotId: number | null; position: number }> {
  const s = stub(lake) as unknown as {
    commit(lake: string, verbs: unknown): Promise<Envelope<{ snapshotId: number | null; position: number }>>;
  };
  const r = await s.commit(lake, v);
  if (!r.ok) throw new Error(`verb commit failed: ${r.error.code}: ${r.error.message}`);
  return r.value;
}

interface Rpc {
  sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
  head(lake: string): Promise<Envelope<HeadAnswer>>;
}
const rpc = (lake: string) => stub(lake) as unknown as Rpc;
const write = (lake: string, sql: string, extra: Partial<SqlWriteRequest> = {}) =>
  rpc(lake).sqlWrite(lake, { sql, mayCreateLake: false, ...extra });
function ok(e: Envelope<SqlWriteAnswer>): SqlWriteAnswer {
  if (!e.ok) throw new Error(`expected success, got ${e.error.code}: ${e.error.message}`);
  return e.value;
}

/** Every `ducklake_*` row, without the commit times (two runs mint them at different moments). */
async function allRows(lake: string, position: number): Promise<Record<string, unknown[]>> {
  const v = await openLatest(realBucket(), lake, { after: position });
  const out: Record<string, unknown[]> = {};
  for (const t of Object.keys(DUCKLAKE_TABLES)) {
    const rows = (await ducklakeTable(v, t)) as Record<string, unknown>[];
    // Times and the UUIDs of the setup (DuckLake's and the verbs') differ between two runs; no staged commit derives them.
    out[t] = rows.map(
      ({ snapshot_time: _t, schedule_start: _s, schema_uuid: _u, table_uuid: _v, ...rest }) => rest,
    );
  }
  for (const [name, t] of Object.entries(await inlinedTablesAt(v))) out[name] = t.rows;
  return out;
}

async function lakeAt(
  tag: string,
  flushSpacingMs = 0,
): Promise<{ lake: string; position: number; rig: ReturnType<typeof rigLake> }> {
  const lake = lakeName(tag);
  const rig = rigLake(lake, { tunables: { flushSpacingMs } });
  let position = ok(await write(lake, writesOf("attach_new"), { mayCreateLake: true })).position;
  for (const b of SETUP) position = ok(await write(lake, b)).position;
  position = (await verbs(lake, createTable("u"))).position;
  return { lake, position, rig };
}

/**
 * Sends `batch` to a lake at `position` and expects it refused with `code`: the head has not moved and
 * every row is as before (a refused commit writes nothing).
 */
async function expectRefused(
  lake: string,
  position: number,
  batch: string,
  code: string,
  text?: RegExp,
): Promise<void> {
  const before = await allRows(lake, position);
  const r = await write(lake, batch);
  expect(r.ok ? "ok" : r.error.code).toBe(code);
  if (!r.ok && text) expect(r.error.message).toMatch(text);
  const h = await rpc(lake).head(lake);
  expect(h.ok && h.value.position).toBe(position);
  expect(await allRows(lake, position)).toEqual(before);
}

type Cell = string | number | bigint | boolean | null;
const lit = (v: Cell | undefined): string =>
  v === null || v === undefined ? "NULL" : typeof v === "string" ? `'${v.replaceAll("'", "''")}'` : String(v);

/** A staged batch exactly as DuckLake 1.5.5 builds it: declare, truncate, rows, `ducklake_commit`. */
function staged(
  base: number | null,
  nextFileId: number,
  rows: Partial<Record<StagedTable, (Cell | undefined)[][]>>,
  schemaVersion = 3,
  nextCatalogId = 4,
  dataPath = DATA,
): string {
  const names = Object.keys(STAGED_TABLES) as StagedTable[];
  const out = names.map(
    (t) => `CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_staged_${t}(${STAGED_TABLES[t]})`,
  );
  out.push(...names.map((t) => `TRUNCATE ducklake_staged_${t}`));
  out.push(
    `INSERT INTO ducklake_staged_commit VALUES (NULL, NULL, NULL, ${lit(base)}, ${lit(dataPath)}, '/', ${nextCatalogId}, ${nextFileId})`,
  );
  for (const t of names) {
    for (const r of rows[t] ?? [])
      out.push(`INSERT INTO ducklake_staged_${t} VALUES (${r.map(lit).join(", ")})`);
  }
  out.push(
    `SELECT * FROM ducklake_commit('main', ${schemaVersion}, max_retry_count => 10, retry_wait_ms => 100, retry_backoff => 1.500000)`,
  );
  return `${out.join(";\n")};\n`;
}

const stats = (col: number, min: string, max: string, nulls = 0): Cell[] => [
  TABLE,
  col,
  0,
  false,
  null,
  true,
  nulls,
  true,
  min,
  true,
  max,
  false,
  null,
  true,
  null,
];
/**
 * A `ducklake_staged_data_file` row of local file 0 as DuckLake stages an appended (or compacted) file:
 * absolute path, no partition, mapping or encryption; the rest as given (NULL when not).
 */
function stagedDataFile(f: {
  path: string;
  count: Cell | undefined;
  size: Cell | undefined;
  footer: Cell | undefined;
  table?: Cell | undefined;
  format?: Cell | undefined;
  rowIdStart?: number;
  partialMax?: number;
  begin?: number;
  compaction?: number;
  mapping?: bigint;
}): (Cell | undefined)[] {
  return [
    0,
    f.table ?? TABLE,
    0,
    f.path,
    false,
    f.format ?? "parquet",
    f.count,
    f.size,
    f.footer,
    f.rowIdStart ?? null,
    null,
    null,
    f.mapping ?? null,
    f.partialMax ?? null,
    f.begin ?? null,
    f.compaction ?? null,
  ];
}
/**
 * A `ducklake_staged_data_file_column_stats` row of local file `local` (default 0): value and null counts
 * known, min/max known when given, no NaN information.
 */
function stagedColumnStats(s: {
  column: Cell | undefined;
  size: Cell | undefined;
  values: Cell | undefined;
  nulls: Cell | undefined;
  min: Cell | undefined;
  max: Cell | undefined;
  local?: Cell | undefined;
  table?: Cell | undefined;
  extra?: Cell | undefined;
}): (Cell | undefined)[] {
  return [
    s.local ?? 0,
    s.table ?? TABLE,
    s.column,
    s.size,
    true,
    s.values,
    true,
    s.nulls,
    s.min !== null,
    s.min,
    s.max !== null,
    s.max,
    false,
    null,
    true,
    s.extra ?? null,
  ];
}
/** An inlined insert of rows (id, s, n) into table t. */
function inlinedInsert(base: number, nextFileId: number, rows: [number, string, string][]): string {
  const ids = rows.map((r) => r[0]);
  return staged(base, nextFileId, {
    inlined_data: [[TABLE, false]],
    inlined_row: rows.map((r, i) => [TABLE, i, null, `(${r[0]}, ${lit(r[1])}, ${r[2]})`]),
    inlined_column_stats: [
      stats(1, String(Math.min(...ids)), String(Math.max(...ids))),
      stats(
        2,
        rows.map((r) => r[1]).sort()[0] as string,
        rows
          .map((r) => r[1])
          .sort()
          .at(-1) as string,
      ),
      stats(
        3,
        rows.map((r) => r[2]).sort()[0] as string,
        rows
          .map((r) => r[2])
          .sort()
          .at(-1) as string,
      ),
    ],
  });
}
/** A Parquet file of `count` rows appended to table t. */
function fileInsert(base: number, nextFileId: number, name: string, count: number): string {
  return staged(base, nextFileId, {
    data_file: [
      stagedDataFile({ path: `${DATA}s/t/${name}.parquet`, count, size: 1000 + count, footer: 300 }),
    ],
    data_file_column_stats: [
      stagedColumnStats({
        column: 1,
        size: 100,
        values: count,
        nulls: 0,
        min: "100",
        max: String(100 + count),
      }),
    ],
  });
}
/** An inlined delete of row ids of the table's first inlined table. */
function inlinedDelete(base: number, nextFileId: number, rowIds: number[]): string {
  return staged(base, nextFileId, {
    inlined_delete: rowIds.map((r) => [TABLE, "ducklake_inlined_data_2_2", r]),
  });
}
function mixed(base: number, nextFileId: number): string {
  return staged(base, nextFileId, {
    data_file: [stagedDataFile({ path: `${DATA}s/t/mixed.parquet`, count: 10, size: 1010, footer: 300 })],
    data_file_column_stats: [
      stagedColumnStats({ column: 1, size: 100, values: 10, nulls: 0, min: "5", max: "9000" }),
    ],
    inlined_data: [[TABLE, false]],
    inlined_row: [[TABLE, 0, null, "(77, 'm', 7.70)"]],
    inlined_column_stats: [stats(1, "77", "77"), stats(2, "m", "m"), stats(3, "7.70", "7.70")],
    inlined_delete: [[TABLE, "ducklake_inlined_data_2_2", 2]],
  });
}

const ANSWER_COLUMNS = [
  { name: "committed_snapshot_id", type: { id: "BIGINT" } },
  { name: "committed_schema_version", type: { id: "BIGINT" } },
  { name: "had_flushes", type: { id: "BOOLEAN" } },
];

describe("ducklake_commit: the staged batch is one commit of the core", () => {
  it("lands an inlined insert and answers stock's row", async () => {
    const { lake } = await lakeAt("staged-one");
    const r = ok(
      await write(
        lake,
        inlinedInsert(BASE, 1, [
          [10, "x", "1.00"],
          [11, "y", "2.00"],
        ]),
      ),
    );
    expect(r.result).toEqual({ columns: ANSWER_COLUMNS, rows: [[5n, 3n, false]] });
    const rows = await allRows(lake, r.position);
    expect(rows.ducklake_table_stats).toEqual([
      { table_id: 2, record_count: 5, next_row_id: 5, file_size_bytes: 0 },
    ]);
    const inlined = rows.ducklake_inlined_data_2_2 as { row_id: number; begin_snapshot: number }[];
    expect(inlined.filter((x) => x.begin_snapshot === 5).map((x) => x.row_id)).toEqual([3, 4]);
  });

  it("lands ducklake_add_data_files' name map: its id from next_file_id ahead of the file's, the file remapped (0600)", async () => {
    const { lake } = await lakeAt("staged-name-map");
    const local = 1n << 63n;
    const r = ok(
      await write(
        lake,
        staged(BASE, 1, {
          name_map: [[local, TABLE]],
          name_map_entry: [
            [local, 0, null, "ident", 1, false],
            [local, 1, null, "label", 2, false],
          ],
          data_file: [
            stagedDataFile({
              path: `${DATA}s/t/added.parquet`,
              count: 2,
              size: 900,
              footer: 200,
              mapping: local,
            }),
          ],
        }),
      ),
    );
    expect(r.result).toEqual({ columns: ANSWER_COLUMNS, rows: [[5n, 3n, false]] });
    const rows = await allRows(lake, r.position);
    expect(rows.ducklake_column_mapping).toEqual([{ mapping_id: 1, table_id: TABLE, type: "map_by_name" }]);
    expect(rows.ducklake_name_mapping).toEqual([
      {
        mapping_id: 1,
        column_id: 0,
        source_name: "ident",
        target_field_id: 1,
        parent_column: null,
        is_partition: false,
      },
      {
        mapping_id: 1,
        column_id: 1,
        source_name: "label",
        target_field_id: 2,
        parent_column: null,
        is_partition: false,
      },
    ]);
    const files = rows.ducklake_data_file as { data_file_id: number; mapping_id: number | null }[];
    expect(files.map((f) => [f.data_file_id, f.mapping_id])).toEqual([[2, 1]]);
  });

  it("refuses rows without their declaration in the same request (the staged tables live one request)", async () => {
    const { lake, position } = await lakeAt("staged-session");
    const batch = inlinedInsert(BASE, 1, [[10, "x", "1.00"]]);
    const withoutDeclarations = batch
      .split(";\n")
      .filter((s) => !s.startsWith("CREATE TEMPORARY") && !s.startsWith("TRUNCATE"))
      .join(";\n");
    const r = await write(lake, withoutDeclarations);
    expect(r.ok ? "ok" : r.error.code).toBe("InvalidRequest");
    const h = await rpc(lake).head(lake);
    expect(h.ok && h.value.position).toBe(position);
  });
});

/**
 * The winner lands on snapshot 5, then the loser (also read at 4) — against the loser sent after the
 * winner, read at 5: every row equal.
 */
type Winner = (lake: string, base: number) => Promise<unknown>;
const stagedWinner =
  (batch: (base: number) => string): Winner =>
  async (lake, base) =>
    ok(await write(lake, batch(base)));
async function differential(
  tag: string,
  winner: Winner,
  loser: (base: number, nextFileId: number) => string,
) {
  const raced = await lakeAt(`${tag}-raced`);
  await winner(raced.lake, BASE);
  const lost = ok(await write(raced.lake, loser(BASE, 1)));
  const sequential = await lakeAt(`${tag}-seq`);
  await winner(sequential.lake, BASE);
  const h = await rpc(sequential.lake).head(sequential.lake);
  const at = h.ok ? h.value.position : 0;
  const seq = ok(await write(sequential.lake, loser(BASE + 1, (await nextFileId(sequential.lake, at)) ?? 0)));
  expect(lost.result).toEqual(seq.result);
  expect(await allRows(raced.lake, lost.position)).toEqual(await allRows(sequential.lake, seq.position));
  return allRows(raced.lake, lost.position);
}
async function nextFileId(lake: string, position: number): Promise<number | undefined> {
  const rows = (await allRows(lake, position)).ducklake_snapshot as {
    snapshot_id: number;
    next_file_id: number;
  }[];
  return rows.sort((a, b) => b.snapshot_id - a.snapshot_id)[0]?.next_file_id;
}

describe("a data-only staged commit that lost a benign race is rebased onto the winner", () => {
  it("inlined rows: snapshot and row ids above the winner's, stats as a sequential commit", async () => {
    const rows = await differential(
      "diff-inl",
      stagedWinner((b) => inlinedInsert(b, 1, [[20, "w", "3.00"]])),
      (b, f) =>
        inlinedInsert(b, f, [
          [30, "l", "4.00"],
          [31, "m", "5.00"],
        ]),
    );
    const inlined = rows.ducklake_inlined_data_2_2 as { row_id: number; begin_snapshot: number }[];
    expect(inlined.filter((x) => x.begin_snapshot === 6).map((x) => x.row_id)).toEqual([4, 5]);
  });

  it("files: file id and row_id_start move by the winner's advance", async () => {
    const rows = await differential(
      "diff-file",
      stagedWinner((b) => fileInsert(b, 1, "w", 100)),
      (b, f) => fileInsert(b, f, "l", 50),
    );
    const files = rows.ducklake_data_file as {
      data_file_id: number;
      row_id_start: number;
      begin_snapshot: number;
    }[];
    expect(files.map((x) => [x.begin_snapshot, x.data_file_id, x.row_id_start])).toEqual([
      [5, 1, 3],
      [6, 2, 103],
    ]);
  });

  it("deletes: disjoint inlined deletes both land", async () => {
    // DuckLake's matrix puts inlined deletes at table grain: the winner writes the other table.
    const winner: Winner = (lake) =>
      verbs(lake, [{ op: "inline_insert", table: { name: "u" }, rows: [{ id: 1, v: "a" }] }]);
    await differential("diff-del", winner, (b, f) => inlinedDelete(b, f, [1]));
  });

  it("mixed: a file, an inlined row and a delete after a winner's file", async () => {
    const winner: Winner = (lake) =>
      verbs(lake, [
        {
          op: "register_data_file",
          table: { name: "u" },
          file: { path: "w.parquet", recordCount: 5, fileSizeBytes: 105 },
        },
      ]);
    await differential("diff-mixed", winner, (b, f) => mixed(b, f));
  });
});

describe("refused staged commits answer CommitConflict and write nothing", () => {
  for (const [name, batch] of [
    [
      "a schema change since the commit read",
      staged(BASE, 1, { inlined_delete: [[TABLE, "ducklake_inlined_data_2_2", 0]] }, 2),
    ],
    [
      "a catalog-id allocation",
      staged(BASE, 1, { inlined_delete: [[TABLE, "ducklake_inlined_data_2_2", 0]] }, 3, 9),
    ],
  ] as const) {
    it(name, async () => {
      const { lake, position } = await lakeAt(`refuse-${name.length}`);
      await expectRefused(lake, position, batch, "CommitConflict", /conflict/);
    });
  }

  it("a race lost to a delete of the same row", async () => {
    const { lake } = await lakeAt("refuse-race");
    const w = ok(await write(lake, inlinedDelete(BASE, 1, [0])));
    await expectRefused(lake, w.position, inlinedDelete(BASE, 1, [0]), "CommitConflict", /conflict/);
  });

  it("DDL sent as a client-side batch against an older head (the same refused-shape rule)", async () => {
    const { lake, position } = await lakeAt("refuse-ddl");
    await expectRefused(lake, position, writesOf("create_table"), "CommitConflict");
  });
});

describe("a burst of staged commits shares batches", () => {
  it("lands in fewer WAL objects, each its own consecutive snapshot, row ids dense", async () => {
    const { lake, rig } = await lakeAt("burst", 200);
    rig.bucket.resetCounters();
    const n = 12;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => write(lake, inlinedInsert(BASE, 1, [[100 + i, `b${i}`, "1.00"]]))),
    );
    const snaps = answers.map((a) => Number(ok(a).result.rows[0]?.[0])).sort((a, b) => a - b);
    expect(snaps).toEqual(Array.from({ length: n }, (_, i) => BASE + 1 + i));
    expect(walPuts(rig.bucket, lake)).toBeLessThan(n);
    const rows = await allRows(lake, Math.max(...answers.map((a) => ok(a).position)));
    const ids = (rows.ducklake_inlined_data_2_2 as { row_id: number }[])
      .map((x) => x.row_id)
      .sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 3 + n }, (_, i) => i));
    expect(rows.ducklake_table_stats).toEqual([
      { table_id: 2, record_count: 3 + n, next_row_id: 3 + n, file_size_bytes: 0 },
    ]);
  });
});

/** The view scenario's write of `step`. */
const viewStep = (step: string): string => writesOf(step, "view");
/** A lake attached as DuckLake does, holding the view scenario's schema s and table t (snapshot 2). */
async function viewLake(tag: string, yieldHoldMs: number): Promise<string> {
  const lake = lakeName(tag);
  rigLake(lake, { tunables: { yieldHoldMs } });
  ok(await write(lake, writesOf("attach_new"), { mayCreateLake: true }));
  ok(await write(lake, viewStep("create_schema")));
  ok(await write(lake, viewStep("create_table")));
  return lake;
}

describe("the yield: a lone commit that lost its race gets a gap", () => {
  it("a re-driven DDL lands before a commit that arrived after its loss", async () => {
    // The hold is longer than any test: only the re-driven DDL's landing can release it (the gate).
    const lake = await viewLake("yield", 3_600_000);
    const insert: CommitRequest["verbs"] = [
      { op: "inline_insert", table: { schema: "s", name: "t" }, rows: [{ id: 1, s: "a", amount: "1.00" }] },
    ];
    // A writer's commit moves the head to 3, so the CREATE VIEW stamped for 3 loses: the yield arms.
    expect((await verbs(lake, insert)).snapshotId).toBe(3);
    const createView = viewStep("create_view");
    const lost = await write(lake, createView);
    expect(lost.ok ? "ok" : lost.error.code).toBe("CommitConflict");
    // A commit arriving now holds; DuckLake's re-drive, stamped for 4, is alone and does not.
    const held = verbs(lake, insert);
    const redriven = createView
      .replace("VALUES (3, NOW(), 3, 4, 0)", "VALUES (4, NOW(), 3, 4, 1)")
      .replace(", 3, NULL, 1, 'v'", ", 4, NULL, 1, 'v'")
      .replace("snapshot_changes VALUES (3,", "snapshot_changes VALUES (4,");
    const ddl = ok(await write(lake, redriven));
    expect(ddl.result.rows).toEqual([[1n]]);
    expect((await held).snapshotId).toBe(5);
  });
});

/**
 * CREATE TABLE s.t2 as DuckLake 1.5.5 sends it (the fixture's `create_table` batch, for the next table id)
 * when its transaction read the head of the view scenario's lake after `create_table`: schema
 * version 2 → 3, next_catalog_id 3 → 4. The writers' data-only commits move neither, so a re-drive differs
 * only in the snapshot it stamps.
 */
async function createTableT2(lake: string): Promise<{ read: number; sql: string }> {
  const v = await openLatest(realBucket(), lake);
  const head = (
    (await ducklakeTable(v, "ducklake_snapshot")) as { snapshot_id: number; next_file_id: number }[]
  )
    .sort((a, b) => a.snapshot_id - b.snapshot_id)
    .at(-1);
  if (head === undefined) throw new Error("the lake has no snapshot");
  const k = head.snapshot_id + 1;
  const sql = [
    `INSERT INTO "main".ducklake_snapshot VALUES (${k}, NOW(), 3, 4, ${head.next_file_id})`,
    `INSERT INTO "main".ducklake_table VALUES (3, '01a23128-072c-74d5-8b24-48df3d43a2a6', ${k}, NULL, 1, 't2', 't2/', true)`,
    `INSERT INTO "main".ducklake_column VALUES (1, ${k}, NULL, 3, 1, 'id', 'int32', NULL, 'NULL', true, NULL, 'literal', 'duckdb')`,
    `INSERT INTO "main".ducklake_inlined_data_tables VALUES (3, 'ducklake_inlined_data_3_3', 3)`,
    `CREATE TABLE IF NOT EXISTS "main".ducklake_inlined_data_3_3(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER)`,
    `INSERT INTO "main".ducklake_schema_versions VALUES (${k},3,3)`,
    `INSERT INTO "main".ducklake_snapshot_changes VALUES (${k}, 'created_table:"s"."t2"', NULL, NULL, NULL);`,
  ].join(";");
  return { read: head.snapshot_id, sql };
}

describe("the yield under a writer that commits without pause (issue 12's measured case)", () => {
  it("a CREATE TABLE that lost once lands at its first re-drive; the writer's next commit lands after it", async () => {
    // The hold outlasts any test: only the re-driven CREATE TABLE's landing can release the writer (the
    // gate). In production it is yieldHoldMs (250 ms), so the DDL lands at DuckLake's first re-drive (its
    // first retry wait is 100 ms) and the writer pauses once, at most that long: "within a few hundred ms".
    const lake = await viewLake("yield-table", 3_600_000);
    const insert = (id: number): CommitRequest["verbs"] => [
      { op: "inline_insert", table: { schema: "s", name: "t" }, rows: [{ id, s: "w", amount: "1.00" }] },
    ];
    // The writer's commits, each sent as the previous one is answered. The DDL's transaction reads the
    // head, and the writer's next commit moves it before the batch arrives.
    const first = await createTableT2(lake);
    const read = first.read;
    expect((await verbs(lake, insert(0))).snapshotId).toBe(read + 1);
    const lost = await write(lake, first.sql);
    expect(lost.ok ? "ok" : lost.error.code).toBe("CommitConflict");
    if (!lost.ok) expect(lost.error.message).toMatch(/conflict/);
    // The writer's next commit arrives right after the loss and holds; DuckLake re-drives the same batch
    // stamped for the head it now reads, which stays still, so the re-drive lands on its first attempt.
    const held = verbs(lake, insert(1));
    const redrive = await createTableT2(lake);
    const again = redrive.read;
    expect(again).toBe(read + 1);
    const ddl = ok(await write(lake, redrive.sql));
    expect(ddl.result.rows).toEqual([[1n]]);
    const ddlAt = again + 1;
    // The landing ends the hold: the held commit lands right after the DDL, and the writer's later
    // commits do not hold at all (the hold would outlast the test).
    expect((await held).snapshotId).toBe(ddlAt + 1);
    expect((await verbs(lake, insert(2))).snapshotId).toBe(ddlAt + 2);
    expect((await verbs(lake, insert(3))).snapshotId).toBe(ddlAt + 3);
    const v = await openLatest(realBucket(), lake);
    const tables = (await catalogAt(v, ddlAt)).tables.map((t) => t.table_name).sort();
    expect(tables).toEqual(["t", "t2"]);
  });
});

/**
 * `ducklake_flush_inlined_data` through `ducklake_commit` (docs/decisions/0263-staged-flush.md): the three
 * inlined rows of table t (row ids 0-2, snapshot 3, inlined table `_2_2`) written to one file, as DuckLake
 * 1.5.5 stages it: the file back-dated with its rows' own ids, `ducklake_staged_flushed_inlined` naming the
 * inlined table and the snapshot the flush read.
 */
function flush(base: number, nextFileId: number): string {
  const col = (column: number, min: string | null, max: string | null, nulls: number) =>
    stagedColumnStats({ column, size: 40, values: 3, nulls, min, max });
  return staged(base, nextFileId, {
    data_file: [
      stagedDataFile({
        path: `${DATA}s/t/flushed.parquet`,
        count: 3,
        size: 863,
        footer: 610,
        rowIdStart: 0,
        partialMax: 3,
        begin: 3,
      }),
    ],
    data_file_column_stats: [col(1, "1", "3", 0), col(2, "a", "b", 1), col(3, "1.50", "2.50", 1)],
    flushed_inlined: [["ducklake_inlined_data_2_2", 2, base]],
  });
}

describe("a staged flush (ducklake_flush_inlined_data through ducklake_commit)", () => {
  it("moves the flushed rows into the file, answers had_flushes, and counts the file's bytes only", async () => {
    const { lake } = await lakeAt("staged-flush");
    const r = ok(await write(lake, flush(BASE, 1)));
    expect(r.result).toEqual({ columns: ANSWER_COLUMNS, rows: [[5n, 3n, true]] });
    const rows = await allRows(lake, r.position);
    expect(rows.ducklake_inlined_data_2_2).toEqual([]);
    const files = rows.ducklake_data_file as Record<string, unknown>[];
    expect(
      files.map((f) => [f.data_file_id, f.begin_snapshot, f.row_id_start, f.record_count, f.path]),
    ).toEqual([[1, 3, 0, 3, "flushed.parquet"]]);
    expect(rows.ducklake_table_stats).toEqual([
      { table_id: 2, record_count: 3, next_row_id: 3, file_size_bytes: 863 },
    ]);
    const changes = rows.ducklake_snapshot_changes as { snapshot_id: number; changes_made: string }[];
    expect(changes.find((c) => c.snapshot_id === 5)?.changes_made).toBe("inline_flush:2");
  });

  it("that lost a benign race lands as a sequential flush after the winner", async () => {
    const winner: Winner = (lake) =>
      verbs(lake, [{ op: "inline_insert", table: { name: "u" }, rows: [{ id: 1, v: "a" }] }]);
    const rows = await differential("diff-flush", winner, (b, f) => flush(b, f));
    expect((rows.ducklake_data_file as { begin_snapshot: number }[]).map((f) => f.begin_snapshot)).toEqual([
      3,
    ]);
  });

  it("as a partition's files is refused, the store unchanged, when those files do not hold every flushed row", async () => {
    // docs/decisions/0617-partitioned-flush.md: one file per partition value, each registered from its
    // lowest id; here two files of one row each for the three flushed rows.
    const { lake, position } = await lakeAt("staged-flush-partitions");
    const share = (local: number, rowIdStart: number): (Cell | undefined)[] => {
      const f = stagedDataFile({
        path: `${DATA}s/t/p=${local}/flushed.parquet`,
        count: 1,
        size: 500,
        footer: 300,
        rowIdStart,
        partialMax: 3,
        begin: 3,
      });
      f[0] = local;
      f[10] = 1; // partition_id
      return f;
    };
    const batch = staged(BASE, 1, {
      data_file: [share(0, 0), share(1, 2)],
      flushed_inlined: [["ducklake_inlined_data_2_2", 2, BASE]],
    });
    await expectRefused(
      lake,
      position,
      batch,
      "InvalidRequest",
      /3 inlined rows are flushed, the data files that hold them carry 2/,
    );
  });

  it("that raced a delete of a flushed row is refused with the store unchanged", async () => {
    const { lake } = await lakeAt("staged-flush-race");
    const w = ok(await write(lake, inlinedDelete(BASE, 1, [0])));
    await expectRefused(lake, w.position, flush(BASE, 1), "CommitConflict", /conflict/);
  });
});

/** A scenario of the client-side capture, step by step: its writes and the rows stock held after each. */
interface FullStep extends Step {
  rows: Record<string, Record<string, unknown>[]>;
}
function scenario(name: string): { dataPath: string; steps: FullStep[] } {
  const s = (fixture as unknown as { scenarios: Record<string, { dataPath: string; steps: FullStep[] }> })
    .scenarios[name];
  if (!s) throw new Error(`fixture has no scenario ${name}`);
  return s;
}
/** A lake holding the scenario's client-side writes up to and including `upTo`. */
async function replayed(
  tag: string,
  name: string,
  upTo: string,
): Promise<{ lake: string; position: number }> {
  const lake = lakeName(tag);
  rigLake(lake);
  let position = 0;
  for (const step of scenario(name).steps) {
    for (const w of step.writes) position = ok(await write(lake, w, { mayCreateLake: true })).position;
    if (step.step === upTo) return { lake, position };
  }
  throw new Error(`scenario ${name} has no step ${upTo}`);
}
/**
 * The staged batch, sent to a lake replayed up to `before`, answers `answer` and leaves every row equal to
 * the lake replayed up to `after` (the client-side commit of the same change).
 */
async function expectLandsAsClient(
  tag: string,
  name: string,
  steps: { before: string; after: string },
  batch: string,
  answer: unknown[],
): Promise<void> {
  const client = await replayed(`${tag}-client`, name, steps.after);
  const server = await replayed(`${tag}-staged`, name, steps.before);
  const r = ok(await write(server.lake, batch));
  expect(r.result).toEqual({ columns: ANSWER_COLUMNS, rows: [answer] });
  expect(await allRows(server.lake, r.position)).toEqual(await allRows(client.lake, client.position));
}

/** The staged batch, sent to a lake replayed up to `before`, is refused with `code` and writes nothing. */
async function expectTamperedRefused(
  tag: string,
  name: string,
  before: string,
  batch: string,
  code: string,
): Promise<void> {
  const { lake, position } = await replayed(tag, name, before);
  await expectRefused(lake, position, batch, code);
}

/** A staged delete file row (`ducklake_staged_delete_file`), absolute paths as DuckLake stages them. */
function stagedDelete(d: {
  dataPath: string;
  dataFile: string;
  file: string;
  count: number;
  size: number;
  footer: number;
  begin: number | null;
  max: number | null;
  source: "REGULAR" | "FLUSH";
  replaces?: { id: number; file: string };
}): Cell[] {
  const at = (f: string) => `${d.dataPath}s/t/${f}`;
  return [
    2,
    at(d.dataFile),
    0,
    at(d.file),
    "parquet",
    d.count,
    d.size,
    d.footer,
    null,
    d.begin,
    d.max,
    d.source,
    d.replaces !== undefined,
    d.replaces?.id ?? null,
    d.replaces ? at(d.replaces.file) : null,
    null,
  ];
}

describe("staged delete files of existing data files (docs/decisions/0265-staged-delete-files.md)", () => {
  const rw = scenario("rewrite");
  const rwData = (rw.steps.find((x) => x.step === "insert_file")?.rows.ducklake_data_file?.[0]?.path ??
    "") as string;
  /** The second DELETE of the capture: its file replaces the first DELETE's (delete_file_id 1). */
  const replacing = (count: number, replaces = 1) =>
    staged(
      4,
      2,
      {
        delete_file: [
          stagedDelete({
            dataPath: rw.dataPath,
            dataFile: rwData,
            file: "ducklake-01a23218-5bf0-751f-b80d-ef47b9b37eb9-delete.parquet",
            count,
            size: 3009,
            footer: 811,
            begin: 4,
            max: 5,
            source: "REGULAR",
            replaces: { id: replaces, file: "ducklake-01a23218-592b-7c03-8416-62670f4c99f8-delete.parquet" },
          }),
        ],
      },
      2,
      3,
      rw.dataPath,
    );

  it("a DELETE replacing a live delete file answers and lands as the client-side DELETE", async () => {
    await expectLandsAsClient(
      "del-replace",
      "rewrite",
      { before: "delete_file", after: "delete_file_2" },
      replacing(371),
      [5n, 2n, false],
    );
  });

  it("a tampered replacing delete file (a delete file that is not live) writes nothing", async () => {
    // The client-side translation's refusal: the scheduled file is no delete file the batch removed.
    await expectTamperedRefused(
      "del-replace-tampered",
      "rewrite",
      "delete_file",
      replacing(371, 7),
      "Unsupported",
    );
  });

  /** The capture's `ducklake_rewrite_data_files` of table t: file 0 and its delete file 2 into file 3. */
  const rewrite = (lastDelete: number) => {
    const at = (f: string) => `${rw.dataPath}s/t/${f}`;
    const col = (column: number, size: number, min: string, max: string) =>
      stagedColumnStats({ column, size, values: 1629, nulls: 0, min, max });
    return staged(
      5,
      3,
      {
        data_file: [
          stagedDataFile({
            path: at("ducklake-01a23218-5ea8-73be-9bdd-1be954c393bc.parquet"),
            count: 1629,
            size: 26749,
            footer: 494,
            compaction: 0,
          }),
        ],
        data_file_column_stats: [
          col(1, 6548, "100", "1999"),
          col(2, 6561, "x100", "x999"),
          col(3, 6567, "1.00", "19.99"),
        ],
        compaction: [[0, 2, "rewrite_delete", null, 0]],
        compaction_source: [
          [
            0,
            0,
            0,
            at(rwData),
            2000,
            3,
            null,
            0,
            lastDelete,
            at("ducklake-01a23218-5bf0-751f-b80d-ef47b9b37eb9-delete.parquet"),
            371,
            null,
          ],
        ],
      },
      2,
      3,
      rw.dataPath,
    );
  };

  it("a rewrite of a file's deletes answers and lands as the client-side rewrite", async () => {
    await expectLandsAsClient(
      "rewrite",
      "rewrite",
      { before: "delete_file_2", after: "rewrite" },
      rewrite(2),
      [6n, 2n, false],
    );
  });

  it("a tampered rewrite (a delete file that is not the source's live one) writes nothing", async () => {
    await expectTamperedRefused("rewrite-tampered", "rewrite", "delete_file_2", rewrite(1), "InvalidRequest");
  });

  const fd = scenario("flush_deletes");
  const fdData = (fd.steps.find((x) => x.step === "insert_file")?.rows.ducklake_data_file?.[0]?.path ??
    "") as string;
  /** The flush of the capture's two inlined DELETEs (snapshots 4 and 5, four rows) into a delete file. */
  const flushDeletes = (count: number) =>
    staged(
      5,
      1,
      {
        delete_file: [
          stagedDelete({
            dataPath: fd.dataPath,
            dataFile: fdData,
            file: "ducklake-01a23218-76b8-70b4-8eed-8c989fe72d1e-delete.parquet",
            count,
            size: 1057,
            footer: 807,
            begin: 4,
            max: 5,
            source: "FLUSH",
          }),
        ],
        flushed_inlined: [["ducklake_inlined_data_2_2", 2, 5]],
      },
      2,
      3,
      fd.dataPath,
    );

  it("a flush of inlined deletes of a Parquet file answers and lands as the client-side flush", async () => {
    await expectLandsAsClient(
      "flush-del",
      "flush_deletes",
      { before: "delete_inlined_2", after: "flush" },
      flushDeletes(4),
      [6n, 2n, true],
    );
  });

  it("a tampered flush of inlined deletes (a count that is not the carried deletes') writes nothing", async () => {
    await expectTamperedRefused(
      "flush-del-tampered",
      "flush_deletes",
      "delete_inlined_2",
      flushDeletes(3),
      "InvalidRequest",
    );
  });
});

/** Stock's rows after a step of a captured scenario, by `ducklake_*` table. */
type StockRows = Record<string, Record<string, Cell>[]>;
function rowsAfter(name: string, step: string): StockRows {
  const s = scenario(name).steps.find((x) => x.step === step);
  if (!s) throw new Error(`scenario ${name} has no step ${step}`);
  return s.rows as unknown as StockRows;
}
const num = (v: Cell | undefined): number => v as number;

/**
 * The staged batch stock's server-side commit sends for the change a client-side step made, rebuilt from
 * the rows stock held after it (the step's snapshot S): the header of snapshot S - 1, and `rows(after, S)`.
 */
function stagedOf(
  name: string,
  steps: { before: string; after: string },
  rows: (
    after: StockRows,
    S: number,
    abs: (path: Cell | undefined) => string,
  ) => Partial<Record<StagedTable, (Cell | undefined)[][]>>,
): string {
  const sc = scenario(name);
  const prev = rowsAfter(name, steps.before).ducklake_snapshot ?? [];
  const head = prev.reduce((a, b) => (num(b.snapshot_id) > num(a.snapshot_id) ? b : a));
  const S = num(head.snapshot_id) + 1;
  const abs = (path: Cell | undefined) => `${sc.dataPath}s/t/${String(path)}`;
  return staged(
    S - 1,
    num(head.next_file_id),
    rows(rowsAfter(name, steps.after), S, abs),
    num(head.schema_version),
    num(head.next_catalog_id),
    sc.dataPath,
  );
}

/** `ducklake_staged_data_file_column_stats` rows of stock's `ducklake_file_column_stats` of one file. */
function stagedFileStats(after: StockRows, dataFileId: number, local: number): (Cell | undefined)[][] {
  return (after.ducklake_file_column_stats ?? [])
    .filter((c) => c.data_file_id === dataFileId)
    .map((c) =>
      stagedColumnStats({
        local,
        table: c.table_id,
        column: c.column_id,
        size: c.column_size_bytes,
        values: c.value_count,
        nulls: c.null_count,
        min: c.min_value,
        max: c.max_value,
        extra: c.extra_stats,
      }),
    );
}

describe("staged rewrites of some files and dropped files (docs/decisions/0247, 0248)", () => {
  /** The capture's rewrite of one file of two (the other's delete file is below the threshold). */
  const someSteps = { before: "delete_file_2", after: "rewrite" };
  const rewriteSome = (tamper: { source?: number } = {}) =>
    stagedOf("rewrite_some", someSteps, (after, S, abs) => {
      const files = after.ducklake_data_file ?? [];
      const out = files.find((f) => f.row_id_start === null && f.begin_snapshot === S);
      if (!out) throw new Error("the capture's rewrite has no output");
      const sources = files.filter((f) => f.end_snapshot === S);
      const deletes = after.ducklake_delete_file ?? [];
      return {
        data_file: [
          stagedDataFile({
            table: out.table_id,
            path: abs(out.path),
            format: out.file_format,
            count: out.record_count,
            size: out.file_size_bytes,
            footer: out.footer_size,
            compaction: 0,
          }),
        ],
        data_file_column_stats: stagedFileStats(after, num(out.data_file_id), 0),
        compaction: [[0, out.table_id, "rewrite_delete", null, 0]],
        compaction_source: sources.map((f, i) => {
          const d = deletes.find((x) => x.data_file_id === f.data_file_id && x.end_snapshot === S);
          return [
            0,
            i,
            tamper.source ?? f.data_file_id,
            abs(f.path),
            f.record_count,
            f.begin_snapshot,
            null,
            0,
            d?.delete_file_id ?? null,
            d ? abs(d.path) : null,
            d?.delete_count ?? null,
            null,
          ];
        }),
      };
    });

  it("a staged rewrite of some of a table's files answers and lands as the client-side rewrite (stats kept)", async () => {
    await expectLandsAsClient("rewrite-some", "rewrite_some", someSteps, rewriteSome(), [7n, 2n, false]);
  });

  it("a tampered staged rewrite of some files (a source with another file's delete file) writes nothing", async () => {
    await expectTamperedRefused(
      "rewrite-some-tampered",
      "rewrite_some",
      someSteps.before,
      rewriteSome({ source: 1 }),
      "InvalidRequest",
    );
  });

  /** The capture's DELETE of every row of the rewritten file: it drops that file whole. */
  const dropSteps = { before: "rewrite", after: "drop_file" };
  const dropping = (tamper: { dropped?: number } = {}) =>
    stagedOf("rewrite_some", dropSteps, (after, S, abs) => {
      const files = after.ducklake_data_file ?? [];
      const dropped = files.filter((f) => f.end_snapshot === S);
      const fresh = (after.ducklake_delete_file ?? []).filter((d) => d.begin_snapshot === S);
      return {
        delete_file: fresh.map((d) => [
          d.table_id,
          abs(files.find((f) => f.data_file_id === d.data_file_id)?.path ?? null),
          d.data_file_id,
          abs(d.path),
          d.format,
          d.delete_count,
          d.file_size_bytes,
          d.footer_size,
          null,
          null,
          null,
          "REGULAR",
          false,
          null,
          null,
          null,
        ]),
        dropped_file: dropped.map((f) => [abs(f.path), tamper.dropped ?? f.data_file_id]),
        tables_deleted_from: [[TABLE]],
      };
    });

  it("a staged DELETE dropping a whole file answers and lands as the client-side DELETE", async () => {
    await expectLandsAsClient("drop", "rewrite_some", dropSteps, dropping(), [8n, 2n, false]);
  });

  it("a tampered staged drop (a data file that is not live) writes nothing", async () => {
    await expectTamperedRefused(
      "drop-tampered",
      "rewrite_some",
      dropSteps.before,
      dropping({ dropped: 9 }),
      "NotFound",
    );
  });
});
