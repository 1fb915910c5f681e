/**
 * `npm run bench -- quack [reads] [wire] [--quick]` (both parts by default):
 * - wire: side by side with stock DuckDB's Quack server, in one run (bench/quack-wire.py: stock DuckDB
 *   1.5.5 clients, `wrangler dev --local`, a stock server, counting proxies): per operation (ATTACH,
 *   CREATE TABLE, single-row INSERT, SELECT of one table, re-ATTACH, then ATTACH / SELECT / INSERT on
 *   lakes of 10 and 10k tables, 1k with --quick) the Quack requests, bytes and median time, and the ratio.
 * - reads: in Node, the Worker's Quack read path over a real Miniflare R2 bucket (as bench/read.bench.ts):
 *   R2 calls and bytes per whole ATTACH catalog load and per metadata read, cold (fresh module graph:
 *   empty isolate caches), at the same cut, and after a schema change, at 10 and 1k tables (10k without
 *   --quick). No LAKE_WRITER binding exists: a sentinel counts any touch.
 * The wire part needs python3 with tools/requirements.txt; ports as in test/quack/run.py.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";
import { openCatalog } from "../catalog/index.ts";
import type { Bucket } from "../storage/api.ts";
import { CountingBucket, FaultBucket, openWriter, ReaderCounters } from "../storage/index.ts";
import type * as AppModule from "../worker/app.ts";
import { decodeEnvelope, encodeEnvelope, type Message, MessageType } from "../worker/quack/messages.ts";
import { localBucket } from "./harness.ts";
import { stableBucket } from "./read-harness.ts";
import { buildLake } from "./read-lakes.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

/** The whole side-by-side run (wrangler start-up and the wide lakes' builds included) must finish within this. */
const RUN_TIMEOUT_MS = 40 * 60 * 1000;
const TOKEN = "bench-quack-token-0123456789";
const WARM_REPS = 3;
/** Captured ATTACH-time metadata reads measured one by one in part 2, by index in captured-reads.json. */
const MEASURED: Record<string, number> = {
  "catalog load (duckdb_tables)": 1,
  "exists probe": 3,
  "latest snapshot": 5,
  "schemas at snapshot": 6,
  "tables + columns at snapshot": 7,
};
/**
 * The catalog load DuckLake 1.5.5 sends on ATTACH, one Quack request each, in order (captured-reads.json
 * 0–11: the five probes, the latest snapshot, then schemas, tables + columns, views, macros, partitions
 * and sorts at that snapshot).
 */
const ATTACH_READS = Array.from({ length: 12 }, (_, i) => i);

/** The captured statement with its snapshot literals (`5 >= begin_snapshot`, `(5 < end_snapshot`) at `s`. */
function atSnapshot(sql: string, s: number): string {
  return sql
    .replace(/\b\d+(\s*>=\s*(?:\w+\.)?begin_snapshot)/g, `${s}$1`)
    .replace(/\(\s*\d+(\s*<\s*(?:\w+\.)?end_snapshot)/g, `(${s}$1`);
}

type App = ReturnType<typeof AppModule.createApp>;

const capturedReads = JSON.parse(
  readFileSync(new URL("../test/fixtures/quack/captured-reads.json", import.meta.url), "utf8"),
) as { reads: { example: string }[] };

function sideBySide(quick: boolean): Row[] {
  const script = join(dirname(fileURLToPath(import.meta.url)), "quack-wire.py");
  const out = spawnSync("python3", [script, ...(quick ? ["--quick"] : [])], {
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGTERM",
  });
  if (out.status !== 0) {
    throw new Error(`quack-wire.py failed (${out.status ?? out.signal}): ${out.stderr.slice(-2000)}`);
  }
  const parsed = JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}") as { rows: Row[] };
  return parsed.rows.map((r) => ({ part: "vs stock", ...r }));
}

