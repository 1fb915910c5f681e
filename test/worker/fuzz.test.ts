/**
 * Property-based HTTP fuzzing of the real Worker app with its real bindings (real routing and validation,
 * real Durable Objects, real miniflare R2):
 *  1. Thousands of generated bad requests across every route: each is a 4xx error envelope whose status
 *     matches its code, never a 5xx, and no batch of them changes anything — the whole bucket listing
 *     (keys, sizes, etags), the lake's snapshot list and the writer's own R2 write count are compared
 *     before and after every batch.
 *  2. Random sequences of valid and invalid verb lists committed to fresh lakes: accepted commits mint
 *     consecutive snapshots, rejected ones mint nothing, and the catalog's invariants hold afterwards
 *     (names unique per schema at every snapshot, ids never reused, next_catalog_id / next_file_id never
 *     regress, new ids drawn from those counters, row ids dense per table across registered files).
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { VerbSchema } from "../../catalog/index.ts";
import { setWriterSetup } from "../../durable-objects/setup.ts";
import { type ParquetType, writeParquet } from "../../parquet/index.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";
import { createApp } from "../../worker/app.ts";
import { statusForCode } from "../../worker/errors.ts";
import { LAKE_NAME_PATTERN } from "../../worker/lake-name.ts";
import { call, TOKENS } from "../support/http.ts";
import { assertProperty } from "../support/property.ts";

/** 30 random verb sequences, each uploading its files and committing over HTTP: minutes on a loaded 2-core CI box. */
const SEQUENCES_TIMEOUT_MS = 240_000;
/** One sequence (6–16 commits on a fresh lake): normally 0.3–1 s; past this it is a stall, not slowness. */
const SEQUENCE_RUN_BUDGET_MS = 60_000;

// ---------------------------------------------------------------------------------------------------
// Harness: one fault-free FaultBucket per lake so the writer's own R2 writes can be counted, and no
// background work (alarms) that could write between the before/after comparisons.

const writerBuckets = new Map<string, FaultBucket>();
setWriterSetup((lake) => ({
  bucket: (real) => {
    const b = writerBuckets.get(lake) ?? new FaultBucket(real);
    writerBuckets.set(lake, b);
    return b;
  },
  tunables: { backgroundIdleDelayMs: 3_600_000, backgroundSliceDelayMs: 3_600_000, flushSpacingMs: 0 },
}));

const writerWrites = (lake: string): number => {
  const c = writerBuckets.get(lake)?.counts();
  return (c?.put ?? 0) + (c?.delete ?? 0);
};

interface Req {
  method: string;
  path: string;
  token?: string | null;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** What the generator meant to break, for failure messages. */
  why: string;
}

/**
 * The Worker's own app object with the Worker's real bindings. Under vitest-pool-workers a SELF.fetch
 * costs tens of milliseconds even for a 400 (against well under one through the app), which would cap
 * this file at a few hundred requests; so the bulk goes through `app.request` with info logs off, and the
 * first request of every batch goes through SELF.fetch (workerd's own ingress) to keep the two honest.
 */
const app = createApp();
const appEnv = { ...env, LOG_LEVEL: "warn" };

interface SendOptions {
  method?: string;
  token?: string | null;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  viaSelf?: boolean;
}

async function request(path: string, opts: SendOptions = {}): Promise<Response> {
  const token = opts.token === undefined ? TOKENS.adminAll : opts.token;
  if (opts.viaSelf) {
    return call(path, {
      method: opts.method ?? "GET",
      token,
      ...(opts.headers ? { headers: opts.headers } : {}),
      ...(opts.body !== undefined ? { rawBody: opts.body } : {}),
    });
  }
  const headers = new Headers(opts.headers);
  if (token !== null) headers.set("authorization", `Bearer ${token}`);
  if (opts.body !== undefined && !headers.has("content-length")) {
    const size =
      typeof opts.body === "string" ? new TextEncoder().encode(opts.body).length : opts.body.length;
    headers.set("content-length", String(size));
  }
  const init: RequestInit = { method: opts.method ?? "GET", headers };
  if (opts.body !== undefined) init.body = opts.body;
  return app.request(`https://edge.test${path}`, init, appEnv);
}

async function send(r: Req, viaSelf = false): Promise<Response> {
  return request(r.path, {
    method: r.method,
    ...(r.token !== undefined ? { token: r.token } : {}),
    ...(r.headers ? { headers: r.headers } : {}),
    ...(r.body !== undefined ? { body: r.body } : {}),
    viaSelf,
  });
}

/** Every key, size and etag in the bucket: storage is per test file, so this is all this file wrote. */
async function bucketListing(): Promise<string> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.BUCKET.list({ limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) out.push(`${o.key} ${o.size} ${o.etag}`);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out.join("\n");
}

