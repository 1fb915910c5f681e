/**
 * DuckLake's per-table inlined tables at a snapshot (`ducklake_inlined_data_<table>_<version>`,
 * `ducklake_inlined_delete_<table>`), whose names and columns depend on the lake, so they are not among
 * the 28 fixed tables of `…/ducklake/{table}`. Answered from R2 like every read; the CLI's export needs
 * them to write a metadata file whose inlined rows stock DuckDB sees.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { inlinedTablesAt } from "../../catalog/index.ts";
import type { AppEnv } from "../app-env.ts";
import { openCut, respondRead } from "../cut.ts";
import { requireScope } from "../middleware.ts";
import { bearerSecurity, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";
import { selectorRuleText, selectorShape, selectorValid } from "../selector.ts";

const InlinedTableSchema = z
  .object({
    columns: z.array(z.tuple([z.string(), z.string()])).openapi({
      description: "[name, DuckDB type] in order: row_id, begin_snapshot, end_snapshot, then the table's",
    }),
    rows: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("InlinedTable");

const inlinedRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/inlined",
  summary:
    "Every DuckLake inlined-data and inlined-delete table at a snapshot, keyed by its DuckLake table name, with its columns and rows.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: {
    params: LakeParamSchema,
    query: z.object(selectorShape).refine(selectorValid, selectorRuleText),
  },
  responses: {
    200: {
      description: "the inlined tables",
      content: {
        "application/json": {
          schema: z.object({
            tables: z.record(z.string(), InlinedTableSchema),
            cut: z.record(z.string(), z.unknown()),
          }),
        },
      },
    },
    304: { description: "not modified (answers pinned by snapshot or checkpoint carry an ETag)" },
    ...lakeRouteErrors,
  },
});

export function registerInlinedRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(inlinedRoute, async (c) => {
    const { lake } = c.req.valid("param");
    const q = c.req.valid("query");
    const opened = await openCut(c.env, lake, q);
    const tables = await inlinedTablesAt(opened.view, q.snapshot);
    return respondRead(c as Context<AppEnv>, opened, { tables, cut: opened.cut });
  });
}
