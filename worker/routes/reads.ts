/**
 * Reads, answered by the Worker straight from R2 — never by the lake writer. Each opens one cut (latest,
 * a checkpoint, or at/after a position token) and runs catalog/'s read functions on it.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  type CatalogState,
  catalogAt,
  DEFAULT_DUCKLAKE_PAGE_ROWS,
  DUCKLAKE_TABLES,
  dataPathOf,
  ducklakePage,
  head,
  isDucklakeTableName,
  lakeDataPathExternal,
  listSnapshots,
  MAX_DUCKLAKE_PAGE_ROWS,
  type NamedSnapshot,
  plannedRowIds,
  pruneFiles,
  type ScanPlan,
  tableFilesAt,
  timestamptzFromEpochMicros,
  withTableNames,
} from "../../catalog/index.ts";
import type { AppEnv } from "../app-env.ts";
import { csvHeader, csvLine } from "../csv.ts";
import { type OpenedCut, openCut, respondRead } from "../cut.ts";
import { notFound } from "../errors.ts";
import { parseFilters } from "../filter-query.ts";
import { requireScope } from "../middleware.ts";
import { nextAfter, nextCursor, pageCursor } from "../page-cursor.ts";
import { pageLimit } from "../page-limit.ts";
import { bearerSecurity, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";
import { selectorRuleText, selectorShape, selectorValid } from "../selector.ts";

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const CutSchema = z
  .object({
    position: z.number().int().openapi({ description: "read-your-writes token of the cut answered from" }),
    manifestVersion: z.number().int(),
    epoch: z.number().int(),
    checkpointId: z.string().optional(),
  })
  .openapi("Cut");

const SnapshotSchema = z
  .object({
    snapshot_id: z.number().int(),
    snapshot_time: z
      .string()
      .openapi({ description: "as DuckDB writes a TIMESTAMPTZ", example: "2026-12-01 08:30:38.123456+00" }),
    schema_version: z.number().int(),
    next_catalog_id: z.number().int(),
    next_file_id: z.number().int(),
    changes_made: z.string().nullable().openapi({ example: 'created_table:"main"."orders"' }),
    author: z.string().nullable(),
    commit_message: z.string().nullable(),
    commit_extra_info: z.string().nullable(),
    changes: z.record(z.string(), z.array(z.string())),
    table_names: z.record(z.string(), z.string()).openapi({
      description:
        "the table behind each table id in `changes` (DuckLake names a table by id once it exists): `schema.table` as of this snapshot (a table dropped by it: its name before the drop)",
      example: { "1": "main.orders" },
    }),
  })
  .openapi("Snapshot");

const SummarySchema = z
  .object({
    lake: z.string(),
    snapshotId: z.number().int(),
    schemaVersion: z.number().int(),
    snapshotTime: z
      .string()
      .openapi({ description: "as DuckDB writes a TIMESTAMPTZ", example: "2026-12-01 08:30:38.123456+00" }),
    tableCount: z.number().int(),
    dataPath: z.string().openapi({ description: "DuckLake's data_path: where the lake's files live" }),
    dataPathExternal: z.string().nullable().openapi({
      description:
        "null when the data path is the lake's own R2 prefix; else why the writer's file jobs, the rows API's flush and writePath 'lake' are off (docs/decisions/0502-external-data-paths.md)",
    }),
    cut: CutSchema,
  })
  .openapi("LakeSummary");

/** Snapshot and scan-plan pages: at most this many snapshots or data files. */
const MAX_LIST_PAGE = 1000;
const limitParam = pageLimit(MAX_LIST_PAGE, { example: "100" });

const SelectorQuerySchema = z.object(selectorShape).refine(selectorValid, selectorRuleText);

const errors304 = {
  304: { description: "not modified (answers pinned by snapshot or checkpoint carry an ETag)" },
  ...lakeRouteErrors,
};

const summaryRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}",
  summary: "Lake summary: head snapshot, schema version, time, table count (answered from R2).",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: { params: LakeParamSchema, query: SelectorQuerySchema },
  responses: { 200: json(SummarySchema, "the lake at the selected cut"), ...errors304 },
});

const snapshotsRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/snapshots",
  summary:
    "The snapshot list with each snapshot's changes, oldest first, paged by `since` (the change feed).",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: {
    params: LakeParamSchema,
    query: z
      .object({
        ...selectorShape,
        limit: limitParam,
        since: pageCursor("since", "only snapshots after this id (exclusive)"),
      })
      .refine(selectorValid, selectorRuleText),
  },
  responses: {
    200: json(
      z.object({
        snapshots: z.array(SnapshotSchema),
        next: nextCursor("pass as `since` for the next page; null when this was the last"),
        cut: CutSchema,
      }),
      "snapshots after `since`; pass `next` as `since` for the following page (null: no more)",
    ),
    ...errors304,
  },
});