async function json<T>(path: string): Promise<T> {
  const res = await request(path);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

interface SnapshotRow {
  snapshot_id: number;
  schema_version: number;
  next_catalog_id: number;
  next_file_id: number;
}

async function snapshotList(lake: string): Promise<SnapshotRow[]> {
  const out: SnapshotRow[] = [];
  let since: number | undefined;
  for (;;) {
    const page = await json<{ snapshots: SnapshotRow[]; next: number | null }>(
      `/v1/lakes/${lake}/snapshots?limit=1000${since !== undefined ? `&since=${since}` : ""}`,
    );
    out.push(...page.snapshots);
    if (page.next === null) return out;
    since = page.next;
  }
}

async function commit(lake: string, verbs: unknown[], headers?: Record<string, string>): Promise<Response> {
  return request(`/v1/lakes/${lake}/commits`, {
    method: "POST",
    body: JSON.stringify({ verbs }),
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A 4xx with the envelope, a message and a request id, and the status the envelope's code maps to. */
async function expectRejected(r: Req, res: Response): Promise<void> {
  const text = await res.text();
  const where = `${r.why}: ${r.method} ${r.path.slice(0, 200)} → ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(400);
  expect(res.status, where).toBeLessThan(500);
  // A HEAD answer carries the status and headers only.
  if (r.method === "HEAD") return;
  expect(res.headers.get("content-type") ?? "", where).toContain("application/json");
  const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; requestId?: unknown } };
  expect(typeof body.error?.code, where).toBe("string");
  expect(typeof body.error?.message === "string" && body.error.message.length > 0, where).toBe(true);
  expect(typeof body.error?.requestId === "string" && body.error.requestId.length > 0, where).toBe(true);
  expect(statusForCode(body.error?.code as string), where).toBe(res.status);
}

// ---------------------------------------------------------------------------------------------------
// Generators of bad requests. Each targets one way of being wrong; the rest of the request is valid, so
// the rejection is for that reason and not an earlier one.

const LAKE = "fuzz-bad";
const SEEN_KEY = "fuzz-used-key";
const UPLOADED = "main/t1/existing.parquet";
const UNKNOWN_CHECKPOINT = `1-${"0".repeat(32)}`;
const enc = encodeURIComponent;

const validVerbs = [{ op: "create_schema", name: "never_committed" }];
const validCommitBody = JSON.stringify({ verbs: validVerbs });

/** Routes that read the lake, with the query part appended by the caller. */
const READ_PATHS = [
  `/v1/lakes/${LAKE}`,
  `/v1/lakes/${LAKE}/snapshots`,
  `/v1/lakes/${LAKE}/snapshots/1`,
  `/v1/lakes/${LAKE}/catalog`,
  `/v1/lakes/${LAKE}/tables/main/t1/plan`,
  `/v1/lakes/${LAKE}/ducklake/ducklake_table`,
  `/v1/lakes/${LAKE}/ducklake/ducklake_snapshot`,
];
/** Reads that answer at a given snapshot (summary and the snapshot list answer differently; see the report). */
const AT_SNAPSHOT_PATHS = [
  `/v1/lakes/${LAKE}/catalog`,
  `/v1/lakes/${LAKE}/tables/main/t1/plan`,
  `/v1/lakes/${LAKE}/ducklake/ducklake_table`,
  `/v1/lakes/${LAKE}/ducklake/ducklake_data_file`,
];
const ALL_ROUTES: { method: string; path: string; body?: string }[] = [
  ...READ_PATHS.map((path) => ({ method: "GET", path })),
  { method: "GET", path: "/v1/lakes" },
  { method: "POST", path: `/v1/lakes/${LAKE}/commits`, body: validCommitBody },
  { method: "PUT", path: `/v1/lakes/${LAKE}`, body: "{}" },
  { method: "DELETE", path: `/v1/lakes/${LAKE}` },
  { method: "GET", path: `/v1/lakes/${LAKE}/writer` },
  { method: "GET", path: `/v1/lakes/${LAKE}/data/${UPLOADED}` },
  { method: "PUT", path: `/v1/lakes/${LAKE}/data/main/t1/new.parquet`, body: "PAR1" },
  { method: "GET", path: `/v1/lakes/${LAKE}/checkpoints` },
  { method: "POST", path: `/v1/lakes/${LAKE}/checkpoints`, body: "{}" },
  { method: "DELETE", path: `/v1/lakes/${LAKE}/checkpoints/${UNKNOWN_CHECKPOINT}` },
];

const route = fc.constantFrom(...ALL_ROUTES);
const readPath = fc.constantFrom(...READ_PATHS);
const junk = fc.string({ maxLength: 40 });

/** Text that JSON.parse refuses: truncated objects, stray characters, or random text. */
const notJson = fc
  .oneof(
    junk,
    fc.constantFrom('{"verbs": [', "{verbs: []}", "{'verbs': []}", '{"verbs": []', "[", "}", "NaN", "\u0000"),
    fc.json().map((j) => `${j}}`),
  )
  .filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  });

/** Every op the verb schema accepts (a generated op outside this set must be refused). */
const knownOps = new Set<string>(VerbSchema.options.map((o) => o.shape.op.value));

/** Commit bodies zod refuses: wrong shapes and types, unknown ops, missing or extra fields. */
const badCommitBody = fc.oneof(
  fc.constant({}),
  fc.constant({ verbs: [] }),
  fc.record({ verbs: fc.oneof(junk, fc.integer(), fc.constant(null), fc.dictionary(junk, junk)) }),
  junk.filter((op) => !knownOps.has(op)).map((op) => ({ verbs: [{ op }] })),
  fc.record({ verbs: fc.constant(validVerbs), extra: junk }),
  fc.record({ verbs: fc.constant(validVerbs), author: fc.oneof(fc.integer(), fc.boolean()) }),
  fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)).map((name) => ({
    verbs: [{ op: "create_schema", name }],
  })),
  fc.constant({ verbs: [{ op: "create_schema", name: "" }] }),
  fc.constant({ verbs: [{ op: "create_table", name: "t9", columns: [] }] }),
  fc.constant({ verbs: [{ op: "create_table", name: "t9", columns: [{ name: "a" }] }] }),
  fc.integer({ min: -5, max: -1 }).map((id) => ({ verbs: [{ op: "drop_table", table: { id } }] })),
  fc.constant({ verbs: [{ op: "drop_schema", schema: { id: 1.5 } }] }),
  fc.constant({
    verbs: [
      {
        op: "register_data_file",
        table: { name: "t1" },
        file: { path: "x.parquet", recordCount: -1, fileSizeBytes: 1 },
      },
    ],
  }),
  fc.constant({ verbs: Array.from({ length: 1001 }, () => validVerbs[0]) }),
  fc.constant({ verbs: validVerbs, message: "m".repeat(16_385) }),
);

/** Verb lists zod accepts but the catalog refuses against the lake's state (nothing of that name, ...). */
const refusedVerbs = fc.constantFrom<unknown[]>(
  [{ op: "drop_table", table: { name: "no_such_table" } }],
  [{ op: "drop_schema", schema: "no_such_schema" }],
  [{ op: "drop_view", view: { name: "no_such_view" } }],
  [{ op: "drop_macro", macro: { name: "no_such_macro" } }],
  [{ op: "create_schema", name: "s1" }],
  [{ op: "create_table", name: "t1", columns: [{ name: "a", type: "int32" }] }],
  [{ op: "rename_table", table: { name: "no_such_table" }, newName: "x" }],
  [{ op: "add_column", table: { name: "t1" }, column: { name: "id", type: "int64" } }],
  [{ op: "drop_column", table: { name: "t1" }, column: "no_such_column" }],
  [{ op: "rename_column", table: { name: "t1" }, column: "no_such_column", newName: "x" }],
  [{ op: "expire_data_file", table: { name: "t1" }, dataFileId: 999_999 }],
  [{ op: "drop_table", table: { id: 999_999 } }],
  [
    { op: "create_schema", name: "half_done" },
    { op: "drop_table", table: { name: "no_such_table" } },
  ],
  [
    {
      op: "register_data_file",
      table: { name: "t1" },
      file: { path: "not-uploaded.parquet", recordCount: 1, fileSizeBytes: 1 },
    },
  ],
  [
    {
      op: "register_data_file",
      table: { name: "t1" },
      file: { path: "existing.parquet", recordCount: 1, fileSizeBytes: 999 },
    },
  ],
);

/** Strings that are not lake names (and that still reach the lake routes as one path segment). */
const badLakeName = fc
  .oneof(
    junk,
    fc.constantFrom("Sales", "sales_eu", "a".repeat(64), "-x", "x-", "dots.in.name", "café", " ", "a b"),
  )
  .filter((s) => s.length > 0 && !LAKE_NAME_PATTERN.test(s) && !/^\.+$/.test(s));

/** Data paths with a segment that would leave the lake's prefix or is not a plain name. */
const badDataPath = fc.oneof(
  fc.constantFrom(
    "..%2f..%2fwal%2fx",
    "main/..%2F..%2Fother-lake/x",
    "%2e%2e%2fx",
    "a//b",
    // Backslashes are separators to URL parsing; encoded, they reach the server's check.
    "a%5C..%5Cb",
    "a/b%00c",
    "%ff",
    "a/%2F",
    `${"a".repeat(300)}/x`,
    `${"a/".repeat(400)}x`,
  ),
  fc
    // A whole "." or ".." segment (even as %2E) is removed by URL parsing before any server sees it, so
    // dot segments are sent inside an encoded separator, where only the server's own check stops them.
    .tuple(
      fc.constantFrom("", "main/", "x/y/"),
      fc.constantFrom("../..", "../", "./x", "a b", "a?b", "é", "a\u0001b", "a#b"),
    )
    .map(([pre, seg]) => `${pre}${enc(seg)}/x.parquet`),
);

/** Values of snapshot ids that are not non-negative integers of at most 15 digits. */
const badSnapshotId = fc.oneof(
  fc.integer({ max: -1 }).map(String),
  fc
    .double({ noNaN: true })
    .filter((d) => !Number.isInteger(d))
    .map(String),
  fc.constantFrom("abc", "1e3", "0x10", "", " 1", "1 ", "+1", "9".repeat(16), "Infinity", "NaN"),
);

/** Well-formed but unknown checkpoint ids, and malformed ones. */
const badCheckpoint = fc.oneof(
  fc
    .string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 32, maxLength: 32 })
    .map((h) => `1-${h}`),
  fc.constantFrom("", "a b", "../x", "x".repeat(129), "%00", "é"),
);

const badAfter = fc.oneof(
  fc.integer({ max: -1 }).map(String),
  fc.constantFrom("abc", "1.5", "", "9".repeat(16), "-0", "0x1"),
);

const badToken = fc.oneof(
  fc.constant(null),
  fc.constantFrom("wrong-token-0123456789", "t-admin-all-012345678", "short"),
  junk.filter((t) => !Object.values(TOKENS).includes(t as never) && /^[\x21-\x7e]*$/.test(t)),
);

const badRequest: fc.Arbitrary<Req> = fc.oneof(
  notJson.map((body) => ({
    method: "POST",
    path: `/v1/lakes/${LAKE}/commits`,
    headers: { "content-type": "application/json" },
    body,
    why: "malformed JSON (commit)",
  })),
  notJson
    .filter((s) => s.trim() !== "")
    .map((body) => ({
      method: "PUT",
      path: `/v1/lakes/${LAKE}`,
      headers: { "content-type": "application/json" },
      body,
      why: "malformed JSON (create lake)",
    })),
  badCommitBody.map((b) => ({
    method: "POST",
    path: `/v1/lakes/${LAKE}/commits`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(b),
    why: "wrong types / unknown verb",
  })),
  refusedVerbs.map((verbs) => ({
    method: "POST",
    path: `/v1/lakes/${LAKE}/commits`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ verbs }),
    why: "verbs the catalog refuses",
  })),
  fc
    .record({ dataPath: fc.oneof(fc.integer(), fc.constant("")), flushSpacingMs: fc.constant(5) })
    .map((b) => ({
      method: "PUT",
      path: `/v1/lakes/${LAKE}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(b),
      why: "wrong types (create lake)",
    })),
  fc.constant<Req>({
    method: "PUT",
    path: `/v1/lakes/${LAKE}`,
    headers: { "content-type": "application/json" },
    body: "{}",
    why: "create an existing lake",
  }),
  fc.constantFrom(`/v1/lakes/${LAKE}/commits`, `/v1/lakes/${LAKE}`).map((path) => ({
    method: path.endsWith("commits") ? "POST" : "PUT",
    path,
    headers: { "content-type": "application/json" },
    body: `{"verbs":[{"op":"create_schema","name":"${"x".repeat(1 << 20)}"}]}`,
    why: "oversized body",
  })),
  fc
    .tuple(badLakeName, fc.constantFrom(...ALL_ROUTES.filter((r) => r.path.includes(LAKE))))
    .map(([name, r]) => ({
      method: r.method,
      path: r.path.replace(LAKE, enc(name)),
      headers: { "content-type": "application/json" },
      ...(r.body !== undefined ? { body: r.body } : {}),
      why: "invalid lake name",
    })),
  fc
    .tuple(fc.constantFrom("never-created", "fuzz-bad-2", "x"), route)
    // Not the create route (it would create it), nor the writer's status, which answers for any valid
    // name today (see the report).
    .filter(([, r]) => r.path !== "/v1/lakes" && !(r.method === "PUT" && !r.path.includes("/data/")))
    .filter(([, r]) => !r.path.endsWith("/writer"))
    .map(([name, r]) => ({
      method: r.method,
      path: r.path.replace(LAKE, name),
      headers: { "content-type": "application/json" },
      ...(r.body !== undefined ? { body: r.body } : {}),
      why: "lake that does not exist",
    })),
  fc.tuple(badDataPath, fc.constantFrom("GET", "PUT", "HEAD")).map(([p, method]) => ({
    method,
    path: `/v1/lakes/${LAKE}/data/${p}`,
    ...(method === "PUT" ? { body: "PAR1", headers: { "content-type": "application/octet-stream" } } : {}),
    why: "path traversal / bad data path",
  })),
  fc.constant<Req>({
    method: "PUT",
    path: `/v1/lakes/${LAKE}/data/${UPLOADED}`,
    body: "PAR1 other bytes",
    why: "overwrite an uploaded data file",
  }),
  fc.tuple(readPath, badSnapshotId).map(([p, id]) => ({
    method: "GET",
    path: `${p}?snapshot=${enc(id)}`,
    why: "bad snapshot selector",
  })),
  badSnapshotId.map((id) => ({
    method: "GET",
    path: `/v1/lakes/${LAKE}/snapshots/${enc(id)}`,
    why: "bad snapshot id in path",
  })),
  fc
    .tuple(fc.constantFrom(...AT_SNAPSHOT_PATHS), fc.integer({ min: 1000, max: 999_999_999_999_999 }))
    .map(([p, id]) => ({ method: "GET", path: `${p}?snapshot=${id}`, why: "snapshot beyond the head" })),
  fc.integer({ min: 1000, max: 999_999_999_999_999 }).map((id) => ({
    method: "GET",
    path: `/v1/lakes/${LAKE}/snapshots/${id}`,
    why: "snapshot that does not exist",
  })),
  fc.tuple(readPath, badCheckpoint).map(([p, id]) => ({
    method: "GET",
    path: `${p}?checkpoint=${enc(id)}`,
    why: "unknown or malformed checkpoint",
  })),
  fc.tuple(readPath, badAfter).map(([p, a]) => ({
    method: "GET",
    path: `${p}?after=${enc(a)}`,
    why: "malformed after token",
  })),
  fc.tuple(readPath, fc.nat({ max: 50 })).map(([p, a]) => ({
    method: "GET",
    path: `${p}?after=${a}&checkpoint=1-${"0".repeat(32)}`,
    why: "after with checkpoint",
  })),
  fc
    .constantFrom(
      ...["limit=0", "limit=abc", "limit=100000", "limit=-1"].flatMap((q) => [
        `/v1/lakes/${LAKE}/snapshots?${q}`,
        `/v1/lakes/${LAKE}/tables/main/t1/plan?${q}`,
        `/v1/lakes?${q}`,
      ]),
      `/v1/lakes/${LAKE}/tables/main/t1/plan?after_file=-1`,
      `/v1/lakes/${LAKE}/tables/main/t1/plan?after_file=x`,
      `/v1/lakes/${LAKE}/snapshots?since=x`,
      `/v1/lakes/${LAKE}/snapshots?since=-3`,
      `/v1/lakes?cursor=${"c".repeat(2000)}`,
    )
    .map((path) => ({ method: "GET", path, why: "bad paging parameter" })),
  fc.constantFrom("x", "id:eq", "id:like:3", "nope:eq:1", ":eq:1").map((f) => ({
    method: "GET",
    path: `/v1/lakes/${LAKE}/tables/main/t1/plan?filter=${enc(f)}`,
    why: "bad plan filter",
  })),
  fc.constantFrom("xml", "", "JSON").map((f) => ({
    method: "GET",
    path: `/v1/lakes/${LAKE}/ducklake/ducklake_table?format=${enc(f)}`,
    why: "bad format",
  })),
  fc
    .tuple(
      fc.constantFrom(
        "tables/main/no_such/plan",
        "tables/no_such/t1/plan",
        "ducklake/ducklake_nope",
        "ducklake/ducklake_table%2e",
      ),
    )
    .map(([p]) => ({ method: "GET", path: `/v1/lakes/${LAKE}/${p}`, why: "unknown table" })),
  fc
    .tuple(fc.constantFrom(...ALL_ROUTES), fc.constantFrom("PATCH", "POST", "PUT", "DELETE", "OPTIONS"))
    .filter(([r, m]) => !ALL_ROUTES.some((o) => o.path === r.path && o.method === m))
    .filter(([r, m]) => !(r.path.includes("/data/") && m === "PUT"))
    .map(([r, method]) => ({
      method,
      path: r.path,
      ...(method !== "OPTIONS" && method !== "DELETE" ? { body: "{}" } : {}),
      headers: { "content-type": "application/json" },
      why: "wrong method",
    })),
  fc.tuple(route, badToken).map(([r, token]) => ({
    method: r.method,
    path: r.path,
    token,
    headers: { "content-type": "application/json" },
    ...(r.body !== undefined ? { body: r.body } : {}),
    why: "missing or wrong token",
  })),
  fc
    .tuple(route, fc.constantFrom<string>(TOKENS.readSales, TOKENS.writeSales))
    .filter(([r]) => r.path !== "/v1/lakes")
    .map(([r, token]) => ({
      method: r.method,
      path: r.path,
      token,
      headers: { "content-type": "application/json" },
      ...(r.body !== undefined ? { body: r.body } : {}),
      why: "token for another lake",
    })),
  fc.constantFrom("Basic dXNlcjpwYXNz", "Bearer", "bearer  ", `Token ${TOKENS.adminAll}`).map((auth) => ({
    method: "POST",
    path: `/v1/lakes/${LAKE}/commits`,
    token: null,
    headers: { authorization: auth, "content-type": "application/json" },
    body: validCommitBody,
    why: "malformed Authorization header",
  })),
  fc.constantFrom("", "a b", "x".repeat(201), "é", "a/b").map((key) => ({
    method: "POST",
    path: `/v1/lakes/${LAKE}/commits`,
    headers: { "idempotency-key": key, "content-type": "application/json" },
    body: validCommitBody,
    why: "malformed Idempotency-Key",
  })),
  fc.constant<Req>({
    method: "POST",
    path: `/v1/lakes/${LAKE}/commits`,
    headers: { "idempotency-key": SEEN_KEY, "content-type": "application/json" },
    body: validCommitBody,
    why: "Idempotency-Key reused with another body",
  }),
  fc
    .constantFrom(
      '{"lifetimeSeconds":0}',
      '{"lifetimeSeconds":-1}',
      '{"lifetimeSeconds":"60"}',
      '{"lifetimeSeconds":1.5}',
      '{"lifetimeSeconds":99999999999}',
      '{"pinned":true}',
      "[]",
      "{",
    )
    .map((body) => ({
      method: "POST",
      path: `/v1/lakes/${LAKE}/checkpoints`,
      headers: { "content-type": "application/json" },
      body,
      why: "bad checkpoint request",
    })),
  fc.oneof(badCheckpoint, fc.constant(UNKNOWN_CHECKPOINT)).map((id) => ({
    method: "DELETE",
    path: `/v1/lakes/${LAKE}/checkpoints/${enc(id)}`,
    why: "delete an unknown or malformed checkpoint",
  })),
);

