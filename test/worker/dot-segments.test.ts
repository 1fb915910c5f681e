/**
 * Encoded dot segments in a data path are refused outright (docs/decisions/0102-data-paths.md). A
 * `Request` built in JS resolves them at once (the URL standard), so these requests reach the app with the
 * URL exactly as a client put it on the wire, the way a runtime that does not normalise would deliver it.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../worker/app.ts";
import { dotSegmentIn, rawPathOf } from "../../worker/data-path.ts";
import { asSent, call, expectError, TOKENS } from "../support/http.ts";

const app = createApp();

async function send(rawPath: string, token: string = TOKENS.adminAll): Promise<Response> {
  return app.fetch(
    asSent(`https://edge.test${rawPath}`, { headers: { authorization: `Bearer ${token}` } }),
    env,
  );
}

describe("encoded dot segments in data paths", () => {
  beforeAll(async () => {
    for (const lake of ["dots-a", "dots-b"]) await call(`/v1/lakes/${lake}`, { method: "PUT" });
    const bytes = new Uint8Array([1, 2, 3]);
    for (const path of ["dots-a/data/main/t/x.parquet", "dots-b/data/x.parquet", "dots-a/data/x.parquet"]) {
      await env.BUCKET.put(`lakes/${path}`, bytes);
    }
  });

  it.each([
    "/v1/lakes/dots-a/data/%2e%2e/%2e%2e/dots-b/data/x.parquet",
    "/v1/lakes/dots-a/data/%2E%2E/%2E%2E/dots-b/data/x.parquet",
    "/v1/lakes/dots-a/data/.%2e/%2E./dots-b/data/x.parquet",
    "/v1/lakes/dots-a/data/main/t/%2e%2e/%2e%2e/x.parquet",
    "/v1/lakes/dots-a/data/%2e/x.parquet",
    "/v1/lakes/dots-a/data/main/%2E/t/x.parquet",
  ])("GET %s is a 400 before routing", async (path) => {
    const res = await send(path);
    const body = await expectError(res, 400, "InvalidRequest");
    expect(body.error.message).toContain("dot segment");
  });

  it("the refusal comes before auth, whatever the token", async () => {
    await expectError(
      await send("/v1/lakes/dots-a/data/%2e%2e/x", "not-a-token-at-all-xyz"),
      400,
      "InvalidRequest",
    );
  });

  it("plain paths still read, and dots inside a name are not segments", async () => {
    const res = await send("/v1/lakes/dots-a/data/main/t/x.parquet");
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(dotSegmentIn("/v1/lakes/a/data/x..y/.hidden/...")).toBeNull();
  });

  it("the raw path is taken as sent", () => {
    expect(rawPathOf("https://h:1/a/%2e%2e/b?x=/../c#f")).toBe("/a/%2e%2e/b");
    expect(rawPathOf("https://h")).toBe("/");
  });
});
