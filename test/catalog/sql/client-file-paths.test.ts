/**
 * Decision 0105's rule (with 0601's exception for lakes the writer cannot reach) on DuckLake's client-side
 * commit batches (`QUACK_SERVER_COMMIT` off: catalog/sql/writes/translate.ts): every data file, delete file
 * and deletion schedule a batch names goes through the verbs' own check (`checkFilePath`,
 * `checkScheduledPath` in catalog/verbs/ops/files.ts). Stock DuckDB 1.5.5's captured batches
 * (test/fixtures/quack/writes/) are replayed through the real lake writer over miniflare R2, on a lake whose
 * data path is the writer's own prefix and on one whose data path is DuckDB's local directory, with the
 * path of one row changed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ducklakeTable, lakeDataUrl, type Row } from "../../../catalog/index.ts";
import type { SqlWriteAnswer, SqlWriteRequest } from "../../../catalog/sql/writes/contract.ts";
import type { Envelope } from "../../../durable-objects/envelope.ts";
import type { StoredJobRun } from "../../../maintenance/history.ts";
import { openLatest } from "../../../storage/index.ts";
import { dataObjectKey } from "../../../storage/keys.ts";
import { createTable, lakeName, realBucket, rigLake, stub, unwrap } from "../../durable-objects/support.ts";
import fixture from "../../support/quack-writes.ts";

interface Scenario {
  dataPath: string;
  steps: { step: string; writes: string[] }[];
}
const scenarios = (fixture as unknown as { scenarios: Record<string, Scenario> }).scenarios;

function sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>> {
  const s = stub(lake) as unknown as {
    sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
  };
  return s.sqlWrite(lake, req);
}

const BUCKET = env.BUCKET_NAME ?? "ducklake-edge";

/**
 * Replays scenario `name` up to and including step `until` on a fresh lake, the captured data path
 * replaced by `dataPath` (own: the writer's prefix for this lake), every step before `until` as captured,
 * `until` with `change` applied. Answers its first refusal (or null) and whether the lake's position moved.
 */
async function replay(
  name: string,
  until: string,
  dataPath: "own" | "captured",
  change: (sql: string) => string,
): Promise<{ lake: string; error: { code: string; message: string } | null; moved: boolean }> {
  const sc = scenarios[name];
  if (!sc) throw new Error(`no scenario ${name}`);
  const end = sc.steps.findIndex((s) => s.step === until);
  if (end < 0) throw new Error(`no step ${until} in ${name}`);
  const lake = lakeName(`cfp-${name}`);
  rigLake(lake);
  const data = dataPath === "own" ? lakeDataUrl(BUCKET, lake) : sc.dataPath;
  const swap = (sql: string) => sql.replaceAll(sc.dataPath, data);
  let position = 0;
  for (const [k, { step, writes }] of sc.steps.slice(0, end + 1).entries()) {
    const last = k === end;
    for (const sql of writes.map((s) => (last ? change(swap(s)) : swap(s)))) {
      const r = await sqlWrite(lake, { sql, mayCreateLake: step === "attach_new" });
      if (!r.ok) {
        if (!last) throw new Error(`${name}/${step}: ${r.error.code}: ${r.error.message}`);
        const after = unwrap(await stub(lake).head(lake)).position;
        return { lake, error: r.error, moved: after !== position };
      }
      position = r.value.position;
    }
  }
  return { lake, error: null, moved: true };
}

/** Core's first data file, as DuckDB names it (relative to the table's directory). */
const FIRST_FILE = /'ducklake-[0-9a-f-]+\.parquet', true/;