// ---------------------------------------------------------------------------------------------------
// Generators of verb lists for the commit sequences: a small vocabulary, so names collide and commits
// are refused as often as they are accepted.

const SCHEMAS = ["main", "s1", "s2"];
const TABLES = ["t1", "t2", "t3"];
const COLUMNS = ["c1", "c2", "c3"];
const TYPES = ["int32", "int64", "varchar", "double", "boolean"];

const columnType = fc.oneof({ arbitrary: fc.constantFrom(...TYPES), weight: 9 }, fc.constant("not_a_type"));
const columnDef = fc.record({ name: fc.constantFrom(...COLUMNS), type: columnType });
/**
 * Registered files must exist inside the lake's data path, so each sequence lake gets a pool of uploaded
 * objects that register_data_file verbs pick from (by absolute path, which must still lie in the lake).
 */
const POOL_FILES = 4;
const POOL_FILE = new TextEncoder().encode("PAR1 fuzz pool file PAR1");
const poolKey = (lake: string, i: number): string => `lakes/${lake}/data/pool/f-${i}.parquet`;
const poolUrl = (lake: string, i: number): string =>
  `r2://${env.BUCKET_NAME ?? "ducklake-edge"}/${poolKey(lake, i)}`;

const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

/** Verbs aimed at nothing that exists, or malformed: each one makes its whole commit refused. */
const blindVerb = fc.constantFrom<unknown>(
  { op: "no_such_verb" },
  { op: "drop_table", table: { schema: "s9", name: "t1" } },
  { op: "drop_view", view: { name: "v9" } },
  { op: "create_table", name: "tx", columns: [{ name: "c1", type: "not_a_type" }] },
  {
    op: "create_table",
    name: "tx",
    columns: [
      { name: "c1", type: "int32" },
      { name: "c1", type: "int64" },
    ],
  },
  { op: "expire_data_file", table: { name: "t1" }, dataFileId: 999_999 },
  { op: "add_column", table: { name: "no_such_table" }, column: { name: "c1", type: "int32" } },
);

