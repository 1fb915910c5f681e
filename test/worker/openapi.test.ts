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

  it("names every operation (unique operationId, a tag) and lists servers, for any generator", async () => {
    const doc = (await (await call("/v1/openapi.json", { token: null })).json()) as {
      paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
      servers?: { url: string }[];
      tags?: { name: string }[];
    };
    const ids: string[] = [];
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item)) {
        expect(op.operationId).toMatch(/^[a-z]+[A-Za-z0-9]+$/);
        expect(op.tags?.length).toBe(1);
        ids.push(op.operationId ?? "");
      }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("getLakesByLakeTablesBySchemaByTableRows");
    expect(doc.servers?.[0]?.url).toBe("http://localhost:8787");
    expect(doc.tags?.map((t) => t.name)).toContain("commits");
  });

  it("GET / names the explorer", async () => {
    expect(await (await call("/", { token: null })).text()).toContain("explorer is at /ui");
  });
});
