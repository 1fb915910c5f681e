import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/app.ts";
import { call } from "../support/http.ts";

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { responses?: Record<string, unknown>; summary?: string }>>;
}

describe("OpenAPI document", () => {
  it("is served at /v1/openapi.json as OpenAPI 3.1 without a token", async () => {
    const res = await call("/v1/openapi.json", { token: null });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as OpenApiDoc;
    expect(doc.openapi).toBe("3.1.0");
  });

  it("describes every route the app serves, with a summary and responses", async () => {
    const doc = (await (await call("/v1/openapi.json", { token: null })).json()) as OpenApiDoc;
    const routes = createApp()
      .routes.filter((r) => r.method !== "ALL" && r.path !== "/v1/openapi.json")
      .map((r) => ({
        method: r.method.toLowerCase(),
        path: r.path.replace(/\/\*$/, "/{path}").replace(/:(\w+)/g, "{$1}"),
      }));
    expect(routes.length).toBeGreaterThan(1);
    const missing = routes.filter((r) => !doc.paths[r.path]?.[r.method]);
    expect(missing).toEqual([]);
    for (const r of routes) {
      const op = doc.paths[r.path]?.[r.method];
      expect(op?.summary, `${r.method} ${r.path} has a summary`).toBeTruthy();
      expect(Object.keys(op?.responses ?? {}).length).toBeGreaterThan(0);
    }
  });
});