/** What a lake holds at its head, read back over HTTP, so the next verbs can aim at real entities. */
interface LakeShape {
  lake: string;
  schemas: string[];
  tables: { schema: string; name: string; columns: string[]; types: string[] }[];
  views: { schema: string; name: string }[];
  fileIds: number[];
}

/** The Parquet type a fitting file gives each DuckLake type the generator uses (others: no fitting file). */
const PARQUET_OF: Record<string, ParquetType> = {
  int32: { kind: "int", bits: 32, signed: true },
  int64: { kind: "int", bits: 64, signed: true },
  varchar: { kind: "string" },
  double: { kind: "double" },
  boolean: { kind: "boolean" },
};
let fittingFiles = 0;

/**
 * Points each register_data_file at a real Parquet file of its table's columns at the head, written into
 * the lake's data path first: a registered file's footer is checked against its table (decision 0652), so
 * the placeholder pool bytes would refuse every registration. A table with a column type outside
 * PARQUET_OF keeps the pool file, and that commit is refused (a 4xx, as for any refused list).
 */
async function withFittingFiles(shape: LakeShape, verbs: unknown[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const v of verbs) {
    const r = v as {
      op?: string;
      table?: { schema?: string; name?: string };
      file?: Record<string, unknown>;
    };
    const t =
      r.op === "register_data_file"
        ? shape.tables.find(
            (x) =>
              x.schema.toLowerCase() === (r.table?.schema ?? "main").toLowerCase() &&
              x.name.toLowerCase() === (r.table?.name ?? "").toLowerCase(),
          )
        : undefined;
    const types = t?.types.map((ty) => PARQUET_OF[ty]);
    if (!t || !types || types.some((ty) => ty === undefined)) {
      out.push(v);
      continue;
    }
    const bytes = writeParquet(
      t.columns.map((name, i) => ({ name, type: types[i] as ParquetType, nullable: true })),
      [],
    ).bytes;
    const key = `lakes/${shape.lake}/data/pool/fit-${fittingFiles++}.parquet`;
    await env.BUCKET.put(key, bytes);
    out.push({
      ...r,
      file: {
        ...r.file,
        path: `r2://${env.BUCKET_NAME ?? "ducklake-edge"}/${key}`,
        fileSizeBytes: bytes.length,
      },
    });
  }
  return out;
}

