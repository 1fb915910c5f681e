/** The scan-plan route prunes with the catalog's type-aware comparison (catalog/reads/prune.ts). */
import { beforeAll, describe, expect, it } from "vitest";
import { writeParquet } from "../../parquet/index.ts";
import { call, expectError } from "../support/http.ts";

const LAKE = "prune-route";

interface Plan {
  files: { path: string }[];
  files_pruned: number;
}

async function commit(verbs: unknown[]): Promise<void> {
  const res = await call(`/v1/lakes/${LAKE}/commits`, { method: "POST", body: { verbs } });
  if (res.status !== 200) throw new Error(`commit failed: ${res.status} ${await res.text()}`);
}

async function register(name: string, stats: { column: string; min: string; max: string }[]): Promise<void> {
  // A real Parquet file of the table's columns (its footer is checked at registration: decision 0652); the
  // stats the verb states are what pruning reads, not the file's own.
  const bytes = writeParquet(
    [
      { name: "code", type: { kind: "string" }, nullable: true },
      { name: "big", type: { kind: "int", bits: 64, signed: true }, nullable: true },
    ],
    [{ code: "10", big: 0n }],
  ).bytes;
  const put = await call(`/v1/lakes/${LAKE}/data/main/t/${name}`, {
    method: "PUT",
    rawBody: bytes,
    headers: { "content-length": String(bytes.length) },
  });
  expect(put.status).toBe(201);
  await commit([
    {
      op: "register_data_file",
      table: { name: "t" },
      file: { path: name, recordCount: 1, fileSizeBytes: bytes.length, columnStats: stats },
    },
  ]);
}

async function plan(filter: string): Promise<Plan> {
  const res = await call(`/v1/lakes/${LAKE}/tables/main/t/plan?filter=${encodeURIComponent(filter)}`);
  if (res.status !== 200) throw new Error(`plan failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Plan;
}

describe("scan-plan pruning over HTTP", () => {
  beforeAll(async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    await commit([
      {
        op: "create_table",
        name: "t",
        columns: [
          { name: "code", type: "varchar" },
          { name: "big", type: "int64" },
        ],
      },
    ]);
    await register("a.parquet", [
      { column: "code", min: "10", max: "9" },
      { column: "big", min: "0", max: "9007199254740993" },
    ]);
  });

  it("varchar stats '10'..'9' with code:eq:5 keep the file (text order)", async () => {
    const p = await plan("code:eq:5");
    expect(p.files.map((f) => f.path)).toEqual(["a.parquet"]);
    expect(p.files_pruned).toBe(0);
    expect((await plan("code:eq:95")).files_pruned).toBe(1);
  });

  it("big:gt:9007199254740992 keeps a file whose max is 9007199254740993 (exact integers)", async () => {
    const p = await plan("big:gt:9007199254740992");
    expect(p.files_pruned).toBe(0);
    expect((await plan("big:gt:9007199254740993")).files_pruned).toBe(1);
  });

  it("filter column names fold like catalog names: CODE:eq:5 works", async () => {
    expect((await plan("CODE:eq:5")).files_pruned).toBe(0);
    expect((await plan("Big:lt:0")).files_pruned).toBe(1);
  });

  it("malformed filters, unknown columns and values not of the column type are 400s", async () => {
    for (const bad of ["code", "code:like:5", "nope:eq:1", "big:eq:abc"]) {
      await expectError(
        await call(`/v1/lakes/${LAKE}/tables/main/t/plan?filter=${encodeURIComponent(bad)}`),
        400,
        "InvalidRequest",
      );
    }
  });
});
