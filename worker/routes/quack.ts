/**
 * The Quack front door: `POST /quack` speaks Quack v1 (DuckDB 1.5.x) so that stock DuckDB attaches a
 * lake with `ATTACH 'ducklake:quack:<host>:<port>'`; `OPTIONS /quack` and `GET /` answer as stock's
 * server does; `GET /v1/lakes/{lake}/quack` tells a person what to paste into DuckDB (decision records
 * 0201-0203).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { dataPathOf, lakeDataPathExternal, lakeDataUrl } from "../../catalog/index.ts";

import { lakeState } from "../../storage/lakes.ts";
import type { AppEnv } from "../app-env.ts";
import { readBodyWithin } from "../body-limit.ts";
import { openCut } from "../cut.ts";
import { requireScope } from "../middleware.ts";
import { handleQuack, oversized } from "../quack/handler.ts";
import { MAX_MESSAGE_BYTES } from "../quack/messages.ts";
import { lakeRecipe } from "../quack/recipe.ts";
import { isolateResults } from "../quack/results.ts";
import { RequestTimer, timed, timedBucket, timingEnabled } from "../request-timing.ts";
import { bearerSecurity, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

const QUACK_CONTENT_TYPE = "application/vnd.duckdb";
const CORS = { "access-control-allow-origin": "*" };

const postQuack = createRoute({
  method: "post",
  path: "/quack",
  summary:
    "Quack v1 (DuckDB 1.5.x): one binary message in, one out. HTTP 200 even for errors (an ERROR_RESPONSE message). The token travels inside CONNECTION_REQUEST.",
  request: {
    body: {
      required: true,
      content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
    },
  },
  responses: {
    200: {
      description:
        "a Quack message (CONNECTION_RESPONSE, PREPARE_RESPONSE, FETCH_RESPONSE, SUCCESS or ERROR_RESPONSE)",
      content: { [QUACK_CONTENT_TYPE]: { schema: z.string().openapi({ format: "binary" }) } },
    },
  },
});

const optionsQuack = createRoute({
  method: "options",
  path: "/quack",
  summary: "CORS preflight for the Quack endpoint, as stock answers it.",
  responses: { 204: { description: "allowed" } },
});

const root = createRoute({
  method: "get",
  path: "/",
  summary: "Says this is a Quack endpoint (as stock's server does) and where the HTTP API lives.",
  responses: { 200: { description: "plain text", content: { "text/plain": { schema: z.string() } } } },
});

const QuackRecipeSchema = z
  .object({
    dataSecret: z.string().nullable().openapi({
      description:
        "DuckDB's httpfs reaches the lake's files through this Worker's S3 endpoint (/s3) with this secret; null when the lake's data path is external",
      example:
        "CREATE SECRET sales_data (TYPE r2, KEY_ID 'sales', SECRET '<token>', ENDPOINT 'edge.example.com/s3', URL_STYLE 'path', USE_SSL true, REGION 'auto', EXTRA_HTTP_HEADERS MAP {'Expect': ''}, SCOPE 'r2://ducklake-edge/lakes/sales/');",
    }),
    statements: z.array(z.string()).openapi({ description: "every statement, in order" }),
    note: z.string().nullable(),
    secret: z.string().openapi({
      example:
        "CREATE SECRET sales_quack (TYPE quack, TOKEN 'sales:<token>', SCOPE 'quack:edge.example.com:443');",
    }),
    attach: z.string().openapi({ example: "ATTACH 'ducklake:quack:edge.example.com:443' AS sales;" }),
  })
  .openapi("QuackRecipe");

const recipe = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/quack",
  summary:
    "What to type into stock DuckDB 1.5.5 to attach this lake over Quack from the caller's host (token left as <token>). Read scope.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: { params: LakeParamSchema },
  responses: {
    200: { description: "the statements", content: { "application/json": { schema: QuackRecipeSchema } } },
    ...lakeRouteErrors,
  },
});

export function registerQuackRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(postQuack, async (c) => {
    // Off by default: no timer, the bindings as they are (docs/decisions/0640-quack-request-timing.md).
    const timer = timingEnabled(c.env) ? new RequestTimer() : null;
    const env = timer === null ? c.env : { ...c.env, BUCKET: timedBucket(c.env.BUCKET, timer) };
    // Cut at the limit while it streams, declared length or chunked (decision 0400).
    const read = await timed(timer, "body", () => readBodyWithin(c.req.raw, MAX_MESSAGE_BYTES));
    if (read === null) {
      c.set("errorCode", "QuackLimit");
      return new Response(oversized(), {
        status: 200,
        headers: { "content-type": QUACK_CONTENT_TYPE, ...CORS },
      });
    }
    const bytes = read;
    const out = await handleQuack({
      env,
      body: bytes,
      requestId: c.get("requestId"),
      now: Date.now(),
      results: isolateResults,
      timer,
    });
    if (out.lake) c.set("lake", out.lake);
    // The access line (worker/middleware.ts) carries the code: one line per request.
    if (out.error) c.set("errorCode", out.error);
    const headers: Record<string, string> = { "content-type": QUACK_CONTENT_TYPE, ...CORS };
    if (timer !== null) headers["server-timing"] = timer.header();
    return new Response(out.body, { status: 200, headers });
  });

  app.openapi(optionsQuack, () => {
    return new Response(null, {
      status: 204,
      headers: {
        ...CORS,
        "access-control-allow-methods": "GET, POST, OPTIONS",
        "access-control-allow-headers": "*",
      },
    });
  });

  app.openapi(root, (c) =>
    c.text(
      "This is ducklake-edge. The web explorer is at /ui (open /ui#token=<token>). It is also a DuckDB Quack RPC endpoint: use ATTACH 'ducklake:quack:...' to connect here; GET /v1/lakes/<lake>/quack says what to type. The HTTP API is under /v1 (/v1/openapi.json).\n",
      200,
    ),
  );

  app.openapi(recipe, async (c) => {
    const { lake } = c.req.valid("param");
    const url = new URL(c.req.url);
    const absent = (await lakeState(c.env.BUCKET, lake)).state !== "live";
    let dataPath = lakeDataUrl(c.env.BUCKET_NAME, lake);
    let external: string | null = null;
    if (!absent) {
      const opened = await openCut(c.env, lake, {});
      dataPath = await dataPathOf(opened.view);
      external = await lakeDataPathExternal(opened.view, c.env.BUCKET_NAME, lake);
    }
    const host = c.req.header("host") ?? url.host;
    return c.json(lakeRecipe(lake, host, url.protocol === "https:", { dataPath, external, absent }), 200);
  });
}
