/**
 * The writer's own Parquet readers bind columns by field id, which a file of `ducklake_add_data_files`
 * lacks (it carries a name map instead): its compaction leaves such a file out of its candidates, and the
 * rows API refuses to read it, naming it (docs/decisions/0600-staged-name-maps.md). A lake on the writer's
 * own prefix holds one plain file (registered by the verbs) and one mapped file (registered by a
 * client-side DuckLake batch with its `ducklake_column_mapping` rows), both DuckDB's orders-1.parquet in
 * real miniflare R2.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ducklakeTable, type Row } from "../../catalog/index.ts";
import { tableCandidates } from "../../catalog/maintenance/compaction-files.ts";
import type { SqlWriteAnswer, SqlWriteRequest } from "../../catalog/sql/writes/contract.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import { openLatest } from "../../storage/index.ts";
import { realBucket, stub } from "../durable-objects/support.ts";
import { call, expectError } from "../support/http.ts";

const LAKE = "mapped-files";
const BUCKET = env.BUCKET_NAME ?? "ducklake-edge";
const DATA = `r2://${BUCKET}/lakes/${LAKE}/data/`;
const ORDERS = Uint8Array.from(atob(env.TEST_ORDERS_PARQUET_B64 ?? ""), (ch) => ch.charCodeAt(0));
const COLUMNS = [
  { name: "id", type: "int32" },
  { name: "amount", type: "decimal(4,2)" },
  { name: "region", type: "varchar" },
];

function sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>> {
  const s = stub(lake) as unknown as {
    sqlWrite(lake: string, req: SqlWriteRequest): Promise<Envelope<SqlWriteAnswer>>;
  };
  return s.sqlWrite(lake, req);
}

async function rows(table: string): Promise<Row[]> {
  return (await ducklakeTable(await openLatest(realBucket(), LAKE), table)) as Row[];
}

let tableId = 0;
let mappedFileId = 0;
let plainFileId = 0;

describe("a file read through a name map (ducklake_add_data_files) and the writer's own readers", () => {
  beforeAll(async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    const created = await call(`/v1/lakes/${LAKE}/commits`, {
      method: "POST",
      body: { verbs: [{ op: "create_table", name: "t", columns: COLUMNS }] },
    });
    expect(created.status).toBe(200);
    await env.BUCKET.put(`lakes/${LAKE}/data/main/t/plain.parquet`, ORDERS);
    await env.BUCKET.put(`lakes/${LAKE}/data/main/t/added.parquet`, ORDERS);
    const plain = await call(`/v1/lakes/${LAKE}/commits`, {
      method: "POST",
      body: {
        verbs: [
          {
            op: "register_data_file",
            table: { name: "t" },
            file: { path: "plain.parquet", recordCount: 3, fileSizeBytes: ORDERS.length },
          },
        ],
      },
    });
    expect(plain.status, await plain.clone().text()).toBe(200);
    // The client-side batch DuckLake sends for ducklake_add_data_files of a file whose columns it maps by
    // name: the map takes its id from next_file_id ahead of the file (decision 0600).
    const [head] = (await rows("ducklake_snapshot")).sort(
      (a, b) => Number(b.snapshot_id) - Number(a.snapshot_id),
    );
    const [table] = await rows("ducklake_table");
    const [stats] = await rows("ducklake_table_stats");
    const [plainFile] = await rows("ducklake_data_file");
    if (!head || !table || !stats || !plainFile) throw new Error("the lake is not set up");
    tableId = Number(table.table_id);
    plainFileId = Number(plainFile.data_file_id);
    const s = Number(head.snapshot_id) + 1;
    const map = Number(head.next_file_id);
    mappedFileId = map + 1;
    const count = Number(stats.record_count) + 3;
    const columns = (await rows("ducklake_column")).filter((c) => Number(c.table_id) === tableId);
    const names = columns
      .map((c) => `(${map}, ${Number(c.column_id) - 1}, '${c.column_name}', ${c.column_id}, NULL, false)`)
      .join(", ");
    const batch = [
      `INSERT INTO "main".ducklake_snapshot VALUES (${s}, NOW(), ${head.schema_version}, ${head.next_catalog_id}, ${map + 2})`,
      `UPDATE "main".ducklake_table_stats SET record_count=${count}, file_size_bytes=${Number(stats.file_size_bytes) + ORDERS.length}, next_row_id=${Number(stats.next_row_id) + 3} WHERE table_id=${tableId}`,
      `INSERT INTO "main".ducklake_column_mapping VALUES (${map}, ${tableId}, 'map_by_name')`,
      `INSERT INTO "main".ducklake_name_mapping VALUES ${names}`,
      `INSERT INTO "main".ducklake_data_file VALUES (${mappedFileId}, ${tableId}, ${s}, NULL, NULL, 'added.parquet', true, 'parquet', 3, ${ORDERS.length}, NULL, ${stats.next_row_id}, NULL, NULL, ${map}, NULL)`,
      `INSERT INTO "main".ducklake_snapshot_changes VALUES (${s}, 'inserted_into_table:${tableId}', NULL, NULL, NULL)`,
    ].join(";");
    const r = await sqlWrite(LAKE, { sql: `${batch};`, mayCreateLake: false });
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    const files = await rows("ducklake_data_file");
    expect(files.map((f) => [f.path, f.mapping_id])).toEqual([
      ["plain.parquet", null],
      ["added.parquet", map],
    ]);
  });

  it("the writer's compaction leaves the mapped file out of its candidates, and keeps the plain one", async () => {
    const view = await openLatest(realBucket(), LAKE);
    const { candidates } = await tableCandidates(view, tableId, DATA);
    expect(candidates.map((c) => c.file.data_file_id)).toEqual([plainFileId]);
  });

  it("the rows API refuses to read the mapped file, naming it", async () => {
    const res = await call(`/v1/lakes/${LAKE}/tables/main/t/rows`);
    const body = await expectError(res, 422, "Unsupported");
    expect(body.error.message).toContain(`data file ${mappedFileId} of table ${tableId}`);
    expect(body.error.message).toContain("name map");
  });
});
