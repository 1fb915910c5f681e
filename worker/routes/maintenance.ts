/**
 * Managed maintenance (issue 14): run jobs now (the lake's writer runs them and answers the runs), and the
 * history of runs, newest first and paged, read from the lake's newest published cut by the Worker alone
 * (the history is durable in the lake's store: catalog/maintenance/runs.ts), with the settings in force.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { JOB_SWITCH, MAX_JOB_RUNS_PAGE, maintenanceSettings, readJobRuns } from "../../catalog/index.ts";
import { JOB_NAMES, type JobName } from "../../maintenance/history.ts";
import type { AppEnv } from "../app-env.ts";
import { openCut } from "../cut.ts";
import { callWriter } from "../lake-rpc.ts";
import { requireScope } from "../middleware.ts";
import { nextCursor, pageCursor } from "../page-cursor.ts";
import { pageLimit } from "../page-limit.ts";
import { bearerSecurity, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

const JobNameSchema = z.enum(JOB_NAMES as [JobName, ...JobName[]]).openapi("MaintenanceJob", {
  description:
    "1 flush_inlined, 2 merge_adjacent, 3 rewrite_deletes, 4 expire_snapshots, 5 delete_files (in run order)",
});

const JobRunSchema = z
  .object({
    seq: z.number().int().openapi({ description: "position in the history; pass as `before` to page" }),
    job: JobNameSchema,
    tableId: z.number().int().optional(),
    startedAt: z.number().int().openapi({ description: "ms since the epoch" }),
    durationMs: z.number().int(),
    filesIn: z.number().int(),
    filesOut: z.number().int(),
    rowsIn: z.number().int(),
    rowsOut: z.number().int(),
    bytesIn: z.number().int().optional().openapi({
      description:
        "bytes of the files the run read (compaction jobs; absent for jobs that read no data files)",
    }),
    bytesOut: z.number().int().optional().openapi({ description: "bytes of the files the run wrote" }),
    snapshotsExpired: z.number().int().optional().openapi({
      description: "expire_snapshots: snapshots expired (its filesOut: files scheduled for deletion)",
    }),
    orphansMarked: z.number().int().optional().openapi({
      description:
        "delete_files: objects under the data prefix first seen unreferenced by this run (deleted once they stay so past delete_older_than)",
    }),
    orphansDeleted: z.number().int().optional().openapi({
      description:
        "delete_files: unreferenced objects (orphans) deleted (its filesIn/filesOut: scheduled files)",
    }),
    snapshotId: z.number().int().nullable().openapi({ description: "the snapshot the run minted" }),
    error: z.string().nullable().openapi({ description: "`Code: message` of the error that stopped it" }),
  })
  .openapi("JobRun");

const RunBody = z
  .object({
    jobs: z.array(JobNameSchema).min(1).max(JOB_NAMES.length).optional().openapi({
      description: "the jobs to run, switched on or not; omitted = every job the lake's settings switch on",
    }),
    table: z
      .object({ schema: z.string().min(1).optional(), name: z.string().min(1) })
      .strict()
      .optional()
      .openapi({ description: "only this table (jobs that work per table)" }),
  })
  .strict()
  .openapi("RunMaintenance");

const runNow = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/maintenance",
  summary: "Run maintenance jobs now; answers the runs as recorded in the history.",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: {
    params: LakeParamSchema,
    body: { required: false, content: { "application/json": { schema: RunBody } } },
  },
  responses: {
    200: {
      description: "the runs (oldest first)",
      content: { "application/json": { schema: z.object({ runs: z.array(JobRunSchema) }) } },
    },
    ...lakeRouteErrors,
  },
});

const SettingsSchema = z
  .object({
    enabled: z.record(z.string(), z.boolean()).openapi({
      description: `per job; switched with set_option: ${Object.values(JOB_SWITCH).join(", ")}`,
    }),
    expireOlderThanMs: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "job 4's retention (`expire_older_than`); null keeps every snapshot" }),
    deleteOlderThanMs: z.number().int().openapi({ description: "job 5's grace (`delete_older_than`)" }),
  })
  .openapi("MaintenanceSettings");

const history = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/maintenance",
  summary: "The lake's maintenance history, newest first, and the settings in force (read from R2).",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: {
    params: LakeParamSchema,
    query: z.object({
      before: pageCursor("before", "the previous page's `next`: only older runs"),
      limit: pageLimit(MAX_JOB_RUNS_PAGE, { description: "runs per page" }),
    }),
  },
  responses: {
    200: {
      description: "history page",
      content: {
        "application/json": {
          schema: z
            .object({
              runs: z.array(JobRunSchema),
              next: nextCursor("pass as `before` for the older page; null when this was the last"),
              settings: SettingsSchema,
            })
            .openapi("MaintenanceHistory"),
        },
      },
    },
    ...lakeRouteErrors,
  },
});

export function registerMaintenanceRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(runNow, async (c) => {
    const { lake } = c.req.valid("param");
    const body =
      c.req.header("content-length") === "0" || !c.req.header("content-type") ? {} : c.req.valid("json");
    const runs = await callWriter(c.env, lake, (stub) =>
      stub.runMaintenance(lake, {
        ...(body.jobs !== undefined ? { jobs: body.jobs } : {}),
        ...(body.table !== undefined ? { table: body.table } : {}),
      }),
    );
    return c.json({ runs }, 200);
  });

  app.openapi(history, async (c) => {
    const { lake } = c.req.valid("param");
    const q = c.req.valid("query");
    const { view } = await openCut(c.env, lake, {});
    const [page, settings] = await Promise.all([
      readJobRuns(view, {
        ...(q.before !== undefined ? { before: q.before } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
      }),
      maintenanceSettings(view),
    ]);
    c.header("cache-control", "no-store");
    return c.json(
      {
        runs: page.runs,
        next: page.next,
        settings: {
          enabled: settings.enabled,
          expireOlderThanMs: settings.expireOlderThanMs,
          deleteOlderThanMs: settings.deleteOlderThanMs,
        },
      },
      200,
    );
  });
}
