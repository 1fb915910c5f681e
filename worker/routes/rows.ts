/**
 * The rows API (docs/decisions/0310-row-ingestion-log.md): writes are forwarded to the lake's writer as
 * row-log verbs under an idempotency key; reads merge the lake at its newest snapshot with the log tail
 * from a published cut, at the edge, never through the writer.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  DataPathExternal,
  guardedFileSource,
  lakeDataPathExternal,
  MAX_DEAD_LETTERS_PAGE,
  MAX_FLUSH_INTERVAL_MS,
  MAX_KEY_COLUMNS,
  MAX_NAME_LENGTH,
  MAX_OPS_PER_WRITE,
  MAX_ROWS_PAGE,
  RowOpSchema,
  readDeadLetters,
  readRows,
  WritePathSchema,
} from "../../catalog/index.ts";
import { dataObjectReader } from "../../storage/data-objects.ts";
import type { AppEnv } from "../app-env.ts";
import { openCut } from "../cut.ts";
import type { Env } from "../env.ts";
import { ApiError } from "../errors.ts";
import { forwardWithKey } from "../forward.ts";
import { callWriter } from "../lake-rpc.ts";
import { requireScope } from "../middleware.ts";
import { nextAfter, nextCursor, pageCursor } from "../page-cursor.ts";
import { pageLimit } from "../page-limit.ts";
import { bearerSecurity, ErrorEnvelopeSchema, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";
import { queryInt } from "../selector.ts";
import { IdempotencyHeader } from "./commits.ts";

const TableParams = LakeParamSchema.extend({
  schema: z
    .string()
    .min(1)
    .max(MAX_NAME_LENGTH)
    .openapi({ param: { name: "schema", in: "path" }, example: "main" }),
  table: z
    .string()
    .min(1)
    .max(MAX_NAME_LENGTH)
    .openapi({ param: { name: "table", in: "path" }, example: "events" }),
});

const RowsBody = z
  .object({
    ops: z
      .array(RowOpSchema)
      .min(1)
      .max(MAX_OPS_PER_WRITE)
      .openapi({
        description:
          "insert (a row; tables without key columns), upsert (a row, matched on the key columns) or delete (a key), in order",
        example: [{ op: "insert", row: { id: 1, v: "a" } }],
      }),
    writePath: WritePathSchema.optional().openapi({
      description:
        "wal: durable in the lake's log, flushed into DuckLake later; lake: one DuckLake commit now. Default: the lake's setting (itself wal)",
    }),
  })
  .strict()
  .openapi("RowsWrite");

const WriteAnswer = z
  .object({
    watermark: z
      .number()
      .int()
      .openapi({ description: "read-your-writes token: pass as minWatermark on reads" }),
    firstSeq: z.number().int(),
    lastSeq: z.number().int().openapi({ description: "the log sequence numbers this write took" }),
    snapshotId: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "the DuckLake snapshot (lake path), else null" }),
    replayed: z.boolean().optional(),
  })
  .openapi("RowsWriteResult");

const errors409 = {
  409: {
    description:
      "Constraint (NOT NULL, a key without a value), LogFull (the row log holds MAX_UNFLUSHED_RECORDS unflushed records: POST /flush, then resend) or IdempotencyKeyReused",
    content: { "application/json": { schema: ErrorEnvelopeSchema } },
  },
};

interface Forwarded {
  snapshotId: number | null;
  assigned: Record<string, unknown>[];
  position: number;
  replayed?: boolean;
}

function answer(r: Forwarded): z.infer<typeof WriteAnswer> {
  const seqs = r.assigned.filter((a) => typeof a.firstSeq === "number");
  return {
    watermark: r.position,
    firstSeq: Number(seqs[0]?.firstSeq ?? 0),
    lastSeq: Number(seqs[seqs.length - 1]?.lastSeq ?? 0),
    snapshotId: r.snapshotId,
    ...(r.replayed ? { replayed: true } : {}),
  };
}

const writeRows = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/tables/{schema}/{table}/rows",
  summary: "Write rows (insert/upsert/delete); answered once durable, with a watermark token.",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: {
    params: TableParams,
    headers: IdempotencyHeader,
    body: { required: true, content: { "application/json": { schema: RowsBody } } },
  },
  responses: {
    200: { description: "durable", content: { "application/json": { schema: WriteAnswer } } },
    ...errors409,
    ...lakeRouteErrors,
  },
});

const TransactionBody = z
  .object({
    writes: z
      .array(
        z
          .object({
            schema: z.string().min(1),
            table: z.string().min(1),
            ops: z.array(RowOpSchema).min(1).max(MAX_OPS_PER_WRITE),
          })
          .strict(),
      )
      .min(1)
      .max(100)
      .openapi({ description: "per table, in order; all or nothing" }),
    writePath: WritePathSchema.optional(),
  })
  .strict()
  .openapi("RowsTransaction");

const transaction = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/transactions",
  summary: "One transaction over one or more tables, all or nothing; never batched with other writes.",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: {
    params: LakeParamSchema,
    headers: IdempotencyHeader,
    body: { required: true, content: { "application/json": { schema: TransactionBody } } },
  },
  responses: {
    200: { description: "durable", content: { "application/json": { schema: WriteAnswer } } },
    ...errors409,
    ...lakeRouteErrors,
  },
});

const truncate = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/tables/{schema}/{table}/truncate",
  summary: "Truncate a table through the log (a tombstone voiding every earlier record and the lake's rows).",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: {
    params: TableParams,
    headers: IdempotencyHeader,
    body: {
      required: false,
      content: {
        "application/json": { schema: z.object({ writePath: WritePathSchema.optional() }).strict() },
      },
    },
  },
  responses: {
    200: { description: "durable", content: { "application/json": { schema: WriteAnswer } } },
    ...lakeRouteErrors,
  },
});

const RowsAnswer = z
  .object({
    rows: z.array(z.record(z.string(), z.unknown())),
    watermark: z
      .number()
      .int()
      .openapi({ description: "the newest log sequence number the answer includes" }),
    drained: z
      .number()
      .int()
      .openapi({ description: "log records up to this sequence number are in DuckLake" }),
    snapshotId: z.number().int(),
    next: z.string().nullable().openapi({ description: "cursor of the next page, or null" }),
  })
  .openapi("RowsRead");

const readQuery = z.object({
  key: z
    .string()
    .max(65_536)
    .optional()
    .openapi({
      param: { name: "key", in: "query" },
      description: 'point read: the key as JSON, e.g. {"id":1}',
    }),
  limit: pageLimit(MAX_ROWS_PAGE, { description: `rows per page (default ${MAX_ROWS_PAGE})` }),
  cursor: pageCursor("cursor", "the previous page's `next`"),
  minWatermark: queryInt(
    "minWatermark",
    "read-your-writes: a write's watermark; the answer includes it (bounded wait, else CutNotYetVisible)",
  ),
  snapshot: queryInt("snapshot", "the lake only, as of this DuckLake snapshot (no log tail)"),
});

const readRowsRoute = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/tables/{schema}/{table}/rows",
  summary:
    "Rows of a table: the lake at its newest snapshot merged with the log tail (or a point read by key).",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: { params: TableParams, query: readQuery },
  responses: {
    200: { description: "rows", content: { "application/json": { schema: RowsAnswer } } },
    422: {
      description:
        "Unsupported: a read past MAX_ROWS_READ_FILE_BYTES, MAX_ROWS_READ_BYTES or MAX_ROWS_READ_LAKE_ROWS (RowsReadTooLarge), or a file outside the data path",
      content: { "application/json": { schema: ErrorEnvelopeSchema } },
    },
    ...lakeRouteErrors,
  },
});

const DeadLetter = z
  .object({
    seq: z.number().int(),
    tableId: z.number().int(),
    kind: z.enum(["insert", "upsert", "delete", "truncate", "drop"]),
    row: z.record(z.string(), z.unknown()).nullable(),
    key: z.array(z.unknown()).nullable(),
    code: z.string(),
    message: z.string(),
  })
  .openapi("DeadLetter");

const deadLetters = createRoute({
  method: "get",
  path: "/v1/lakes/{lake}/dead-letters",
  summary:
    "Row log records the flusher could not apply and moved aside (poison records), in sequence order, from the newest published cut.",
  security: bearerSecurity,
  middleware: [requireScope("read")] as const,
  request: {
    params: LakeParamSchema,
    query: z.object({
      after: pageCursor("after", "sequence number to start after (the previous page's `next`)"),
      limit: pageLimit(MAX_DEAD_LETTERS_PAGE, { description: "dead letters per page", example: "100" }),
    }),
  },
  responses: {
    200: {
      description: "dead letters",
      content: {
        "application/json": {
          schema: z.object({
            deadLetters: z.array(DeadLetter),
            next: nextCursor("pass as `after` for the next page; null when this was the last"),
          }),
        },
      },
    },
    ...lakeRouteErrors,
  },
});

// Replaying and discarding dead letters (docs/decisions/0317-dead-letter-replay.md).
const DeadLetterParams = LakeParamSchema.extend({
  seq: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({
      param: { name: "seq", in: "path" },
      example: 42,
      description: "the dead letter's sequence number",
    }),
});

const replayDeadLetter = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/dead-letters/{seq}/replay",
  summary:
    "Append a dead letter to the row log again (after fixing its cause, e.g. altering the table); it is checked like a new write and the dead letter goes with the same commit. Still failing: the error, and it stays.",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: { params: DeadLetterParams, headers: IdempotencyHeader },
  responses: {
    200: { description: "durable", content: { "application/json": { schema: WriteAnswer } } },
    ...errors409,
    ...lakeRouteErrors,
  },
});

const discardDeadLetter = createRoute({
  method: "delete",
  path: "/v1/lakes/{lake}/dead-letters/{seq}",
  summary: "Discard a dead letter for good.",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: { params: DeadLetterParams, headers: IdempotencyHeader },
  responses: {
    200: {
      description: "discarded",
      content: {
        "application/json": {
          schema: z
            .object({ discarded: z.number().int(), watermark: z.number().int() })
            .openapi("DeadLetterDiscarded"),
        },
      },
    },
    ...errors409,
    ...lakeRouteErrors,
  },
});

const flush = createRoute({
  method: "post",
  path: "/v1/lakes/{lake}/flush",
  summary: "Flush the row log into DuckLake now (bounded batches, one DuckLake commit each).",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: { params: LakeParamSchema },
  responses: {
    200: {
      description: "flushed",
      content: {
        "application/json": {
          schema: z
            .object({
              drained: z.number().int(),
              records: z.number().int(),
              batches: z.number().int(),
              snapshots: z.array(z.number().int()),
              pending: z.number().int(),
              deadLettered: z.array(z.number().int()).openapi({
                description: "log records this flush moved to the dead letters (poison records)",
              }),
            })
            .openapi("FlushResult"),
        },
      },
    },
    ...lakeRouteErrors,
  },
});

const SettingsBody = z
  .object({
    writePath: WritePathSchema.optional(),
    flushIntervalMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_FLUSH_INTERVAL_MS)
      .optional()
      .openapi({ description: "the flusher's interval (default 30000); 0 = on demand only" }),
  })
  .strict()
  .openapi("IngestSettings");

const settings = createRoute({
  method: "put",
  path: "/v1/lakes/{lake}/ingest-settings",
  summary: "The lake's row-ingestion settings: default writePath and flushIntervalMs.",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: {
    params: LakeParamSchema,
    body: { required: true, content: { "application/json": { schema: SettingsBody } } },
  },
  responses: {
    200: {
      description: "in force",
      content: { "application/json": { schema: z.object({ flushIntervalMs: z.number().int() }) } },
    },
    ...lakeRouteErrors,
  },
});

const KeyBody = z
  .object({ columns: z.array(z.string().min(1)).min(1).max(MAX_KEY_COLUMNS) })
  .strict()
  .openapi("RowKey");

const rowKey = createRoute({
  method: "put",
  path: "/v1/lakes/{lake}/tables/{schema}/{table}/key",
  summary: "Declare a table's key columns (upsert/delete match on them); only while the table is empty.",
  security: bearerSecurity,
  middleware: [requireScope("write")] as const,
  request: {
    params: TableParams,
    body: { required: true, content: { "application/json": { schema: KeyBody } } },
  },
  responses: {
    200: {
      description: "declared",
      content: { "application/json": { schema: z.object({ tableId: z.number().int() }) } },
    },
    ...lakeRouteErrors,
  },
});

function parseKey(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ApiError("InvalidRequest", "key must be a JSON object of the key columns");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new ApiError("InvalidRequest", "key must be a JSON object of the key columns");
  return v as Record<string, unknown>;
}

/**
 * Row writes land in the row log, which only the rows flusher moves into DuckLake, and the flusher writes
 * no file for a lake whose data path is external: such a lake refuses row writes, naming why (decision
 * docs/decisions/0502-external-data-paths.md), rather than keep rows DuckDB would never see.
 */
