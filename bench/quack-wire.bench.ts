/**
 * `npm run bench -- quack-wire [--quick] [writers]` (issue 28): issue 28's statements over Quack, side by
 * side and interleaved in one run against a stock DuckDB 1.5.5 Quack server (bench/quack-statements.py):
 * single-row INSERT, `SELECT count(*)`, a point filter, `count(*) FROM lake.snapshots()`, time travel and
 * ATTACH, with medians, p99, Quack requests and the Worker's time per phase (`Server-Timing`,
 * docs/decisions/0640-quack-request-timing.md), beside the load average. `writers` (or `--writers`) adds the
 * #1191 workload at 1, 16 and 64 stock client processes (bench/quack-commit.py, targets a and b).
 * Needs python3 with tools/requirements.txt; ports as in test/quack/run.py (`QUACK_TEST_PORTS`).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

/** The statements' run (server start-up, the table's load, the reps) must finish within this. */
const STATEMENTS_TIMEOUT_MS = 20 * 60 * 1000;
/** The #1191 workload's run (three client counts, two targets). */
const WRITERS_TIMEOUT_MS = 40 * 60 * 1000;

function python(script: string, args: string[], timeout: number): { rows: Row[] } & Record<string, unknown> {
  const path = join(dirname(fileURLToPath(import.meta.url)), script);
  const out = spawnSync("python3", [path, ...args], {
    encoding: "utf8",
    timeout,
    killSignal: "SIGTERM",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (out.status !== 0) throw new Error(`${script} failed (${out.status ?? out.signal})`);
  return JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}") as { rows: Row[] };
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const quick = opts.quick ? ["--quick"] : [];
  const statements = python("quack-statements.py", quick, STATEMENTS_TIMEOUT_MS);
  const rows: Row[] = statements.rows.map((r) => ({ part: "statements", ...r }));
  const writers = opts.args.includes("writers") || process.argv.includes("--writers");
  if (writers) {
    const w = python(
      "quack-commit.py",
      [...quick, "--clients", "1,16,64", "--targets", "ab"],
      WRITERS_TIMEOUT_MS,
    );
    rows.push(...w.rows.map((r) => ({ part: "#1191 writers", ...r })));
  }
  return {
    name: "quack-wire",
    params: {
      quick: opts.quick,
      reps: statements.reps,
      rowsInTable: statements.rows_in_table,
      loadBefore: statements.load_before,
      writers,
    },
    rows,
  };
}
