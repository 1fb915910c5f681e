/**
 * Lakes whose data path the writer cannot reach (docs/decisions/0502-external-data-paths.md): the one rule
 * (`catalog/data-path.ts` `externalDataPathReason`), and what a lake created with such a path answers — its
 * summary names it, the file jobs a caller names record why they are off, expiry still runs, row writes refuse
 * naming it (row reads refusing a file read: test/quack/data_plane.py). A lake on its own prefix answers none of that.
 */
import { describe, expect, it } from "vitest";
import { externalDataPathReason } from "../../catalog/data-path.ts";
import { call, expectError } from "../support/http.ts";

describe("the external data path rule", () => {
  it.each([
    ["r2://ducklake-edge/lakes/shop/data/", null],
    ["s3://ducklake-edge/lakes/shop/data/", null],
    ["data/", null],
    ["r2://other-bucket/lakes/shop/data/", "external"],
    ["s3://ducklake-edge/lakes/other/data/", "external"],
    ["r2://ducklake-edge/lakes/shop/", "external"],
    ["/tmp/shop-data/", "external"],
    ["file:///tmp/shop-data/", "external"],
    ["", "external"],
  ])("%s → %s", (dataPath, want) => {
    const reason = externalDataPathReason(dataPath, "ducklake-edge", "shop");
    if (want === null) expect(reason).toBeNull();
    else expect(reason).toContain(want);
  });

  it("follows the deployment's bucket name", () => {
    expect(externalDataPathReason("r2://mine/lakes/shop/data/", "mine", "shop")).toBeNull();
    expect(externalDataPathReason("r2://ducklake-edge/lakes/shop/data/", "mine", "shop")).toContain(
      "external",
    );
  });
});

describe("a lake on a local directory", () => {
  it("says why its file jobs and row writes are off; expiry still runs", async () => {
    expect(
      (await call("/v1/lakes/ext-local", { method: "PUT", body: { dataPath: "/srv/ext-local/" } })).status,
    ).toBe(201);
    const summary = (await (await call("/v1/lakes/ext-local")).json()) as Record<string, unknown>;
    expect(summary.dataPath).toBe("/srv/ext-local/");
    expect(String(summary.dataPathExternal)).toContain("is external");
    const res = await call("/v1/lakes/ext-local/maintenance", {
      method: "POST",
      body: {
        jobs: ["flush_inlined", "merge_adjacent", "rewrite_deletes", "expire_snapshots", "delete_files"],
      },
    });
    expect(res.status).toBe(200);
    const runs = ((await res.json()) as { runs: { job: string; error: string | null }[] }).runs;
    const byJob = new Map(runs.map((r) => [r.job, r.error]));
    for (const job of ["flush_inlined", "merge_adjacent", "rewrite_deletes", "delete_files"]) {
      expect(byJob.get(job), job).toMatch(/^Unsupported: .*is external/);
    }
    expect(byJob.get("expire_snapshots")).toBeNull();
    await expectError(
      await call("/v1/lakes/ext-local/tables/main/t/rows", {
        method: "POST",
        body: { ops: [{ op: "insert", row: { a: 1 } }] },
      }),
      422,
      "Unsupported",
    );
    // The history a reader sees holds the reasons.
    const history = (await (await call("/v1/lakes/ext-local/maintenance")).json()) as {
      runs: { error: string | null }[];
    };
    expect(history.runs.some((r) => (r.error ?? "").includes("is external"))).toBe(true);
  });

  it("a lake on its own prefix says nothing of the kind", async () => {
    expect((await call("/v1/lakes/ext-own", { method: "PUT" })).status).toBe(201);
    const summary = (await (await call("/v1/lakes/ext-own")).json()) as Record<string, unknown>;
    expect(summary.dataPath).toBe("r2://ducklake-edge/lakes/ext-own/data/");
    expect(summary.dataPathExternal).toBeNull();
    const res = await call("/v1/lakes/ext-own/maintenance", {
      method: "POST",
      body: { jobs: ["flush_inlined"] },
    });
    const runs = ((await res.json()) as { runs: { error: string | null }[] }).runs;
    expect(runs.every((r) => r.error === null)).toBe(true);
  });
});
