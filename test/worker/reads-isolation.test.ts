/**
 * Reads are answered by the Worker from R2, never by the lake writer: every read route and selector is
 * exercised with every LakeWriter method spied on (zero calls), on a lake whose object was reset, and on a
 * lake that never had an object at all. The route list comes from the app itself, so a new read route is
 * covered (or fails this file) without anyone remembering to add it here.
 */
import { abortAllDurableObjects, listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import { DUCKLAKE_TABLES, openCatalog, type Verb } from "../../catalog/index.ts";
import { LakeWriter } from "../../durable-objects/lake-writer.ts";
import { setWriterSetup } from "../../durable-objects/setup.ts";
import { writeParquet } from "../../parquet/index.ts";
import type { Bucket } from "../../storage/api.ts";
import { openWriter } from "../../storage/index.ts";
import { createApp } from "../../worker/app.ts";
import { MessageType } from "../../worker/quack/messages.ts";
import capturedReads from "../fixtures/quack/captured-reads.json";
import { call, TOKENS } from "../support/http.ts";
import { connect as quackConnect, prepare as quackPrepare } from "./quack/client.ts";

/** Read-scoped routes that reach the writer on purpose: the writer's own status and its metrics. */
const WRITER_ROUTES = new Set(["GET /v1/lakes/:lake/writer", "GET /v1/lakes/:lake/metrics"]);
/** Routes outside any lake whose answers involve no lake state. */
const STATIC_ROUTES = new Set(["GET /v1/health", "GET /v1/openapi.json"]);

const DATA_PATH = "main/orders/part-1.parquet";
const DATA_BYTES = new TextEncoder().encode("PAR1 not really parquet PAR1");

const orderColumns = [
  { name: "id", type: "int64" },
  { name: "region", type: "varchar" },
  { name: "amount", type: "decimal(10,2)" },
];

/** Real Parquet files for the fixture's file-backed table (the rows API reads them). */
function ordersFile(ids: number[]): Uint8Array {
  return writeParquet(
    [
      { name: "id", type: { kind: "int", bits: 64, signed: true }, nullable: true },
      { name: "region", type: { kind: "string" }, nullable: true },
      { name: "amount", type: { kind: "decimal", precision: 10, scale: 2 }, nullable: true },
    ],
    ids.map((id) => ({ id: BigInt(id), region: "us", amount: BigInt(id * 100) })),
  ).bytes;
}
const FILE_A = ordersFile([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
const FILE_B = ordersFile([10, 11, 12, 13, 14]);

/** Enough catalog content that every read route has rows to answer with. */
const SEED_COMMITS: Verb[][] = [
  [
    { op: "create_schema", name: "sales" },
    { op: "create_table", name: "orders", columns: orderColumns },
  ],
  [
    {
      op: "register_data_file",
      table: { name: "orders" },
      file: {
        // Put in place by seedFiles() before the commits (a registered file must exist in the lake).
        path: "a.parquet",
        recordCount: 10,
        fileSizeBytes: FILE_A.byteLength,
        columnStats: [{ column: "id", min: "0", max: "9", nullCount: 0, valueCount: 10 }],
      },
    },
    {
      op: "register_data_file",
      table: { name: "orders" },
      file: {
        path: "b.parquet",
        recordCount: 5,
        fileSizeBytes: FILE_B.byteLength,
        columnStats: [{ column: "id", min: "10", max: "14", nullCount: 0, valueCount: 5 }],
      },
    },
  ],
  [
    { op: "set_tag", target: { table: { name: "orders" } }, key: "owner", value: "finance" },
    { op: "create_view", name: "big_orders", sql: "SELECT * FROM orders WHERE amount > 100" },
    { op: "inline_insert", table: { name: "orders" }, rows: [{ id: 15, region: "eu", amount: "1.00" }] },
  ],
];

/** The objects SEED_COMMITS register, with the sizes they state. */
async function seedFiles(lake: string): Promise<void> {
  await env.BUCKET.put(`lakes/${lake}/data/main/orders/a.parquet`, FILE_A);
  await env.BUCKET.put(`lakes/${lake}/data/main/orders/b.parquet`, FILE_B);
}

interface Fixture {
  lake: string;
  /** Every snapshot id the lake has; reads are tried at each. */
  snapshots: number[];
  /** A position token a commit returned. */
  position: number;
  checkpoint?: string;
}

/** Tables of the ducklake route tried at every selector; every other table is read at latest once. */
const DUCKLAKE_AT_EVERY_SELECTOR = new Set(["ducklake_table", "ducklake_data_file", "ducklake_snapshot"]);

/** Concrete requests for one route pattern on `fx`: each selector, plus the route's own parameters. */
function requestsFor(pattern: string, fx: Fixture): string[] {
  const lakePath = pattern.replace(":lake", fx.lake);
  if (pattern === "/v1/lakes") return [pattern];
  if (pattern.endsWith("/*")) return [lakePath.replace(/\/\*$/, `/${DATA_PATH}`)];
  const selectors = [
    `after=${fx.position}`,
    // Snapshot 0 is the bootstrap (no table yet): time travel is tried at every snapshot since.
    ...fx.snapshots.filter((s) => s > 0).map((s) => `snapshot=${s}`),
    ...(fx.checkpoint ? [`checkpoint=${fx.checkpoint}`] : []),
  ];
  const at = (base: string, params: string[]): string[] => [base, ...params.map((p) => `${base}?${p}`)];
  if (pattern.endsWith("/ducklake/:table")) {
    return Object.keys(DUCKLAKE_TABLES).flatMap((t) => {
      const base = lakePath.replace(":table", t);
      return DUCKLAKE_AT_EVERY_SELECTOR.has(t) ? at(base, [...selectors, "format=csv"]) : [base];
    });
  }
  const base = lakePath
    .replace(":schema", "main")
    .replace(":table", "orders")
    // Snapshot 1 is in every cut the fixtures offer (checkpoints are minted after it).
    .replace(":id", String(fx.snapshots[1]));
  const extras = pattern.endsWith("/plan")
    ? ["filter=id:gte:10", "limit=1&after_file=0"]
    : pattern.endsWith("/snapshots")
      ? ["since=0&limit=1"]
      : [];
  return at(base, [...selectors, ...extras]);
}

/** Read routes the app serves: every GET/HEAD except static ones and the writer's status. */
function readRoutes(): { method: string; pattern: string }[] {
  const seen = new Set<string>();
  const out: { method: string; pattern: string }[] = [];
  for (const r of createApp().routes) {
    if (r.method !== "GET" && r.method !== "HEAD") continue;
    const id = `${r.method} ${r.path}`;
    if (seen.has(id) || WRITER_ROUTES.has(id) || STATIC_ROUTES.has(id)) continue;
    seen.add(id);
    out.push({ method: r.method, pattern: r.path });
  }
  return out;
}

/** Sends every read request for `fx`; returns how many were sent. Each must answer 200 (or 206/304). */
async function readEverything(fx: Fixture): Promise<number> {
  let sent = 0;
  const revalidated = new Set<string>();
  for (const { method, pattern } of readRoutes()) {
    const urls = requestsFor(pattern, fx);
    expect(urls.length, `${method} ${pattern} has requests`).toBeGreaterThan(0);
    for (const url of urls) {
      expect(url.split("?")[0], `${pattern} fully substituted`).not.toMatch(/:[a-z]+|\*/);
      const res = await call(url, { method });
      const text = url.includes("/data/")
        ? `${(await res.arrayBuffer()).byteLength} bytes`
        : await res.text();
      expect(res.status, `${method} ${url}: ${text}`).toBe(200);
      if (pattern.endsWith("/rows") && method === "GET" && !url.includes("snapshot=")) {
        // The file-backed table's rows come from its Parquet files and inlined row, read from R2 alone.
        const ids = (JSON.parse(text) as { rows: { id: number }[] }).rows.map((r) => r.id);
        expect(ids, url).toEqual(Array.from({ length: 16 }, (_, i) => i));
      }
      sent++;
      const etag = res.headers.get("etag");
      if (etag && method === "GET" && !url.includes("/data/") && !revalidated.has(pattern)) {
        revalidated.add(pattern);
        const again = await call(url, { headers: { "if-none-match": etag } });
        expect(again.status, `${url} revalidated`).toBe(304);
        sent++;
      }
    }
  }
  return sent;
}

/**
 * Every read template DuckLake 1.5.5 was captured sending (test/fixtures/quack/captured-reads.json), sent
 * over Quack to `lake`, one request each and then all in one request; returns how many answered with rows
 * (the others are errors the catalog raised, e.g. the inlined-delete probe, never an internal one).
 */
async function readEverythingOverQuack(lake: string): Promise<number> {
  const id = await quackConnect(`${lake}:${TOKENS.adminAll}`);
  let answered = 0;
  const examples = capturedReads.reads.map((r) => r.example);
  for (const sql of [...examples, examples.join(";\n")]) {
    const m = await quackPrepare(id, sql);
    if (m.type === MessageType.PREPARE_RESPONSE) answered++;
    else if (m.type === MessageType.ERROR_RESPONSE) expect(m.message, sql).not.toMatch(/^internal error/);
    else throw new Error(`unexpected answer ${m.type} to ${sql}`);
  }
  return answered;
}

/** Reads that fail must not reach the writer either. */
const FAILING_READS = (lake: string): string[] => [
  `/v1/lakes/${lake}/tables/main/no_such_table/plan`,
  `/v1/lakes/${lake}/snapshots/999999`,
  `/v1/lakes/${lake}/catalog?snapshot=999999`,
  `/v1/lakes/${lake}/catalog?checkpoint=0-00000000000000000000000000000000`,
  `/v1/lakes/${lake}/catalog?after=999999999`,
  `/v1/lakes/${lake}/data/main/none.parquet`,
  `/v1/lakes/never-created-lake/catalog`,
];

async function commit(lake: string, verbs: Verb[]): Promise<{ snapshotId: number; position: number }> {
  const res = await call(`/v1/lakes/${lake}/commits`, { method: "POST", body: { verbs } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as { snapshotId: number; position: number };
}

/** A lake created and written through the HTTP API, i.e. through its Durable Object. */
async function viaWriter(lake: string): Promise<Fixture & { after: number }> {
  expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
  await seedFiles(lake);
  const snapshots = [0];
  let position = 0;
  let checkpoint = "";
  for (const [i, verbs] of SEED_COMMITS.entries()) {
    const r = await commit(lake, verbs);
    snapshots.push(r.snapshotId);
    position = r.position;
    if (i === 1) {
      const minted = await call(`/v1/lakes/${lake}/checkpoints`, { method: "POST", body: {} });
      const text = await minted.text();
      expect(minted.status, text).toBe(201);
      checkpoint = (JSON.parse(text) as { id: string }).id;
    }
  }
  const up = await call(`/v1/lakes/${lake}/data/${DATA_PATH}`, {
    method: "PUT",
    rawBody: DATA_BYTES,
    headers: { "content-length": String(DATA_BYTES.length) },
  });
  expect(up.status).toBe(201);
  return { lake, snapshots, position, checkpoint, after: snapshots[2] ?? -1 };
}

/**
 * A lake written straight through the store and catalog in the test — no Durable Object is ever
 * addressed for it — with a checkpoint minted by the store after the second commit.
 */
async function withoutWriter(lake: string): Promise<Fixture & { checkpoint: string; after: number }> {
  const bucket = env.BUCKET as unknown as Bucket;
  const store = await openWriter(bucket, lake);
  const catalog = await openCatalog(store, { dataPath: `r2://ducklake-edge/lakes/${lake}/data/` });
  await store.flush();
  await seedFiles(lake);
  const snapshots = [0];
  let position = 0;
  let checkpoint = "";
  let checkpointAt = 0;
  for (const [i, verbs] of SEED_COMMITS.entries()) {
    const out = await catalog.commit({ verbs });
    await store.flush();
    await out.durable;
    snapshots.push(out.snapshotId ?? -1);
    position = store.durablePosition;
    if (i === 1) {
      checkpoint = (await store.createCheckpoint()).id;
      checkpointAt = out.snapshotId ?? -1;
    }
  }
  await bucket.put(`lakes/${lake}/data/${DATA_PATH}`, DATA_BYTES);
  await store.close();
  return { lake, snapshots: snapshots.slice(0, checkpointAt + 1), position, checkpoint, after: checkpointAt };
}

// The writers' own background work (alarms) is pushed out of this file's lifetime, so any writer call
// counted below was caused by a request.
setWriterSetup(() => ({
  tunables: { backgroundIdleDelayMs: 3_600_000, backgroundSliceDelayMs: 3_600_000 },
}));

describe("reads never touch the lake writer", () => {
  let spies = new Map<string, MockInstance>();
  let writerLake: Fixture & { after: number };

  beforeAll(async () => {
    // Hundreds of requests: keep the per-request info lines out of the run's output (errors still print).
    vi.spyOn(console, "log").mockImplementation(() => {});
    writerLake = await viaWriter("iso-writer");
  });

  function spyOnWriter(): void {
    const proto = LakeWriter.prototype as unknown as Record<string, unknown>;
    spies = new Map(
      Object.getOwnPropertyNames(LakeWriter.prototype)
        .filter((name) => name !== "constructor" && typeof proto[name] === "function")
        .map((name) => [name, vi.spyOn(proto as Record<string, () => unknown>, name)]),
    );
  }

  const writerCalls = (): Record<string, number> =>
    Object.fromEntries([...spies].map(([n, s]) => [n, s.mock.calls.length]).filter(([, n]) => n !== 0));

  afterAll(() => {
    vi.restoreAllMocks();
  });

  afterEach(() => {
    for (const spy of spies.values()) spy.mockRestore();
    spies = new Map();
  });

  it("the spies see writer calls (control: a commit is counted)", async () => {
    spyOnWriter();
    expect([...spies.keys()]).toEqual(expect.arrayContaining(["commit", "createLake", "status", "alarm"]));
    await commit(writerLake.lake, [{ op: "create_schema", name: "control" }]);
    expect(writerCalls().commit).toBe(1);
  });

  it("every read route at every selector answers without a single writer call", async () => {
    spyOnWriter();
    const fx = { ...writerLake };
    const sent = await readEverything(fx);
    expect(sent).toBeGreaterThan(60);
    for (const url of FAILING_READS(fx.lake)) {
      const res = await call(url);
      const body = (await res.json()) as { error?: { code: string } };
      expect(res.status, `${url}: ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
      expect(body.error?.code, url).not.toBe("Internal");
    }
    expect(writerCalls()).toEqual({});
  });

  it("reads still answer after every Durable Object was reset, still without the writer", async () => {
    const startedAt = async (): Promise<string> =>
      ((await (await call(`/v1/lakes/${writerLake.lake}/writer`)).json()) as { instanceStartedAt: string })
        .instanceStartedAt;
    const before = await startedAt();
    await abortAllDurableObjects();
    spyOnWriter();
    await readEverything(writerLake);
    expect(writerCalls()).toEqual({});
    // The object does come back for writes (a new activation), and reads then see the new commit.
    const next = await commit(writerLake.lake, [{ op: "create_schema", name: "after_reset" }]);
    expect(await startedAt()).not.toBe(before);
    const res = await call(`/v1/lakes/${writerLake.lake}?after=${next.position}`);
    expect(((await res.json()) as { snapshotId: number }).snapshotId).toBe(next.snapshotId);
  });

  it("a lake that never had a Durable Object is readable at every route, selector and checkpoint", async () => {
    const fx = await withoutWriter("iso-nowriter");
    spyOnWriter();
    await readEverything(fx);
    expect(writerCalls()).toEqual({});
    const id = env.LAKE_WRITER.idFromName(fx.lake);
    const objects = await listDurableObjectIds(env.LAKE_WRITER);
    expect(objects.some((o) => o.equals(id))).toBe(false);
  });

  it("every captured DuckLake read over Quack is answered at the edge, without a single writer call", async () => {
    const fx = await withoutWriter("iso-quack-nowriter");
    spyOnWriter();
    const viaObject = await readEverythingOverQuack(writerLake.lake);
    const noObject = await readEverythingOverQuack(fx.lake);
    expect(viaObject).toBeGreaterThan(capturedReads.reads.length / 2);
    expect(noObject).toBe(viaObject);
    // After every object was reset, Quack reads still need no writer.
    await abortAllDurableObjects();
    const id = await quackConnect(`${writerLake.lake}:${TOKENS.adminAll}`);
    expect((await quackPrepare(id, capturedReads.reads[0]?.example ?? "")).type).toBe(
      MessageType.PREPARE_RESPONSE,
    );
    expect(writerCalls()).toEqual({});
    const objects = await listDurableObjectIds(env.LAKE_WRITER);
    expect(objects.some((o) => o.equals(env.LAKE_WRITER.idFromName(fx.lake)))).toBe(false);
  });

  it("a checkpoint minted by the writer answers after the object was reset, and never shows a later commit", async () => {
    const fx = await viaWriter("iso-checkpoint");
    await abortAllDurableObjects();
    spyOnWriter();
    const sel = `checkpoint=${fx.checkpoint}`;
    const get = async <T>(path: string): Promise<T> => {
      const res = await call(path);
      const text = await res.text();
      expect(res.status, `${path}: ${text}`).toBe(200);
      return JSON.parse(text) as T;
    };
    const summary = await get<{ snapshotId: number; cut: { checkpointId?: string } }>(
      `/v1/lakes/${fx.lake}?${sel}`,
    );
    expect(summary.snapshotId).toBe(fx.after);
    expect(summary.cut.checkpointId).toBe(fx.checkpoint);
    const snaps = await get<{ snapshots: { snapshot_id: number }[] }>(
      `/v1/lakes/${fx.lake}/snapshots?${sel}`,
    );
    expect(snaps.snapshots.map((s) => s.snapshot_id)).toEqual(fx.snapshots.filter((s) => s <= fx.after));
    expect((await call(`/v1/lakes/${fx.lake}/snapshots/${fx.after + 1}?${sel}`)).status).toBe(404);
    // The view and the inlined row came with the commit after the checkpoint: latest sees them, the
    // checkpoint does not.
    const views = await get<{ rows: unknown[] }>(`/v1/lakes/${fx.lake}/ducklake/ducklake_view?${sel}`);
    expect(views.rows).toEqual([]);
    const plan = await get<{ inlined_rows: unknown[]; files: unknown[] }>(
      `/v1/lakes/${fx.lake}/tables/main/orders/plan?${sel}`,
    );
    expect(plan.inlined_rows).toEqual([]);
    expect(plan.files).toHaveLength(2);
    const latest = await get<{ rows: unknown[] }>(`/v1/lakes/${fx.lake}/ducklake/ducklake_view`);
    expect(latest.rows).toHaveLength(1);
    expect(writerCalls()).toEqual({});
  });
});
