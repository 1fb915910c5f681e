/**
 * The S3 endpoint's DELETE goes through the lake's writer behind job 5's fence (decision
 * docs/decisions/0630-quack-orphan-listing-grace.md): an object a file version names is kept and refused
 * (a client's `ducklake_delete_orphaned_files` answered before that file's commit landed never deletes
 * it), an object nothing names is deleted, and a commit registering a path deleted here is refused at
 * apply time even when its existence check ran before the DELETE.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dataObjectKey } from "../../../storage/keys.ts";
import { call, TOKENS } from "../../support/http.ts";
import { BUCKET, s3 } from "./signed.ts";

const LAKE = "s3guard";
const PARQUET = Uint8Array.from(atob(String(env.TEST_ORDERS_PARQUET_B64)), (c) => c.charCodeAt(0));
const creds = { keyId: LAKE, secret: TOKENS.adminAll };
const objectPath = (rel: string): string => `/s3/${BUCKET}/${dataObjectKey(LAKE, rel)}`;

async function commit(verbs: unknown[]): Promise<Response> {
  return call(`/v1/lakes/${LAKE}/commits`, { method: "POST", body: { verbs } });
}

const register = (path: string) => ({
  op: "register_data_file",
  table: { name: "orders" },
  file: { path, recordCount: 3, fileSizeBytes: PARQUET.length, footerSize: 314 },
});

describe("DELETE through the S3 endpoint is fenced (decision 0630)", () => {
  it("keeps a registered object, deletes an unregistered one, and refuses to register a deleted path", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    const created = await commit([
      {
        op: "create_table",
        name: "orders",
        columns: [
          { name: "id", type: "int32" },
          { name: "amount", type: "decimal(4,2)" },
          { name: "region", type: "varchar" },
        ],
      },
    ]);
    expect(created.status).toBe(200);
    for (const rel of ["main/orders/kept.parquet", "main/orders/orphan.parquet", "main/orders/batch.parquet"])
      expect((await s3("PUT", objectPath(rel), { ...creds, body: PARQUET })).status).toBe(200);
    expect((await commit([register("kept.parquet")])).status).toBe(200);

    // A registered object: the DELETE is refused by name and the object stays.
    const refused = await s3("DELETE", objectPath("main/orders/kept.parquet"), creds);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("OperationAborted");
    expect(await env.BUCKET.head(dataObjectKey(LAKE, "main/orders/kept.parquet"))).not.toBeNull();

    // DeleteObjects: the registered key is an <Error>, the other is deleted.
    const keys = ["main/orders/kept.parquet", "main/orders/batch.parquet"].map((r) => dataObjectKey(LAKE, r));
    const xml = new TextEncoder().encode(
      `<Delete>${keys.map((k) => `<Object><Key>${k}</Key></Object>`).join("")}</Delete>`,
    );
    const multi = await s3("POST", `/s3/${BUCKET}?delete=`, { ...creds, body: xml });
    const text = await multi.text();
    expect(multi.status, text).toBe(200);
    expect(text).toContain(`<Error><Key>${keys[0]}</Key><Code>OperationAborted</Code>`);
    expect(text).toContain(`<Deleted><Key>${keys[1]}</Key></Deleted>`);
    expect(await env.BUCKET.head(keys[0] as string)).not.toBeNull();
    expect(await env.BUCKET.head(keys[1] as string)).toBeNull();

    // An unregistered object goes; its path is fenced, so a commit that checked it before the DELETE
    // (here: the writer applies the verb directly, past the edge's existence check) is refused.
    expect((await s3("DELETE", objectPath("main/orders/orphan.parquet"), creds)).status).toBe(204);
    expect(await env.BUCKET.head(dataObjectKey(LAKE, "main/orders/orphan.parquet"))).toBeNull();
    const stub = env.LAKE_WRITER.get(env.LAKE_WRITER.idFromName(LAKE)) as unknown as {
      commit(
        lake: string,
        verbs: unknown,
      ): Promise<{ ok: boolean; error?: { code: string; message: string } }>;
    };
    const late = await stub.commit(LAKE, [register("orphan.parquet")]);
    expect(late.ok).toBe(false);
    expect(late.error?.message).toMatch(/scheduled for deletion/);

    // The registered file still reads through the rows API.
    const rows = await call(`/v1/lakes/${LAKE}/tables/main/orders/rows`);
    expect(rows.status).toBe(200);
    expect(((await rows.json()) as { rows: unknown[] }).rows.length).toBe(3);
  });
});
