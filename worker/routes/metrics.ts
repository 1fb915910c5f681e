/**
 * `GET /v1/lakes/{lake}/metrics`: the lake writer's own counters (commits, batches and their sizes,
 * flushes, conflicts and retries by class, idempotent replays, latency histograms by phase, background
 * work, and per-10-second activity for charts). Like `…/writer`, this read-scoped route reaches the
 * Durable Object on purpose: the numbers live only there. It never creates an object for a missing lake.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { callWriter } from "../lake-rpc.ts";
import { requireLiveLake } from "../lakes.ts";
import { requireScope } from "../middleware.ts";
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from "../prometheus.ts";
import { bearerSecurity, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

const HistogramSchema = z
  .object({
    bounds: z
      .array(z.number())
      .openapi({ description: "inclusive upper bounds; counts has one more (open) bucket" }),
    counts: z.array(z.number().int()),
    count: z.number().int(),
    sum: z.number(),
    max: z.number(),
  })
  .openapi("Histogram");

const ActivitySchema = z
  .object({
    t: z.number().int().openapi({ description: "bucket start, ms since the epoch" }),
    commits: z.number().int(),
    batches: z.number().int(),
    conflicts: z.number().int(),
    retries: z.number().int(),
    failures: z.number().int(),
    latencyMsSum: z.number(),
    latencyMsMax: z.number(),
  })
  .openapi("ActivityBucket");

const count = z.number().int();

const MetricsSchema = z
  .object({
    lake: z.string(),
    instanceStartedAt: z
      .string()
      .openapi({ description: "the counters cover this activation of the writer" }),
    metrics: z.object({
      since: z.number().int(),
      commits: z.object({
        ok: count,
        failed: count,
        replayed: count.openapi({ description: "answered from an idempotency record" }),
        byCode: z.record(z.string(), count),
      }),
      batches: z.object({ count, members: count, sizes: HistogramSchema }),
      flushes: count,
      conflicts: count,
      retries: z.object({ total: count, byClass: z.record(z.string(), count) }),
      latencyMs: z.object({
        queue: HistogramSchema,
        submit: HistogramSchema,
        durability: HistogramSchema,
        total: HistogramSchema,
      }),
      background: z.object({
        passes: count,
        sweptKeys: count,
        maintenanceSteps: count,
        memtableFlushes: count,
        compactions: count,
        objectsDeleted: count,
      }),
      storeBytes: z.object({ flushed: count, compacted: count, moved: count }).openapi({
        description:
          "bytes the store's maintenance wrote (memtable flushes, compaction) and moved into runs unchanged, since the writer's store last opened",
      }),
      activity: z.object({ bucketMs: count, buckets: z.array(ActivitySchema) }),
    }),
  })
  .openapi("WriterMetrics");

const metricsRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/metrics",
  summary:
    "The lake writer's counters: commits, batch sizes, flushes, conflicts, retries, replays, latency by phase, background work, recent activity. Reaches the Durable Object.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: {
    params: LakeParamSchema,
    query: z.object({
      format: z
        .enum(["json", "prometheus"])
        .optional()
        .openapi({
          param: { name: "format", in: "query" },
          description: "prometheus: the text exposition format (also chosen by Accept: text/plain)",
        }),
    }),
  },
  responses: {
    200: {
      description:
        "writer metrics; with ?format=prometheus (or Accept: text/plain) the same counters as Prometheus text exposition 0.0.4 (content-type text/plain; version=0.0.4)",
      content: { "application/json": { schema: MetricsSchema } },
    },
    ...lakeRouteErrors,
  },
});

export function registerMetricsRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(metricsRoute, async (c) => {
    const { lake } = c.req.valid("param");
    await requireLiveLake(c.env, lake);
    const answer = await callWriter(c.env, lake, (stub) => stub.metrics(lake));
    const format = c.req.valid("query").format;
    const accept = c.req.header("accept") ?? "";
    if (
      format === "prometheus" ||
      (format === undefined && /text\/plain/.test(accept) && !/json/.test(accept))
    ) {
      // Outside the typed JSON contract on purpose (the document describes it in words): keeps the typed
      // client's answer the JSON object the explorer reads.
      const text = new Response(prometheusText(lake, answer.metrics), {
        status: 200,
        headers: { "content-type": PROMETHEUS_CONTENT_TYPE },
      });
      return text as never;
    }
    return c.json(answer, 200);
  });
}
