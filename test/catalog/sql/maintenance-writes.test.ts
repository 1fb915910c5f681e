/**
 * The maintenance statements of DuckLake 1.5.5 through sqlWrite and the read templates, beyond the
 * row-equality replay of `writes.test.ts`: nested literals parse to nested values (and a bound on depth),
 * the flush's lone pre-commit DELETE only counts, a flush batch whose file does not hold the flushed rows
 * writes nothing, expire_snapshots never removes the head or a snapshot a live checkpoint pins (the whole
 * request refused, nothing written), the orphan listing names the catalog's files as stock does and, for a
 * lake on its own prefix, every upload still within the grace (decision 0630), and the rewrite's per-file stats and the `versions => [...]` snapshot read answer from the catalog's rows.
 * Decisions: docs/decisions/0240-quack-flush-inlined-data.md, 0241-quack-expire-snapshots.md,
 * 0242-quack-cleanup-and-orphans.md, 0630-quack-orphan-listing-grace.md, 0243-quack-rewrite-data-files.md, 0244-quack-nested-literals.md.
 */

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { lakeDataUrl } from "../../../catalog/data-path.ts";
import { InvalidRequest, Unsupported } from "../../../catalog/errors.ts";
import { ducklakeTable, inlinedTablesAt } from "../../../catalog/index.ts";
import { readInlineFloor } from "../../../catalog/inline-floor.ts";
import { ORPHAN_LISTING_UNPROTECTED } from "../../../catalog/sql/files/orphan-listing.ts";
import { answerRead, splitStatements } from "../../../catalog/sql/index.ts";
import type { SqlWriteAnswer, SqlWriteRequest } from "../../../catalog/sql/writes/contract.ts";
import { MAX_NESTED_DEPTH, parseWrite } from "../../../catalog/sql/writes/parse.ts";
import type { Envelope } from "../../../durable-objects/envelope.ts";
import type { HeadAnswer } from "../../../durable-objects/types.ts";
import type { CheckpointInfo } from "../../../storage/api.ts";
import { openLatest } from "../../../storage/index.ts";
import { dataObjectKey } from "../../../storage/keys.ts";
import type { Env } from "../../../worker/env.ts";
import { listDataObjects } from "../../../worker/quack/data-objects.ts";
import { lakeName, realBucket, rigLake, stub } from "../../durable-objects/support.ts";
import fixture from "../../support/quack-writes.ts";

interface Step {
  step: string;
  writes: string[];
}
const scenarios = (fixture as unknown as { scenarios: Record<string, { steps: Step[] }> }).scenarios;
function writesOf(scenario: string, step: string): string[] {
  const s = scenarios[scenario]?.steps.find((x) => x.step === step);
  if (!s) throw new Error(`fixture has no step ${scenario}/${step}`);
  return s.writes;
}

interface Rpc {
  sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
  head(lake: string): Promise<Envelope<HeadAnswer>>;
  createCheckpoint(lake: string, options: { lifetimeMs?: number }): Promise<Envelope<CheckpointInfo>>;
}
const rpc = (lake: string): Rpc => stub(lake) as unknown as Rpc;
const workerEnv = env as unknown as Env;

function ok<T>(e: Envelope<T>): T {
  if (!e.ok) throw new Error(`expected success, got ${e.error.code}: ${e.error.message}`);
  return e.value;
}

/** Replays captured writes; `ownPrefix` swaps the capture's local data path for the lake's own R2 prefix. */
async function replay(
  tag: string,
  scenario: string,
  steps: string[],
  ownPrefix = false,
): Promise<{ lake: string; position: number }> {
  const lake = lakeName(tag);
  rigLake(lake);
  let position = 0;
  const own = lakeDataUrl(workerEnv.BUCKET_NAME, lake);
  for (const step of steps)
    for (const captured of writesOf(scenario, step)) {
      const sql = ownPrefix ? captured.replace(/'\/tmp\/qd-capture-[^']*\/data\/'/g, `'${own}'`) : captured;
      position = ok(await rpc(lake).sqlWrite(lake, { sql, mayCreateLake: step === "attach_new" })).position;
    }
  return { lake, position };
}

