/**
 * PUT /v1/lakes/{lake} with a dataPath: validated and normalized by the catalog's one rule
 * (catalog/data-path.ts), stored as the lake's ducklake_metadata data_path; the default is the lake's R2
 * data prefix.
 */
import { describe, expect, it } from "vitest";
import { normalizeDataPath } from "../../catalog/data-path.ts";
import { call, expectError } from "../support/http.ts";

async function dataPathOf(lake: string): Promise<string | undefined> {
  const res = await call(`/v1/lakes/${lake}/ducklake/ducklake_metadata`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { rows: { key: string; value: string }[] };
  return body.rows.find((r) => r.key === "data_path")?.value;
}

describe("a lake's data path", () => {
  it("defaults to the lake's R2 data prefix", async () => {
    expect((await call("/v1/lakes/dp-default", { method: "PUT" })).status).toBe(201);
    expect(await dataPathOf("dp-default")).toBe("r2://ducklake-edge/lakes/dp-default/data/");
  });

  it.each([
    ["r2://other-bucket/some/prefix", "r2://other-bucket/some/prefix/"],
    ["s3://my-bucket/lake/", "s3://my-bucket/lake/"],
    ["/srv/lake-data", "/srv/lake-data/"],
    ["file:///srv/lake-data/", "file:///srv/lake-data/"],
  ])("accepts %s, stored as %s", async (given, stored) => {
    const lake = `dp-ok-${Math.random().toString(36).slice(2, 8)}`;
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT", body: { dataPath: given } })).status).toBe(201);
    expect(await dataPathOf(lake)).toBe(stored);
  });

  it.each(["data/", "relative/dir", "http://example.com/x/", "/a/../b/", "/a//b/", "r2://B/x/", "/x\u0001/"])(
    "refuses %s with a 400 and creates nothing",
    async (bad) => {
      const lake = `dp-bad-${Math.random().toString(36).slice(2, 8)}`;
      const body = await expectError(
        await call(`/v1/lakes/${lake}`, { method: "PUT", body: { dataPath: bad } }),
        400,
        "InvalidRequest",
      );
      expect(body.error.message).toContain("dataPath");
      await expectError(await call(`/v1/lakes/${lake}/snapshots`), 404, "NotFound");
    },
  );

  it("the normalizer is the same rule the writer applies to DuckLake's own ATTACH", () => {
    expect(normalizeDataPath("/tmp/x")).toBe("/tmp/x/");
    expect(() => normalizeDataPath("x".repeat(2000))).toThrow(/longer than/);
  });

  it("refuses every control character of the names' set, C1 (U+0080–U+009F) included", () => {
    for (const cc of ["\u0000", "\u001f", "\u007f", "\u0080", "\u0085", "\u009f"])
      expect(() => normalizeDataPath(`/tmp/a${cc}b/`), `U+${cc.charCodeAt(0).toString(16)}`).toThrow(
        /control characters/,
      );
    expect(() => normalizeDataPath("/tmp/a\\b/")).toThrow(/backslashes/);
    expect(normalizeDataPath("/tmp/a\u00a0b/")).toBe("/tmp/a\u00a0b/");
  });
});
