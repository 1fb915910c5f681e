import { listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LakeWriter } from "../../durable-objects/lake-writer.ts";
import { call, expectError, TOKENS } from "../support/http.ts";

interface Status {
  lake: string;
  requestsServed: number;
  instanceStartedAt: string;
}

const LONGEST = "a".repeat(63);

describe("requests for a lake reach that lake's object", () => {
  beforeAll(async () => {
    for (const lake of ["route-a", "route-b", "route-c", LONGEST]) {
      expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    }
  });
  afterEach(() => vi.restoreAllMocks());

  it("the same lake name always reaches the same object; another name another object", async () => {
    const first = (await (await call("/v1/lakes/route-a/writer")).json()) as Status;
    const second = (await (await call("/v1/lakes/route-a/writer")).json()) as Status;
    const other = (await (await call("/v1/lakes/route-b/writer")).json()) as Status;
    expect(first.lake).toBe("route-a");
    expect(second.requestsServed).toBe(first.requestsServed + 1);
    expect(second.instanceStartedAt).toBe(first.instanceStartedAt);
    expect(other.lake).toBe("route-b");
    expect(other.requestsServed).toBeLessThan(second.requestsServed);
  });

  it.each(["Sales", "sales_eu", "a".repeat(64), "dots.in.name", "-x_", "-", "ends-", "a%20b", "caf%C3%A9"])(
    "a bad lake name (%s) is a 400 and creates no object",
    async (bad) => {
      const before = await listDurableObjectIds(env.LAKE_WRITER);
      const res = await call(`/v1/lakes/${bad}/writer`);
      await expectError(res, 400, "InvalidRequest");
      const after = await listDurableObjectIds(env.LAKE_WRITER);
      expect(after.length).toBe(before.length);
    },
  );

  it("a name at the 63-character limit is accepted", async () => {
    const res = await call(`/v1/lakes/${LONGEST}/writer`);
    expect(res.status).toBe(200);
  });

  it("a lake that was never created is a 404 and wakes no object", async () => {
    const before = await listDurableObjectIds(env.LAKE_WRITER);
    await expectError(await call("/v1/lakes/route-never/writer"), 404, "NotFound");
    expect((await listDurableObjectIds(env.LAKE_WRITER)).length).toBe(before.length);
  });

  it("an object that cannot answer (reset, overloaded) is a 503 with Retry-After", async () => {
    vi.spyOn(LakeWriter.prototype, "status").mockImplementation(() => {
      throw new Error("Durable Object reset because its code was updated.");
    });
    const res = await call("/v1/lakes/route-c/writer", { token: TOKENS.adminAll });
    const body = await expectError(res, 503, "Unavailable");
    expect(res.headers.get("retry-after")).toBe("1");
    expect(body.error.message).toContain("route-c");
  });
});