const count = (a: SqlWriteAnswer): bigint => a.result.rows[0]?.[0] as bigint;

async function snapshotIds(lake: string, position: number): Promise<number[]> {
  const view = await openLatest(realBucket(), lake, { after: position });
  return (await ducklakeTable(view, "ducklake_snapshot"))
    .map((r) => Number(r.snapshot_id))
    .sort((a, b) => a - b);
}

describe("nested literals in inlined rows", () => {
  it("parse into LIST, STRUCT and MAP values, nested in each other", () => {
    const [stmt] = splitStatements(
      `INSERT INTO "main".ducklake_inlined_data_1_1 VALUES (0, 3, NULL, [1, NULL, [2]], {'k': 'a', 'v': [CAST('2024-01-01' AS DATE)]}, MAP(['x', 'y'], [1, NULL]), [], MAP([], []))`,
    );
    const op = parseWrite(stmt as NonNullable<typeof stmt>);
    expect(op.op).toBe("insert");
    if (op.op !== "insert") return;
    expect(op.rows[0]?.slice(3)).toEqual([
      {
        k: "list",
        items: [{ k: "num", text: "1" }, { k: "null" }, { k: "list", items: [{ k: "num", text: "2" }] }],
      },
      {
        k: "struct",
        fields: [
          { name: "k", v: { k: "str", v: "a" } },
          { name: "v", v: { k: "list", items: [{ k: "str", v: "2024-01-01", cast: "DATE" }] } },
        ],
      },
      {
        k: "map",
        keys: [
          { k: "str", v: "x" },
          { k: "str", v: "y" },
        ],
        values: [{ k: "num", text: "1" }, { k: "null" }],
      },
      { k: "list", items: [] },
      { k: "map", keys: [], values: [] },
    ]);
  });

  it(`refuses nesting deeper than MAX_NESTED_DEPTH (${MAX_NESTED_DEPTH})`, () => {
    const deep = `${"[".repeat(MAX_NESTED_DEPTH + 1)}1${"]".repeat(MAX_NESTED_DEPTH + 1)}`;
    const [stmt] = splitStatements(
      `INSERT INTO "main".ducklake_inlined_data_1_1 VALUES (0, 3, NULL, ${deep})`,
    );
    expect(() => parseWrite(stmt as NonNullable<typeof stmt>)).toThrow(InvalidRequest);
  });

  it("refuses a MAP whose key and value lists differ in length", () => {
    const [stmt] = splitStatements(
      `INSERT INTO "main".ducklake_inlined_data_1_1 VALUES (0, 3, NULL, MAP(['x'], []))`,
    );
    expect(() => parseWrite(stmt as NonNullable<typeof stmt>)).toThrow(/not recognised/);
  });
});

describe("ducklake_flush_inlined_data", () => {
  const BEFORE = ["attach_new", "create_schema", "create_table", "insert_inlined"];

  it("the lone DELETE before the commit counts the rows and removes none", async () => {
    const { lake } = await replay("flush-lone", "flush", BEFORE);
    const lone = writesOf("flush", "flush")[0] as string;
    expect(
      parseWrite(splitStatements(lone)[0] as NonNullable<ReturnType<typeof splitStatements>[0]>).op,
    ).toBe("flush_inlined");
    const a = ok(await rpc(lake).sqlWrite(lake, { sql: lone, mayCreateLake: false }));
    expect(count(a)).toBe(2n);
    const view = await openLatest(realBucket(), lake, { after: a.position });
    const inlined = await inlinedTablesAt(view);
    expect(inlined.ducklake_inlined_data_2_2?.rows.length).toBe(2);
  });

  it("a flush batch whose file does not hold the flushed rows writes nothing", async () => {
    const { lake, position } = await replay("flush-bad", "flush", BEFORE);
    const batch = writesOf("flush", "flush")[1] as string;
    // The data file claims 3 rows; the flush removes 2.
    const tampered = batch.replace(
      /(INSERT INTO "main"\.ducklake_data_file VALUES \([^)]*?'parquet', )2,/,
      "$13,",
    );
    expect(tampered).not.toBe(batch);
    const r = await rpc(lake).sqlWrite(lake, { sql: tampered, mayCreateLake: false });
    expect(r.ok ? "ok" : r.error.code).toBe("InvalidRequest");
    expect(ok(await rpc(lake).head(lake)).position).toBe(position);
  });
});

