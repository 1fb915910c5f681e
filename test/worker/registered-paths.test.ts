/**
 * Issue 10 item 1 over HTTP: with a lake-a write token, a commit can register only files that lie inside
 * lake-a's data path and exist there with the stated size (catalog/file-paths.ts, worker/file-checks.ts).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, TOKENS } from "../support/http.ts";

// TOKENS.writeSales may write lake "sales" only: it plays lake-a.
const A = "sales";
const B = "lake-b";
const BUCKET = env.BUCKET_NAME ?? "ducklake-edge";
// A real Parquet file (DuckDB's orders-1.parquet) whose columns fit table t: registration reads its footer.
const MINE = Uint8Array.from(atob(env.TEST_ORDERS_PARQUET_B64 ?? ""), (ch) => ch.charCodeAt(0));
const COLUMNS = [
  { name: "id", type: "int32" },
  { name: "amount", type: "decimal(4,2)" },
  { name: "region", type: "varchar" },
];

async function snapshots(lake: string): Promise<number> {
  const res = await call(`/v1/lakes/${lake}/snapshots`);
  return ((await res.json()) as { snapshots: unknown[] }).snapshots.length;
}

function register(file: Record<string, unknown>, op = "register_data_file") {
  const extra = op === "register_delete_file" ? { dataFileId: 0 } : {};
  return call(`/v1/lakes/${A}/commits`, {
    method: "POST",
    token: TOKENS.writeSales,
    body: { verbs: [{ op, table: { name: "t" }, ...extra, file }] },
  });
}

describe("registered file paths", () => {
  beforeAll(async () => {
    for (const lake of [A, B]) expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    for (const lake of [A, B]) {
      const res = await call(`/v1/lakes/${lake}/commits`, {
        method: "POST",
        body: { verbs: [{ op: "create_table", name: "t", columns: COLUMNS }] },
      });
      expect(res.status).toBe(200);
    }
    await env.BUCKET.put(`lakes/${B}/data/main/t/secret.parquet`, new Uint8Array(10));
    await env.BUCKET.put(`lakes/${A}/data/main/t/mine.parquet`, MINE);
  });

  it.each([
    ["another lake's object", `r2://${BUCKET}/lakes/${B}/data/main/t/secret.parquet`],
    ["a missing object inside the lake's prefix", `r2://${BUCKET}/lakes/${A}/data/main/t/nothere.parquet`],
    ["another bucket", "r2://other-bucket/x.parquet"],
    ["an s3:// URL", "s3://nobody/zz.parquet"],
    ["a local path", "/etc/passwd"],
    ["a file:// URL", "file:///etc/passwd"],
  ])("%s is refused (400) and commits nothing", async (_what, path) => {
    const before = await snapshots(A);
    const res = await register({ path, pathIsRelative: false, recordCount: 3, fileSizeBytes: MINE.length });
    const body = await expectError(res, 400, "InvalidRequest");
    expect(body.error.message).toMatch(/data path|does not exist/);
    expect(await snapshots(A)).toBe(before);
  });

  it("a relative path climbing out of the table's directory is refused", async () => {
    const res = await register({
      path: "../../../lake-b/data/main/t/secret.parquet",
      recordCount: 1,
      fileSizeBytes: 10,
    });
    await expectError(res, 400, "InvalidRequest");
  });

  it("a delete file outside the data path is refused too", async () => {
    expect(
      (await register({ path: "mine.parquet", recordCount: 3, fileSizeBytes: MINE.length })).status,
    ).toBe(200);
    const res = await register(
      {
        path: `r2://${BUCKET}/lakes/${B}/data/main/t/secret.parquet`,
        pathIsRelative: false,
        deleteCount: 1,
        fileSizeBytes: 10,
      },
      "register_delete_file",
    );
    await expectError(res, 400, "InvalidRequest");
  });

  it("an uploaded object inside the lake, named absolutely, is accepted and planned where it lies", async () => {
    const path = `r2://${BUCKET}/lakes/${A}/data/main/t/mine.parquet`;
    const res = await register({ path, pathIsRelative: false, recordCount: 3, fileSizeBytes: MINE.length });
    expect(res.status).toBe(200);
    const plan = (await (
      await call(`/v1/lakes/${A}/tables/main/t/plan`, { token: TOKENS.readSales })
    ).json()) as {
      files: { resolved_path: string }[];
    };
    expect(plan.files.map((f) => f.resolved_path)).toContain(path);
    for (const f of plan.files)
      expect(f.resolved_path.startsWith(`r2://${BUCKET}/lakes/${A}/data/`)).toBe(true);
  });

  it("a file of a table created in the same commit under a uuid-path name is refused (it cannot have been uploaded)", async () => {
    const res = await call(`/v1/lakes/${A}/commits`, {
      method: "POST",
      token: TOKENS.writeSales,
      body: {
        verbs: [
          { op: "create_table", name: "odd name", columns: [{ name: "id", type: "int64" }] },
          {
            op: "register_data_file",
            table: { name: "odd name" },
            file: { path: "x.parquet", recordCount: 1, fileSizeBytes: 1 },
          },
        ],
      },
    });
    const body = await expectError(res, 400, "InvalidRequest");
    expect(body.error.message).toContain("not known before the commit");
  });
});
