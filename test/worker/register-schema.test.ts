/**
 * Issue 30 item 3: a data file registered into a table must fit the table's columns by DuckLake's own
 * `ducklake_add_data_files` rules (catalog/file-schema.ts); the Worker reads the footer with ranged GETs
 * and refuses naming the column and both types. Uses DuckDB's orders-1.parquet (id INTEGER,
 * amount DECIMAL(4,2), region VARCHAR).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { checkFileColumns } from "../../catalog/index.ts";
import { call, expectError } from "../support/http.ts";

const LAKE = "reg-schema";
const parquet = Uint8Array.from(atob(env.TEST_ORDERS_PARQUET_B64 ?? ""), (ch) => ch.charCodeAt(0));
const stats = JSON.parse(env.TEST_ORDERS_STATS ?? "{}") as { recordCount: number; footerSize: number };

async function table(name: string, columns: { name: string; type: string }[]): Promise<void> {
  const res = await call(`/v1/lakes/${LAKE}/commits`, {
    method: "POST",
    body: { verbs: [{ op: "create_table", name, columns }] },
  });
  expect(res.status, await res.text()).toBe(200);
  const up = await call(`/v1/lakes/${LAKE}/data/main/${name}/f.parquet`, {
    method: "PUT",
    rawBody: parquet,
    headers: { "content-length": String(parquet.length) },
  });
  expect(up.status).toBe(201);
}

/** Registers the table's `f.parquet` (or `path`, absolute when it has a scheme), with `others` in the same commit. */
function register(
  name: string,
  opts: { others?: unknown[]; path?: string; size?: number } = {},
): Promise<Response> {
  const absolute = opts.path?.includes("://") === true;
  return call(`/v1/lakes/${LAKE}/commits`, {
    method: "POST",
    body: {
      verbs: [
        ...(opts.others ?? []),
        {
          op: "register_data_file",
          table: { name },
          file: {
            path: opts.path ?? "f.parquet",
            ...(absolute ? { pathIsRelative: false } : {}),
            recordCount: stats.recordCount,
            fileSizeBytes: opts.size ?? parquet.length,
            footerSize: stats.footerSize,
          },
        },
      ],
    },
  });
}

const ORDERS = [
  { name: "id", type: "int32" },
  { name: "amount", type: "decimal(4,2)" },
  { name: "region", type: "varchar" },
];