describe("ducklake_flush_inlined_data raises the inlined-row floor", () => {
  it("after the flush batch the table's scans start past the flushed rows (decision 0182)", async () => {
    const { lake } = await replay("flush-floor", "flush", [
      "attach_new",
      "create_schema",
      "create_table",
      "insert_inlined",
    ]);
    let position = 0;
    for (const sql of writesOf("flush", "flush"))
      position = ok(await rpc(lake).sqlWrite(lake, { sql, mayCreateLake: false })).position;
    const view = await openLatest(realBucket(), lake, { after: position });
    // Table 2's two inlined rows (row ids 0 and 1) moved into the file: none is left, the floor is past them.
    expect((await inlinedTablesAt(view)).ducklake_inlined_data_2_2?.rows ?? []).toEqual([]);
    expect(await readInlineFloor(view, 2)).toBe(2);
  });
});

describe("ducklake_flush_inlined_data of inlined deletes of a Parquet file", () => {
  const BEFORE = [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_file",
    "delete_inlined",
    "delete_inlined_2",
  ];

  it("the lone DELETE of the inlined-delete table counts its rows and removes none", async () => {
    const { lake } = await replay("flushdel-lone", "flush_deletes", BEFORE);
    const lone = writesOf("flush_deletes", "flush")[0] as string;
    expect(lone).toMatch(/^DELETE FROM "main"\.ducklake_inlined_delete_\d+$/);
    const a = ok(await rpc(lake).sqlWrite(lake, { sql: lone, mayCreateLake: false }));
    expect(count(a)).toBe(4n);
    const view = await openLatest(realBucket(), lake, { after: a.position });
    const inlined = await inlinedTablesAt(view);
    expect(inlined.ducklake_inlined_delete_2?.rows.length).toBe(4);
  });

  it("a flush batch whose delete file does not hold exactly the inlined deletes writes nothing", async () => {
    const { lake, position } = await replay("flushdel-bad", "flush_deletes", BEFORE);
    const batch = writesOf("flush_deletes", "flush")[2] as string;
    for (const tampered of [
      // delete_count 3 instead of 4; partial_max 4 instead of 5; begin 5 instead of 4
      batch.replace(/'parquet', 4, /, "'parquet', 3, "),
      batch.replace(/, NULL, 5\);/, ", NULL, 4);"),
      batch.replace(/VALUES \(1, 2, 4, NULL,/, "VALUES (1, 2, 5, NULL,"),
    ]) {
      expect(tampered).not.toBe(batch);
      const r = await rpc(lake).sqlWrite(lake, { sql: tampered, mayCreateLake: false });
      expect(r.ok ? "ok" : r.error.code).toBe("InvalidRequest");
      expect(ok(await rpc(lake).head(lake)).position).toBe(position);
    }
  });
});

describe("ducklake_rewrite_data_files", () => {
  const BEFORE = [
    "attach_new",
    "create_schema",
    "create_table",
    "insert_file",
    "delete_file",
    "delete_file_2",
  ];

  it("the rewritten file shows row_id_start NULL and the input file ends at the rewrite", async () => {
    const { lake } = await replay("rewrite-ok", "rewrite", [...BEFORE, "rewrite"]);
    const head = ok(await rpc(lake).head(lake));
    const view = await openLatest(realBucket(), lake, { after: head.position });
    const files = await ducklakeTable(view, "ducklake_data_file");
    const live = files.filter((f) => f.end_snapshot === null);
    expect(live.map((f) => [Number(f.data_file_id), f.row_id_start])).toEqual([[3, null]]);
    expect(Number(files.find((f) => Number(f.data_file_id) === 0)?.end_snapshot)).toBe(6);
  });

  it("a rewrite batch that ends a delete file its inputs do not have, or leaves one live, writes nothing", async () => {
    const { lake, position } = await replay("rewrite-bad", "rewrite", BEFORE);
    const batch = writesOf("rewrite", "rewrite")[0] as string;
    for (const tampered of [
      batch.replace(/WHERE delete_file_id = 2;/, "WHERE delete_file_id = 1;"),
      batch.replace(
        /UPDATE "main"\.ducklake_delete_file SET end_snapshot = 6\s*WHERE delete_file_id = 2;/,
        "",
      ),
      batch.replace(
        /SET begin_snapshot = 6(\s*)WHERE data_file_id = 3;/,
        "SET begin_snapshot = 6$1WHERE data_file_id = 0;",
      ),
    ]) {
      expect(tampered).not.toBe(batch);
      const r = await rpc(lake).sqlWrite(lake, { sql: tampered, mayCreateLake: false });
      expect(r.ok ? "ok" : r.error.code).toBe("InvalidRequest");
      expect(ok(await rpc(lake).head(lake)).position).toBe(position);
    }
  });
});

