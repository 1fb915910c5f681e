import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TUNABLES } from "../../durable-objects/options.ts";
import { openWriter } from "../../storage/index.ts";
import { CACHE_LIFETIME_MS } from "../../worker/object-cache.ts";
import { DATA_CACHE_CONTROL } from "../../worker/routes/data.ts";
import { call, expectError, TOKENS } from "../support/http.ts";

const LAKE = "sales";

async function upload(path: string, bytes: Uint8Array, token: string = TOKENS.writeSales): Promise<Response> {
  return call(`/v1/lakes/${LAKE}/data/${path}`, {
    method: "PUT",
    token,
    rawBody: bytes,
    headers: { "content-length": String(bytes.length), "content-type": "application/octet-stream" },
  });
}

describe("data files under a lake's data prefix", () => {
  beforeAll(async () => {
    const store = await openWriter(env.BUCKET, LAKE);
    await store.close();
  });

  it("uploads put-if-absent and reads back whole, by range, and by HEAD", async () => {
    const bytes = new TextEncoder().encode("PAR1 pretend parquet bytes PAR1");
    const put = await upload("main/orders/part-1.parquet", bytes);
    expect(put.status).toBe(201);
    expect(await put.json()).toMatchObject({ path: "main/orders/part-1.parquet", size: bytes.length });

    const stored = await env.BUCKET.get(`lakes/${LAKE}/data/main/orders/part-1.parquet`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);

    const whole = await call(`/v1/lakes/${LAKE}/data/main/orders/part-1.parquet`, {
      token: TOKENS.readSales,
    });
    expect(whole.status).toBe(200);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes);

    const ranged = await call(`/v1/lakes/${LAKE}/data/main/orders/part-1.parquet`, {
      token: TOKENS.readSales,
      headers: { range: "bytes=0-3" },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe(`bytes 0-3/${bytes.length}`);
    expect(await ranged.text()).toBe("PAR1");

    const head = await call(`/v1/lakes/${LAKE}/data/main/orders/part-1.parquet`, {
      method: "HEAD",
      token: TOKENS.readSales,
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(bytes.length));
  });

  it("authenticated data answers are private to the client and its token, and never enter the Workers cache", async () => {
    const path = "main/orders/cached.parquet";
    await upload(path, new TextEncoder().encode("PAR1 cached PAR1"));
    const url = `/v1/lakes/${LAKE}/data/${path}`;
    const answers = [
      await call(url, { token: TOKENS.readSales }),
      await call(url, { token: TOKENS.readSales, headers: { range: "bytes=0-3" } }),
      await call(url, { token: TOKENS.readSales, method: "HEAD" }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 206, 200]);
    for (const res of answers) {
      const cc = res.headers.get("cache-control") ?? "";
      expect(cc.split(",")[0]?.trim()).toBe("private");
      expect(cc).not.toMatch(/public|immutable/);
      expect(res.headers.get("vary")?.toLowerCase()).toContain("authorization");
      await res.arrayBuffer();
    }
    // Kept by no shared cache: the Workers cache has no entry for the URL the client asked for.
    expect(await caches.default.match(`https://edge.test${url}`)).toBeUndefined();
  });

  it("no cache outlives a deleted lake's grace period, so a re-created lake is never answered from the old one", () => {
    const maxAge = Number(/max-age=(\d+)/.exec(DATA_CACHE_CONTROL)?.[1]);
    expect(maxAge * 1000).toBeLessThanOrEqual(CACHE_LIFETIME_MS);
    expect(CACHE_LIFETIME_MS).toBeLessThan(DEFAULT_TUNABLES.deleteGraceMs);
  });

  it.each([
    ["no token", null, 401, 'Bearer realm="ducklake-edge"'],
    [
      "an unknown token",
      "not-a-known-token-0123456789",
      401,
      'Bearer realm="ducklake-edge", error="invalid_token"',
    ],
    ["another lake's token", "other-lake", 403, 'Bearer realm="ducklake-edge", error="insufficient_scope"'],
  ] as const)(
    "a data read with %s is a plain %i: envelope, length and WWW-Authenticate on GET, ranged GET and HEAD",
    async (_what, token, status, challenge) => {
      await upload("main/orders/auth.parquet", new TextEncoder().encode("PAR1 auth PAR1"));
      const lake = token === "other-lake" ? "other" : LAKE;
      const url = `/v1/lakes/${lake}/data/main/orders/auth.parquet`;
      const tok = token === "other-lake" ? TOKENS.readSales : token;
      const get = await call(url, { token: tok });
      const text = await get.text();
      expect(get.status).toBe(status);
      expect(get.headers.get("www-authenticate")).toBe(challenge);
      expect(get.headers.get("content-type")).toContain("application/json");
      expect(get.headers.get("content-length")).toBe(String(new TextEncoder().encode(text).byteLength));
      const envelope = JSON.parse(text) as { error: { code: string; message: string; requestId: string } };
      expect(envelope.error.code).toBe(status === 401 ? "Unauthorized" : "Forbidden");
      expect(envelope.error.message.length).toBeGreaterThan(0);

      const ranged = await call(url, { token: tok, headers: { range: "bytes=0-1" } });
      expect(ranged.status).toBe(status);
      expect(ranged.headers.get("www-authenticate")).toBe(challenge);
      expect((JSON.parse(await ranged.text()) as typeof envelope).error.code).toBe(envelope.error.code);

      const head = await call(url, { token: tok, method: "HEAD" });
      expect(head.status).toBe(status);
      expect(head.headers.get("www-authenticate")).toBe(challenge);
      expect(head.headers.get("content-type")).toContain("application/json");
      // A HEAD answer has no body, but says how long the GET's would be.
      expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
      expect(await head.text()).toBe("");
    },
  );

  it("a second upload to the same path is refused and the file is unchanged", async () => {
    await upload("main/orders/fixed.parquet", new Uint8Array([1, 2, 3]));
    await expectError(
      await upload("main/orders/fixed.parquet", new Uint8Array([9, 9])),
      409,
      "AlreadyExists",
    );
    const stored = await env.BUCKET.get(`lakes/${LAKE}/data/main/orders/fixed.parquet`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });

  it.each([
    "..%2Fescape.parquet",
    "a/..%2F..%2Fb",
    "a//b",
    "%2E%2E%2F%2E%2E%2Fx",
    "a%5Cb",
    "sp%20ace",
    "x%00y",
    "%ZZ",
  ])("path %s is refused and nothing is written", async (bad) => {
    const before = await env.BUCKET.list({ prefix: "lakes/" });
    const res = await upload(bad, new Uint8Array([1]));
    expect([400, 404]).toContain(res.status);
    const after = await env.BUCKET.list({ prefix: "lakes/" });
    expect(after.objects.map((o) => o.key)).toEqual(before.objects.map((o) => o.key));
  });

  it("paths a client normalises (./x, a/../b) can only land inside the lake's data prefix", async () => {
    for (const p of ["./dot.parquet", "q/../dotdot.parquet", "r/%2E%2E/enc.parquet"])
      await upload(p, new Uint8Array([7]));
    const keys = (await env.BUCKET.list({ prefix: "" })).objects.map((o) => o.key);
    for (const k of keys) expect(k.startsWith("lakes/")).toBe(true);
    expect(keys.filter((k) => !k.startsWith(`lakes/${LAKE}/`))).toEqual([]);
  });

  it("a read token cannot upload; a token for another lake cannot read", async () => {
    await expectError(await upload("x.parquet", new Uint8Array([1]), TOKENS.readSales), 403, "Forbidden");
    await expectError(
      await call("/v1/lakes/other/data/x.parquet", { token: TOKENS.readSales }),
      403,
      "Forbidden",
    );
  });

  it("a lake that does not exist is a 404, and uploading to it creates nothing", async () => {
    const res = await call("/v1/lakes/no-such-lake/data/x.parquet", {
      method: "PUT",
      rawBody: new Uint8Array([1]),
      headers: { "content-length": "1" },
    });
    await expectError(res, 404, "NotFound");
    expect((await env.BUCKET.list({ prefix: "lakes/no-such-lake/" })).objects).toEqual([]);
  });

  it("a missing file is a 404", async () => {
    await expectError(await call(`/v1/lakes/${LAKE}/data/nope.parquet`), 404, "NotFound");
  });
});
