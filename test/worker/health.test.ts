import { describe, expect, it } from "vitest";
import { call } from "../support/http.ts";

describe("GET /v1/health", () => {
  it("answers 200 without a token and carries a request id", async () => {
    const res = await call("/v1/health", { token: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", service: "ducklake-edge" });
    expect(res.headers.get("x-request-id")).toMatch(/.+/);
  });

  it("echoes a well-formed caller request id", async () => {
    const res = await call("/v1/health", { token: null, headers: { "x-request-id": "abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
  });

  it("unknown routes are a 404 envelope", async () => {
    const res = await call("/v1/nope", { token: null });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NotFound");
  });
});