describe("client-side batches register files by decision 0105 (and 0601)", () => {
  it("a data file of the batch, as captured, registers on a lake of the writer's own prefix", async () => {
    const { error } = await replay("core", "insert_file", "own", (s) => s);
    expect(error).toBeNull();
  });

  it.each([
    ["a relative path climbing out of the lake", "'../../../../other-lake/data/s/t/x.parquet', true"],
    ["another lake's object", `'r2://${BUCKET}/lakes/other-lake/data/s/t/x.parquet', false`],
    ["a local path", "'/etc/passwd', false"],
  ])("on a lake of the writer's own prefix, %s is refused and nothing lands", async (_what, cell) => {
    const { error, moved } = await replay("core", "insert_file", "own", (s) => s.replace(FIRST_FILE, cell));
    expect(error?.code).toBe("InvalidRequest");
    expect(error?.message).toMatch(
      /the data file ".*" cannot be registered: (.*data path|its relative path is not plain)/,
    );
    expect(moved).toBe(false);
  });

  it("a delete file outside the data path is refused the same way", async () => {
    const { error: asCaptured } = await replay("core", "delete_file", "own", (s) => s);
    expect(asCaptured).toBeNull();
    const { error, moved } = await replay("core", "delete_file", "own", (s) =>
      s.replace(
        /'ducklake-[0-9a-f-]+-delete\.parquet', true/,
        `'r2://${BUCKET}/lakes/other-lake/data/d.parquet', false`,
      ),
    );
    expect(error?.code).toBe("InvalidRequest");
    expect(error?.message).toMatch(/the delete file ".*" cannot be registered: .*data path/);
    expect(moved).toBe(false);
  });

  it("a deletion schedule naming a path outside the data path is refused (the delete job removes what it names)", async () => {
    const { error: asCaptured } = await replay("cleanup", "merge", "own", (s) => s);
    expect(asCaptured).toBeNull();
    const { error, moved } = await replay("cleanup", "merge", "own", (s) =>
      s.replace(/'s\/t\/ducklake-[0-9a-f-]+\.parquet', true/, "'../../other-lake/data/s/t/x.parquet', true"),
    );
    expect(error?.code).toBe("InvalidRequest");
    expect(error?.message).toMatch(
      /the file ".*" cannot be scheduled for deletion: its relative path is not plain: it has the dot segment '..'/,
    );
    expect(moved).toBe(false);
  });

  it("on a lake whose data path the writer cannot reach (0502), an absolute path registers where it points (0601)", async () => {
    const { lake, error } = await replay("core", "insert_file", "captured", (s) =>
      s.replace(FIRST_FILE, "'/tmp/elsewhere/added.parquet', false"),
    );
    expect(error).toBeNull();
    const files = (await ducklakeTable(await openLatest(realBucket(), lake), "ducklake_data_file")) as {
      path: string;
      path_is_relative: boolean;
    }[];
    expect(files.map((f) => [f.path, f.path_is_relative])).toEqual([["/tmp/elsewhere/added.parquet", false]]);
  });

  it("while a relative path leaving the table's directory is refused there too", async () => {
    const { error } = await replay("core", "insert_file", "captured", (s) =>
      s.replace(FIRST_FILE, "'../../../x.parquet', true"),
    );
    expect(error?.code).toBe("InvalidRequest");
    expect(error?.message).toMatch(/cannot be registered/);
  });
});

describe("client-side batches and maintenance's fence (decision 0329)", () => {
  it("a batch re-registering a path expiry scheduled for deletion is refused, as the verbs refuse it", async () => {
    const lake = lakeName("cfp-fence");
    let clock = 1_800_000_000_000;
    rigLake(lake, { now: () => clock });
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(
      await s.commit(lake, [
        { op: "set_option", name: "expire_older_than", value: "1 second" },
        { op: "set_option", name: "maintenance_expire_snapshots", value: "false" },
        { op: "set_option", name: "maintenance_delete_files", value: "false" },
      ]),
    );
    unwrap(await s.commit(lake, createTable("t")));
    await realBucket().put(dataObjectKey(lake, "main/t/a.parquet"), new Uint8Array(101));
    const file = { path: "a.parquet", recordCount: 1, fileSizeBytes: 101 };
    unwrap(await s.commit(lake, [{ op: "register_data_file", table: { name: "t" }, file }]));
    unwrap(await s.commit(lake, [{ op: "expire_data_file", table: { name: "t" }, dataFileId: 0 }]));
    clock += 5_000;
    // Expiry schedules main/t/a.parquet and fences it in the same batch.
    const runs = unwrap(await s.runMaintenance(lake, { jobs: ["expire_snapshots" as StoredJobRun["job"]] }));
    expect(runs).toMatchObject([{ filesOut: 1, error: null }]);
    const view = await openLatest(realBucket(), lake);
    const at = async (t: string): Promise<Row[]> => (await ducklakeTable(view, t)) as Row[];
    const [head] = (await at("ducklake_snapshot")).sort(
      (a, b) => Number(b.snapshot_id) - Number(a.snapshot_id),
    );
    const [table] = await at("ducklake_table");
    const [stats] = await at("ducklake_table_stats");
    if (!head || !table || !stats) throw new Error("the lake is not set up");
    const S = Number(head.snapshot_id) + 1;
    const id = Number(head.next_file_id);
    const t = Number(table.table_id);
    const batch = [
      `INSERT INTO "main".ducklake_snapshot VALUES (${S}, NOW(), ${head.schema_version}, ${head.next_catalog_id}, ${id + 1})`,
      `UPDATE "main".ducklake_table_stats SET record_count=${Number(stats.record_count) + 1}, file_size_bytes=${Number(stats.file_size_bytes) + 101}, next_row_id=${Number(stats.next_row_id) + 1} WHERE table_id=${t}`,
      `INSERT INTO "main".ducklake_data_file VALUES (${id}, ${t}, ${S}, NULL, NULL, 'a.parquet', true, 'parquet', 1, 101, NULL, ${stats.next_row_id}, NULL, NULL, NULL, NULL)`,
      `INSERT INTO "main".ducklake_snapshot_changes VALUES (${S}, 'inserted_into_table:${t}', NULL, NULL, NULL)`,
    ].join(";");
    const r = await sqlWrite(lake, { sql: `${batch};`, mayCreateLake: false });
    expect(r.ok ? "ok" : r.error.message).toMatch(
      /scheduled for deletion by maintenance and cannot be registered again/,
    );
  });
});
