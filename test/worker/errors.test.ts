import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/app.ts";
import { ApiError, KNOWN_ERROR_CODES, statusForCode } from "../../worker/errors.ts";
import { call, expectError } from "../support/http.ts";

const EXPECTED_STATUS: Record<string, number> = {
  InvalidRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  AlreadyExists: 409,
  LakeDeletedPendingRemoval: 409,
  CommitConflict: 409,
  PayloadTooLarge: 413,
  CommitOutcomeUnknown: 500,
  RetryBudgetExhausted: 503,
  Fenced: 503,
  Unavailable: 503,
};

describe("one error envelope for every failure", () => {
  it.each(Object.entries(EXPECTED_STATUS))("%s answers %i with the envelope", async (code, status) => {
    const app = createApp();
    app.get("/v1/test-throw", () => {
      throw new ApiError(code, `test failure for ${code}`);
    });
    const res = await app.request("/v1/test-throw", {}, env);
    const body = (await res.json()) as { error: { code: string; message: string; requestId: string } };
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(body.error).toEqual({ code, message: `test failure for ${code}`, requestId: expect.any(String) });
    if (status === 503) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    else expect(res.headers.get("retry-after")).toBeNull();
  });

  it("every code the layer knows has a deliberate status", () => {
    for (const code of KNOWN_ERROR_CODES)
      expect([400, 401, 403, 404, 405, 409, 413, 422, 500, 503]).toContain(statusForCode(code));
    for (const [code, status] of Object.entries(EXPECTED_STATUS)) expect(statusForCode(code)).toBe(status);
  });

  it("an untyped error is a 500 with no stack or detail in the body", async () => {
    const app = createApp();
    app.get("/v1/test-crash", () => {
      throw new TypeError("secret internal detail at /work/main/storage/wal.ts:42");
    });
    const res = await app.request("/v1/test-crash", {}, env);
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text).error.code).toBe("Internal");
    expect(text).not.toContain("secret internal detail");
    expect(text).not.toContain("wal.ts");
  });

  it("an oversized body is a 413 envelope before any handler runs", async () => {
    const res = await call("/v1/lakes/sales/writer", {
      method: "POST",
      rawBody: "x".repeat(Number(env.MAX_BODY_BYTES) + 1),
      headers: { "content-type": "application/json" },
    });
    await expectError(res, 413, "PayloadTooLarge");
  });
});
