/**
 * The HTTP app: every route lives under /v1, is described in OpenAPI from the same zod schemas that
 * validate it, and fails with one JSON envelope whose status follows the error's code.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { CodedError } from "../storage/errors.ts";
import type { AppEnv } from "./app-env.ts";
import { ApiError, publicCode, retryAfterForCode, statusForCode } from "./errors.ts";
import { clientMessage } from "./lakes.ts";
import { log } from "./log.ts";
import { lakeName, maxBody, noDotSegments, requestContext } from "./middleware.ts";
import { withOperationIds } from "./openapi-names.ts";
import { registerCheckpointRoutes } from "./routes/checkpoints.ts";
import { registerCommitRoutes } from "./routes/commits.ts";
import { registerDataRoutes } from "./routes/data.ts";
import { registerHealthRoutes } from "./routes/health.ts";
import { registerInlinedRoutes } from "./routes/inlined.ts";
import { registerLakeRoutes } from "./routes/lakes.ts";
import { registerMaintenanceRoutes } from "./routes/maintenance.ts";
import { registerMetricsRoutes } from "./routes/metrics.ts";
import { registerQuackRoutes } from "./routes/quack.ts";
import { registerReadRoutes } from "./routes/reads.ts";
import { registerRowRoutes } from "./routes/rows.ts";
import { registerWriterRoutes } from "./routes/writer.ts";

export const API_VERSION = "0.1.0";

function describeZodError(error: ZodError, target: string): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : target;
    return `${path}: ${issue.message}`;
  });
  return `invalid ${target}: ${parts.join("; ")}`;
}

/**
 * RFC 6750's challenge on 401 (and on 403, naming the missing scope), so HTTP clients can tell "send a
 * token" from "this token may not" without reading the body.
 */
function bearerChallenge(code: string, presented: boolean): string | undefined {
  const realm = 'Bearer realm="ducklake-edge"';
  if (code === "Unauthorized") return presented ? `${realm}, error="invalid_token"` : realm;
  if (code === "Forbidden") return `${realm}, error="insufficient_scope"`;
  return undefined;
}

export function errorResponse(c: Context<AppEnv>, rawCode: string, message: string): Response {
  const code = publicCode(rawCode);
  const status = statusForCode(code);
  c.set("errorCode", code);
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  const retryAfter = retryAfterForCode(code);
  if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
  const challenge = bearerChallenge(code, c.req.header("authorization") !== undefined);
  if (challenge !== undefined) headers["www-authenticate"] = challenge;
  const body = JSON.stringify({ error: { code, message, requestId: c.get("requestId") ?? "unknown" } });
  // Stated, so a HEAD answer (whose body is dropped) still tells the client how long the GET's would be.
  headers["content-length"] = String(new TextEncoder().encode(body).byteLength);
  return new Response(body, { status, headers });
}

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        return errorResponse(
          c as Context<AppEnv>,
          "InvalidRequest",
          describeZodError(result.error, result.target),
        );
      }
    },
  });

  app.use("*", requestContext);
  app.use("*", noDotSegments);
  app.use("/v1/*", maxBody);
  app.use("/v1/lakes/:lake", lakeName);
  app.use("/v1/lakes/:lake/*", lakeName);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  registerHealthRoutes(app);
  registerLakeRoutes(app);
  registerCommitRoutes(app);
  registerCheckpointRoutes(app);
  registerWriterRoutes(app);
  registerMetricsRoutes(app);
  registerDataRoutes(app);
  registerReadRoutes(app);
  registerRowRoutes(app);
  registerInlinedRoutes(app);
  registerMaintenanceRoutes(app);
  registerQuackRoutes(app);

  // Every operation gets an operationId and a tag derived from its route, so generators other than the
  // in-repo client name things well; `servers` names the local and deployed origins (decision 0485).
  app.get("/v1/openapi.json", (c) => {
    const doc = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "ducklake-edge",
        version: API_VERSION,
        description:
          "A DuckLake catalog on Cloudflare: commits go to one Durable Object per lake; reads come from R2.",
      },
      servers: [
        { url: "http://localhost:8787", description: "npm start (local, dev token dev-token-change-me)" },
        {
          url: "https://ducklake-edge.{account}.workers.dev",
          description: "wrangler deploy",
          variables: { account: { default: "account" } },
        },
      ],
    });
    return c.json(withOperationIds(doc));
  });

  app.notFound((c) => errorResponse(c, "NotFound", `no route for ${c.req.method} ${c.req.path}`));

  app.onError((err, c) => {
    if (err instanceof CodedError) return errorResponse(c, err.code, clientMessage(err, c.req.param("lake")));
    if (err instanceof HTTPException) {
      // Hono raises these for malformed bodies before our validators run.
      if (err.status === 413) return errorResponse(c, "PayloadTooLarge", err.message);
      if (err.status < 500) return errorResponse(c, "InvalidRequest", err.message || "malformed request");
    }
    log(
      "error",
      {
        msg: "unhandled error",
        requestId: c.get("requestId"),
        error: String(err),
        stack: (err as Error).stack,
      },
      "error",
    );
    return errorResponse(c, "Internal", "internal error; it has been logged with this request id");
  });
  return app;
}

export { ApiError };
