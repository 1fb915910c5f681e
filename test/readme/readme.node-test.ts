/**
 * The root README, top to bottom, against one fresh `npm start` (tools/start.mjs, its documented dev token;
 * ports 9344-9345, or README_TEST_PORT and the next): every fenced `sh` block runs in bash and every `sql`
 * block through a stock DuckDB 1.5.5 client (Python's duckdb, statement by statement), in the order the
 * README gives them. A block preceded by `<!-- readme-test: skip (why) -->` is not run (installing, the
 * server itself, a deployment). Substituted: the port (8787 → the test's), `curl -s` → `curl -sS
 * --fail-with-body` (so an HTTP error fails the block), DuckDB's local DATA_PATH (a fresh directory), and a
 * `duckdb` command on PATH that is the same DuckDB 1.5.5 (the README: "the duckdb 1.5.5 CLI, or Python's
 * duckdb"). Run: npm run test:readme.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type DevServer, startWrangler } from "../support/wrangler-dev.ts";

const PORT = Number(process.env.README_TEST_PORT ?? 9344);
/** One block's time limit (the CLI block runs a dozen commands, each starting node). */
const BLOCK_TIMEOUT_MS = 180_000;
const SKIP = /<!--\s*readme-test:\s*skip\b[^>]*-->/;

interface ReadmeBlock {
  lang: string;
  code: string;
  /** The nearest heading above the block. */
  section: string;
  /** 1-based line of the opening fence. */
  line: number;
  skipped: boolean;
}

/** The README's fenced blocks in order, each with its section and whether it is marked skip. */
function readmeBlocks(text: string): ReadmeBlock[] {
  const lines = text.split("\n");
  const out: ReadmeBlock[] = [];
  let section = "";
  let lastText = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.startsWith("#")) section = line.replace(/^#+\s*/, "");
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !(lines[i] ?? "").startsWith("```"); i++) body.push(lines[i] ?? "");
      out.push({
        lang: fence[1] ?? "",
        code: body.join("\n"),
        section,
        line: start + 1,
        skipped: SKIP.test(lastText),
      });
      lastText = "";
      continue;
    }
    if (line.trim() !== "") lastText = line;
  }
  return out;
}

/** Runs SQL statements in one DuckDB connection, printing each answer; exits 1 naming the failing one. */
const DUCKDB_RUNNER = `
import duckdb, json, sys
con = duckdb.connect()
for stmt in json.load(sys.stdin):
    try:
        rel = con.sql(stmt)
        print(stmt, "->", rel.fetchall() if rel is not None else "ok")
    except Exception as e:
        sys.exit(f"statement failed: {stmt}\\n{e}")
`;

/** A `duckdb -c "<sql>"` that is Python's duckdb 1.5.5, for a machine without the CLI binary. */
const DUCKDB_SHIM = `#!/usr/bin/env python3
import duckdb, sys
if len(sys.argv) != 3 or sys.argv[1] != "-c":
    sys.exit("this duckdb stand-in takes only: duckdb -c '<sql>'")
rel = duckdb.connect().sql(sys.argv[2])
if rel is not None:
    rel.show()
`;

function statements(sql: string): string[] {
  const text = sql
    .split("\n")
    .map((l) => l.split("--")[0])
    .join("\n");
  return text
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** A process run to its end with a time limit, its output collected, without blocking the event loop. */
function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      timeout: BLOCK_TIMEOUT_MS,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdin.end(input ?? "");
    child.on("close", (status) => done({ status, stdout, stderr }));
  });
}

let server: DevServer;
const work = mkdtempSync(join(tmpdir(), "ducklake-edge-readme-"));
const bin = join(work, "bin");
const dataPath = join(work, "shop-data");

