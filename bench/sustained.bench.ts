/**
 * `npm run bench -- sustained [--quick] [latency=20] [seconds=N] [commits=N] [writers=N] [only=load|cold] [files=N,M] [entries=1] [keys=none|minted|client]`: the store under sustained load
 * (issue 16). 16 and 64 writers of single-row commits through the writer core for a fixed time with
 * injected PUT/GET latency (sustained-load.ts), then the cold paths at 0 and 50 ms per operation
 * (sustained-cold.ts). --quick: 20 s per writer count and a 1k-file plan, under two minutes in all; the
 * full run: 120 s per writer count and 1k / 10k files. `commits=N`: each writer count stops after N
 * commits instead (windows by commit count), so write amplification compares across loaded machines.
 */
import { type LocalBucket, localBucket } from "./harness.ts";
import { stableBucket } from "./read-harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";
import { coldPlans, coldWakes } from "./sustained-cold.ts";
import { sustainedLoad } from "./sustained-load.ts";
import { workerBucket } from "./worker-bucket.ts";

const arg = (args: string[], name: string): string | undefined =>
  args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const latencyMs = Number(arg(opts.args, "latency") ?? 20);
  const seconds = Number(arg(opts.args, "seconds") ?? (opts.quick ? 20 : 120));
  const windows = opts.quick ? 4 : 6;
  // `writers=16` runs one writer count.
  const writerCounts =
    arg(opts.args, "writers") === undefined ? [16, 64] : [Number(arg(opts.args, "writers"))];
  // `files=1000,10000` picks the cold plan's file counts (the full run's pair under --quick).
  const filesArg = arg(opts.args, "files");
  const fileCounts =
    filesArg !== undefined ? filesArg.split(",").map(Number) : opts.quick ? [1_000] : [1_000, 10_000];
  const coldLatencies = [0, 50];
  // `only=load` or `only=cold` runs one phase (while iterating on one of them).
  const only = arg(opts.args, "only");
  const commitsArg = arg(opts.args, "commits");
  const commits = commitsArg === undefined ? undefined : Number(commitsArg);
  // `entries=1` counts the store entries reads step over, per commit (costs CPU; decision 0182).
  const countEntries = arg(opts.args, "entries") === "1";
  // `keys=minted` or `keys=client`: every commit carries an idempotency key (sustained-load.ts).
  const keysArg = arg(opts.args, "keys") ?? "none";
  if (keysArg !== "none" && keysArg !== "minted" && keysArg !== "client")
    throw new Error(`keys= must be none, minted or client, got ${keysArg}`);
  const keys: "none" | "minted" | "client" = keysArg;
  const { bucket, dispose } = await localBucket();
  const inner = stableBucket(bucket);
  // The load phase reads R2 only asynchronously: Miniflare's proxy blocks the event loop on every GET
  // (worker-bucket.ts), which would be charged to the commits in flight.
  const load = only === "cold" ? undefined : await workerBucket();
  const rows: Row[] = [];
  const t0 = performance.now();
  try {
    for (const writers of load === undefined ? [] : writerCounts) {
      const r = await sustainedLoad((load as LocalBucket).bucket, {
        writers,
        seconds,
        windows,
        latencyMs,
        ...(commits !== undefined ? { commits } : {}),
        ...(countEntries ? { countEntries } : {}),
        keys,
      });
      for (const row of r) console.error(JSON.stringify(row));
      rows.push(...r);
    }
    const cold = only === "load" ? [] : coldLatencies;
    for (const r of await coldPlans(inner, cold.length > 0 ? fileCounts : [], cold)) {
      console.error(JSON.stringify(r));
      rows.push(r);
    }
    for (const r of await coldWakes(inner, cold)) {
      console.error(JSON.stringify(r));
      rows.push(r);
    }
  } finally {
    await load?.dispose();
    await dispose();
  }
  return {
    name: "sustained",
    params: {
      quick: opts.quick,
      seconds,
      commits: commits ?? null,
      countEntries,
      keys,
      windows,
      writerCounts,
      putGetLatencyMs: latencyMs,
      coldLatenciesMs: coldLatencies,
      fileCounts,
      totalSeconds: Math.round((performance.now() - t0) / 1000),
      loadBucket: "worker-bucket.ts (asynchronous calls only)",
      note: "writeAmp = bytes PUT / live bytes (newest manifest's tables + WAL tail + manifest); serialRounds = longest chain of dependent R2 calls",
    },
    rows,
  };
}