const SnapshotParams = LakeParamSchema.extend({
  id: z
    .string()
    .regex(/^\d{1,15}$/, "snapshot id must be a non-negative integer")
    .transform(Number)
    .openapi({ param: { name: "id", in: "path" }, example: "1" }),
});

const snapshotRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/snapshots/{id}",
  summary: "One snapshot and its changes.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: { params: SnapshotParams, query: SelectorQuerySchema },
  responses: {
    200: json(z.object({ snapshot: SnapshotSchema, cut: CutSchema }), "the snapshot"),
    ...errors304,
  },
});

const catalogRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/catalog",
  summary:
    "The catalog at a snapshot (its snapshot's `snapshot_time` as DuckDB writes a TIMESTAMPTZ, like every route): schemas, tables with nested columns, views, macros, partitioning, sorting, tags, options.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: { params: LakeParamSchema, query: SelectorQuerySchema },
  responses: {
    200: json(
      z.object({ catalog: z.record(z.string(), z.unknown()), cut: CutSchema }).openapi("CatalogAt"),
      "the catalog",
    ),
    ...errors304,
  },
});

const TableParams = LakeParamSchema.extend({
  schema: z
    .string()
    .min(1)
    .openapi({ param: { name: "schema", in: "path" }, example: "main" }),
  table: z
    .string()
    .min(1)
    .openapi({ param: { name: "table", in: "path" }, example: "orders" }),
});

const planQueryShape = {
  limit: limitParam,
  after_file: pageCursor(
    "after_file",
    "page cursor: start after this data_file_id (pass the previous page's next_after_file)",
  ),
  filter: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({
      param: { name: "filter", in: "query" },
      description:
        "prune files by column stats (compared in the column type; names fold like catalog names): column:op:value, op one of eq, lt, lte, gt, gte (repeatable)",
      example: "region:eq:eu",
    }),
};

const PlannedFileSchema = z
  .object({
    data_file_id: z.number().int(),
    path: z.string(),
    resolved_path: z.string(),
    file_format: z.string(),
    record_count: z.number().int(),
    file_size_bytes: z.number().int(),
    footer_size: z.number().int().nullable(),
    row_id_start: z.number().int().nullable().openapi({
      description:
        "first row id of a file numbered from it; null when the file carries its own row ids (DuckLake's row_id_start NULL)",
    }),
    row_id_end: z.number().int().nullable().openapi({ description: "exclusive; null with row_id_start" }),
    row_ids_in_file: z.boolean().openapi({
      description:
        "each row's id is the file's _ducklake_internal_row_id column (a rewritten or merged file): not contiguous",
    }),
    partition_values: z.array(
      z.object({ partition_key_index: z.number().int(), partition_value: z.string().nullable() }),
    ),
    column_stats: z.array(z.record(z.string(), z.unknown())),
    snapshot_filter: z.number().int().nullable(),
    delete_file: z.record(z.string(), z.unknown()).nullable(),
    inlined_deleted_positions: z.array(z.number().int()),
  })
  .openapi("PlannedFile");

const planRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/tables/{schema}/{table}/plan",
  summary:
    "A table's scan plan at a snapshot: data files with row-id ranges, sizes, partition values and column stats, their live delete files, and inlined rows (DuckLake's reader rules). Paged; prunable.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: {
    params: TableParams,
    query: z.object({ ...selectorShape, ...planQueryShape }).refine(selectorValid, selectorRuleText),
  },
  responses: {
    200: json(
      z
        .object({
          snapshot_id: z.number().int(),
          schema_version: z.number().int(),
          table: z.record(z.string(), z.unknown()),
          columns: z.array(z.record(z.string(), z.unknown())),
          files: z.array(PlannedFileSchema),
          files_pruned: z.number().int().openapi({ description: "files of this page dropped by `filter`" }),
          next_after_file: nextCursor("pass as `after_file` for the next page; null when this was the last"),
          inlined_rows: z.array(z.record(z.string(), z.unknown())),
          cut: CutSchema,
        })
        .openapi("ScanPlan"),
      "the scan plan",
    ),
    ...errors304,
  },
});

