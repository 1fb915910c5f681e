/**
 * The typed client cannot drift from the API: the committed client/openapi.json must be exactly what
 * the app serves, and client/schema.d.ts must have been generated from that very file (its header
 * carries the file's sha256). Regenerate both with `npm run client:generate`.
 */
import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiFailure, createLakeClient, unwrap } from "../../client/index.ts";

const SCHEMA_HASH_PREFIX = "// openapi.json sha256: ";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const client = (token: string | undefined) =>
  createLakeClient({
    baseUrl: "https://edge.test",
    ...(token ? { token } : {}),
    fetch: (req: Request) => SELF.fetch(req),
  });

describe("generated client", () => {
  it("client/openapi.json is exactly the document the app serves", async () => {
    const served = await (await SELF.fetch("https://edge.test/v1/openapi.json")).json();
    const committed = env.TEST_CLIENT_OPENAPI ?? "";
    expect(committed.length).toBeGreaterThan(1000);
    expect(committed, "stale: run npm run client:generate").toBe(`${JSON.stringify(served, null, 2)}\n`);
  });

  it("client/schema.d.ts was generated from that client/openapi.json", async () => {
    const schema = env.TEST_CLIENT_SCHEMA ?? "";
    const line = schema.split("\n").find((l) => l.startsWith(SCHEMA_HASH_PREFIX));
    expect(line, "schema.d.ts carries the hash of its input").toBeDefined();
    expect(line?.slice(SCHEMA_HASH_PREFIX.length)).toBe(await sha256Hex(env.TEST_CLIENT_OPENAPI ?? ""));
  });

  it("makes typed calls and turns error envelopes into ApiFailure with the API's code", async () => {
    const admin = client("t-admin-all-0123456789");
    const created = await unwrap(admin.PUT("/v1/lakes/{lake}", { params: { path: { lake: "client-a" } } }));
    expect(created.lake).toBe("client-a");
    const summary = await unwrap(admin.GET("/v1/lakes/{lake}", { params: { path: { lake: "client-a" } } }));
    expect(summary.snapshotId).toBe(0);
    // snapshot_time is kept in microseconds; the summary's ISO time must still be today, not year 58000.
    expect(Math.abs(Date.parse(summary.snapshotTime) - Date.now())).toBeLessThan(86_400_000);
    const failure = await unwrap(
      client("t-read-sales-0123456789").GET("/v1/lakes/{lake}", { params: { path: { lake: "client-a" } } }),
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiFailure);
    expect((failure as ApiFailure).code).toBe("Forbidden");
    expect((failure as ApiFailure).status).toBe(403);
    expect((failure as ApiFailure).requestId).toBeTruthy();
  });
});