async function shapeOf(lake: string): Promise<LakeShape> {
  const { catalog } = await json<{
    catalog: {
      schemas: { schema_name: string }[];
      tables: {
        schema_name: string;
        table_name: string;
        columns: { column_name: string; column_type: string }[];
      }[];
      views: { schema_name: string; view_name: string }[];
    };
  }>(`/v1/lakes/${lake}/catalog`);
  const files = await json<{ rows: { data_file_id: number; end_snapshot: number | null }[] }>(
    `/v1/lakes/${lake}/ducklake/ducklake_data_file`,
  );
  return {
    lake,
    schemas: catalog.schemas.map((x) => x.schema_name),
    tables: catalog.tables.map((t) => ({
      schema: t.schema_name,
      name: t.table_name,
      columns: t.columns.map((c) => c.column_name),
      types: t.columns.map((c) => c.column_type),
    })),
    views: catalog.views.map((v) => ({ schema: v.schema_name, name: v.view_name })),
    fileIds: files.rows.filter((f) => f.end_snapshot === null).map((f) => f.data_file_id),
  };
}

/**
 * Verbs aimed at what the lake holds (existing tables, columns, files) with new or colliding names:
 * mostly accepted, sometimes refused (a name taken, a schema not empty). Falls back to the blind
 * generator when the lake has nothing of the kind yet.
 */
