/** Cross-cutting request handling: request ids, access logs, lake-name checks, auth, body limits. */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.ts";
import { authenticate, authorize, type Scope } from "./auth.ts";
import { readBodyWithin } from "./body-limit.ts";
import { dotSegmentIn, rawPathOf } from "./data-path.ts";
import { ApiError } from "./errors.ts";
import { refuseDeepJson } from "./json-depth.ts";
import { isLakeName } from "./lake-name.ts";
import { log } from "./log.ts";

const DEFAULT_MAX_BODY = 1 << 20;

export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const requestId = incoming && /^[\w.-]{1,100}$/.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", requestId);
  const started = Date.now();
  await next();
  c.res.headers.set("x-request-id", requestId);
  log(
    c.res.status >= 500 ? "error" : "info",
    {
      msg: "request",
      requestId,
      method: c.req.method,
      route: c.req.routePath,
      path: c.req.path,
      lake: c.get("lake") ?? null,
      status: c.res.status,
      durationMs: Date.now() - started,
      errorCode: c.get("errorCode") ?? null,
    },
    c.env?.LOG_LEVEL,
  );
};

/**
 * A path with a dot segment (`..`, `%2e%2e`, `.%2E`, ...) is refused before routing: resolved, it could
 * name another lake's route (docs/decisions/0102-data-paths.md). Runtimes and proxies that resolve such
 * segments before the Worker runs deliver the resolved path, which is then authorised as what it names.
 */
export const noDotSegments: MiddlewareHandler<AppEnv> = async (c, next) => {
  const seg = dotSegmentIn(rawPathOf(c.req.raw.url));
  if (seg !== null) {
    throw new ApiError(
      "InvalidRequest",
      `the request path holds the dot segment '${seg}'; paths must name objects directly`,
    );
  }
  await next();
};

/** A bad lake name is refused here, before any route could reach a Durable Object. */
export const lakeName: MiddlewareHandler<AppEnv> = async (c, next) => {
  const lake = c.req.param("lake");
  if (lake === undefined || !isLakeName(lake)) {
    throw new ApiError(
      "InvalidRequest",
      "invalid lake name in the path: use 1-63 lowercase letters, digits or '-'",
    );
  }
  c.set("lake", lake);
  await next();
};

const DATA_UPLOAD = /^\/v1\/lakes\/[^/]+\/data\//;

/**
 * JSON bodies are capped here, cut while they stream (`body-limit.ts`); data uploads stream and enforce
 * their own, larger limit. A JSON body nested deeper than MAX_JSON_DEPTH is refused here too, before a
 * route could forward it to a writer (decision 0403).
 */
export const maxBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (DATA_UPLOAD.test(c.req.path) || !c.req.raw.body) return next();
  const limit = Number(c.env?.MAX_BODY_BYTES ?? DEFAULT_MAX_BODY) || DEFAULT_MAX_BODY;
  const body = await readBodyWithin(c.req.raw, limit);
  if (body === null) throw new ApiError("PayloadTooLarge", `request body exceeds ${limit} bytes`);
  const type = c.req.header("content-type") ?? "";
  if (type === "" || type.includes("json")) refuseDeepJson(body);
  c.req.raw = new Request(c.req.raw, { body });
  await next();
};

/** Requires a bearer token with `scope` on the route's lake (or on every lake for lake-less routes). */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c: Context<AppEnv>, next) => {
    const grant = await authenticate(c.env, c.req.header("authorization"));
    authorize(grant, c.req.param("lake") ?? null, scope);
    c.set("grant", grant);
    await next();
  };
}
