/**
 * Named checkpoints (admin): pinned cuts any reader can open with `?checkpoint=ID`, read from immutable
 * objects only. Minting and deleting go to the lake's writer; listing is read from R2 by the Worker.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { listPublishedCheckpoints } from "../../storage/index.ts";
import type { AppEnv } from "../app-env.ts";
import { callWriter } from "../lake-rpc.ts";
import { requireLiveLake } from "../lakes.ts";
import { requireScope } from "../middleware.ts";
import { workerObjectCache } from "../object-cache.ts";
import { bearerSecurity, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

/** Longest lifetime accepted: a checkpoint pins objects against garbage collection while it lives. */
const MAX_LIFETIME_SECONDS = 30 * 24 * 3600;

const CheckpointSchema = z
  .object({
    id: z.string().openapi({ example: "3-9f0c2a4b6d8e4f1a8b3c5d7e9f0a1b2c" }),
    manifestVersion: z.number().int(),
    walRange: z.object({ from: z.number().int(), to: z.number().int() }),
    position: z.number().int().optional(),
    createdAt: z.number().int().optional(),
    expiresAt: z.number().int().nullable().openapi({ description: "ms since epoch; null = until deleted" }),
  })
  .openapi("Checkpoint");

const CreateSchema = z
  .object({
    lifetimeSeconds: z.number().int().min(1).max(MAX_LIFETIME_SECONDS).optional().openapi({
      description: "how long the checkpoint can be opened; omitted = until deleted",
      example: 3600,
    }),
  })
  .strict()
  .openapi("CreateCheckpoint");

const IdParams = LakeParamSchema.extend({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "checkpoint ids are letters, digits, '-' and '_'")
    .openapi({ param: { name: "id", in: "path" } }),
});

const createCheckpoint = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/checkpoints",
  summary: "Mint a named checkpoint of the lake's newest durable cut (admin).",
  security: bearerSecurity,
  middleware: [requireScope("admin")] as const,
  request: {
    params: LakeParamSchema,
    body: { required: true, content: { "application/json": { schema: CreateSchema } } },
  },
  responses: {
    201: { description: "minted", content: { "application/json": { schema: CheckpointSchema } } },
    ...lakeRouteErrors,
  },
});

const listCheckpoints = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/checkpoints",
  summary: "Live checkpoints of the lake, as the newest published manifest records them (admin).",
  security: bearerSecurity,
  middleware: [requireScope("admin")] as const,
  request: { params: LakeParamSchema },
  responses: {
    200: {
      description: "checkpoints",
      content: { "application/json": { schema: z.object({ checkpoints: z.array(CheckpointSchema) }) } },
    },
    ...lakeRouteErrors,
  },
});

const deleteCheckpoint = createRoute({
  method: "delete",
  path: "/v1/lakes/{lake}/checkpoints/{id}",
  summary:
    "Delete a checkpoint: opening it is refused at once; its objects are collected after the grace (admin).",
  security: bearerSecurity,
  middleware: [requireScope("admin")] as const,
  request: { params: IdParams },
  responses: {
    204: { description: "deleted" },
    ...lakeRouteErrors,
  },
});

export function registerCheckpointRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createCheckpoint, async (c) => {
    const { lake } = c.req.valid("param");
    const body = c.req.valid("json");
    const info = await callWriter(c.env, lake, (stub) =>
      stub.createCheckpoint(
        lake,
        body.lifetimeSeconds !== undefined ? { lifetimeMs: body.lifetimeSeconds * 1000 } : {},
      ),
    );
    return c.json(info, 201);
  });

  app.openapi(listCheckpoints, async (c) => {
    const { lake } = c.req.valid("param");
    await requireLiveLake(c.env, lake);
    const checkpoints = await listPublishedCheckpoints(c.env.BUCKET, lake, { cache: workerObjectCache() });
    return c.json({ checkpoints }, 200);
  });

  app.openapi(deleteCheckpoint, async (c) => {
    const { lake, id } = c.req.valid("param");
    await callWriter(c.env, lake, (stub) => stub.deleteCheckpoint(lake, id));
    return c.body(null, 204);
  });
}
