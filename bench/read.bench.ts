/**
 * The Worker's read path in Node: `createApp()` from worker/app.ts answering
 * `GET /v1/lakes/{lake}/tables/main/orders/plan` from a real Miniflare R2 bucket wrapped in the
 * fault-injecting bucket (injected GET latency 0 and 50 ms), at 10 / 1k / 10k unrelated tables and 1k /
 * 100k files in the read table (--quick: 10 / 1k tables, 1k / 10k files).
 *
 * Per read: R2 calls by kind (the FaultBucket's log), body bytes (storage's CountingBucket), latency.
 * Cold = a fresh module graph of the Worker (tsx `tsImport`), i.e. an empty isolate LRU, as in a new
 * isolate, whose code was first exercised by one read of a small other lake (so cold latency is the cache's
 * cost, not the JIT's; that lake's objects share no keys with the measured one); warm = the same app after
 * that read. Node has no `caches.default`, so the Workers-cache tier of
 * worker/object-cache.ts is absent here: cold is "new isolate, edge cache empty too".
 * No LAKE_WRITER binding exists: the env carries a sentinel that counts any touch of it.
 */
import { tsImport } from "tsx/esm/api";
import { CountingBucket, FaultBucket, ReaderCounters } from "../storage/index.ts";
import type * as AppModule from "../worker/app.ts";
import { localBucket } from "./harness.ts";
import { stableBucket } from "./read-harness.ts";
import { type BuiltLake, buildLake, type LakeSpec } from "./read-lakes.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

const TOKEN = "bench-read-token-0123456789";
/** Cold reads repeated (fresh app each) without and with injected latency: call counts are deterministic. */
const COLD_REPS = { 0: 2, 50: 1 } as const;
const WARM_REPS = 5;

type App = ReturnType<typeof AppModule.createApp>;

/** A new instance of every Worker module: nothing cached in the isolate, as in a fresh isolate. */
async function freshApp(): Promise<App> {
  const mod = (await tsImport("../worker/app.ts", import.meta.url)) as typeof AppModule;
  return mod.createApp();
}

/** Stands in for the LAKE_WRITER binding: reads must never reach it, and any touch is counted. */
function writerSentinel(touches: { n: number }): unknown {
  return new Proxy(
    {},
    {
      get(_t, prop) {
        touches.n++;
        throw new Error(`a read touched the LAKE_WRITER binding (${String(prop)})`);
      },
    },
  );
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

interface Measured {
  ms: number;
  list: number;
  get: number;
  /** GETs by object kind: manifests, WAL segments, sorted tables (metadata and blocks). */
  getManifest: number;
  getWal: number;
  getSst: number;
  head: number;
  bytes: number;
  nextAfterFile: number | null;
  filesReturned: number;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const tableSizes = opts.quick ? [10, 1_000] : [10, 1_000, 10_000];
  const fileSizes = opts.quick ? [1_000, 10_000] : [1_000, 100_000];
  const latencies = [0, 50];
  const specs: LakeSpec[] = [
    ...tableSizes.map((tables) => ({ lake: `tables-${tables}`, tables, files: 100 })),
    ...fileSizes.map((files) => ({ lake: `files-${files}`, tables: 10, files })),
  ];

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
    LAKE_WRITER: writerSentinel(touches),
  };
  const rows: Row[] = [];
  const built: BuiltLake[] = [];
  try {
    await buildLake(raw, { lake: "warmup", tables: 1, files: 10 });
    for (const spec of specs) {
      built.push(await buildLake(raw, spec));
      console.error(`built ${spec.lake}: ${JSON.stringify(built.at(-1))}`);
    }

    const read = async (app: App, lake: string): Promise<Measured> => {
      fault.resetCounters();
      counters.reset();
      const t0 = performance.now();
      const res = await app.request(
        `/v1/lakes/${lake}/tables/main/orders/plan`,
        { headers: { authorization: `Bearer ${TOKEN}` } },
        env,
      );
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`plan of ${lake}: ${res.status} ${text.slice(0, 300)}`);
      const body = JSON.parse(text) as { files: unknown[]; next_after_file: number | null };
      const c = fault.counts();
      if (c.put + c.delete > 0) throw new Error(`a read wrote to R2: ${JSON.stringify(c)}`);
      const gets = (kind: string) => fault.count({ op: "get", prefix: `lakes/${lake}/${kind}/` });
      return {
        ms,
        list: c.list,
        get: c.get,
        getManifest: gets("manifest"),
        getWal: gets("wal"),
        getSst: gets("sst"),
        head: c.head,
        bytes: counters.bytesRead,
        nextAfterFile: body.next_after_file,
        filesReturned: body.files.length,
      };
    };

    for (const lake of built) {
      for (const latency of latencies) {
        fault.clearFaults();
        if (latency > 0) fault.delay({ op: "get", ms: latency });
        const row = (mode: string, runs: Measured[]): Row => {
          const last = runs.at(-1) as Measured;
          // Call counts are deterministic; a difference between repetitions would be a finding.
          const stable = runs.every(
            (r) => r.get === last.get && r.list === last.list && r.head === last.head,
          );
          return {
            lake: lake.lake,
            tables: lake.tables + 1,
            files: lake.files,
            get_latency_ms: latency,
            mode,
            list: last.list,
            get: last.get,
            "get(m/w/sst)": `${last.getManifest}/${last.getWal}/${last.getSst}`,
            head: last.head,
            kib_read: Math.round(last.bytes / 102.4) / 10,
            ms_median: median(runs.map((r) => r.ms)),
            next_after_file: last.nextAfterFile,
            files_page: last.filesReturned,
            counts_stable: stable,
            writer_touches: touches.n,
          };
        };
        const cold: Measured[] = [];
        let app: App | undefined;
        for (let i = 0; i < COLD_REPS[latency as 0 | 50]; i++) {
          app = await freshApp();
          await read(app, "warmup");
          cold.push(await read(app, lake.lake));
        }
        rows.push(row("cold", cold));
        console.error(JSON.stringify(rows.at(-1)));
        const warm: Measured[] = [];
        for (let i = 0; i < WARM_REPS; i++) warm.push(await read(app as App, lake.lake));
        rows.push(row("warm", warm));
        console.error(JSON.stringify(rows.at(-1)));
      }
    }
    return {
      name: "read",
      params: {
        quick: opts.quick,
        route: "GET /v1/lakes/{lake}/tables/main/orders/plan (latest, default page of 1000 files)",
        coldReps: COLD_REPS,
        warmReps: WARM_REPS,
        injectedLatency: "GET only",
        lakes: built,
        writerTouches: touches.n,
      },
      rows,
    };
  } finally {
    await dispose();
  }
}
