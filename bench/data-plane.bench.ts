/**
 * `npm run bench -- data-plane [--quick]`: stock DuckDB 1.5.5 against `wrangler dev` (bench/data-plane.py):
 * an INSERT of N rows and a full scan through the Worker's S3 endpoint (the lake's R2 prefix) beside the same
 * through a local directory, in one run; and the workerd process's memory while a large object streams
 * through the endpoint (docs/decisions/0501-s3-endpoint.md), each INSERT beside its bytes written straight into
 * Miniflare's R2 (bench/r2-floor.ts); then, in the same run, the guarded DELETE against a plain one
 * (bench/guarded-delete-cost.ts). Needs python3 with tools/requirements.txt;
 * ports as in test/quack/run.py (QUACK_TEST_PORTS).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { guardedDeleteCost } from "./guarded-delete-cost.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

/** Keys per guarded DeleteObjects (S3's own bound on one DeleteObjects). */
const DELETE_KEYS = 1_000;

/** The whole run (wrangler start-up, six lakes, two large objects) must finish within this. */
const RUN_TIMEOUT_MS = 30 * 60 * 1000;

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const script = join(dirname(fileURLToPath(import.meta.url)), "data-plane.py");
  const out = spawnSync("python3", [script, ...(opts.quick ? ["--quick"] : [])], {
    encoding: "utf8",
    timeout: RUN_TIMEOUT_MS,
    killSignal: "SIGTERM",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`data-plane.py failed (${out.status ?? out.signal})`);
  const parsed = JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}") as {
    rows: Row[];
    params: Record<string, unknown>;
  };
  // Same run: the guarded DELETE's cost beside a plain one.
  const deletes = await guardedDeleteCost(DELETE_KEYS);
  return {
    name: "data-plane",
    params: { quick: opts.quick, ...parsed.params },
    rows: [...parsed.rows, ...deletes],
  };
}
