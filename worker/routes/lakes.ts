/**
 * Lake lifecycle: create (bootstraps the catalog), list, delete. A lake exists only once created, so a
 * typo in a name is a 404, never a new lake. Create and delete go to the lake's writer; the list is read
 * from R2 by the Worker.
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_DATA_PATH, normalizeDataPath } from "../../catalog/index.ts";
import { MAX_FLUSH_SPACING_MS } from "../../durable-objects/requests.ts";
import { CodedError } from "../../storage/errors.ts";
import { type LakeState, lakeState, listLakeNames } from "../../storage/lakes.ts";
import type { AppEnv } from "../app-env.ts";
import { authenticate } from "../auth.ts";
import { invalid, publicCode } from "../errors.ts";
import { lakeDataUrl } from "../file-checks.ts";
import { isLakeName } from "../lake-name.ts";
import { callWriter } from "../lake-rpc.ts";
import { requireScope } from "../middleware.ts";
import { pageLimit } from "../page-limit.ts";
import { schemaCatalogsOf } from "../schema-catalogs.ts";
import { bearerSecurity, ErrorEnvelopeSchema, LakeParamSchema, lakeRouteErrors } from "../schemas/common.ts";

/** What a delete (or, with `purged` and `objectsRemoved`, a purge) of one lake answers. */
interface Removal {
  lake: string;
  deletedAt: number;
  removeAfter: number;
  purged?: boolean;
  objectsRemoved?: number;
}

/** The lake list pages: at most this many names per page, this many when `limit` is not given. */
const MAX_LAKES_PAGE = 100;
const DEFAULT_LAKES_PAGE = 50;

const CreateLakeSchema = z
  .object({
    dataPath: z.string().min(1).max(MAX_DATA_PATH).optional().openapi({
      description:
        "DuckLake data_path (where Parquet files live): r2://<bucket>/<prefix>/ or s3://<bucket>/<prefix>/ in production, or an absolute local directory (/dir/ or file:///dir/) for a local DuckDB; normalized to end with '/'. Relative paths, other schemes and '.'/'..' segments are refused. Default: r2://<bucket>/lakes/<lake>/data/ — the prefix the data routes write to.",
      example: "r2://ducklake-edge/lakes/sales/data/",
    }),
    flushSpacingMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_FLUSH_SPACING_MS)
      .optional()
      .openapi({ description: "the writer's flush spacing for this lake (group-commit window), ms" }),
  })
  .strict()
  .openapi("CreateLake");

const CreatedSchema = z
  .object({
    lake: z.string(),
    snapshotId: z.number().int(),
    batchCount: z.number().int(),
    position: z.number().int(),
  })
  .openapi("CreatedLake");

const DeletedSchema = z
  .object({
    lake: z.string(),
    deletedAt: z.number().int(),
    removeAfter: z
      .number()
      .int()
      .openapi({ description: "when the lake's objects are removed (ms since epoch)" }),
  })
  .extend({
    purged: z.boolean().optional().openapi({
      description:
        "with ?purge=true: true once every object is gone and the name is free; false: repeat the purge",
    }),
    objectsRemoved: z
      .number()
      .int()
      .optional()
      .openapi({ description: "with ?purge=true: objects this call removed" }),
  })
  .openapi("DeletedLake");

const LakeListSchema = z
  .object({
    lakes: z.array(z.object({ name: z.string(), state: z.enum(["live", "deleted"]) })),
    cursor: z.string().nullable(),
  })
  .openapi("LakeList");

const conflict = {
  409: {
    description:
      "AlreadyExists: the lake exists; LakeDeletedPendingRemoval: a lake of that name was deleted and its objects are kept until the time the message gives (ISO 8601), after which they are removed and the name is free",
    content: { "application/json": { schema: ErrorEnvelopeSchema } },
  },
};

const createLake = createRoute({
  method: "put",
  path: "/v1/lakes/{lake}",
  summary: "Create a lake: bootstraps its DuckLake catalog (snapshot 0 with schema main). Admin.",
  security: bearerSecurity,
  middleware: [requireScope("admin")] as const,
  request: {
    params: LakeParamSchema,
    body: { required: false, content: { "application/json": { schema: CreateLakeSchema } } },
  },
  responses: {
    201: { description: "created", content: { "application/json": { schema: CreatedSchema } } },
    ...conflict,
    ...lakeRouteErrors,
  },
});

const deleteLake = createRoute({
  method: "delete",
  path: "/v1/lakes/{lake}",
  summary:
    "Delete a lake: its name answers 404 at once; its objects are removed after a grace period, or now with ?purge=true (the name is then free). Admin.",
  security: bearerSecurity,
  middleware: [requireScope("admin")] as const,
  request: {
    params: LakeParamSchema,
    query: z.object({
      purge: z
        .enum(["true", "false"])
        .optional()
        .openapi({
          param: { name: "purge", in: "query" },
          description:
            "true: also remove the lake's objects now, skipping the grace period, so the name can be created again at once (also for a lake already deleted). Irreversible.",
        }),
    }),
  },
  responses: {
    200: {
      description: "purged (?purge=true): see `purged`",
      content: { "application/json": { schema: DeletedSchema } },
    },
    202: {
      description: "deleted; removal scheduled",
      content: { "application/json": { schema: DeletedSchema } },
    },
    ...lakeRouteErrors,
  },
});

