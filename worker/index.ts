/** Worker entry: the HTTP app, plus the Durable Object class wrangler binds as LAKE_WRITER. */
import { createApp } from "./app.ts";

export { LakeWriter } from "../durable-objects/lake-writer.ts";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<import("./env.ts").Env>;
