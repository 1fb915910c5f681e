/**
 * The CLI end to end against `wrangler dev` (ports 9340-9341, or CLI_TEST_PORT and the next): lakes, commits from a file, a Parquet
 * upload registered from its footer, snapshots, checkpoints, quack-url, errors with the API's code, and
 * an export that stock DuckDB 1.5.5 attaches read-only with the same rows at every snapshot (inlined rows
 * included) — checked by tools/client/check-export.py — and `rows` streaming CSV and NDJSON into the rows
API. Run: npm run test:cli.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type DevServer, startWrangler } from "../support/wrangler-dev.ts";

const PORT = Number(process.env.CLI_TEST_PORT ?? 9340);
/** One CLI invocation's time limit. */
const CLI_TIMEOUT_MS = 60_000;
/** The large import: rows, and its invocation's time limit. */
const MILLION = 1_000_000;
const MILLION_TIMEOUT_MS = 420_000;
let server: DevServer;
const work = mkdtempSync(join(tmpdir(), "ducklake-edge-cli-"));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}, input?: string): Run {
  const r = spawnSync("node", ["cli/bin.mjs", ...args], {
    encoding: "utf8",
    timeout: CLI_TIMEOUT_MS,
    ...(input !== undefined ? { input } : {}),
    env: { ...process.env, DUCKLAKE_EDGE_URL: server.url, DUCKLAKE_EDGE_TOKEN: server.token, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok<T>(args: string[]): T {
  const r = cli(args);
  assert.equal(r.status, 0, `ducklake-edge ${args.join(" ")} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

function file(name: string, body: unknown): string {
  const p = join(work, name);
  writeFileSync(p, typeof body === "string" ? body : JSON.stringify(body));
  return p;
}

type Row = Record<string, unknown>;

/**
 * A GET on a fresh connection: spawnSync blocks this process for seconds, long enough for the server to
 * drop an idle keep-alive socket that fetch would reuse ("fetch failed").
 */
function getJson(path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((done, fail) => {
    const req = httpGet(
      `${server.url}${path}`,
      { headers: { authorization: `Bearer ${server.token}` }, agent: false, timeout: CLI_TIMEOUT_MS },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", fail);
  });
}

/** Every row of a table through GET rows (paged), as of at least `watermark`, in id order. */
async function readAll(lake: string, table: string, watermark: number): Promise<Row[]> {
  const out: Row[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const q = new URLSearchParams({ minWatermark: String(watermark), ...(cursor ? { cursor } : {}) });
    const res = await getJson(`/v1/lakes/${lake}/tables/main/${table}/rows?${q}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body as { rows: Row[]; next: string | null };
    out.push(...body.rows);
    cursor = body.next;
    if (cursor === null) return out.sort((a, b) => Number(a.id) - Number(b.id));
  }
  throw new Error("more than 100 pages");
}

interface RowsRun {
  rows: number;
  batches: number;
  replayedBatches: number;
  watermark: number;
  idempotencyPrefix: string;
  landed: [number, number][];
  failed: { line: number | null; lines: [number, number]; code: string; message: string } | null;
}

describe("ducklake-edge CLI", { timeout: 600_000 }, () => {
  before(async () => {
    server = await startWrangler(PORT);
  });
  after(async () => {
    await server?.stop();
  });

  it("manages lakes and prints the API's code and message on failure", () => {
    assert.deepEqual(ok<{ lake: string; snapshotId: number }>(["lakes", "create", "cli-a"]).snapshotId, 0);
    const again = cli(["lakes", "create", "cli-a"]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /^error AlreadyExists: /);
    const list = ok<{ lakes: { name: string }[] }>(["lakes", "list"]);
    assert.ok(list.lakes.some((l) => l.name === "cli-a"));
    ok(["lakes", "delete", "cli-a"]);
    const gone = cli(["snapshots", "cli-a"]);
    assert.match(gone.stderr, /^error NotFound: /);
    const denied = cli(["lakes", "list"], { DUCKLAKE_EDGE_TOKEN: "wrong-token-0123456789" });
    assert.match(denied.stderr, /^error Unauthorized: /);
  });

  it("says what the user did wrong and what to do, never Internal, for everyday mistakes", () => {
    ok(["lakes", "create", "cli-oops"]);
    const missing = cli(["upload", "cli-oops", join(work, "nope.parquet"), "--table", "main.t"]);
    assert.match(
      missing.stderr,
      /^error FileNotFound: cannot read .*nope\.parquet: no such file or directory; check the path/,
    );
    const csv = file("not-parquet.csv", "id\n1\n2\n3\n4\n5\n6\n");
    const wrong = cli(["upload", "cli-oops", csv, "--table", "main.t"]);
    assert.match(
      wrong.stderr,
      /^error NotParquet: .*not-parquet\.csv is not a Parquet file .*ducklake-edge rows/,
    );
    const noCommitFile = cli(["commit", "cli-oops", join(work, "nope.json")]);
    assert.match(noCommitFile.stderr, /^error FileNotFound: cannot read .*nope\.json/);
    const down = cli(["lakes", "list"], { DUCKLAKE_EDGE_URL: `http://127.0.0.1:${PORT + 2}` });
    assert.match(
      down.stderr,
      /^error Unreachable: could not reach the API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED.*--url or DUCKLAKE_EDGE_URL/,
    );
    const noLake = cli(["snapshots", "never-created"]);
    assert.match(
      noLake.stderr,
      /^error NotFound: lake 'never-created' does not exist; .*lakes create never-created/,
    );
    const badType = cli([
      "commit",
      "cli-oops",
      file("bad-type.json", [
        { op: "create_table", schema: "main", name: "t", columns: [{ name: "a", type: "integer" }] },
      ]),
    ]);
    assert.match(
      badType.stderr,
      /^error Unsupported: unsupported: the type "integer" is not a DuckLake type; use one of: boolean, int8, .*int32.*varchar.*decimal\(width,scale\)/,
    );
    for (const r of [missing, wrong, noCommitFile, down, noLake, badType]) assert.equal(r.status, 1);
  });

  it("installs from a packed tarball into a clean prefix and runs outside the checkout", () => {
    // npm run cli:pack, then npm install -g into an empty prefix, then the installed command from elsewhere.
    const packDir = mkdtempSync(join(tmpdir(), "ducklake-edge-pack-"));
    const prefix = mkdtempSync(join(tmpdir(), "ducklake-edge-prefix-"));
    const pack = spawnSync("npx", ["tsx", "tools/cli/pack.ts", packDir], {
      encoding: "utf8",
      timeout: CLI_TIMEOUT_MS,
    });
    assert.equal(pack.status, 0, pack.stderr);
    const tarball = pack.stdout.trim().split("\n").at(-1) ?? "";
    assert.match(tarball, /ducklake-edge-cli-[\d.]+\.tgz$/);
    const install = spawnSync(
      "npm",
      ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball],
      {
        encoding: "utf8",
        timeout: 180_000,
        cwd: prefix,
      },
    );
    assert.equal(install.status, 0, install.stderr);
    const installed = (args: string[]): Run => {
      const r = spawnSync(join(prefix, "bin", "ducklake-edge"), args, {
        encoding: "utf8",
        timeout: CLI_TIMEOUT_MS,
        cwd: prefix,
        env: { ...process.env, DUCKLAKE_EDGE_URL: server.url, DUCKLAKE_EDGE_TOKEN: server.token },
      });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    assert.match(installed(["--help"]).stdout, /Usage: ducklake-edge/);
    const created = installed(["lakes", "create", "cli-packed"]);
    assert.equal(created.status, 0, created.stderr);
    const up = installed([
      "commit",
      "cli-packed",
      file("packed-ddl.json", [
        {
          op: "create_table",
          name: "t",
          columns: [
            { name: "id", type: "int32" },
            { name: "amount", type: "decimal(4,2)" },
            { name: "region", type: "varchar" },
          ],
        },
      ]),
    ]);
    assert.equal(up.status, 0, up.stderr);
    const fixture = join(process.cwd(), "test/fixtures/orders-1.parquet");
    const uploaded = installed(["upload", "cli-packed", fixture, "--table", "main.t"]);
    assert.equal(uploaded.status, 0, uploaded.stderr);
    // export loads sql.js's wasm from the installed package.
    const exported = installed(["export", "cli-packed", join(prefix, "packed.sqlite")]);
    assert.equal(exported.status, 0, exported.stderr);
  });

  it("takes its URL and token from a config file when flags and env are absent", () => {
    const cfg = file("config.json", { url: server.url, token: server.token });
    const r = spawnSync("node", ["cli/bin.mjs", "--config", cfg, "lakes", "list"], {
      encoding: "utf8",
      timeout: CLI_TIMEOUT_MS,
      env: { ...process.env, DUCKLAKE_EDGE_URL: "", DUCKLAKE_EDGE_TOKEN: "" },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(Array.isArray((JSON.parse(r.stdout) as { lakes: unknown[] }).lakes));
  });

  it("commits, uploads Parquet, checkpoints, and exports a file stock DuckDB attaches at every snapshot", () => {
    ok(["lakes", "create", "cli-shop"]);
    const ddl = file("ddl.json", {
      message: "create orders",
      verbs: [
        {
          op: "create_table",
          schema: "main",
          name: "orders",
          columns: [
            { name: "id", type: "int32" },
            { name: "amount", type: "decimal(4,2)" },
            { name: "region", type: "varchar" },
          ],
        },
      ],
    });
    assert.equal(ok<{ snapshotId: number }>(["commit", "cli-shop", ddl]).snapshotId, 1);
    const up = cli(["upload", "cli-shop", "test/fixtures/orders-1.parquet", "--table", "main.orders"]);
    assert.equal(up.status, 0, up.stderr);
    assert.match(up.stderr, /upload orders-1\.parquet 100%/);
    const uploaded = JSON.parse(up.stdout) as { snapshotId: number; rows: number; path: string };
    assert.deepEqual(
      [uploaded.snapshotId, uploaded.rows, uploaded.path],
      [2, 3, "main/orders/orders-1.parquet"],
    );
    const viaFlag = ok<{ snapshots: unknown[] }>(["--url", server.url, "snapshots", "cli-shop"]);
    assert.equal(viaFlag.snapshots.length, 3);
    const inline = file("inline.json", [
      {
        op: "inline_insert",
        table: { schema: "main", name: "orders" },
        rows: [
          { id: 10, amount: "7.50", region: "ap" },
          { id: 11, amount: "0.25", region: null },
        ],
      },
    ]);
    assert.equal(
      ok<{ snapshotId: number }>(["commit", "cli-shop", inline, "-m", "two inlined rows"]).snapshotId,
      3,
    );
    const snaps = ok<{ snapshots: { snapshot_id: number; commit_message: string | null }[] }>([
      "snapshots",
      "cli-shop",
    ]);
    assert.deepEqual(
      snaps.snapshots.map((s) => [s.snapshot_id, s.commit_message]),
      [
        [0, null],
        [1, "create orders"],
        [2, "upload orders-1.parquet"],
        [3, "two inlined rows"],
      ],
    );

    const cp = ok<{ id: string }>(["checkpoint", "create", "cli-shop", "--lifetime", "3600"]);
    const listed = ok<{ checkpoints: { id: string }[] }>(["checkpoint", "list", "cli-shop"]);
    assert.ok(listed.checkpoints.some((c) => c.id === cp.id));
    ok(["checkpoint", "delete", "cli-shop", cp.id]);
    assert.ok(
      !ok<{ checkpoints: { id: string }[] }>(["checkpoint", "list", "cli-shop"]).checkpoints.some(
        (c) => c.id === cp.id,
      ),
    );

    const quack = cli(["quack-url", "cli-shop"]);
    assert.equal(quack.status, 0, quack.stderr);
    assert.match(quack.stdout, /CREATE SECRET .*TYPE quack/);
    assert.ok(
      quack.stdout.includes(`ATTACH 'ducklake:quack:127.0.0.1:${PORT}/cli-shop' AS cli_shop`),
      quack.stdout,
    );
    assert.doesNotMatch(quack.stdout, /<token>/);

    const out = join(work, "shop.sqlite");
    const exported = ok<{
      snapshotId: number;
      inlinedTables: number;
      filesDownloaded: number;
      userRows: number | null;
      tableRows: Record<string, number | null>;
    }>(["export", "cli-shop", out, "--data-dir", join(work, "data")]);
    assert.deepEqual([exported.snapshotId, exported.inlinedTables, exported.filesDownloaded], [3, 1, 1]);
    // The lake's own rows (3 in the file, 2 inlined), not the metadata rows the file holds.
    assert.deepEqual([exported.userRows, exported.tableRows], [5, { "main.orders": 5 }]);
    assert.ok(readFileSync(out).subarray(0, 15).toString() === "SQLite format 3");
    const parquet = "test/fixtures/orders-1.parquet";
    const inlined = [
      [10, "7.50", "ap"],
      [11, "0.25", null],
    ];
    const expect = file("expect.json", {
      table: "main.orders",
      columns: ["id", "amount", "region"],
      snapshots: {
        "1": { parquet: [], rows: [] },
        "2": { parquet: [parquet], rows: [] },
        "3": { parquet: [parquet], rows: inlined },
      },
    });
    const check = spawnSync("python3", ["tools/client/check-export.py", out, expect], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(check.status, 0, `${check.stdout}\n${check.stderr}`);
    assert.match(check.stdout, /ok snapshot 3: 5 rows/);

    const older = join(work, "shop-at-2.sqlite");
    assert.equal(
      ok<{ snapshotId: number }>([
        "export",
        "cli-shop",
        older,
        "--snapshot",
        "2",
        "--data-dir",
        join(work, "data2"),
      ]).snapshotId,
      2,
    );
    const expect2 = file("expect2.json", {
      table: "main.orders",
      columns: ["id", "amount", "region"],
      snapshots: { "1": { parquet: [], rows: [] }, "2": { parquet: [parquet], rows: [] } },
    });
    const check2 = spawnSync("python3", ["tools/client/check-export.py", older, expect2], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(check2.status, 0, `${check2.stdout}\n${check2.stderr}`);
  });

  it("rows: streams CSV typed by the table's columns in batches; a rerun with the same prefix replays", async () => {
    ok(["lakes", "create", "cli-rows"]);
    const ddl = file("rows-ddl.json", [
      {
        op: "create_table",
        schema: "main",
        name: "events",
        columns: [
          { name: "id", type: "int64" },
          { name: "name", type: "varchar" },
          { name: "score", type: "decimal(5,2)" },
          { name: "ok", type: "boolean" },
          { name: "tags", type: "list", children: [{ name: "element", type: "varchar" }] },
        ],
      },
    ]);
    ok(["commit", "cli-rows", ddl]);
    const n = 2500;
    const expected: Row[] = [];
    const lines = ["id,name,score,ok,tags"];
    for (let i = 1; i <= n; i++) {
      // Quoting, an embedded newline, NULL (unquoted empty) and the empty string (quoted empty).
      const name = i % 7 === 0 ? null : i % 11 === 0 ? "" : i % 13 === 0 ? `a "q", b\nc ${i}` : `n${i}`;
      const cell =
        name === null
          ? ""
          : name === ""
            ? '""'
            : /[",\n]/.test(name)
              ? `"${name.replaceAll('"', '""')}"`
              : name;
      const tags = i % 5 === 0 ? [] : [`t${i % 3}`, "x"];
      lines.push(
        `${i},${cell},${(i % 1000) / 4},${i % 2 === 0 ? "true" : "f"},"${JSON.stringify(tags).replaceAll('"', '""')}"`,
      );
      expected.push({
        id: i,
        name,
        score: ((i % 1000) / 4).toFixed(2),
        ok: i % 2 === 0,
        tags,
      });
    }
    const csv = file("events.csv", `${lines.join("\r\n")}\r\n`);
    const r = cli(["rows", "cli-rows", csv, "-t", "main.events", "--batch", "1000"]);
    assert.equal(r.status, 0, r.stderr);
    const first = JSON.parse(r.stdout) as RowsRun;
    assert.deepEqual([first.rows, first.batches, first.replayedBatches, first.failed], [n, 3, 0, null]);
    assert.match(r.stderr, /rows main\.events 2500 rows acknowledged in [\d.]+s \(\d+ rows\/s\)/);
    assert.deepEqual(await readAll("cli-rows", "events", first.watermark), expected);

    // Every batch again under the same keys: each replays, nothing lands twice.
    const again = cli([
      "rows",
      "cli-rows",
      csv,
      "-t",
      "main.events",
      "--batch",
      "1000",
      "--idempotency-prefix",
      first.idempotencyPrefix,
    ]);
    assert.equal(again.status, 0, again.stderr);
    const second = JSON.parse(again.stdout) as RowsRun;
    assert.deepEqual([second.rows, second.batches, second.replayedBatches], [n, 3, 3]);
    assert.equal((await readAll("cli-rows", "events", second.watermark)).length, n);
  });

  it("rows: a bad row is reported with its line, its batch is not written, NDJSON comes from stdin", async () => {
    ok(["lakes", "create", "cli-rows-bad"]);
    ok([
      "commit",
      "cli-rows-bad",
      file("bad-ddl.json", [
        {
          op: "create_table",
          schema: "main",
          name: "m",
          columns: [
            { name: "id", type: "int32" },
            { name: "v", type: "decimal(4,1)" },
          ],
        },
      ]),
    ]);
    const rows = Array.from({ length: 250 }, (_, k) => ({
      id: k + 1,
      v: k + 1 === 150 ? "not a number" : `${k}.5`,
    }));
    const ndjson = `${rows.map((x) => JSON.stringify(x)).join("\n")}\n`;
    const r = cli(
      ["rows", "cli-rows-bad", "-", "-t", "m", "--format", "ndjson", "--batch", "100", "--in-flight", "1"],
      {},
      ndjson,
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(
      r.stderr,
      /^error InvalidRequest: line 150: .*ops\[49\]\.row\.v: "not a number" is not a valid decimal\(4,1\)/m,
    );
    const out = JSON.parse(r.stdout) as RowsRun;
    assert.deepEqual(out.landed, [[1, 100]]);
    assert.deepEqual(out.failed?.lines, [101, 200]);
    assert.equal(out.rows, 100);
    const back = await readAll("cli-rows-bad", "m", out.watermark);
    assert.deepEqual(
      back.map((x) => x.id),
      rows.slice(0, 100).map((x) => x.id),
    );
    assert.deepEqual(back[99], { id: 100, v: "99.5" });
  });

  it("rows: a 1,000,000-row CSV lands with one command, flushing when the log is full; progress counts acknowledged rows", async () => {
    ok(["lakes", "create", "cli-million"]);
    ok([
      "commit",
      "cli-million",
      file("million-ddl.json", [
        { op: "create_table", schema: "main", name: "big", columns: [{ name: "id", type: "int64" }] },
      ]),
    ]);
    // Generated, one narrow column: the point is the count (ten times the log's 100,000-record bound).
    const csv = join(work, "million.csv");
    const lines = ["id"];
    for (let i = 0; i < MILLION; i++) lines.push(String(i));
    writeFileSync(csv, `${lines.join("\n")}\n`);
    const started = Date.now();
    const r = spawnSync(
      "node",
      ["cli/bin.mjs", "rows", "cli-million", csv, "-t", "big", "--batch", "10000", "--in-flight", "4"],
      {
        encoding: "utf8",
        timeout: MILLION_TIMEOUT_MS,
        env: { ...process.env, DUCKLAKE_EDGE_URL: server.url, DUCKLAKE_EDGE_TOKEN: server.token },
      },
    );
    const seconds = (Date.now() - started) / 1000;
    // Reported, not asserted (no timing assertions): the figure the report quotes.
    process.stdout.write(`# 1,000,000-row CSV import: ${seconds.toFixed(1)} s\n`);
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    const out = JSON.parse(r.stdout) as RowsRun & { flushes: number };
    assert.equal(out.rows, MILLION);
    assert.equal(out.failed, null);
    assert.deepEqual(out.landed, [[2, MILLION + 1]]);
    assert.ok(out.flushes >= 1, `the log filled, so the command flushed: ${JSON.stringify(out)}`);
    // Progress: rows acknowledged with a rate; the last line counts every row and claims no more.
    assert.match(r.stderr, /rows main\.big \d+ rows acknowledged, \d+% of ~\d+, \d+ rows\/s, ETA \d+s/);
    assert.match(
      r.stderr,
      new RegExp(
        `rows main\\.big ${MILLION} rows acknowledged in [\\d.]+s \\(\\d+ rows/s\\), \\d+ flushes while the log was full`,
      ),
    );
    // `flush` drains what is left; DuckLake's own table stats then count every row once.
    const flushed = ok<{ pending: number }>(["flush", "cli-million"]);
    assert.equal(flushed.pending, 0);
    const stats = await getJson("/v1/lakes/cli-million/ducklake/ducklake_table_stats?format=json");
    assert.equal(stats.status, 200, JSON.stringify(stats.body));
    const rows = (stats.body as { rows: { record_count: number | string }[] }).rows;
    assert.equal(Number(rows[0]?.record_count), MILLION);
  });
});