describe("a registered data file must fit its table", () => {
  beforeAll(async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
  });

  it("accepts a file whose columns fit, wider integers and decimals included", async () => {
    await table("fits", ORDERS);
    expect((await register("fits")).status).toBe(200);
    await table("wider", [
      { name: "ID", type: "int64" },
      { name: "amount", type: "decimal(18,3)" },
      { name: "region", type: "varchar" },
    ]);
    expect((await register("wider")).status).toBe(200);
  });

  it("refuses a narrower or different type, naming the column and both types; nothing is committed", async () => {
    await table("narrow", [
      { name: "id", type: "int32" },
      { name: "amount", type: "decimal(3,2)" },
      { name: "region", type: "varchar" },
    ]);
    const before = ((await (await call(`/v1/lakes/${LAKE}/snapshots`)).json()) as { snapshots: unknown[] })
      .snapshots.length;
    const e = await expectError(await register("narrow"), 400, "InvalidRequest");
    expect(e.error.message).toContain(
      'column "amount" is DECIMAL(3,2) in the table and DECIMAL(4,2) in the file',
    );
    const after = ((await (await call(`/v1/lakes/${LAKE}/snapshots`)).json()) as { snapshots: unknown[] })
      .snapshots.length;
    expect(after).toBe(before);
    await table("texty", [
      { name: "id", type: "varchar" },
      { name: "amount", type: "decimal(4,2)" },
      { name: "region", type: "varchar" },
    ]);
    expect((await expectError(await register("texty"), 400, "InvalidRequest")).error.message).toContain(
      'column "id" is VARCHAR in the table and INTEGER in the file',
    );
  });

  it("refuses a file missing a table column or holding one the table lacks", async () => {
    await table("extra", [...ORDERS, { name: "note", type: "varchar" }]);
    expect((await expectError(await register("extra"), 400, "InvalidRequest")).error.message).toContain(
      'table column "note" (varchar) is not in the file',
    );
    await table("fewer", ORDERS.slice(0, 2));
    expect((await expectError(await register("fewer"), 400, "InvalidRequest")).error.message).toContain(
      'the file has column "region" (VARCHAR), which the table does not',
    );
  });

  it("follows DuckLake's widening rules", () => {
    const ok = (type: string, file: string) => () =>
      checkFileColumns({ file: "f", table: "t" }, [{ name: "c", type }], [{ name: "c", type: file }]);
    for (const [type, file] of [
      ["int64", "UINTEGER"],
      ["int32", "USMALLINT"],
      ["int16", "TINYINT"],
      ["uint32", "UTINYINT"],
      ["float64", "FLOAT"],
      ["timestamp", "TIMESTAMP_NS"],
      ["timestamp_ms", "TIMESTAMP_S"],
      ["decimal(10,4)", "DECIMAL(9,4)"],
      ["list", "LIST"],
      ["json", "JSON"],
    ] as const)
      expect(ok(type, file), `${type} <- ${file}`).not.toThrow();
    for (const [type, file] of [
      ["int32", "UINTEGER"],
      ["int32", "BIGINT"],
      ["uint16", "TINYINT"],
      ["float32", "DOUBLE"],
      ["timestamp_ms", "TIMESTAMP_NS"],
      ["decimal(10,4)", "DECIMAL(10,5)"],
      ["decimal(10,4)", "INTEGER"],
      ["struct", "LIST"],
      ["json", "VARCHAR"],
      ["varchar", "BLOB"],
      ["timestamptz", "TIMESTAMP"],
    ] as const)
      expect(ok(type, file), `${type} <- ${file}`).toThrow(/column "c" is /);
  });

  it("checks files in commits that also change other things, and refuses one whose table the commit alters", async () => {
    await table("mixed", [
      { name: "id", type: "int32" },
      { name: "amount", type: "decimal(3,2)" },
      { name: "region", type: "varchar" },
    ]);
    // An unrelated change beside the registration no longer skips the check (it did before: decision 0652).
    const other = [{ op: "set_option", name: "data_inlining_row_limit", value: "5" }];
    expect(
      (await expectError(await register("mixed", { others: other }), 400, "InvalidRequest")).error.message,
    ).toContain('column "amount" is DECIMAL(3,2) in the table and DECIMAL(4,2) in the file');
    // The same commit changing the table's columns: the head's columns are not the ones to check against.
    const alter = [{ op: "add_column", table: { name: "fits" }, column: { name: "note", type: "varchar" } }];
    expect(
      (await expectError(await register("fits", { others: alter }), 400, "InvalidRequest")).error.message,
    ).toContain("whose columns or name another verb of the same commit changes");
    // A fitting file beside an unrelated change is accepted.
    await table("mixed-ok", ORDERS);
    expect((await register("mixed-ok", { others: other })).status).toBe(200);
  });

  it("checks a file registered by its absolute path in the lake's data prefix", async () => {
    await table("absolute", [
      { name: "id", type: "int32" },
      { name: "amount", type: "decimal(3,2)" },
      { name: "region", type: "varchar" },
    ]);
    const summary = (await (await call(`/v1/lakes/${LAKE}`)).json()) as { dataPath: string };
    const path = `${summary.dataPath}main/absolute/f.parquet`;
    expect(path).toMatch(/^r2:\/\//);
    expect(
      (await expectError(await register("absolute", { path }), 400, "InvalidRequest")).error.message,
    ).toContain('column "amount" is DECIMAL(3,2) in the table and DECIMAL(4,2) in the file');
  });

  it("refuses a file whose footer cannot be read, naming it", async () => {
    await table("garbage", ORDERS);
    const bytes = new TextEncoder().encode("not a parquet file, only placeholder bytes");
    const up = await call(`/v1/lakes/${LAKE}/data/main/garbage/g.parquet`, {
      method: "PUT",
      rawBody: bytes,
      headers: { "content-length": String(bytes.length) },
    });
    expect(up.status).toBe(201);
    const e = await expectError(
      await register("garbage", { path: "g.parquet", size: bytes.length }),
      400,
      "InvalidRequest",
    );
    expect(e.error.message).toContain("whose Parquet footer cannot be read");
    expect(e.error.message).toContain("g.parquet");
  });
});