function aimedVerb(shape: LakeShape): fc.Arbitrary<unknown> {
  // A sequence may drop every schema, "main" included (the catalog accepts it once it is empty). Then only
  // a new schema can be aimed at: `fc.constantFrom()` of nothing throws, and that throw (seed 424242, run 9)
  // was the failure whose minutes of shrinking ran into the 240 s timeout (decision 0176).
  if (shape.schemas.length === 0)
    return fc.constantFrom(...SCHEMAS).map((name) => ({ op: "create_schema", name }));
  const schema = fc.constantFrom(...shape.schemas);
  if (shape.tables.length === 0) {
    return fc
      .record({
        schema,
        name: fc.constantFrom(...TABLES),
        columns: fc.uniqueArray(columnDef, { minLength: 1, maxLength: 3, selector: (c) => c.name }),
      })
      .map((v) => ({ op: "create_table", ...v }));
  }
  const table = fc.constantFrom(...shape.tables);
  const ref = table.map((t) => ({ schema: t.schema, name: t.name }));
  const withColumn = table.chain((t) =>
    fc.record({
      table: fc.constant({ schema: t.schema, name: t.name }),
      column: fc.constantFrom(...t.columns),
    }),
  );
  return fc.oneof(
    w(
      1,
      fc.constantFrom(...SCHEMAS).map((name) => ({ op: "create_schema", name })),
    ),
    w(
      2,
      fc
        .record({
          schema,
          name: fc.constantFrom(...TABLES),
          columns: fc.uniqueArray(columnDef, { minLength: 1, maxLength: 3, selector: (c) => c.name }),
        })
        .map((v) => ({ op: "create_table", ...v })),
    ),
    w(
      5,
      fc
        .record({
          t: table,
          recordCount: fc.nat({ max: 1000 }),
          pooled: fc.nat({ max: POOL_FILES - 1 }),
          min: fc.nat({ max: 50 }),
          span: fc.nat({ max: 50 }),
        })
        .map(({ t, recordCount, pooled, min, span }) => ({
          op: "register_data_file",
          table: { schema: t.schema, name: t.name },
          file: {
            path: poolUrl(shape.lake, pooled),
            pathIsRelative: false,
            recordCount,
            fileSizeBytes: POOL_FILE.length,
            columnStats: t.columns
              .slice(0, 2)
              .map((column) => ({ column, min: String(min), max: String(min + span) })),
          },
        })),
    ),
    w(
      2,
      fc.record({ table: ref, column: columnDef }).map((v) => ({ op: "add_column", ...v })),
    ),
    w(
      1,
      withColumn.chain((v) =>
        fc.constantFrom(...COLUMNS).map((newName) => ({ op: "rename_column", ...v, newName })),
      ),
    ),
    w(
      1,
      withColumn.map((v) => ({ op: "drop_column", ...v })),
    ),
    w(
      1,
      fc
        .record({ table: ref, newName: fc.constantFrom(...TABLES) })
        .map((v) => ({ op: "rename_table", ...v })),
    ),
    w(
      1,
      fc.record({ table: ref, toSchema: schema }).map((v) => ({ op: "move_table", ...v })),
    ),
    w(
      1,
      ref.map((t) => ({ op: "drop_table", table: t })),
    ),
    w(
      1,
      schema.map((x) => ({ op: "drop_schema", schema: x })),
    ),
    ...(shape.fileIds.length > 0
      ? [
          w(
            1,
            fc
              .record({ table: ref, dataFileId: fc.constantFrom(...shape.fileIds) })
              .map((v) => ({ op: "expire_data_file", ...v })),
          ),
        ]
      : []),
    w(
      1,
      fc
        .record({ table: ref, key: fc.constantFrom("owner", "pii") })
        .map(({ table, key }) => ({ op: "set_tag", target: { table }, key, value: "x" })),
    ),
    w(
      1,
      fc
        .record({ schema, name: fc.constantFrom("v1", "v2") })
        .map((v) => ({ op: "create_view", ...v, sql: "SELECT 1" })),
    ),
    ...(shape.views.length > 0
      ? [
          w(
            1,
            fc.constantFrom(...shape.views).map((view) => ({ op: "drop_view", view })),
          ),
        ]
      : []),
  );
}

/** One commit's verbs: mostly aimed, sometimes blind (refused more often), 1–3 of them. */
const verbListFor = (shape: LakeShape): fc.Arbitrary<unknown[]> =>
  fc.oneof(
    { arbitrary: fc.array(aimedVerb(shape), { minLength: 1, maxLength: 1 }), weight: 4 },
    { arbitrary: fc.array(aimedVerb(shape), { minLength: 2, maxLength: 3 }), weight: 2 },
    fc.array(fc.oneof({ arbitrary: aimedVerb(shape), weight: 2 }, blindVerb), { minLength: 1, maxLength: 3 }),
  );

interface Row {
  [column: string]: unknown;
}

const live = (r: Row, s: number): boolean =>
  (r.begin_snapshot as number) <= s && (r.end_snapshot === null || (r.end_snapshot as number) > s);