const DucklakeParams = LakeParamSchema.extend({
  table: z
    .string()
    .refine(isDucklakeTableName, {
      message: `one of the ${Object.keys(DUCKLAKE_TABLES).length} DuckLake tables, ducklake_inlined_data_<table>_<version> or ducklake_inlined_delete_<table>`,
    })
    .openapi({ param: { name: "table", in: "path" }, example: "ducklake_snapshot" }),
});
const pageLimitParam = pageLimit(MAX_DUCKLAKE_PAGE_ROWS, {
  description: `rows per page (default ${DEFAULT_DUCKLAKE_PAGE_ROWS})`,
  example: "1000",
});
const cursorParam = z
  .string()
  .max(64)
  .optional()
  .openapi({
    param: { name: "cursor", in: "query" },
    description: "the previous page's next_cursor (pins the snapshot of the first page)",
  });
const formatParam = z
  .enum(["json", "csv"])
  .optional()
  .openapi({ param: { name: "format", in: "query" }, example: "json" });

const ducklakeRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/ducklake/{table}",
  summary:
    "A DuckLake catalog table (the 28, or a per-table inlined data/delete table) at a snapshot, one page at a time, with values as DuckDB writes them (JSON or CSV; CSV carries the next cursor in `x-next-cursor`).",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: {
    params: DucklakeParams,
    query: z
      .object({ ...selectorShape, format: formatParam, limit: pageLimitParam, cursor: cursorParam })
      .refine(selectorValid, selectorRuleText),
  },
  responses: {
    200: {
      description: "one page of rows",
      content: {
        "application/json": {
          schema: z.object({
            snapshot_id: z.number().int(),
            columns: z.array(z.string()),
            column_types: z
              .array(z.string())
              .nullable()
              .openapi({ description: "DuckDB types of an inlined table's columns (null for the 28)" }),
            rows: z.array(z.record(z.string(), z.unknown())),
            next_cursor: z.string().nullable(),
            cut: CutSchema,
          }),
        },
        "text/csv": { schema: z.string() },
      },
    },
    ...errors304,
  },
});

function planFile(f: ScanPlan["files"][number]) {
  return {
    data_file_id: f.data_file_id,
    path: f.path,
    resolved_path: f.resolved_path,
    file_format: f.file_format,
    record_count: f.record_count,
    file_size_bytes: f.file_size_bytes,
    footer_size: f.footer_size,
    ...plannedRowIds(f),
    partition_values: f.x_partition_values,
    column_stats: f.x_column_stats as unknown as Record<string, unknown>[],
    snapshot_filter: f.snapshot_filter,
    delete_file: f.delete_file as unknown as Record<string, unknown> | null,
    inlined_deleted_positions: f.inlined_deleted_positions,
  };
}

/** A snapshot as the API shows it: snapshot_time (epoch microseconds) as DuckDB writes a TIMESTAMPTZ. */
function snapshotJson(s: NamedSnapshot) {
  return { ...s, snapshot_time: timestamptzFromEpochMicros(s.snapshot_time) };
}

/**
 * The catalog as the API shows it: its snapshot's time in the API's one form, DuckDB's TIMESTAMPTZ text
 * (docs/decisions/0651-api-snapshot-time-and-names.md), never the stored epoch microseconds.
 */
function catalogJson(cat: CatalogState) {
  return {
    ...cat,
    snapshot: { ...cat.snapshot, snapshot_time: timestamptzFromEpochMicros(cat.snapshot.snapshot_time) },
  };
}

function summarise(cat: CatalogState) {
  return { tableCount: cat.tables.length };
}

