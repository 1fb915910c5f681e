/**
 * The README's curl walkthrough, step for step: create a lake, a schema and a table, upload a Parquet file
 * written by DuckDB, register it with its stats, read the scan plan, commit a second change, and read the
 * first snapshot again.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError } from "../support/http.ts";

interface Stats {
  recordCount: number;
  fileSizeBytes: number;
  footerSize: number;
  columns: Record<string, { valueCount: number; nullCount: number; min: string; max: string }>;
}

const parquet = Uint8Array.from(atob(env.TEST_ORDERS_PARQUET_B64 ?? ""), (ch) => ch.charCodeAt(0));
const stats = JSON.parse(env.TEST_ORDERS_STATS ?? "{}") as Stats;

async function commit(verbs: unknown[], message: string) {
  const res = await call("/v1/lakes/demo/commits", {
    method: "POST",
    body: { verbs, author: "readme", message },
  });
  const body = (await res.json()) as { snapshotId: number; position: number };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe("README walkthrough", () => {
  it("runs end to end", async () => {
    expect(parquet.length).toBe(stats.fileSizeBytes);
    expect((await call("/v1/lakes/demo", { method: "PUT" })).status).toBe(201);

    const c1 = await commit(
      [
        { op: "create_schema", name: "sales" },
        {
          op: "create_table",
          schema: "sales",
          name: "orders",
          columns: [
            { name: "id", type: "int32" },
            { name: "amount", type: "decimal(4,2)" },
            { name: "region", type: "varchar" },
          ],
        },
      ],
      "create orders",
    );
    expect(c1.snapshotId).toBe(1);

    const upload = await call("/v1/lakes/demo/data/sales/orders/orders-1.parquet", {
      method: "PUT",
      rawBody: parquet,
      headers: { "content-length": String(parquet.length) },
    });
    expect(upload.status).toBe(201);

    const file = {
      path: "orders-1.parquet",
      recordCount: stats.recordCount,
      fileSizeBytes: stats.fileSizeBytes,
      footerSize: stats.footerSize,
      columnStats: Object.entries(stats.columns).map(([column, s]) => ({
        column,
        valueCount: s.valueCount,
        nullCount: s.nullCount,
        min: s.min,
        max: s.max,
      })),
    };
    // A registration whose size disagrees with the stored object is refused, and nothing is committed.
    await expectError(
      await call("/v1/lakes/demo/commits", {
        method: "POST",
        body: {
          verbs: [
            {
              op: "register_data_file",
              table: { schema: "sales", name: "orders" },
              file: { ...file, fileSizeBytes: 1 },
            },
          ],
        },
      }),
      400,
      "InvalidRequest",
    );
    const c2 = await commit(
      [{ op: "register_data_file", table: { schema: "sales", name: "orders" }, file }],
      "first orders",
    );
    expect(c2.snapshotId).toBe(2);

    const plan = await call(`/v1/lakes/demo/tables/sales/orders/plan?after=${c2.position}`);
    expect(plan.status).toBe(200);
    const p = (await plan.json()) as {
      files: { resolved_path: string; record_count: number; row_id_start: number; row_id_end: number }[];
    };
    expect(p.files).toHaveLength(1);
    expect(p.files[0]).toMatchObject({
      resolved_path: "r2://ducklake-edge/lakes/demo/data/sales/orders/orders-1.parquet",
      record_count: 3,
      row_id_start: 0,
      row_id_end: 3,
    });
    const pruned = (await (await call("/v1/lakes/demo/tables/sales/orders/plan?filter=id:gt:10")).json()) as {
      files: unknown[];
      files_pruned: number;
    };
    expect(pruned.files_pruned).toBe(1);

    const c3 = await commit(
      [
        {
          op: "add_column",
          table: { schema: "sales", name: "orders" },
          column: { name: "note", type: "varchar" },
        },
      ],
      "add note",
    );
    expect(c3.snapshotId).toBe(3);

    const then = (await (await call("/v1/lakes/demo/catalog?snapshot=2")).json()) as {
      catalog: { tables: { table_name: string; columns: { column_name: string }[] }[] };
    };
    expect(then.catalog.tables[0]?.columns.map((c) => c.column_name)).toEqual(["id", "amount", "region"]);
    const now = (await (await call("/v1/lakes/demo/catalog")).json()) as typeof then;
    expect(now.catalog.tables[0]?.columns.map((c) => c.column_name)).toEqual([
      "id",
      "amount",
      "region",
      "note",
    ]);

    // 7-8: delete, then purge (decision 0480): the objects go now; the name waits out the cache lifetime.
    expect((await call("/v1/lakes/demo", { method: "DELETE" })).status).toBe(202);
    const gone = await expectError(await call("/v1/lakes/demo/catalog"), 404, "NotFound");
    expect(gone.error.message).toContain("DELETE /v1/lakes/demo?purge=true");
    const purge = await call("/v1/lakes/demo?purge=true", { method: "DELETE" });
    const purged = (await purge.json()) as { purged: boolean; objectsRemoved: number; removeAfter: number };
    expect(purge.status, JSON.stringify(purged)).toBe(200);
    expect(purged.purged).toBe(true);
    expect(purged.objectsRemoved).toBeGreaterThan(0);
    const left = await env.BUCKET.list({ prefix: "lakes/demo/" });
    expect(left.objects.map((o) => o.key)).toEqual(["lakes/demo/wal/00000000000000000000.deleted"]);
    const again = await expectError(
      await call("/v1/lakes/demo", { method: "PUT" }),
      409,
      "LakeDeletedPendingRemoval",
    );
    expect(again.error.message).toContain(new Date(purged.removeAfter).toISOString());
    expect(again.error.message).toContain("purge=true");
  });
});