async function ducklake(lake: string, table: string): Promise<Row[]> {
  return (await json<{ rows: Row[] }>(`/v1/lakes/${lake}/ducklake/${table}`)).rows;
}

/** Each id's versions are contiguous (end of one = begin of the next): an id never comes back after it ended. */
function expectIdsNeverReused(rows: Row[], idCol: string, what: string, scope = (_r: Row) => ""): void {
  const byId = new Map<string, Row[]>();
  for (const r of rows) {
    const k = `${scope(r)}/${String(r[idCol])}`;
    byId.set(k, [...(byId.get(k) ?? []), r]);
  }
  for (const [id, versions] of byId) {
    versions.sort((a, b) => (a.begin_snapshot as number) - (b.begin_snapshot as number));
    for (let i = 1; i < versions.length; i++) {
      const prev = versions[i - 1] as Row;
      expect(
        prev.end_snapshot,
        `${what} ${id}: version ${i} follows one that ended at ${String(prev.end_snapshot)}`,
      ).toBe((versions[i] as Row).begin_snapshot);
    }
  }
}

/** Names unique among the entities live at each snapshot, within their scope. */
function expectNamesUnique(
  rows: Row[],
  snaps: number[],
  nameCol: string,
  scopeCol: string,
  what: string,
): void {
  for (const s of snaps) {
    const seen = new Set<string>();
    for (const r of rows) {
      if (!live(r, s)) continue;
      const k = `${String(r[scopeCol])}/${String(r[nameCol])}`;
      expect(seen.has(k), `${what} ${k} twice at snapshot ${s}`).toBe(false);
      seen.add(k);
    }
  }
}

/** A new id was drawn from the counter of the snapshot that created it (and never before). */
function expectIdsFromCounter(
  births: { id: number; born: number }[],
  snaps: SnapshotRow[],
  counter: "next_catalog_id" | "next_file_id",
): void {
  const first = new Map<number, number>();
  for (const { id, born } of births) first.set(id, Math.min(first.get(id) ?? Number.POSITIVE_INFINITY, born));
  for (const [id, born] of first) {
    const at = snaps[born] as SnapshotRow;
    expect(id, `${counter}: id ${id} created at snapshot ${born}`).toBeLessThan(at[counter]);
    if (born === 0) continue;
    const before = (snaps[born - 1] as SnapshotRow)[counter];
    expect(id, `${counter}: id ${id} is new at snapshot ${born}`).toBeGreaterThanOrEqual(before);
  }
}

const births = (rows: Row[], col: string): { id: number; born: number }[] =>
  rows.map((r) => ({ id: r[col] as number, born: r.begin_snapshot as number }));

async function expectCatalogInvariants(lake: string): Promise<void> {
  const snaps = await snapshotList(lake);
  snaps.forEach((s, i) => {
    expect(s.snapshot_id).toBe(i);
    if (i === 0) return;
    const prev = snaps[i - 1] as SnapshotRow;
    expect(s.next_catalog_id, `next_catalog_id at ${i}`).toBeGreaterThanOrEqual(prev.next_catalog_id);
    expect(s.next_file_id, `next_file_id at ${i}`).toBeGreaterThanOrEqual(prev.next_file_id);
    expect(s.schema_version, `schema_version at ${i}`).toBeGreaterThanOrEqual(prev.schema_version);
  });
  const ids = snaps.map((s) => s.snapshot_id);
  const [schemas, tables, columns, views, files] = await Promise.all(
    ["ducklake_schema", "ducklake_table", "ducklake_column", "ducklake_view", "ducklake_data_file"].map((t) =>
      ducklake(lake, t),
    ),
  );
  if (!schemas || !tables || !columns || !views || !files) throw new Error("missing ducklake tables");

  expectNamesUnique(schemas, ids, "schema_name", "_", "schema");
  expectNamesUnique(tables, ids, "table_name", "schema_id", "table");
  expectNamesUnique(views, ids, "view_name", "schema_id", "view");
  const topLevel = columns.filter((c) => c.parent_column === null);
  expectNamesUnique(topLevel, ids, "column_name", "table_id", "column");

  expectIdsNeverReused(schemas, "schema_id", "schema");
  expectIdsNeverReused(tables, "table_id", "table");
  expectIdsNeverReused(views, "view_id", "view");
  expectIdsNeverReused(columns, "column_id", "column", (c) => String(c.table_id));
  expectIdsNeverReused(files, "data_file_id", "data file");
  // Schemas, tables and views share one id space (next_catalog_id); an id names one kind of thing.
  const owners = new Map<number, string>();
  for (const [kind, rows, col] of [
    ["schema", schemas, "schema_id"],
    ["table", tables, "table_id"],
    ["view", views, "view_id"],
  ] as const) {
    for (const r of rows) {
      const id = r[col] as number;
      const prev = owners.get(id);
      expect(prev ?? kind, `catalog id ${id} used by a ${prev} and a ${kind}`).toBe(kind);
      owners.set(id, kind);
    }
  }
  expectIdsFromCounter(
    [...births(schemas, "schema_id"), ...births(tables, "table_id"), ...births(views, "view_id")],
    snaps,
    "next_catalog_id",
  );
  expectIdsFromCounter(births(files, "data_file_id"), snaps, "next_file_id");

  // Row ids: every table's registered files, in row-id order, tile [0, total) with no gap or overlap.
  const byTable = new Map<number, Row[]>();
  for (const f of files) byTable.set(f.table_id as number, [...(byTable.get(f.table_id as number) ?? []), f]);
  for (const [tableId, list] of byTable) {
    list.sort((a, b) => (a.row_id_start as number) - (b.row_id_start as number));
    let next = 0;
    for (const f of list) {
      expect(f.row_id_start, `table ${tableId} file ${String(f.data_file_id)} row ids`).toBe(next);
      next += f.record_count as number;
    }
  }

  // The catalog route agrees with ducklake_table about what is live at the head.
  const head = ids.at(-1) as number;
  const cat = await json<{ catalog: { tables: { table_id: number; table_name: string }[] } }>(
    `/v1/lakes/${lake}/catalog`,
  );
  const liveTables = tables
    .filter((t) => live(t, head))
    .map((t) => `${String(t.table_id)}:${String(t.table_name)}`);
  expect(cat.catalog.tables.map((t) => `${t.table_id}:${t.table_name}`).sort()).toEqual(liveTables.sort());
}