describe("ducklake_expire_snapshots", () => {
  it("removes snapshots atomically, never the head, never one a live checkpoint pins", async () => {
    const { lake } = await replay("expire-pin", "core", [
      "attach_new",
      "create_schema",
      "create_table",
      "insert_inlined",
    ]);
    const pin = ok(await rpc(lake).createCheckpoint(lake, { lifetimeMs: 600_000 }));
    let position = 0;
    for (const sql of writesOf("core", "insert_file"))
      position = ok(await rpc(lake).sqlWrite(lake, { sql, mayCreateLake: false })).position;
    expect(await snapshotIds(lake, position)).toEqual([0, 1, 2, 3, 4]);

    const del = (ids: number[]): string =>
      `DELETE FROM "main".ducklake_snapshot WHERE snapshot_id IN (${ids.join(", ")});`;
    // Snapshot 3 was the head when the checkpoint was minted: the whole request is refused.
    const pinned = await rpc(lake).sqlWrite(lake, { sql: del([1, 3]), mayCreateLake: false });
    expect(pinned.ok ? "ok" : pinned.error.code).toBe("Constraint");
    expect(pinned.ok ? "" : pinned.error.message).toContain(pin.id);
    const head = await rpc(lake).sqlWrite(lake, { sql: del([4]), mayCreateLake: false });
    expect(head.ok ? "ok" : head.error.code).toBe("InvalidRequest");
    expect(ok(await rpc(lake).head(lake)).position).toBe(position);
    expect(await snapshotIds(lake, position)).toEqual([0, 1, 2, 3, 4]);

    const done = ok(await rpc(lake).sqlWrite(lake, { sql: del([1, 2]), mayCreateLake: false }));
    expect(count(done)).toBe(2n);
    expect(await snapshotIds(lake, done.position)).toEqual([0, 3, 4]);
    const changes = ok(
      await rpc(lake).sqlWrite(lake, {
        sql: 'DELETE FROM "main".ducklake_snapshot_changes WHERE snapshot_id IN (1, 2);',
        mayCreateLake: false,
      }),
    );
    expect(count(changes)).toBe(0n);
    const view = await openLatest(realBucket(), lake, { after: changes.position });
    expect(
      (await ducklakeTable(view, "ducklake_snapshot_changes")).map((r) => Number(r.snapshot_id)),
    ).toEqual([0, 3, 4]);

    // The versions => [...] read lists the named snapshots except the newest.
    const [stmt] = splitStatements(
      'SELECT snapshot_id, snapshot_time, schema_version, next_file_id, changes_made, author, commit_message, commit_extra_info FROM "main".ducklake_snapshot LEFT JOIN "main".ducklake_snapshot_changes USING (snapshot_id) WHERE snapshot_id != (SELECT MAX(snapshot_id) FROM "main".ducklake_snapshot) AND snapshot_id IN (0, 2, 4) ORDER BY snapshot_id',
    );
    const listed = await answerRead({ view, memo: new Map() }, stmt as NonNullable<typeof stmt>);
    expect(listed.rows.map((r) => r[0])).toEqual([0n]);
  });
});

