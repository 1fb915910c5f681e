/**
 * The explorer in a real browser: headless Chromium (Debian's `chromium` package, driven by
 * playwright-core) against `wrangler dev` (ports 9342-9343, or UI_TEST_PORT and the next) with a seeded lake. It checks what a person
 * would: the lake is listed, its name and snapshot count show, time travel changes the view, a table's
 * columns and data file show, the activity charts draw pixels, and the console has no errors.
 * Screenshots land in test-artifacts/ (gitignored). Run: npm run test:ui.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { type DevServer, startWrangler } from "../support/wrangler-dev.ts";

const PORT = Number(process.env.UI_TEST_PORT ?? 9342);
const ARTIFACTS = "test-artifacts";
/** Longest wait for one thing on the page to appear. */
const UI_WAIT_MS = 30_000;
const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  (existsSync("/usr/lib/chromium/chromium") ? "/usr/lib/chromium/chromium" : "/usr/bin/chromium");
const LAKE = "explorer-shop";

let server: DevServer;
let browser: Browser;
let maintenanceRuns: JobRun[] = [];
/** What stock DuckDB's `SELECT *` answered for DUCK_LAKE's table after its edits. */
let duckAnswer: { columns: string[]; rows: string[][] } = { columns: [], rows: [] };

async function api(path: string, init: RequestInit = {}): Promise<unknown> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${server.token}`);
  if (init.body !== undefined && !(init.body instanceof Uint8Array))
    headers.set("content-type", "application/json");
  const res = await fetch(`${server.url}${path}`, { ...init, headers });
  const text = await res.text();
  assert.ok(res.ok, `${init.method ?? "GET"} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const commit = (verbs: unknown[], message: string) =>
  api(`/v1/lakes/${LAKE}/commits`, {
    method: "POST",
    body: JSON.stringify({ verbs, message, author: "seed" }),
  });

