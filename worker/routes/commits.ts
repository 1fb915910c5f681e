/**
 * Commits: validated here, forwarded to the lake's writer, answered once durable and published. Every
 * forwarded commit carries an idempotency key — the client's, or one the Worker mints — so the Worker can
 * retry across an object reset without committing twice.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { VerbSchema } from "../../catalog/index.ts";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../errors.ts";
import { checkRegisteredFiles } from "../file-checks.ts";
import { callWriter } from "../lake-rpc.ts";
import { log } from "../log.ts";
import { requireScope } from "../middleware.ts";
import { bearerSecurity, ErrorEnvelopeSchema, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

/** How long the catalog keeps an idempotency record (catalog default), advertised to clients. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Attempts at reaching the writer for one commit (first try plus retries under the key). */
const ATTEMPTS = 3;

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

const IdempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,200}$/, "Idempotency-Key must be 1-200 of A-Z a-z 0-9 . _ : -")
    .optional()
    .openapi({
      param: { name: "idempotency-key", in: "header" },
      description: `replays the first success for ${IDEMPOTENCY_TTL_SECONDS} s; the same key with a different body is refused`,
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
    const key = clientKey ?? `edge:${crypto.randomUUID()}`;
    await checkRegisteredFiles(c.env, lake, body.verbs);
    let lastUnavailable: ApiError | undefined;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const result = await callWriter(c.env, lake, (stub) =>
          stub.commit(lake, body.verbs, {
            idempotencyKey: key,
            ...(body.author !== undefined ? { author: body.author } : {}),
            ...(body.message !== undefined ? { message: body.message } : {}),
            ...(body.extraInfo !== undefined ? { extraInfo: body.extraInfo } : {}),
          }),
        );
        c.header("idempotency-key-ttl", String(IDEMPOTENCY_TTL_SECONDS));
        if (clientKey) c.header("idempotency-key", clientKey);
        return c.json(result as z.infer<typeof CommitResultSchema>, 200);
      } catch (err) {
        // Only an unreachable object is retried, always under the same key, so a commit that did land
        // is answered from its record rather than made twice.
        if (!(err instanceof ApiError) || err.code !== "Unavailable") throw err;
        lastUnavailable = err;
        log(
          "warn",
          { msg: "commit retry after writer unavailable", lake, attempt, requestId: c.get("requestId") },
          c.env.LOG_LEVEL,
        );
      }
    }
    if (clientKey)
      throw lastUnavailable ?? new ApiError("Unavailable", "the lake writer could not be reached");
    throw new ApiError(
      "CommitOutcomeUnknown",
      `the writer for lake '${lake}' could not be reached after ${ATTEMPTS} attempts and the commit may or may not have landed; read the lake's snapshots before retrying, or send an Idempotency-Key so retries are safe`,
    );
  });
}
