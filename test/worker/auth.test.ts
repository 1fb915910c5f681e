import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { authenticate, authorize, type Grant, type Scope } from "../../worker/auth.ts";
import { ApiError } from "../../worker/errors.ts";
import { call, expectError, TOKENS } from "../support/http.ts";

async function codeOf(p: Promise<unknown> | (() => void)): Promise<string | null> {
  try {
    if (typeof p === "function") p();
    else await p;
    return null;
  } catch (err) {
    return err instanceof ApiError ? err.code : `untyped: ${String(err)}`;
  }
}

describe("auth over HTTP", () => {
  beforeAll(async () => {
    expect((await call("/v1/lakes/sales", { method: "PUT" })).status).toBe(201);
  });
  it("no token is 401", async () => {
    await expectError(await call("/v1/lakes/sales/writer", { token: null }), 401, "Unauthorized");
  });

  it("an unknown token is 401", async () => {
    await expectError(
      await call("/v1/lakes/sales/writer", { token: "not-a-real-token-at-all" }),
      401,
      "Unauthorized",
    );
  });

  it("a malformed Authorization header is 401", async () => {
    const res = await call("/v1/lakes/sales/writer", {
      token: null,
      headers: { authorization: "Basic abc" },
    });
    await expectError(res, 401, "Unauthorized");
  });

  it("a token for another lake is 403", async () => {
    await expectError(await call("/v1/lakes/billing/writer", { token: TOKENS.readSales }), 403, "Forbidden");
  });

  it("a read token for its own lake passes a read route", async () => {
    const res = await call("/v1/lakes/sales/writer", { token: TOKENS.readSales });
    expect(res.status).toBe(200);
  });
});

describe("scopes nest read ⊂ write ⊂ admin, per lake or every lake", () => {
  const scopes: Scope[] = ["read", "write", "admin"];
  const grants: Record<string, Grant> = {
    read: { lakes: ["sales"], scope: "read" },
    write: { lakes: ["sales"], scope: "write" },
    admin: { lakes: ["sales"], scope: "admin" },
    adminAll: { lakes: "*", scope: "admin" },
  };

  it.each(scopes.flatMap((have) => scopes.map((need) => [have, need] as const)))(
    "a %s token on a %s route of its lake",
    async (have, need) => {
      const rank = { read: 1, write: 2, admin: 3 };
      const grant = grants[have] as Grant;
      const code = await codeOf(() => authorize(grant, "sales", need));
      expect(code).toBe(rank[have] >= rank[need] ? null : "Forbidden");
    },
  );

  it("a per-lake admin token cannot use a route that spans every lake", async () => {
    expect(await codeOf(() => authorize(grants.admin as Grant, null, "admin"))).toBe("Forbidden");
    expect(await codeOf(() => authorize(grants.adminAll as Grant, null, "admin"))).toBeNull();
  });
});

describe("deny by default; the dev token only with the explicit dev setting", () => {
  it("with no tokens configured every token is refused", async () => {
    expect(await codeOf(authenticate({}, "Bearer anything-long-enough"))).toBe("Unauthorized");
  });

  it("a dev token counts only when DEV_AUTH is exactly 'enabled'", async () => {
    const token = "dev-token-for-this-test";
    expect(await codeOf(authenticate({ DEV_TOKEN: token }, `Bearer ${token}`))).toBe("Unauthorized");
    expect(await codeOf(authenticate({ DEV_AUTH: "true", DEV_TOKEN: token }, `Bearer ${token}`))).toBe(
      "Unauthorized",
    );
    const grant = await authenticate({ DEV_AUTH: "enabled", DEV_TOKEN: token }, `Bearer ${token}`);
    expect(grant).toEqual({ lakes: "*", scope: "admin" });
  });

  it("a malformed AUTH_TOKENS secret denies everything rather than guessing", async () => {
    const bad = JSON.stringify({ short: { lakes: ["*"], scope: "admin" } });
    expect(await codeOf(authenticate({ AUTH_TOKENS: bad }, "Bearer short"))).toBe("Unauthorized");
    expect(await codeOf(authenticate({ AUTH_TOKENS: "{not json" }, "Bearer whatever-token"))).toBe(
      "Unauthorized",
    );
  });

  it("the deployed wrangler.toml keeps the dev setting off and ships no token", () => {
    const toml = env.TEST_WRANGLER_TOML ?? "";
    expect(toml).toMatch(/^DEV_AUTH = "disabled"$/m);
    expect(toml).not.toMatch(/^DEV_TOKEN\s*=/m);
    expect(toml).not.toMatch(/^AUTH_TOKENS\s*=/m);
  });

  it("npm start alone serves the documented dev token; the deployed configuration still denies it", async () => {
    const pkg = JSON.parse(env.TEST_PACKAGE_JSON ?? "{}") as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe("node tools/start.mjs");
    // The deploy script sets nothing: deployed settings come from wrangler.toml and secrets only.
    expect(pkg.scripts.deploy).toBe("wrangler deploy");
    const script = env.TEST_START_SCRIPT ?? "";
    expect(script).toContain('"dev",');
    expect(script).toContain('"--local",');
    expect(script).toContain('"DEV_AUTH:enabled",');
    // Everything after `npm start --` reaches wrangler dev.
    expect(script).toContain("...process.argv.slice(2)");
    const token = /const DEV_TOKEN = "([^"]+)";/.exec(script)?.[1] ?? "";
    // The token the README's walkthrough uses.
    expect(token).toBe("dev-token-change-me");
    expect(script).toMatch(/`DEV_TOKEN:\$\{DEV_TOKEN\}`/);
    const grant = await authenticate({ DEV_AUTH: "enabled", DEV_TOKEN: token }, `Bearer ${token}`);
    expect(grant).toEqual({ lakes: "*", scope: "admin" });
    // With wrangler.toml's own value the same token is refused.
    const deployed = /^DEV_AUTH = "([^"]*)"$/m.exec(env.TEST_WRANGLER_TOML ?? "")?.[1];
    expect(deployed).toBe("disabled");
    expect(await codeOf(authenticate({ DEV_AUTH: deployed, DEV_TOKEN: token }, `Bearer ${token}`))).toBe(
      "Unauthorized",
    );
  });

  it("local runs need no network: no Request.cf fetch from npm start, no wrangler telemetry", () => {
    // Miniflare fetches a Request.cf sample unless this is "false" (offline: two ENOTFOUND stack traces).
    expect(env.TEST_START_SCRIPT ?? "").toContain('CLOUDFLARE_CF_FETCH_ENABLED: "false"');
    expect(env.TEST_WRANGLER_TOML ?? "").toMatch(/^send_metrics = false$/m);
  });
});