async function requireOwnDataPath(env: Env, lake: string): Promise<void> {
  const opened = await openCut(env, lake, {});
  const external = await lakeDataPathExternal(opened.view, env.BUCKET_NAME, lake);
  if (external !== null) throw new DataPathExternal(external);
}

export function registerRowRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(writeRows, async (c) => {
    const { lake, schema, table } = c.req.valid("param");
    await requireOwnDataPath(c.env, lake);
    const body = c.req.valid("json");
    const verbs = [
      {
        op: "rows_write",
        table: { schema, name: table },
        ops: body.ops,
        ...(body.writePath ? { writePath: body.writePath } : {}),
      },
    ];
    const r = await forwardWithKey(c, lake, c.req.valid("header")["idempotency-key"], (stub, key) =>
      stub.commit(lake, verbs, { idempotencyKey: key }),
    );
    return c.json(answer(r as Forwarded), 200);
  });

  app.openapi(replayDeadLetter, async (c) => {
    const { lake, seq } = c.req.valid("param");
    const verbs = [{ op: "rows_dead_letter_replay", seq }];
    const r = await forwardWithKey(c, lake, c.req.valid("header")["idempotency-key"], (stub, key) =>
      stub.commit(lake, verbs, { idempotencyKey: key }),
    );
    return c.json(answer(r as Forwarded), 200);
  });

  app.openapi(discardDeadLetter, async (c) => {
    const { lake, seq } = c.req.valid("param");
    const verbs = [{ op: "rows_dead_letter_discard", seq }];
    const r = (await forwardWithKey(c, lake, c.req.valid("header")["idempotency-key"], (stub, key) =>
      stub.commit(lake, verbs, { idempotencyKey: key }),
    )) as Forwarded;
    return c.json({ discarded: seq, watermark: r.position }, 200);
  });

  app.openapi(transaction, async (c) => {
    const { lake } = c.req.valid("param");
    await requireOwnDataPath(c.env, lake);
    const body = c.req.valid("json");
    const verbs = body.writes.map((w) => ({
      op: "rows_write",
      table: { schema: w.schema, name: w.table },
      ops: w.ops,
      ...(body.writePath ? { writePath: body.writePath } : {}),
    }));
    const r = await forwardWithKey(c, lake, c.req.valid("header")["idempotency-key"], (stub, key) =>
      stub.transaction(lake, verbs, { idempotencyKey: key }),
    );
    return c.json(answer(r as Forwarded), 200);
  });

  app.openapi(truncate, async (c) => {
    const { lake, schema, table } = c.req.valid("param");
    const body =
      c.req.header("content-length") === "0" || !c.req.header("content-type") ? {} : c.req.valid("json");
    const verbs = [
      {
        op: "rows_truncate",
        table: { schema, name: table },
        ...(body.writePath ? { writePath: body.writePath } : {}),
      },
    ];
    const r = await forwardWithKey(c, lake, c.req.valid("header")["idempotency-key"], (stub, key) =>
      stub.commit(lake, verbs, { idempotencyKey: key }),
    );
    return c.json(answer(r as Forwarded), 200);
  });

  app.openapi(readRowsRoute, async (c) => {
    const { lake, schema, table } = c.req.valid("param");
    const q = c.req.valid("query");
    const opened = await openCut(c.env, lake, {
      ...(q.minWatermark !== undefined ? { after: q.minWatermark } : {}),
    });
    const key = parseKey(q.key);
    const r = await readRows(
      opened.view,
      { schema, name: table },
      {
        ...(q.snapshot !== undefined ? { snapshot: q.snapshot } : {}),
        ...(key !== undefined ? { key } : {}),
        ...(q.cursor !== undefined ? { offset: q.cursor } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
      },
      guardedFileSource(
        await lakeDataPathExternal(opened.view, c.env.BUCKET_NAME, lake),
        dataObjectReader(c.env.BUCKET, lake),
      ),
    );
    c.header("cache-control", "no-store");
    return c.json(
      {
        rows: r.rows,
        watermark: r.watermark,
        drained: r.drained,
        snapshotId: r.snapshotId,
        next: r.next === null ? null : String(r.next),
      },
      200,
    );
  });

  app.openapi(deadLetters, async (c) => {
    const { lake } = c.req.valid("param");
    const q = c.req.valid("query");
    const limit = q.limit ?? MAX_DEAD_LETTERS_PAGE;
    const opened = await openCut(c.env, lake, {});
    const got = await readDeadLetters(opened.view, q.after ?? 0, limit);
    c.header("cache-control", "no-store");
    return c.json(
      {
        deadLetters: got.map((d) => ({
          seq: d.seq,
          tableId: d.table_id,
          kind: d.kind,
          row: d.row ?? null,
          key: d.key ?? null,
          code: d.code,
          message: d.message,
        })),
        next: nextAfter(got, (d) => d.seq, { limit }),
      },
      200,
    );
  });

  app.openapi(flush, async (c) => {
    const { lake } = c.req.valid("param");
    const r = await callWriter(c.env, lake, (stub) => stub.flushRows(lake));
    return c.json(r, 200);
  });

  app.openapi(settings, async (c) => {
    const { lake } = c.req.valid("param");
    const body = c.req.valid("json");
    const verbs = [{ op: "set_ingest_settings", ...body }];
    const r = await forwardWithKey(c, lake, undefined, (stub, key) =>
      stub.commit(lake, verbs, { idempotencyKey: key }),
    );
    return c.json({ flushIntervalMs: Number(r.assigned[0]?.flushIntervalMs ?? 0) }, 200);
  });

  app.openapi(rowKey, async (c) => {
    const { lake, schema, table } = c.req.valid("param");
    const body = c.req.valid("json");
    const verbs = [{ op: "set_row_key", table: { schema, name: table }, columns: body.columns }];
    const r = await forwardWithKey(c, lake, undefined, (stub, key) =>
      stub.commit(lake, verbs, { idempotencyKey: key }),
    );
    return c.json({ tableId: Number(r.assigned[0]?.tableId ?? 0) }, 200);
  });
}
