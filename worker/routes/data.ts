/**
 * Data files (Parquet data and delete files) under a lake's data prefix in R2. Uploads are streamed and
 * put-if-absent: a file, once written, never changes, which is what lets the catalog register it by
 * path and size. Reads support Range so a query engine can fetch footers and column chunks.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { checkDataPath, dataObjectKey, rawPathOf } from "../data-path.ts";
import { ApiError, invalid, notFound } from "../errors.ts";
import { requireLiveLake } from "../lakes.ts";
import { requireScope } from "../middleware.ts";
import { CACHE_LIFETIME_MS } from "../object-cache.ts";
import { bearerSecurity, ErrorEnvelopeSchema, lakeRouteErrors } from "../schemas/common.ts";

const DEFAULT_MAX_DATA_FILE = 100 * 1024 * 1024;
/**
 * Data answers are bearer-authenticated, so only the client's own cache may keep them (`private`), per
 * token (`Vary: Authorization`), and for less than a deleted lake's grace period, so a lake re-created
 * under the same name can never be answered from the old one's bytes. They never enter the Workers cache.
 * Decision: docs/decisions/0100-data-caching.md.
 */
export const DATA_CACHE_CONTROL = `private, max-age=${CACHE_LIFETIME_MS / 1000}`;
export const DATA_ROUTE = "/v1/lakes/:lake/data/*";

const UploadedSchema = z
  .object({ path: z.string(), size: z.number().int(), etag: z.string() })
  .openapi("UploadedDataFile");

function dataPathOf(c: Context<AppEnv>, lake: string): string {
  const prefix = `/v1/lakes/${lake}/data/`;
  // As sent: new URL() would resolve dot segments (docs/decisions/0102-data-paths.md).
  const raw = rawPathOf(c.req.raw.url);
  if (!raw.startsWith(prefix)) throw invalid("data path is missing");
  return checkDataPath(raw.slice(prefix.length));
}

async function upload(c: Context<AppEnv>): Promise<Response> {
  const lake = c.get("lake") as string;
  const path = dataPathOf(c, lake);
  const max = Number(c.env.MAX_DATA_FILE_BYTES ?? DEFAULT_MAX_DATA_FILE) || DEFAULT_MAX_DATA_FILE;
  const lengthHeader = c.req.header("content-length");
  if (lengthHeader === undefined || !/^\d+$/.test(lengthHeader)) {
    throw invalid("Content-Length is required for data uploads (R2 stores only bodies of known length)");
  }
  const length = Number(lengthHeader);
  if (length > max)
    throw new ApiError("PayloadTooLarge", `data file is ${length} bytes; the limit is ${max}`);
  await requireLiveLake(c.env, lake);
  const body = c.req.raw.body ?? new Blob([]).stream();
  const fixed = new FixedLengthStream(length);
  const piping = body.pipeTo(fixed.writable).then(
    () => null,
    (err: unknown) => err,
  );
  let stored: R2Object | null;
  try {
    stored = await c.env.BUCKET.put(dataObjectKey(lake, path), fixed.readable, {
      onlyIf: { etagDoesNotMatch: "*" },
    });
  } catch (err) {
    const pipeErr = await piping;
    if (pipeErr) throw invalid(`the body did not match Content-Length ${length}`);
    throw err;
  }
  if ((await piping) !== null) throw invalid(`the body did not match Content-Length ${length}`);
  if (!stored) {
    throw new ApiError(
      "AlreadyExists",
      `data file '${path}' already exists; data files are immutable once written`,
    );
  }
  return c.json({ path, size: stored.size, etag: stored.etag }, 201);
}

async function download(c: Context<AppEnv>): Promise<Response> {
  const lake = c.get("lake") as string;
  const path = dataPathOf(c, lake);
  await requireLiveLake(c.env, lake);
  const key = dataObjectKey(lake, path);
  const isHead = c.req.method === "HEAD";
  const hasRange = c.req.header("range") !== undefined;
  const object = isHead
    ? await c.env.BUCKET.head(key)
    : await c.env.BUCKET.get(key, hasRange ? { range: c.req.raw.headers } : {});
  if (!object) throw notFound(`data file '${path}' does not exist in lake '${lake}'`);
  const headers = new Headers({
    etag: object.httpEtag,
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
    "cache-control": DATA_CACHE_CONTROL,
    vary: "authorization",
  });
  if (isHead || !("body" in object)) {
    headers.set("content-length", String(object.size));
    return new Response(null, { status: 200, headers });
  }
  const full = object as R2ObjectBody;
  const range = full.range as { offset?: number; length?: number } | undefined;
  if (hasRange && range) {
    const offset = range.offset ?? 0;
    const len = range.length ?? object.size - offset;
    headers.set("content-range", `bytes ${offset}-${offset + len - 1}/${object.size}`);
    headers.set("content-length", String(len));
    return new Response(full.body, { status: 206, headers });
  }
  headers.set("content-length", String(object.size));
  return new Response(full.body, { status: 200, headers });
}

export function registerDataRoutes(app: OpenAPIHono<AppEnv>): void {
  app.put(DATA_ROUTE, requireScope("write"), upload);
  app.on(["GET", "HEAD"], DATA_ROUTE, requireScope("read"), download);

  const pathParams = z.object({
    lake: z.string().openapi({ param: { name: "lake", in: "path" }, example: "sales" }),
    path: z
      .string()
      .openapi({ param: { name: "path", in: "path" }, example: "main/orders/part-0001.parquet" }),
  });
  const route = "/v1/lakes/{lake}/data/{path}";
  app.openAPIRegistry.registerPath({
    method: "put",
    path: route,
    summary: "Upload a data or delete file (streamed, put-if-absent; Content-Length required).",
    security: bearerSecurity,
    request: {
      params: pathParams,
      body: { content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
    },
    responses: {
      201: { description: "stored", content: { "application/json": { schema: UploadedSchema } } },
      409: {
        description: "AlreadyExists: files never change",
        content: { "application/json": { schema: ErrorEnvelopeSchema } },
      },
      ...lakeRouteErrors,
    },
  });
  for (const method of ["get", "head"] as const) {
    app.openAPIRegistry.registerPath({
      method,
      path: route,
      summary:
        method === "get"
          ? "Download a data file; honours Range (206)."
          : "A data file's size and ETag, without its body.",
      security: bearerSecurity,
      request: { params: pathParams },
      responses: {
        200: { description: "the file" },
        206: { description: "the requested byte range" },
        ...lakeRouteErrors,
      },
    });
  }
}
