/**
 * `npm run bench -- quack-commit [--quick]`: DuckLake PR #1191's workload through stock DuckDB 1.5.5
 * clients (bench/quack-commit.py): 1, 16 and 64 client processes, each committing single-row INSERTs
 * into one table, interleaved per client count against (a) ducklake-edge (served by Miniflare directly,
 * bench/quack-serve.ts), (b) a stock Quack server with `ducklake` loaded, (c) a stock Quack server without
 * it; the window opens once every client has ATTACHed, after a warm-up (docs/decisions/0264-quack-commit-bench.md).
 * Reports tx/s, failed transactions, commit latency p50/p99, client and server CPU per commit and, for (a),
 * commits per WAL PUT, Quack requests per commit and the writer's phases. Needs python3 with
 * tools/requirements.txt; ports as in test/quack/run.py.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

/** The whole run (wrangler start-up, 9 runs of client processes) must finish within this. */
const RUN_TIMEOUT_MS = 40 * 60 * 1000;

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const script = join(dirname(fileURLToPath(import.meta.url)), "quack-commit.py");
  const out = spawnSync("python3", [script, ...(opts.quick ? ["--quick"] : [])], {
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGTERM",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (out.status !== 0) throw new Error(`quack-commit.py failed (${out.status ?? out.signal})`);
  const parsed = JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}") as {
    duration_s: number;
    rows: Row[];
  };
  return {
    name: "quack-commit",
    params: { quick: opts.quick, durationS: parsed.duration_s },
    rows: parsed.rows,
  };
}
