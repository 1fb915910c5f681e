/**
 * Commits: validated here, forwarded to the lake's writer, answered once durable and published. Every
 * forwarded commit carries an idempotency key — the client's, or one the Worker mints — so the Worker can
 * retry across an object reset without committing twice.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MINTED_KEY_SKEW_MS, VerbSchema } from "../../catalog/index.ts";
import type { AppEnv } from "../app-env.ts";
import { checkRegisteredFiles } from "../file-checks.ts";
import { forwardWithKey, IDEMPOTENCY_TTL_SECONDS } from "../forward.ts";
import { requireScope } from "../middleware.ts";
import { bearerSecurity, ErrorEnvelopeSchema, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

export { IDEMPOTENCY_TTL_SECONDS };

const CommitBodySchema = z
  .object({
    verbs: z
      .array(VerbSchema)
      .min(1)
      .max(1000)
      .openapi({
        description: "catalog changes applied as one snapshot, in order",
        example: [
          { op: "create_schema", name: "sales" },
          {
            op: "create_table",
            schema: "sales",
            name: "orders",
            columns: [
              { name: "id", type: "int64" },
              { name: "amount", type: "decimal(10,2)" },
            ],
          },
        ],
      }),
    author: z.string().max(1024).optional(),
    message: z.string().max(16_384).optional(),
    extraInfo: z.string().max(16_384).optional(),
  })
  .strict()
  .openapi("CommitRequest");

const CommitResultSchema = z
  .object({
    snapshotId: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "null when the commit minted no snapshot (options only)" }),
    schemaVersion: z.number().int(),
    assigned: z
      .array(z.record(z.string(), z.unknown()))
      .openapi({ description: "ids assigned by each verb, in order" }),
    position: z.number().int().openapi({ description: "read-your-writes token: pass as ?after= on reads" }),
    replayed: z
      .boolean()
      .optional()
      .openapi({ description: "true when answered from an earlier commit with the same key" }),
  })
  .openapi("CommitResult");

export const IdempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,200}$/, "Idempotency-Key must be 1-200 of A-Z a-z 0-9 . _ : -")
    .optional()
    .openapi({
      param: { name: "idempotency-key", in: "header" },
      description: `replays the first success for ${IDEMPOTENCY_TTL_SECONDS} s; the same key with a different body is refused. The form edge:<13-digit ms>:<uuid> is the one the server mints for requests without a key: a client key of that form must carry a time within ${MINTED_KEY_SKEW_MS / 60_000} minutes of the server's clock (InvalidRequest otherwise)`,
    }),
});

const commitRoute = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/commits",
  summary: "Commit a list of verbs as one snapshot (forwarded to the lake's writer; durable when answered).",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: {
    params: LakeParamSchema,
    headers: IdempotencyHeader,
    body: { required: true, content: { "application/json": { schema: CommitBodySchema } } },
  },
  responses: {
    200: { description: "committed", content: { "application/json": { schema: CommitResultSchema } } },
    409: {
      description:
        "CommitConflict (text contains 'conflict'), AlreadyExists, Constraint or IdempotencyKeyReused",
      content: { "application/json": { schema: ErrorEnvelopeSchema } },
    },
    422: { description: "Unsupported", content: { "application/json": { schema: ErrorEnvelopeSchema } } },
    ...lakeRouteErrors,
  },
});

export function registerCommitRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(commitRoute, async (c) => {
    const { lake } = c.req.valid("param");
    const body = c.req.valid("json");
    const clientKey = c.req.valid("header")["idempotency-key"];
    await checkRegisteredFiles(c.env, lake, body.verbs);
    const result = await forwardWithKey(c, lake, clientKey, (stub, key) =>
      stub.commit(lake, body.verbs, {
        idempotencyKey: key,
        ...(body.author !== undefined ? { author: body.author } : {}),
        ...(body.message !== undefined ? { message: body.message } : {}),
        ...(body.extraInfo !== undefined ? { extraInfo: body.extraInfo } : {}),
      }),
    );
    return c.json(result as z.infer<typeof CommitResultSchema>, 200);
  });
}
