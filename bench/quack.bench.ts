/**
 * `npm run bench -- quack [--quick]`: the Quack front door side by side with stock DuckDB's Quack server,
 * in one run (bench/quack-wire.py: stock DuckDB 1.5.5 clients, `wrangler dev --local`, a stock server,
 * counting proxies). Per operation: Quack requests, bytes up and down, median wall time and the ratio.
 * Needs python3 with tools/requirements.txt; ports as in test/quack/run.py (QUACK_TEST_PORTS or free).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

/** The whole side-by-side run (wrangler start-up included) must finish within this. */
const RUN_TIMEOUT_MS = 15 * 60 * 1000;

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const script = join(dirname(fileURLToPath(import.meta.url)), "quack-wire.py");
  const out = spawnSync("python3", [script, ...(opts.quick ? ["--quick"] : [])], {
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGTERM",
  });
  if (out.status !== 0) {
    throw new Error(`quack-wire.py failed (${out.status ?? out.signal}): ${out.stderr.slice(-2000)}`);
  }
  const lastLine = out.stdout.trim().split("\n").pop() ?? "{}";
  const parsed = JSON.parse(lastLine) as { reps: number; rows: Row[] };
  return { name: "quack", params: { quick: opts.quick, reps: parsed.reps }, rows: parsed.rows };
}