async function edgeReads(quick: boolean): Promise<Row[]> {
  const tableSizes = quick ? [10, 1_000] : [10, 1_000, 10_000];
  const { bucket: raw, dispose } = await localBucket();
  const fault = new FaultBucket(stableBucket(raw));
  const counters = new ReaderCounters();
  const touches = { n: 0 };
  const env = {
    BUCKET: new CountingBucket(fault, counters),
    BUCKET_NAME: "bench",
    AUTH_TOKENS: JSON.stringify({ [TOKEN]: { lakes: ["*"], scope: "read" } }),
    DEV_AUTH: "disabled",
    LOG_LEVEL: "warn",
    LAKE_WRITER: new Proxy(
      {},
      {
        get(_t, prop) {
          touches.n++;
          throw new Error(`a Quack read touched the LAKE_WRITER binding (${String(prop)})`);
        },
      },
    ),
  };
  const post = async (
    app: App,
    message: Message,
    connectionId = "",
  ): Promise<{ message: Message; connectionId: string }> => {
    const body = encodeEnvelope({ header: { type: message.type, connectionId, clientQueryId: 1n }, message });
    const res = await app.request("/quack", { method: "POST", body }, env);
    const answer = decodeEnvelope(new Uint8Array(await res.arrayBuffer()));
    return { message: answer.message, connectionId: answer.header.connectionId };
  };
  const rows: Row[] = [];
  try {
    for (const tables of tableSizes) {
      const lake = `quack-${tables}`;
      const built = await buildLake(raw, { lake, tables, files: 10 });
      const connect = async (app: App): Promise<string> => {
        const { message: m, connectionId } = await post(app, {
          type: MessageType.CONNECTION_REQUEST,
          authString: `${lake}:${TOKEN}`,
          clientVersion: "v1.5.5",
          clientPlatform: "bench",
          minVersion: 1,
          maxVersion: 1,
        });
        if (m.type !== MessageType.CONNECTION_RESPONSE) throw new Error(`connect: ${JSON.stringify(m)}`);
        return connectionId;
      };
      const fresh = async (): Promise<{ app: App; id: string }> => {
        // A fresh module graph: empty isolate caches (objects, cut memos), as a new isolate has.
        const mod = (await tsImport("../worker/app.ts", import.meta.url)) as typeof AppModule;
        const app = mod.createApp();
        return { app, id: await connect(app) };
      };
      const head = built.snapshots - 1;
      const sqlOf = (index: number): string => atSnapshot(capturedReads.reads[index]?.example ?? "", head);
      const measure = async (app: App, id: string, indexes: number[], label: string) => {
        fault.resetCounters();
        counters.reset();
        let resultRows = 0;
        const t0 = performance.now();
        for (const index of indexes) {
          const { message: m } = await post(
            app,
            { type: MessageType.PREPARE_REQUEST, sql: sqlOf(index) },
            id,
          );
          if (m.type !== MessageType.PREPARE_RESPONSE) throw new Error(`${label}: ${JSON.stringify(m)}`);
          resultRows += m.results.reduce((n, ch) => n + ch.rows, 0);
        }
        const ms = performance.now() - t0;
        const c = fault.counts();
        return { ms, get: c.get, list: c.list, bytes: counters.bytesRead, rows: resultRows };
      };
      const record = (operation: string, mode: string, r: Awaited<ReturnType<typeof measure>>): void => {
        rows.push({
          part: "edge reads",
          operation,
          tables: tables + 1,
          mode,
          requests: operation.startsWith("ATTACH") ? ATTACH_READS.length : 1,
          r2_list: r.list,
          r2_get: r.get,
          kib_read: Math.round(r.bytes / 102.4) / 10,
          result_rows: r.rows,
          ms: Math.round(r.ms * 10) / 10,
          writer_touches: touches.n,
        });
      };
      // A whole ATTACH: cold (new isolate), again at the same cut (a second client, or DuckLake's next
      // transaction before any commit), and after a schema change (new cut, warm object cache).
      {
        const { app, id } = await fresh();
        record("ATTACH catalog load", "cold", await measure(app, id, ATTACH_READS, "attach"));
        const again = await connect(app);
        record("ATTACH catalog load", "warm, same cut", await measure(app, again, ATTACH_READS, "attach"));
        await commitOne(raw, lake, tables);
        const after = await connect(app);
        record("ATTACH catalog load", "warm, new cut", await measure(app, after, ATTACH_READS, "attach"));
      }
      for (const [label, index] of Object.entries(MEASURED)) {
        const { app, id } = await fresh();
        record(label, "cold", await measure(app, id, [index], label));
        let warm = await measure(app, id, [index], label);
        for (let i = 1; i < WARM_REPS; i++) warm = await measure(app, id, [index], label);
        record(label, "warm, same cut", warm);
      }
    }
  } finally {
    await dispose();
  }
  return rows;
}

/** One schema change committed straight through the store (as the lake writer would): a new cut. */
async function commitOne(bucket: Bucket, lake: string, n: number): Promise<void> {
  const store = await openWriter(bucket, lake);
  const catalog = await openCatalog(store, { dataPath: `r2://bench/lakes/${lake}/data/` });
  await catalog.commit({
    verbs: [{ op: "create_table", name: `added_${n}`, columns: [{ name: "id", type: "int64" }] }],
  });
  await store.flush();
  await store.close();
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const parts = opts.args.length === 0 ? ["reads", "wire"] : opts.args;
  const rows = [
    ...(parts.includes("reads") ? await edgeReads(opts.quick) : []),
    ...(parts.includes("wire") ? sideBySide(opts.quick) : []),
  ];
  return { name: "quack", params: { quick: opts.quick, warmReps: WARM_REPS }, rows };
}