const listLakes = createRoute({
  method: "get",
  path: "/v1/lakes",
  summary: "Lakes the token may read, a page at a time (answered from R2).",
  security: bearerSecurity,
  request: {
    query: z.object({
      cursor: z
        .string()
        .max(1024)
        .optional()
        .openapi({ param: { name: "cursor", in: "query" } }),
      limit: pageLimit(MAX_LAKES_PAGE, { example: "50" }),
    }),
  },
  responses: {
    200: { description: "a page of lakes", content: { "application/json": { schema: LakeListSchema } } },
    ...lakeRouteErrors,
  },
});

export function registerLakeRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createLake, async (c) => {
    const { lake } = c.req.valid("param");
    let body: z.infer<typeof CreateLakeSchema> = {};
    if ((c.req.header("content-length") ?? "0") !== "0" || c.req.header("content-type")) {
      const text = await c.req.text();
      if (text.trim() !== "") {
        let raw: unknown;
        try {
          raw = JSON.parse(text);
        } catch {
          throw invalid("request body is not valid JSON");
        }
        const parsed = CreateLakeSchema.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw invalid(`invalid body: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
        }
        body = parsed.data;
      }
    }
    let dataPath: string;
    try {
      dataPath = normalizeDataPath(body.dataPath ?? lakeDataUrl(c.env, lake));
    } catch (e) {
      throw invalid(e instanceof Error ? e.message : String(e));
    }
    const created = await callWriter(c.env, lake, (stub) =>
      stub.createLake(lake, {
        dataPath,
        ...(body.flushSpacingMs !== undefined ? { flushSpacingMs: body.flushSpacingMs } : {}),
      }),
    );
    return c.json(
      { lake, snapshotId: created.snapshotId, batchCount: created.batchCount, position: created.position },
      201,
    );
  });

  app.openapi(deleteLake, async (c) => {
    const { lake } = c.req.valid("param");
    // A lake's metadata-schema catalogs go with it (docs/decisions/0721-metadata-schemas.md). The lake
    // goes first: once it is deleted no catalog of it is created, so the listing after it finds them all.
    // A lake never created may still hold catalogs (attached with METADATA_SCHEMA only): they go too.
    const purge = c.req.valid("query").purge === "true";
    const removeOne = (name: string): Promise<Removal> =>
      purge
        ? callWriter(c.env, name, (stub) => stub.purgeLake(name))
        : callWriter(c.env, name, (stub) => stub.deleteLake(name));
    let own: Removal | undefined;
    let failure: unknown;
    try {
      own = await removeOne(lake);
    } catch (err) {
      // Only a lake that does not exist lets its catalogs go without it.
      if (!(err instanceof CodedError && publicCode(err.code) === "NotFound")) throw err;
      failure = err;
    }
    const catalogs = await schemaCatalogsOf(c.env.BUCKET, lake);
    if (own === undefined && catalogs.length === 0) throw failure;
    for (const name of catalogs) {
      const p = await removeOne(name);
      if (own !== undefined && purge) {
        own.purged = (own.purged ?? true) && (p.purged ?? true);
        own.objectsRemoved = (own.objectsRemoved ?? 0) + (p.objectsRemoved ?? 0);
      }
    }
    if (own === undefined) throw failure;
    return purge ? c.json(own, 200) : c.json(own, 202);
  });

  app.openapi(listLakes, async (c) => {
    const grant = await authenticate(c.env, c.req.header("authorization"));
    const q = c.req.valid("query");
    const page = await listLakeNames(c.env.BUCKET, {
      limit: q.limit ?? DEFAULT_LAKES_PAGE,
      ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    });
    // A metadata-schema catalog (`<lake>.<schema>`, decision 0721) is part of its lake, not a lake.
    const visible = page.lakes.filter(
      (name) => isLakeName(name) && (grant.lakes === "*" || grant.lakes.includes(name)),
    );
    const states: { name: string; state: LakeState["state"] }[] = [];
    // At most six at once: a Worker has six outgoing connections.
    for (let i = 0; i < visible.length; i += 6) {
      const slice = visible.slice(i, i + 6);
      const got = await Promise.all(
        slice.map(async (name) => ({ name, state: (await lakeState(c.env.BUCKET, name)).state })),
      );
      states.push(...got);
    }
    const lakes = states.filter(
      (s): s is { name: string; state: "live" | "deleted" } => s.state !== "absent",
    );
    return c.json({ lakes, cursor: page.cursor ?? null }, 200);
  });
}
