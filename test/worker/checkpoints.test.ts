import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectError, TOKENS } from "../support/http.ts";

async function commit(lake: string, verbs: unknown[]) {
  const res = await call(`/v1/lakes/${lake}/commits`, { method: "POST", body: { verbs } });
  expect(res.status).toBe(200);
  return (await res.json()) as { snapshotId: number; position: number };
}

async function tableNames(path: string): Promise<string[]> {
  const res = await call(path);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { catalog: { tables: { table_name: string }[] } };
  return body.catalog.tables.map((t) => t.table_name).sort();
}

describe("named checkpoints over HTTP", () => {
  it("pins a cut that later commits, an object reset and deletion treat correctly", async () => {
    await call("/v1/lakes/ckpt-a", { method: "PUT" });
    await commit("ckpt-a", [{ op: "create_table", name: "before", columns: [{ name: "x", type: "int32" }] }]);

    const minted = await call("/v1/lakes/ckpt-a/checkpoints", {
      method: "POST",
      body: { lifetimeSeconds: 3600 },
    });
    expect(minted.status).toBe(201);
    const ckpt = (await minted.json()) as { id: string; expiresAt: number };
    expect(ckpt.expiresAt).toBeGreaterThan(Date.now());

    await commit("ckpt-a", [{ op: "create_table", name: "after", columns: [{ name: "x", type: "int32" }] }]);
    expect(await tableNames(`/v1/lakes/ckpt-a/catalog?checkpoint=${ckpt.id}`)).toEqual(["before"]);
    expect(await tableNames("/v1/lakes/ckpt-a/catalog")).toEqual(["after", "before"]);

    const listed = (await (await call("/v1/lakes/ckpt-a/checkpoints")).json()) as {
      checkpoints: { id: string }[];
    };
    expect(listed.checkpoints.map((c) => c.id)).toContain(ckpt.id);

    // The writer is gone; a checkpoint read needs only immutable objects in R2.
    await abortAllDurableObjects();
    expect(await tableNames(`/v1/lakes/ckpt-a/catalog?checkpoint=${ckpt.id}`)).toEqual(["before"]);
    const pinned = await call(`/v1/lakes/ckpt-a/catalog?checkpoint=${ckpt.id}`);
    expect(pinned.headers.get("etag")).toMatch(/^".+"$/);

    expect((await call(`/v1/lakes/ckpt-a/checkpoints/${ckpt.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(
      await call(`/v1/lakes/ckpt-a/catalog?checkpoint=${ckpt.id}`),
      404,
      "CheckpointNotFound",
    );
  });

  it("checkpoints are admin-only; a malformed id is a 400", async () => {
    await call("/v1/lakes/sales", { method: "PUT" });
    await expectError(
      await call("/v1/lakes/sales/checkpoints", { method: "POST", body: {}, token: TOKENS.writeSales }),
      403,
      "Forbidden",
    );
    await expectError(
      await call("/v1/lakes/sales/catalog?checkpoint=not-a-real-id"),
      400,
      "InvalidCheckpointId",
    );
  });
});
