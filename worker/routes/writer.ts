import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { callWriter } from "../lake-rpc.ts";
import { requireLiveLake } from "../lakes.ts";
import { requireScope } from "../middleware.ts";
import { bearerSecurity, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

const WriterStatusSchema = z
  .object({
    lake: z.string(),
    instanceStartedAt: z.string().openapi({ description: "when this activation of the lake writer began" }),
    requestsServed: z.number().int(),
    writer: z.record(z.string(), z.unknown()).nullable().openapi({
      description: "the open writer's counters (batches, flushes, stalls), or null before it opens",
    }),
  })
  .openapi("WriterStatus");

const writerStatus = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/writer",
  summary: "The lake writer's own view of itself (which activation is serving). Reaches the Durable Object.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: { params: LakeParamSchema },
  responses: {
    200: { description: "writer status", content: { "application/json": { schema: WriterStatusSchema } } },
    ...lakeRouteErrors,
  },
});

export function registerWriterRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(writerStatus, async (c) => {
    const { lake } = c.req.valid("param");
    // Never wake (and so create) an object for a lake that does not exist.
    await requireLiveLake(c.env, lake);
    const status = await callWriter(c.env, lake, (stub) => stub.status(lake));
    return c.json(status, 200);
  });
}
