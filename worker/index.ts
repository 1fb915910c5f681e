/** Worker entry: the S3 endpoint (/s3/, worker/s3/serve.ts), the explorer's static files (/ui), the HTTP API, and the Durable Object class wrangler binds as LAKE_WRITER. */
import { createApp } from "./app.ts";
import type { Env } from "./env.ts";
import { isS3Request, serveS3 } from "./s3/serve.ts";
import { serveUi } from "./ui.ts";

export { LakeWriter } from "../durable-objects/lake-writer.ts";

const app = createApp();

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) =>
    isS3Request(request) ? serveS3(request, env) : (serveUi(request) ?? app.fetch(request, env, ctx)),
} satisfies ExportedHandler<Env>;