async function seed(): Promise<void> {
  await api(`/v1/lakes/${LAKE}`, { method: "PUT" });
  await commit(
    [
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
    "create orders",
  );
  const parquet = new Uint8Array(readFileSync("test/fixtures/orders-1.parquet"));
  await api(`/v1/lakes/${LAKE}/data/main/orders/orders-1.parquet`, { method: "PUT", body: parquet });
  const stats = JSON.parse(readFileSync("test/fixtures/orders-1.json", "utf8")) as {
    recordCount: number;
    fileSizeBytes: number;
    footerSize: number;
  };
  await commit(
    [
      {
        op: "register_data_file",
        table: { schema: "main", name: "orders" },
        file: {
          path: "orders-1.parquet",
          recordCount: stats.recordCount,
          fileSizeBytes: stats.fileSizeBytes,
          footerSize: stats.footerSize,
          columnStats: [{ column: "id", min: "1", max: "3", nullCount: 0, valueCount: 3 }],
        },
      },
    ],
    "load orders-1",
  );
  await commit(
    [
      {
        op: "inline_insert",
        table: { schema: "main", name: "orders" },
        rows: [{ id: 9, amount: "1.25", region: "ap" }],
      },
    ],
    "one inlined row",
  );
  await commit(
    [
      {
        op: "add_column",
        table: { schema: "main", name: "orders" },
        column: { name: "note", type: "varchar" },
      },
    ],
    "add note",
  );
}

const MAINT_LAKE = "explorer-maint";

interface JobRun {
  seq: number;
  job: string;
  startedAt: number;
  snapshotId: number | null;
  error: string | null;
}

/** A lake whose maintenance ran: job 1 flushed three inlined rows to a file; job 2 found nothing to merge. */
async function seedMaintenance(): Promise<JobRun[]> {
  await api(`/v1/lakes/${MAINT_LAKE}`, { method: "PUT" });
  await api(`/v1/lakes/${MAINT_LAKE}/commits`, {
    method: "POST",
    body: JSON.stringify({
      verbs: [
        {
          op: "create_table",
          schema: "main",
          name: "events",
          columns: [
            { name: "id", type: "int32" },
            { name: "v", type: "varchar" },
          ],
        },
        {
          op: "inline_insert",
          table: { schema: "main", name: "events" },
          rows: [
            { id: 1, v: "a" },
            { id: 2, v: "b" },
            { id: 3, v: null },
          ],
        },
        // Below the three rows held, so job 1 has a table to flush (DuckLake's default limit is 10).
        { op: "set_option", name: "data_inlining_row_limit", value: "2" },
      ],
    }),
  });
  const ran = (await api(`/v1/lakes/${MAINT_LAKE}/maintenance`, {
    method: "POST",
    body: JSON.stringify({ jobs: ["flush_inlined", "merge_adjacent"] }),
  })) as { runs: JobRun[] };
  // A delete of the flushed file's second row, held inline (no delete file written).
  const plan = (await api(`/v1/lakes/${MAINT_LAKE}/tables/main/events/plan`)) as {
    files: { data_file_id: number }[];
  };
  await api(`/v1/lakes/${MAINT_LAKE}/commits`, {
    method: "POST",
    body: JSON.stringify({
      verbs: [
        {
          op: "inline_delete",
          table: { schema: "main", name: "events" },
          fileDeletes: [{ dataFileId: plan.files[0]?.data_file_id, positions: [1] }],
        },
      ],
      message: "delete id 2",
    }),
  });
  return ran.runs;
}

const PAGED_LAKE = "explorer-maint-paged";
/** Runs recorded in PAGED_LAKE: one more than the explorer's page of 50. */
const PAGED_RUNS = 51;

async function seedPagedHistory(): Promise<void> {
  await api(`/v1/lakes/${PAGED_LAKE}`, { method: "PUT" });
  for (let i = 0; i < PAGED_RUNS; i++) {
    await api(`/v1/lakes/${PAGED_LAKE}/maintenance`, {
      method: "POST",
      body: JSON.stringify({ jobs: ["merge_adjacent"] }),
    });
  }
}

const LONG_LAKE = "explorer-long";
/** Inserts committed to LONG_LAKE after its table: with the bootstrap and the CREATE, more snapshots than one
 * timeline step (100) shows. */
const LONG_INSERTS = 104;

async function seedLongHistory(): Promise<void> {
  await api(`/v1/lakes/${LONG_LAKE}`, { method: "PUT" });
  const t = { schema: "main", name: "ticks" };
  await api(`/v1/lakes/${LONG_LAKE}/commits`, {
    method: "POST",
    // Job 1 (on by default) would flush the inserts in the background and mint snapshots of its own.
    body: JSON.stringify({
      verbs: [
        { op: "create_table", ...t, columns: [{ name: "n", type: "int32" }] },
        { op: "set_option", name: "maintenance_flush_inlined", value: "false" },
      ],
    }),
  });
  // In groups of 8 at once: the writer coalesces them, each still its own snapshot.
  for (let i = 0; i < LONG_INSERTS; i += 8) {
    await Promise.all(
      Array.from({ length: Math.min(8, LONG_INSERTS - i) }, (_, k) =>
        api(`/v1/lakes/${LONG_LAKE}/commits`, {
          method: "POST",
          body: JSON.stringify({ verbs: [{ op: "inline_insert", table: t, rows: [{ n: i + k }] }] }),
        }),
      ),
    );
  }
}

const DUCK_LAKE = "explorer-duck";
/** Longest a stock DuckDB seeding or reading process may run. */
const DUCKDB_TIMEOUT_MS = 120_000;

/**
 * Stock DuckDB 1.5.5 (Python) attached through the lake's Quack recipe: runs the SQL statements given on
 * stdin, then prints the columns and rows of the last one as JSON, each value as the text a person reads —
 * decimals exactly (`format(d, "f")`: never an exponent), integers in full, NULL as the explorer's `∅`.
 */
const DUCKDB_SESSION = `
import duckdb, json, sys, urllib.request, decimal
base, lake, token = sys.argv[1], sys.argv[2], sys.argv[3]
req = urllib.request.Request(f"{base}/v1/lakes/{lake}/quack", headers={"authorization": f"Bearer {token}"})
con = duckdb.connect()
for stmt in json.load(urllib.request.urlopen(req))["statements"]:
    con.sql(stmt.replace("<token>", token))
stmts = json.load(sys.stdin)
for stmt in stmts[:-1]:
    con.sql(stmt)
rel = con.sql(stmts[-1])
show = lambda v: "∅" if v is None else format(v, "f") if isinstance(v, decimal.Decimal) else str(v)
print(json.dumps({"columns": rel.columns, "rows": [[show(v) for v in r] for r in rel.fetchall()]}))
`;

/** Runs SQL in a stock DuckDB session attached to `lake`; answers the last statement's rows as text. */
function duckdb(lake: string, statements: string[]): Promise<{ columns: string[]; rows: string[][] }> {
  return new Promise((done, fail) => {
    const child = spawn("python3", ["-c", DUCKDB_SESSION, server.url, lake, server.token], {
      timeout: DUCKDB_TIMEOUT_MS,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("close", (code) =>
      code === 0 ? done(JSON.parse(out)) : fail(new Error(`duckdb exited ${code}: ${err}`)),
    );
    child.stdin.end(JSON.stringify(statements));
  });
}

/** Rows the DuckDB-written table holds after its edits: more than two preview pages (50 each). */
const DUCK_ROWS = 120;

/**
 * A table written by stock DuckDB alone: 120 rows into a Parquet file, an UPDATE (DuckLake: a delete and an
 * inlined insert), a DELETE of three rows (inlined deletes) and of twenty (a delete file), and two inlined
 * rows; decimals wider than a double and bigints beyond 2^53. Answers DuckDB's own `SELECT *` afterwards.
 */
async function seedWithDuckDB(): Promise<{ columns: string[]; rows: string[][] }> {
  await api(`/v1/lakes/${DUCK_LAKE}`, { method: "PUT" });
  // The recipe attaches the lake under its name with `-` as `_`.
  const t = `${DUCK_LAKE.replace(/-/g, "_")}.main.sales`;
  return duckdb(DUCK_LAKE, [
    `CREATE TABLE ${t} (id BIGINT, amount DECIMAL(18,3), wide DECIMAL(38,10), big BIGINT, name VARCHAR)`,
    `INSERT INTO ${t} SELECT i, i * 1.105, 12345678901234567890.0123456789 + i, 9223372036854775807 - i, 'n' || i FROM range(1, ${DUCK_ROWS + 1}) r(i)`,
    `UPDATE ${t} SET amount = 95.740, name = 'updated' WHERE id = 4`,
    `DELETE FROM ${t} WHERE id IN (7, 8, 9)`,
    `DELETE FROM ${t} WHERE id BETWEEN 50 AND 69`,
    `INSERT INTO ${t} VALUES (1000, 0.001, -1.5, -9223372036854775808, 'inlined'), (1001, NULL, NULL, 1, NULL)`,
    `SELECT * FROM ${t}`,
  ]);
}

async function open(page: Page, hash: string): Promise<void> {
  await page.goto(`${server.url}/ui/${hash}`);
}

const errors: string[] = [];

/** The part of a canvas element the pixel count reads (the suite has no DOM types). */
interface Canvas {
  width: number;
  height: number;
  getContext(
    kind: "2d",
  ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

describe("explorer in headless Chromium", { timeout: 600_000 }, () => {
  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startWrangler(PORT);
    // The shop lake last: its charts count this writer activation's commits, and a writer left idle
    // while other lakes are seeded may be evicted (a new activation counts from zero).
    maintenanceRuns = await seedMaintenance();
    duckAnswer = await seedWithDuckDB();
    await seedPagedHistory();
    await seedLongHistory();
    await seed();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("shows the lakes, a lake's summary, timeline, time travel, tables, charts and a table's files", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.setDefaultTimeout(UI_WAIT_MS);
    // Which scripts the page fetched: uPlot and hyparquet are chunks loaded on demand (decision 0343).
    const scripts: string[] = [];
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path.endsWith(".js")) scripts.push(path.replace(/-[A-Z0-9]{8}\.js$/, ".js"));
    });

    await open(page, `#token=${encodeURIComponent(server.token)}`);
    await page.locator(`[data-testid=lakes] a`, { hasText: LAKE }).waitFor();
    assert.equal(new URL(page.url()).hash.includes("token="), false, "the token leaves the address bar");
    assert.equal(await page.evaluate("sessionStorage.getItem('ducklake-edge-token')"), server.token);
    await page.screenshot({ path: `${ARTIFACTS}/explorer-lakes.png`, fullPage: true });
    assert.deepEqual(scripts, ["/ui/app.js"], "the first load is the entry script alone");

    await page.locator(`[data-testid=lakes] a`, { hasText: LAKE }).click();
    await page.locator("[data-testid=lake-name]", { hasText: LAKE }).waitFor();
    await page.locator("[data-testid=snapshot-count]", { hasText: "5 snapshots" }).waitFor();
    await page.locator("[data-testid=timeline] tbody tr").nth(4).waitFor();
    assert.equal(await page.locator("[data-testid=timeline] tbody tr").count(), 5);
    assert.match((await page.locator("[data-testid=timeline]").textContent()) ?? "", /load orders-1/);
    // What each commit changed, with the table named rather than its id.
    await page.locator("[data-testid=timeline]", { hasText: "inserted_into_table main.orders" }).waitFor();
    const changes = await page.locator("[data-testid=timeline] tbody tr td:nth-child(5)").allInnerTexts();
    assert.deepEqual(changes, [
      "altered_table main.orders",
      "inlined_insert main.orders",
      "inserted_into_table main.orders",
      'created_table "main"."orders"',
      'created_schema "main"',
    ]);
    await page
      .locator("[data-testid=tables]", {
        hasText: "id int32, amount decimal(4,2), region varchar, note varchar",
      })
      .waitFor();
    await page.locator("[data-testid=metrics-summary]", { hasText: "4 commits ok" }).waitFor();
    // The counters' start (ms since the epoch, kept across writer restarts), shown as a date of this year.
    assert.match(
      (await page.locator("[data-testid=metrics-since]").textContent()) ?? "",
      new RegExp(`counted since ${new Date().getUTCFullYear()}-\\d\\d-\\d\\d `),
    );
    const canvases = page.locator("[data-testid=charts] canvas");
    await canvases.first().waitFor();
    assert.equal(await canvases.count(), 2);
    const painted = await canvases.first().evaluate((c) => {
      const canvas = c as unknown as Canvas;
      const data = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) n++;
      return n;
    });
    assert.ok(painted > 100, `the chart drew ${painted} pixels`);
    // One bucket of commits: the time axis spans the ten-minute minimum (61 buckets), not years.
    assert.equal(await page.locator("[data-testid=charts]").getAttribute("data-window-seconds"), "610");
    assert.deepEqual(scripts, ["/ui/app.js", "/ui/charts.js"]);
    await page.locator("[data-testid=maintenance-empty]", { hasText: "No maintenance has run." }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/explorer-lake.png`, fullPage: true });

    // Time travel: snapshot 2 has the loaded file but neither the inlined row nor the note column.
    await page.locator("[data-testid=snapshot-select]").selectOption("2");
    await page.locator("[data-testid=snapshot-count]", { hasText: "3 snapshots" }).waitFor();
    await page
      .locator("[data-testid=tables]", { hasText: "id int32, amount decimal(4,2), region varchar" })
      .waitFor();
    assert.doesNotMatch((await page.locator("[data-testid=tables]").textContent()) ?? "", /note/);
    await page.screenshot({ path: `${ARTIFACTS}/explorer-time-travel.png`, fullPage: true });

    await open(page, `#/lake/${LAKE}/table/main/orders`);
    await page.locator("[data-testid=table-name]", { hasText: "main.orders" }).waitFor();
    await page.locator("[data-testid=columns] tbody tr").nth(3).waitFor();
    const columns = await page.locator("[data-testid=columns] tbody tr td:nth-child(2)").allInnerTexts();
    assert.deepEqual(columns, ["id", "amount", "region", "note"]);
    await page.locator("[data-testid=files]", { hasText: "orders-1.parquet" }).waitFor();
    assert.match((await page.locator("[data-testid=files]").textContent()) ?? "", /id: 1 … 3, nulls 0/);
    await page.locator("[data-testid=inlined]", { hasText: "ap" }).waitFor();
    // A data file's rows, read in the browser with ranged GETs of the data route once a preview opens;
    // the reader (hyparquet) is fetched then, not before.
    assert.equal(await page.locator("[data-testid=preview]").count(), 0);
    assert.ok(!scripts.includes("/ui/preview.js"), "no preview code before a preview opens");
    await page.locator("[data-testid=files] [data-testid=preview-button]").first().click();
    await page.locator("[data-testid=preview] tbody tr").nth(2).waitFor();
    assert.equal(scripts.filter((x) => x === "/ui/preview.js").length, 1);
    assert.equal(await page.locator("[data-testid=preview] tbody tr").count(), 3);
    assert.deepEqual(await page.locator("[data-testid=preview] thead th").allTextContents(), [
      "id",
      "amount",
      "region",
    ]);
    await page.locator("[data-testid=column-history]", { hasText: "note" }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/explorer-table.png`, fullPage: true });

    // Time travel on the table page: at snapshot 2 the file is there, the inlined row and `note` are not.
    await page
      .locator("[data-testid=snapshot-select] option", { hasText: "2" })
      .first()
      .waitFor({ state: "attached" });
    await page.locator("[data-testid=snapshot-select]").selectOption("2");
    await page.locator(".pinned", { hasText: "time travel: snapshot 2" }).waitFor();
    await page.locator("[data-testid=columns] tbody tr").nth(2).waitFor();
    await page.waitForFunction(() => {
      const rows = (
        globalThis as unknown as { document: { querySelectorAll(q: string): { length: number } } }
      ).document.querySelectorAll("[data-testid=columns] tbody tr");
      return rows.length === 3;
    });
    assert.deepEqual(await page.locator("[data-testid=columns] tbody tr td:nth-child(2)").allInnerTexts(), [
      "id",
      "amount",
      "region",
    ]);
    await page.locator("[data-testid=files]", { hasText: "orders-1.parquet" }).waitFor();
    assert.equal(await page.locator("[data-testid=inlined] tbody tr").count(), 0);
    assert.match(new URL(page.url()).hash, /table\/main\/orders\?snapshot=2$/);

    assert.deepEqual(errors, []);
  });

  it("shows a lake's maintenance history, newest first, with what each run did", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    const pageErrors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") pageErrors.push(m.text());
    });
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.setDefaultTimeout(UI_WAIT_MS);
    const flushed = maintenanceRuns.find((r) => r.job === "flush_inlined");
    const merge = maintenanceRuns.find((r) => r.job === "merge_adjacent");
    assert.equal(typeof flushed?.snapshotId, "number", "the flush minted a snapshot");
    assert.equal(merge?.error, null, "job 2 ran and found nothing to merge");

    await open(page, `#token=${encodeURIComponent(server.token)}`);
    await open(page, `#/lake/${MAINT_LAKE}`);
    const rows = page.locator("[data-testid=maintenance] tbody tr");
    await rows.nth(1).waitFor();
    // Table names load beside the history (a run shows "…" until they arrive).
    await rows.filter({ hasText: "main.events" }).first().waitFor();
    assert.equal(await rows.count(), 2);
    const started = (t: number): string => new Date(t).toISOString().replace("T", " ").slice(0, 19);
    const shown = await Promise.all([0, 1].map((i) => rows.nth(i).locator("td").allInnerTexts()));
    // Newest first: the run recorded last (highest seq) is the top row.
    const newestFirst = [...maintenanceRuns].sort((a, b) => b.seq - a.seq).map((r) => r.job);
    assert.deepEqual(
      shown.map((c) => c[0]),
      newestFirst,
    );
    const row = (job: string): string[] => shown.find((c) => c[0] === job) ?? [];
    const [, m1, m2, , m4, m5, m6, m7] = row("merge_adjacent");
    assert.deepEqual(
      [m1, m2, m4, m5, m6, m7],
      ["—", started(merge?.startedAt ?? 0), "0 → 0", "0 → 0", "—", ""],
    );
    const [, f1, f2, f3, f4, f5, f6, f7] = row("flush_inlined");
    assert.deepEqual(
      [f1, f2, f4, f5, f6, f7],
      ["main.events", started(flushed?.startedAt ?? 0), "0 → 1", "3 → 3", String(flushed?.snapshotId), ""],
    );
    assert.match(f3 ?? "", /^\d+(\.\d)? m?s$/);
    await page.locator("[data-testid=maintenance-settings]", { hasText: "jobs on:" }).waitFor();
    // The runs charted over time (rows and bytes in → out), from the durable history.
    await page.locator("[data-testid=maintenance-chart] canvas").first().waitFor();
    assert.equal(await page.locator("[data-testid=maintenance-chart]").getAttribute("data-runs"), "2");
    await page.screenshot({ path: `${ARTIFACTS}/explorer-maintenance.png`, fullPage: true });
    // The minted snapshot links to the lake as of it: the table's rows now live in a file.
    await rows.nth(newestFirst.indexOf("flush_inlined")).locator("a").click();
    await page.locator(".pinned", { hasText: `snapshot ${flushed?.snapshotId}` }).waitFor();

    // The flushed file on its table page: its stats, and the delete held inline against it.
    await open(page, `#/lake/${MAINT_LAKE}/table/main/events`);
    await page.locator("[data-testid=files]", { hasText: "1 inlined deletes" }).waitFor();
    assert.match((await page.locator("[data-testid=files]").textContent()) ?? "", /id: 1 … 3, nulls 0/);
    assert.equal(await page.locator("[data-testid=inlined] tbody tr").count(), 0);

    // Paging: the first page holds 50 runs; "older runs" appends the rest and then disappears.
    await open(page, `#/lake/${PAGED_LAKE}`);
    await rows.nth(49).waitFor();
    assert.equal(await rows.count(), 50);
    await page.locator("[data-testid=maintenance-older]").click();
    await rows.nth(PAGED_RUNS - 1).waitFor();
    assert.equal(await rows.count(), PAGED_RUNS);
    assert.equal(await page.locator("[data-testid=maintenance-older]").count(), 0);
    assert.deepEqual(pageErrors, []);
  });

  it("shows a long history's newest 100 snapshots first and the older ones on demand", async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.setDefaultTimeout(UI_WAIT_MS);
    await open(page, `#token=${encodeURIComponent(server.token)}`);
    await open(page, `#/lake/${LONG_LAKE}`);
    const total = LONG_INSERTS + 2; // the bootstrap snapshot 0 and the CREATE
    await page.locator("[data-testid=snapshot-count]", { hasText: `${total} snapshots` }).waitFor();
    const rows = page.locator("[data-testid=timeline] tbody tr");
    assert.equal(await rows.count(), 100);
    assert.match((await rows.nth(0).locator("td").first().textContent()) ?? "", new RegExp(`^${total - 1}$`));
    await page.locator("[data-testid=timeline-older]", { hasText: `${total - 100} not shown` }).click();
    await rows.nth(total - 1).waitFor();
    assert.equal(await rows.count(), total);
    assert.equal(await page.locator("[data-testid=timeline-older]").count(), 0);
    assert.deepEqual(pageErrors, []);
  });

  it("previews a DuckDB-written table exactly as stock DuckDB's SELECT answers it, page by page", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.setDefaultTimeout(UI_WAIT_MS);
    assert.equal(duckAnswer.rows.length, DUCK_ROWS - 3 - 20 + 2);
    await open(page, `#token=${encodeURIComponent(server.token)}`);
    await open(page, `#/lake/${DUCK_LAKE}/table/main/sales`);
    const preview = page.locator("[data-testid=table-preview]");
    const shown: string[][] = [];
    for (let n = 0; ; n++) {
      assert.ok(n < 10, "the preview pages end");
      await page.locator("[data-testid=table-preview-range]", { hasText: `(rows ${n * 50 + 1}–` }).waitFor();
      assert.deepEqual(await preview.locator("thead th").allTextContents(), duckAnswer.columns);
      const rows = preview.locator("tbody tr");
      const count = await rows.count();
      assert.ok(count <= 50, `a page holds at most 50 rows, not ${count}`);
      for (let i = 0; i < count; i++) shown.push(await rows.nth(i).locator("td").allTextContents());
      if (n === 0) await page.screenshot({ path: `${ARTIFACTS}/explorer-table-preview.png`, fullPage: true });
      const next = page.locator("[data-testid=table-preview-next]");
      if ((await next.count()) === 0) break;
      await next.click();
    }
    // The same rows, value for value (order aside: neither side promises one without ORDER BY).
    const sorted = (rows: string[][]) => rows.map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(sorted(shown), sorted(duckAnswer.rows));
    // What the issue saw go wrong: the updated row's exact decimal, deleted rows gone, big integers whole.
    assert.ok(shown.some((r) => r[0] === "4" && r[1] === "95.740" && r[4] === "updated"));
    assert.ok(!shown.some((r) => ["7", "50", "69"].includes(r[0] ?? "")));
    assert.ok(shown.some((r) => r[0] === "1" && r[3] === "9223372036854775806"));
    assert.ok(
      shown.some((r) => r[0] === "1000" && r[2] === "-1.5000000000" && r[3] === "-9223372036854775808"),
    );
    // Back from the last page (rows 51–99) to the first.
    await page.locator("[data-testid=table-preview-previous]").click();
    await page.locator("[data-testid=table-preview-range]", { hasText: "(rows 1–50)" }).waitFor();
    assert.deepEqual(pageErrors, []);
  });
});