describe("expiry of dropped tables and unseen files", () => {
  it("refuses to remove a live table's rows, its inlined tables or a file a snapshot still sees", async () => {
    const { lake, position } = await replay("expire-live", "core", [
      "attach_new",
      "create_schema",
      "create_table",
      "insert_inlined",
      "insert_file",
    ]);
    const view = await openLatest(realBucket(), lake, { after: position });
    const file = (await ducklakeTable(view, "ducklake_data_file"))[0];
    const t = Number(file?.table_id);
    const inlinedName = (await ducklakeTable(view, "ducklake_inlined_data_tables")).find(
      (r) => Number(r.table_id) === t,
    )?.table_name;
    expect(inlinedName).toBeDefined();
    for (const sql of [
      `DELETE FROM "main".ducklake_column WHERE table_id IN (${t});`,
      `DELETE FROM "main".ducklake_table WHERE table_id IN (${t});`,
      `DROP TABLE IF EXISTS "main".${String(inlinedName)};`,
      `DELETE FROM "main".ducklake_data_file WHERE data_file_id IN (${Number(file?.data_file_id)});`,
      `INSERT INTO "main".ducklake_files_scheduled_for_deletion VALUES (${Number(file?.data_file_id)}, 'x.parquet', true, NOW());`,
    ]) {
      const r = await rpc(lake).sqlWrite(lake, { sql, mayCreateLake: false });
      expect(r.ok ? "ok" : r.error.code, sql).toBe("InvalidRequest");
    }
    expect(ok(await rpc(lake).head(lake)).position).toBe(position);
  });
});

const ORPHAN_SQL = (d: string, e: string): string =>
  `SELECT REPLACE( CASE WHEN NOT file_relative THEN file_path ELSE CASE WHEN NOT table_relative THEN table_path || file_path ELSE CASE WHEN NOT schema_relative THEN schema_path || table_path || file_path ELSE '${d}' || schema_path || table_path || file_path END END END, '/', '/' ) AS full_path FROM (SELECT s.path AS schema_path, t.path AS table_path, file_path, s.path_is_relative AS schema_relative, t.path_is_relative AS table_relative, file_relative FROM ( SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_data_file f UNION ALL SELECT f.path AS file_path, f.path_is_relative AS file_relative, table_id FROM "main".ducklake_delete_file f ) AS f JOIN "main".ducklake_table t ON f.table_id = t.table_id JOIN "main".ducklake_schema s ON t.schema_id = s.schema_id) AS r UNION ALL SELECT REPLACE( CASE WHEN NOT f.path_is_relative THEN f.path ELSE '${e}' || f.path END , '/', '/' ) AS full_path FROM "main".ducklake_files_scheduled_for_deletion f`;
/** The capture's steps up to a merge: files registered, one replaced and scheduled for deletion. */
const MAINTENANCE_STEPS = "attach_new create_schema create_table insert_file insert_file_2 merge".split(" ");
/** Job 5's default grace (`delete_older_than` unset), which the listing's protection uses too. */
const DAY_MS = 24 * 3600_000;

