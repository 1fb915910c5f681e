import { describe, expect, it } from "vitest";
import { call, expectError } from "../support/http.ts";

describe("request validation", () => {
  it("malformed JSON is a 400 that says so, and nothing is committed", async () => {
    await call("/v1/lakes/val-a", { method: "PUT" });
    const res = await call("/v1/lakes/val-a/commits", {
      method: "POST",
      rawBody: '{"verbs": [',
      headers: { "content-type": "application/json" },
    });
    const body = await expectError(res, 400, "InvalidRequest");
    expect(body.error.message.toLowerCase()).toContain("json");
    const snaps = (await (await call("/v1/lakes/val-a/snapshots")).json()) as { snapshots: unknown[] };
    expect(snaps.snapshots).toHaveLength(1);
  });

  it("a wrong type names the field", async () => {
    await call("/v1/lakes/val-b", { method: "PUT" });
    const res = await call("/v1/lakes/val-b/commits", {
      method: "POST",
      body: { verbs: [{ op: "create_schema", name: 42 }] },
    });
    const body = await expectError(res, 400, "InvalidRequest");
    expect(body.error.message).toContain("verbs.0");
  });

  it.each([
    ["a schema named with a lone surrogate", { op: "create_schema", name: "\ud800" }],
    [
      "a table name containing NUL",
      { op: "create_table", name: "t\u0000x", columns: [{ name: "a", type: "int32" }] },
    ],
    [
      "a column name containing a line feed",
      { op: "create_table", name: "t", columns: [{ name: "a\nb", type: "int32" }] },
    ],
  ])("%s is a 400 InvalidRequest and nothing is committed", async (_what, verb) => {
    await call("/v1/lakes/val-names", { method: "PUT" });
    const res = await call("/v1/lakes/val-names/commits", { method: "POST", body: { verbs: [verb] } });
    const body = await expectError(res, 400, "InvalidRequest");
    expect(body.error.message).toMatch(/control characters|valid Unicode text/);
    const snaps = (await (await call("/v1/lakes/val-names/snapshots")).json()) as { snapshots: unknown[] };
    expect(snaps.snapshots).toHaveLength(1);
  });

  it("an unknown field is refused rather than ignored", async () => {
    await call("/v1/lakes/val-c", { method: "PUT" });
    const res = await call("/v1/lakes/val-c/commits", {
      method: "POST",
      body: { verbs: [{ op: "create_schema", name: "s" }], autor: "typo" },
    });
    const body = await expectError(res, 400, "InvalidRequest");
    expect(body.error.message).toContain("autor");
  });

  it.each(["-1", "x", "1.5", "99999999999999999999"])(
    "snapshot=%s is a 400 naming the parameter",
    async (bad) => {
      await call("/v1/lakes/val-d", { method: "PUT" });
      const body = await expectError(
        await call(`/v1/lakes/val-d/catalog?snapshot=${bad}`),
        400,
        "InvalidRequest",
      );
      expect(body.error.message).toContain("snapshot");
    },
  );

  it("a snapshot beyond the head is a 404", async () => {
    await call("/v1/lakes/val-e", { method: "PUT" });
    await expectError(await call("/v1/lakes/val-e/catalog?snapshot=5"), 404, "NotFound");
  });

  it("summary and snapshot list honour snapshot=N and refuse one beyond the head", async () => {
    await call("/v1/lakes/val-i", { method: "PUT" });
    await call("/v1/lakes/val-i/commits", {
      method: "POST",
      body: { verbs: [{ op: "create_schema", name: "s" }] },
    });
    const at0 = (await (await call("/v1/lakes/val-i?snapshot=0")).json()) as {
      snapshotId: number;
      tableCount: number;
    };
    expect(at0.snapshotId).toBe(0);
    await expectError(await call("/v1/lakes/val-i?snapshot=9"), 404, "NotFound");
    await expectError(await call("/v1/lakes/val-i/snapshots?snapshot=9"), 404, "NotFound");
  });

  it("a position token this lake never issued is a 400, not a wait", async () => {
    await call("/v1/lakes/val-j", { method: "PUT" });
    await expectError(await call("/v1/lakes/val-j/catalog?after=999999999"), 400, "CutNotYetVisible");
  });

  it("checkpoint and after together are refused", async () => {
    await call("/v1/lakes/val-f", { method: "PUT" });
    const body = await expectError(
      await call("/v1/lakes/val-f?checkpoint=abc&after=1"),
      400,
      "InvalidRequest",
    );
    expect(body.error.message).toContain("checkpoint and after");
  });

  it("an unknown checkpoint is refused, never silently followed", async () => {
    await call("/v1/lakes/val-g", { method: "PUT" });
    const res = await call("/v1/lakes/val-g/catalog?checkpoint=nope");
    expect([400, 404]).toContain(res.status);
  });

  it("an invalid Idempotency-Key is a 400", async () => {
    await call("/v1/lakes/val-h", { method: "PUT" });
    const res = await call("/v1/lakes/val-h/commits", {
      method: "POST",
      body: { verbs: [{ op: "create_schema", name: "s" }] },
      headers: { "idempotency-key": "has spaces in it" },
    });
    await expectError(res, 400, "InvalidRequest");
  });

  it("a client key of the minted form with a stale time is a 400 and commits nothing; with the current time it commits", async () => {
    const lake = "val-minted-key";
    await call(`/v1/lakes/${lake}`, { method: "PUT" });
    const commit = (key: string): Promise<Response> =>
      call(`/v1/lakes/${lake}/commits`, {
        method: "POST",
        body: { verbs: [{ op: "create_schema", name: "s" }] },
        headers: { "idempotency-key": key },
      });
    const stale = await expectError(
      await commit("edge:0000000000001:00000000-0000-4000-8000-000000000000"),
      400,
      "InvalidRequest",
    );
    expect(stale.error.message).toContain("has the form of a key the server mints");
    const ok = await commit(`edge:${Date.now()}:00000000-0000-4000-8000-000000000001`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { snapshotId: number }).snapshotId).toBe(1);
  });
});