describe("README, top to bottom on one npm start", { timeout: 900_000 }, () => {
  before(async () => {
    mkdirSync(bin);
    writeFileSync(join(bin, "duckdb"), DUCKDB_SHIM);
    chmodSync(join(bin, "duckdb"), 0o755);
    server = await startWrangler(PORT, { npmStart: true, logLevel: "info" });
  });
  after(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("documents run and test commands that set up what they need, and CI runs exactly them", () => {
    const blocks = readmeBlocks(readFileSync("README.md", "utf8"));
    const quick = blocks.find((b) => b.section === "Quick start" && b.lang === "sh");
    assert.ok(quick, "the Quick start block");
    const commands = quick.code
      .split("\n")
      .map((l) => l.split("#")[0]?.trim() ?? "")
      .filter((l) => l !== "");
    assert.deepEqual(commands, ["npm ci && npm start", "npm ci && npm test"]);
    // `npm test` installs what it needs first (npm runs `pretest` before `test`).
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts.pretest, "bash tools/test-setup.sh");
    const setup = readFileSync("tools/test-setup.sh", "utf8");
    assert.match(setup, /pip install [^\n]*-r tools\/requirements\.txt/);
    assert.match(setup, /apt-get install [^\n]*chromium/);
    // Here everything is installed, so the check passes; it names what is missing elsewhere.
    const check = spawnSync("bash", ["tools/test-setup.sh", "--check"], { encoding: "utf8" });
    assert.equal(check.status, 0, check.stderr);
    // CI: `npm ci`, then `npm test` under its timeout; no install step of its own beside the setup script.
    const ci = readFileSync(".ci/run", "utf8")
      .split("\n")
      .filter((l) => !l.trimStart().startsWith("#"));
    assert.ok(ci.includes("npm ci"), ".ci/run runs npm ci");
    assert.ok(
      ci.some((l) => /^timeout -k \d+ \d+ npm test$/.test(l)),
      ".ci/run runs npm test under a timeout",
    );
    assert.ok(
      !ci.some((l) => /apt-get|pip install/.test(l)),
      ".ci/run installs only through tools/test-setup.sh",
    );
  });

  it("runs every block it does not mark skipped, in order", async () => {
    const blocks = readmeBlocks(readFileSync("README.md", "utf8"));
    const run = blocks.filter((b) => !b.skipped && (b.lang === "sh" || b.lang === "sql"));
    // The sections a local reader follows are all run, not skipped.
    const sections = new Set(run.map((b) => b.section));
    for (const s of ["Walkthrough (curl)", "DuckDB over Quack", "CLI"]) assert.ok(sections.has(s), s);
    const port = new URL(server.url).port;
    for (const block of run) {
      const code = block.code
        .replaceAll("localhost:8787", `localhost:${port}`)
        .replaceAll("curl -s ", "curl -sS --fail-with-body ")
        .replaceAll("/tmp/shop-data/", `${dataPath}/`);
      const where = `README.md:${block.line} (${block.section})`;
      // Asynchronously: the server's output must keep draining while a block runs.
      const r =
        block.lang === "sh"
          ? await runProcess("bash", ["-eu", "-c", code], { PATH: `${bin}:${process.env.PATH ?? ""}` })
          : await runProcess("python3", ["-c", DUCKDB_RUNNER], {}, JSON.stringify(statements(code)));
      assert.equal(r.status, 0, `${where} failed:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
    }

    // What the reader saw in npm start's terminal meanwhile: one line per request (the Worker's own; not
    // wrangler's access line besides), and DuckLake's routine probes of absent tables not as failures.
    const lines = server.output().split("\n");
    const ids = lines.flatMap((l) => /"msg":"request","requestId":"([^"]+)"/.exec(l)?.[1] ?? []);
    assert.ok(ids.length > 20, `the requests were logged: ${ids.length}\n${server.output().slice(-1500)}`);
    assert.equal(new Set(ids).size, ids.length, "a request is logged once");
    const doubled = lines.filter((l) => /\[wrangler:info\]\S* (GET|POST|PUT|DELETE|HEAD) /.test(l));
    assert.deepEqual(doubled, [], "no second access line per request");
    const probes = lines.filter((l) => l.includes('"code":"MissingRelation"'));
    assert.deepEqual(probes, [], "an existence probe is not logged as a failure at info");
  });
});