describe("the orphan listing (decision 0630)", () => {
  it("names every catalog file and every scheduled one, as stock; an external lake's listing is stock's alone", async () => {
    const { lake, position } = await replay("orphans-external", "maintenance", MAINTENANCE_STEPS);
    // An object under the lake's R2 prefix: the lake's data path is a local directory (external), so R2
    // is not its data and the listing is stock's, whatever R2 holds.
    await realBucket().put(dataObjectKey(lake, "main/t/stray.parquet"), new Uint8Array(16));
    const view = await openLatest(realBucket(), lake, { after: position });
    const [stmt] = splitStatements(ORPHAN_SQL("/d/", "/e/"));
    const got = await answerRead(
      { view, memo: new Map(), dataObjects: () => listDataObjects(workerEnv, lake, view, Date.now()) },
      stmt as NonNullable<typeof stmt>,
    );
    expect(got.columns.map((c) => c.name)).toEqual(["full_path"]);
    const files = await ducklakeTable(view, "ducklake_data_file");
    const scheduled = await ducklakeTable(view, "ducklake_files_scheduled_for_deletion");
    expect(scheduled.length).toBeGreaterThan(0);
    expect(got.rows.length).toBe(files.length + scheduled.length);
    const paths = got.rows.map((r) => r[0] as string);
    for (const f of files)
      expect(paths.some((p) => p.startsWith("/d/") && p.endsWith(String(f.path)))).toBe(true);
    for (const f of scheduled) expect(paths).toContain(`/e/${String(f.path)}`);
    expect(paths.some((p) => p.includes("stray"))).toBe(false);
  });

  it("on the lake's own prefix names an upload within the grace (in flight) and offers it once the grace is past", async () => {
    const { lake, position } = await replay("orphans-own", "maintenance", MAINTENANCE_STEPS, true);
    const own = lakeDataUrl(workerEnv.BUCKET_NAME, lake);
    // The upload of a commit still in flight: under the data prefix, named by no catalog row yet.
    await realBucket().put(dataObjectKey(lake, "main/t/in-flight.parquet"), new Uint8Array(16));
    const view = await openLatest(realBucket(), lake, { after: position });
    const [stmt] = splitStatements(ORPHAN_SQL(own, own));
    const listing = async (nowMs: number): Promise<string[]> =>
      (
        await answerRead(
          { view, memo: new Map(), dataObjects: () => listDataObjects(workerEnv, lake, view, nowMs) },
          stmt as NonNullable<typeof stmt>,
        )
      ).rows.map((r) => r[0] as string);
    const files = await ducklakeTable(view, "ducklake_data_file");
    const scheduled = await ducklakeTable(view, "ducklake_files_scheduled_for_deletion");
    const catalogRows = files.length + scheduled.length;
    const head = await realBucket().head(dataObjectKey(lake, "main/t/in-flight.parquet"));
    const uploaded = head?.uploaded.getTime() ?? Number.NaN;

    // Within the grace: named, so the client keeps it whatever older_than or cleanup_all it was given.
    const young = await listing(uploaded + DAY_MS - 1);
    expect(young).toContain(`${own}main/t/in-flight.parquet`);
    expect(young.length).toBe(catalogRows + 1);
    // Past the grace (job 5's too): a true orphan, left out like stock, so the client deletes it.
    const old = await listing(uploaded + DAY_MS);
    expect(old).not.toContain(`${own}main/t/in-flight.parquet`);
    expect(old.length).toBe(catalogRows);

    // Without a listing of the prefix no one can tell uploads in flight: refused, never answered short.
    const refused = answerRead({ view, memo: new Map() }, stmt as NonNullable<typeof stmt>);
    await expect(refused).rejects.toBeInstanceOf(Unsupported);
    await expect(refused).rejects.toThrow(ORPHAN_LISTING_UNPROTECTED);
  });
});

describe("maintenance listings", () => {
  it("the rewrite reads per-file stats", async () => {
    const { lake, position } = await replay("listings", "maintenance", MAINTENANCE_STEPS);
    const view = await openLatest(realBucket(), lake, { after: position });
    const files = await ducklakeTable(view, "ducklake_data_file");
    const tableId = Number(files[0]?.table_id);
    const [stats] = splitStatements(
      `SELECT data.data_file_id, data.record_count, data.file_size_bytes, stats.column_id, stats.value_count, stats.null_count, stats.min_value, stats.max_value, stats.contains_nan, stats.extra_stats FROM "main".ducklake_data_file data LEFT JOIN "main".ducklake_file_column_stats stats ON stats.data_file_id = data.data_file_id WHERE data.table_id = ${tableId} AND 99 >= data.begin_snapshot AND (99 < data.end_snapshot OR data.end_snapshot IS NULL) ORDER BY data.data_file_id`,
    );
    const per = await answerRead({ view, memo: new Map() }, stats as NonNullable<typeof stats>);
    const fileStats = await ducklakeTable(view, "ducklake_file_column_stats");
    expect(per.rows.length).toBe(fileStats.length);
    expect(per.rows.map((r) => r[0])).toEqual(fileStats.map((s) => BigInt(Number(s.data_file_id))).sort());
  });
});
