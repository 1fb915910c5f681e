import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";

const HealthSchema = z
  .object({ status: z.literal("ok"), service: z.literal("ducklake-edge"), time: z.string() })
  .openapi("Health");

const health = createRoute({
  method: "get",
  path: "/v1/health",
  summary: "Liveness: the Worker is serving. Touches no lake and needs no token.",
  responses: { 200: { description: "serving", content: { "application/json": { schema: HealthSchema } } } },
});

export function registerHealthRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(health, (c) =>
    c.json({ status: "ok" as const, service: "ducklake-edge" as const, time: new Date().toISOString() }, 200),
  );
}
