import { describe, expect, it } from "vitest";
import { call, expectError, TOKENS } from "../support/http.ts";

interface CommitAnswer {
  snapshotId: number | null;
  schemaVersion: number;
  position: number;
  assigned: Record<string, unknown>[];
  replayed?: boolean;
}

async function commit(lake: string, verbs: unknown[], key?: string): Promise<Response> {
  return call(`/v1/lakes/${lake}/commits`, {
    method: "POST",
    body: { verbs, author: "test" },
    ...(key ? { headers: { "idempotency-key": key } } : {}),
  });
}

describe("lake lifecycle, commits and reads over HTTP", () => {
  it("a lake that was never created is a 404 for reads and commits, and is not created by them", async () => {
    await expectError(await call("/v1/lakes/never-made"), 404, "NotFound");
    await expectError(await commit("never-made", [{ op: "create_schema", name: "s" }]), 404, "NotFound");
    await expectError(await call("/v1/lakes/never-made/snapshots"), 404, "NotFound");
  });

  it("create, commit, read back, time travel, delete", async () => {
    const created = await call("/v1/lakes/flow-a", { method: "PUT" });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ lake: "flow-a", snapshotId: 0 });
    await expectError(await call("/v1/lakes/flow-a", { method: "PUT" }), 409, "AlreadyExists");

    const c1 = await commit("flow-a", [
      { op: "create_table", name: "orders", columns: [{ name: "id", type: "int64" }] },
    ]);
    expect(c1.status).toBe(200);
    const r1 = (await c1.json()) as CommitAnswer;
    expect(r1.snapshotId).toBe(1);

    const summary = await call(`/v1/lakes/flow-a?after=${r1.position}`, { token: TOKENS.adminAll });
    expect(summary.status).toBe(200);
    expect(await summary.json()).toMatchObject({ lake: "flow-a", snapshotId: 1, tableCount: 1 });
    expect(summary.headers.get("cache-control")).toBe("no-store");

    const c2 = await commit("flow-a", [
      { op: "rename_table", table: { name: "orders" }, newName: "orders2" },
    ]);
    expect(c2.status).toBe(200);

    const past = await call("/v1/lakes/flow-a/catalog?snapshot=1");
    expect(past.status).toBe(200);
    const pastBody = (await past.json()) as { catalog: { tables: { table_name: string }[] } };
    expect(pastBody.catalog.tables.map((t) => t.table_name)).toEqual(["orders"]);
    const etag = past.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    const again = await call("/v1/lakes/flow-a/catalog?snapshot=1", { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);

    const snaps = (await (await call("/v1/lakes/flow-a/snapshots")).json()) as {
      snapshots: { snapshot_id: number }[];
    };
    expect(snaps.snapshots.map((s) => s.snapshot_id)).toEqual([0, 1, 2]);

    const csv = await call("/v1/lakes/flow-a/ducklake/ducklake_snapshot?format=csv");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect((await csv.text()).split("\r\n")[0]).toBe(
      "snapshot_id,snapshot_time,schema_version,next_catalog_id,next_file_id",
    );

    const del = await call("/v1/lakes/flow-a", { method: "DELETE" });
    expect(del.status).toBe(202);
    const deleted = (await del.json()) as { deletedAt: number; removeAfter: number };
    await expectError(await call("/v1/lakes/flow-a"), 404, "NotFound");
    // A create on the deleted name says what is true: deleted, and when its objects become removable.
    const recreate = await expectError(
      await call("/v1/lakes/flow-a", { method: "PUT" }),
      409,
      "LakeDeletedPendingRemoval",
    );
    expect(recreate.error.message).toContain(new Date(deleted.removeAfter).toISOString());
    expect(recreate.error.message).not.toMatch(/already exists/);
  });

  it("a repeated Idempotency-Key replays the first result; a different body under it is refused", async () => {
    await call("/v1/lakes/flow-b", { method: "PUT" });
    const verbs = [{ op: "create_schema", name: "s1" }];
    const first = (await (await commit("flow-b", verbs, "key-1")).json()) as CommitAnswer;
    const second = await commit("flow-b", verbs, "key-1");
    expect(second.status).toBe(200);
    const replay = (await second.json()) as CommitAnswer;
    expect(replay.snapshotId).toBe(first.snapshotId);
    await expectError(
      await commit("flow-b", [{ op: "create_schema", name: "s2" }], "key-1"),
      409,
      "IdempotencyKeyReused",
    );
    const snaps = (await (await call("/v1/lakes/flow-b/snapshots")).json()) as { snapshots: unknown[] };
    expect(snaps.snapshots).toHaveLength(2);
  });

  it("commit errors keep their codes and statuses", async () => {
    await call("/v1/lakes/flow-c", { method: "PUT" });
    await commit("flow-c", [{ op: "create_table", name: "t", columns: [{ name: "a", type: "int32" }] }]);
    await expectError(
      await commit("flow-c", [{ op: "create_table", name: "t", columns: [{ name: "a", type: "int32" }] }]),
      409,
      "AlreadyExists",
    );
    await expectError(
      await commit("flow-c", [{ op: "drop_table", table: { name: "nope" } }]),
      404,
      "NotFound",
    );
    await expectError(await commit("flow-c", [{ op: "no_such_verb" }]), 400, "InvalidRequest");
  });
});