export function registerReadRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(summaryRoute, async (c) => {
    const { lake } = c.req.valid("param");
    const q = c.req.valid("query");
    const opened = await openCut(c.env, lake, q);
    // catalogAt refuses a snapshot beyond the head with NotFound.
    const cat = await catalogAt(opened.view, q.snapshot);
    return respondRead(c as Context<AppEnv>, opened, {
      lake,
      snapshotId: cat.snapshot.snapshot_id,
      schemaVersion: cat.snapshot.schema_version,
      // snapshot_time is epoch microseconds; shown as DuckDB writes DuckLake's TIMESTAMPTZ column.
      snapshotTime: timestamptzFromEpochMicros(cat.snapshot.snapshot_time),
      ...summarise(cat),
      dataPath: await dataPathOf(opened.view),
      dataPathExternal: await lakeDataPathExternal(opened.view, c.env.BUCKET_NAME, lake),
      cut: opened.cut,
    });
  });

  app.openapi(snapshotsRoute, async (c) => {
    const { lake } = c.req.valid("param");
    const q = c.req.valid("query");
    const opened = await openCut(c.env, lake, q);
    const limit = q.limit ?? 100;
    const until = q.snapshot;
    const h = await head(opened.view);
    if (until !== undefined && until > h.snapshot_id) {
      throw notFound(`snapshot ${until} does not exist in lake '${lake}' (the head is ${h.snapshot_id})`);
    }
    let snapshots = await listSnapshots(opened.view, {
      ...(q.since !== undefined ? { after: q.since } : {}),
      limit,
    });
    if (until !== undefined) snapshots = snapshots.filter((s) => s.snapshot_id <= until);
    const headId = until === undefined ? h.snapshot_id : Math.min(until, h.snapshot_id);
    const next = nextAfter(snapshots, (s) => s.snapshot_id, { through: headId });
    return respondRead(c as Context<AppEnv>, opened, {
      snapshots: (await withTableNames(opened.view, snapshots)).map(snapshotJson),
      next,
      cut: opened.cut,
    });
  });

  app.openapi(snapshotRoute, async (c) => {
    const { lake, id } = c.req.valid("param");
    const opened = await openCut(c.env, lake, c.req.valid("query"));
    const [snapshot] = await listSnapshots(opened.view, { after: id - 1, limit: 1 });
    if (!snapshot || snapshot.snapshot_id !== id)
      throw notFound(`snapshot ${id} does not exist in lake '${lake}'`);
    return respondRead(c as Context<AppEnv>, opened, {
      snapshot: snapshotJson(
        (await withTableNames(opened.view, [snapshot]))[0] ?? { ...snapshot, table_names: {} },
      ),
      cut: opened.cut,
    });
  });

  app.openapi(catalogRoute, async (c) => {
    const { lake } = c.req.valid("param");
    const q = c.req.valid("query");
    const opened = await openCut(c.env, lake, q);
    const catalog = await catalogAt(opened.view, q.snapshot);
    return respondRead(c as Context<AppEnv>, opened, { catalog: catalogJson(catalog), cut: opened.cut });
  });

  app.openapi(planRoute, async (c) => {
    const { lake, schema, table } = c.req.valid("param");
    const q = c.req.valid("query");
    const opened = await openCut(c.env, lake, q, { prefetchTables: true });
    // Only this page of file records is read: a table's first page costs the same at 1k or 100k files.
    const plan = await tableFilesAt(opened.view, { schema, name: table }, q.snapshot, {
      limit: q.limit ?? 1000,
      ...(q.after_file !== undefined ? { afterFileId: q.after_file } : {}),
    });
    const kept = pruneFiles(plan, parseFilters(q.filter));
    return respondRead(c as Context<AppEnv>, opened, {
      snapshot_id: plan.snapshot_id,
      schema_version: plan.schema_version,
      table: plan.table as unknown as Record<string, unknown>,
      columns: plan.columns as unknown as Record<string, unknown>[],
      files: kept.files.map(planFile),
      files_pruned: kept.pruned,
      next_after_file: plan.next_after_file_id,
      inlined_rows: plan.inlined_rows as unknown as Record<string, unknown>[],
      cut: opened.cut,
    });
  });

  app.openapi(ducklakeRoute, async (c) => {
    const { lake, table } = c.req.valid("param");
    const q = c.req.valid("query");
    const opened = await openCut(c.env, lake, q);
    const page = await ducklakePage(opened.view, table, {
      ...(q.snapshot !== undefined ? { snapshot: q.snapshot } : {}),
      ...(q.cursor !== undefined ? { after: q.cursor } : {}),
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
    });
    if (q.format === "csv") {
      const lines = (function* () {
        yield csvHeader(page.columns);
        for (const row of page.rows) yield csvLine(page.text(row));
      })();
      const response = opened.fixed
        ? await respondRead(c as Context<AppEnv>, opened, [...lines].join(""), "text/csv; charset=utf-8")
        : streamCsv(lines);
      if (page.next !== null) response.headers.set("x-next-cursor", page.next);
      response.headers.set("x-snapshot-id", String(page.snapshotId));
      return response;
    }
    return respondRead(c as Context<AppEnv>, opened, {
      snapshot_id: page.snapshotId,
      columns: page.columns,
      column_types: page.duckdbTypes,
      rows: page.rows,
      next_cursor: page.next,
      cut: opened.cut,
    });
  });
}

/** A CSV page written line by line as the client reads it (the page is bounded; this keeps one copy). */
function streamCsv(lines: Iterator<string>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/csv; charset=utf-8", "cache-control": "no-store" },
  });
}

export type { OpenedCut };