// ---------------------------------------------------------------------------------------------------

describe("fuzzing the HTTP API", () => {
  beforeAll(async () => {
    // Thousands of requests: keep the per-request info lines out of the output (errors still print).
    vi.spyOn(console, "log").mockImplementation(() => {});
    expect((await request(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    const seed = await commit(
      LAKE,
      [
        { op: "create_schema", name: "s1" },
        { op: "create_table", name: "t1", columns: [{ name: "id", type: "int64" }] },
      ],
      { "idempotency-key": SEEN_KEY },
    );
    expect(seed.status).toBe(200);
    // A real Parquet file of t1's columns: a registered file's footer is checked (decision 0652).
    const bytes = writeParquet(
      [{ name: "id", type: { kind: "int", bits: 64, signed: true }, nullable: true }],
      [{ id: 1n }, { id: 2n }, { id: 3n }],
    ).bytes;
    const up = await request(`/v1/lakes/${LAKE}/data/${UPLOADED}`, { method: "PUT", body: bytes });
    expect(up.status).toBe(201);
    const reg = await commit(LAKE, [
      {
        op: "register_data_file",
        table: { name: "t1" },
        file: {
          path: "existing.parquet",
          recordCount: 3,
          fileSizeBytes: bytes.length,
          columnStats: [{ column: "id", min: "1", max: "3" }],
        },
      },
    ]);
    expect(reg.status, await reg.clone().text()).toBe(200);
  });

  afterAll(() => {
    vi.restoreAllMocks();
  });

  it("thousands of bad requests: every one a 4xx envelope, and no batch changes any state", async () => {
    let sent = 0;
    const reasons = new Map<string, number>();
    await assertProperty(
      fc.asyncProperty(fc.array(badRequest, { minLength: 10, maxLength: 20 }), async (batch) => {
        const listing = await bucketListing();
        const snapshots = JSON.stringify(await snapshotList(LAKE));
        const writes = writerWrites(LAKE);
        for (const [i, r] of batch.entries()) {
          await expectRejected(r, await send(r, i === 0));
          sent++;
          reasons.set(r.why, (reasons.get(r.why) ?? 0) + 1);
        }
        expect(writerWrites(LAKE), "the writer wrote to R2 during a batch of rejected requests").toBe(writes);
        expect(JSON.stringify(await snapshotList(LAKE))).toBe(snapshots);
        expect(await bucketListing()).toBe(listing);
      }),
      // The failing request is named in the assertion; shrinking would replay batches for minutes.
      { numRuns: 200, endOnFailure: true },
    );
    expect(sent).toBeGreaterThan(2500);
    // Every kind of bad request was tried many times.
    for (const [why, n] of reasons) expect(n, why).toBeGreaterThan(5);
    expect(reasons.size).toBeGreaterThanOrEqual(30);
  });

  it("the verb generator still answers for a lake with no schema left (every schema dropped)", () => {
    const empty: LakeShape = { lake: "fuzz-empty", schemas: [], tables: [], views: [], fileIds: [] };
    const lists = fc.sample(verbListFor(empty), { seed: 424242, numRuns: 50 });
    const ops = new Set(lists.flat().map((v) => (v as { op: string }).op));
    expect(ops.has("create_schema")).toBe(true);
    for (const op of ops) expect(knownOps.has(op) || op === "no_such_verb", op).toBe(true);
  });

  it(
    "random valid and invalid verb lists: consecutive snapshots for accepted ones, nothing for the rest, invariants hold",
    async () => {
      let lakeSeq = 0;
      let accepted = 0;
      let rejected = 0;
      await assertProperty(
        fc.asyncProperty(fc.integer({ min: 6, max: 16 }), fc.gen(), async (steps, g) => {
          const lake = `fuzz-seq-${lakeSeq++}`;
          expect((await request(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
          for (let i = 0; i < POOL_FILES; i++) await env.BUCKET.put(poolKey(lake, i), POOL_FILE);
          let head = 0;
          for (let step = 0; step < steps; step++) {
            const shape = await shapeOf(lake);
            const verbs = await withFittingFiles(shape, g(verbListFor, shape) as unknown[]);
            const res = await commit(lake, verbs);
            const text = await res.text();
            expect(res.status, `${JSON.stringify(verbs)} → ${text}`).toBeLessThan(500);
            if (res.status === 200) {
              accepted++;
              const out = JSON.parse(text) as { snapshotId: number | null };
              if (out.snapshotId !== null) {
                expect(out.snapshotId, JSON.stringify(verbs)).toBe(head + 1);
                head = out.snapshotId;
              }
            } else {
              rejected++;
              await expectRejected(
                { method: "POST", path: `/v1/lakes/${lake}/commits`, why: JSON.stringify(verbs) },
                new Response(text, res),
              );
            }
            const after = await snapshotList(lake);
            expect(after.map((x) => x.snapshot_id)).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
          }
          await expectCatalogInvariants(lake);
        }),
        // A sequence takes well under a second (at most a few under load): a run still going after a minute
        // is a stall, reported with its seed and run index long before the test's own timeout
        // (docs/decisions/0176-reproducible-properties.md).
        // No shrinking: each shrink replays a whole sequence on a fresh lake, and shrinking one failure once
        // ran for minutes into the 240 s timeout, hiding it (decision 0176); the failing verbs are named in
        // the assertion, and FC_SEED/FC_PATH replay it.
        { numRuns: 30, runBudgetMs: SEQUENCE_RUN_BUDGET_MS, endOnFailure: true },
      );
      // Both outcomes were exercised in earnest.
      expect(accepted).toBeGreaterThan(30);
      expect(rejected).toBeGreaterThan(10);
    },
    SEQUENCES_TIMEOUT_MS,
  );
});
