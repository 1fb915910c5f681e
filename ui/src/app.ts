/**
 * The explorer: lakes the token covers; per lake a summary, the snapshot timeline with time travel,
 * tables, checkpoints and the writer's activity charts; per table its columns and their history, data
 * files with stats, delete files and inlined rows. Reads only (the metrics and writer-status routes are
 * the writer reporting on itself). Hash routes: #/ · #/lake/<lake>[?snapshot=N] ·
 * #/lake/<lake>/table/<schema>/<table>[?snapshot=N].
 */
import { html } from "htm/preact";
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, type Schemas, unwrap } from "../../client/index.ts";
import {
  api,
  clearToken,
  dataFileBuffer,
  dataRoutePath,
  getToken,
  setToken,
  takeTokenFromHash,
} from "./api.ts";

type Row = Record<string, unknown>;

interface Route {
  view: "lakes" | "lake" | "table";
  lake?: string;
  schema?: string;
  table?: string;
  snapshot?: number;
}

function parseRoute(): Route {
  const [path = "", query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const snap = new URLSearchParams(query).get("snapshot");
  const snapshot = snap !== null && /^\d+$/.test(snap) ? Number(snap) : undefined;
  const base = snapshot !== undefined ? { snapshot } : {};
  if (parts[0] === "lake" && parts[1] && parts[2] === "table" && parts[3] && parts[4]) {
    return { view: "table", lake: parts[1], schema: parts[3], table: parts[4], ...base };
  }
  if (parts[0] === "lake" && parts[1]) return { view: "lake", lake: parts[1], ...base };
  return { view: "lakes" };
}

const href = (r: Route): string => {
  const q = r.snapshot !== undefined ? `?snapshot=${r.snapshot}` : "";
  if (r.view === "table") return `#/lake/${r.lake}/table/${r.schema}/${r.table}${q}`;
  if (r.view === "lake") return `#/lake/${r.lake}${q}`;
  return "#/";
};

const fmtBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;
/**
 * DuckLake times: the API answers DuckDB's TIMESTAMPTZ text (`2026-12-01 08:30:38.123456+00`); older
 * answers were microseconds since the epoch. Shown to the second, in UTC.
 */
const fmtTime = (t: unknown): string => {
  const ms =
    typeof t === "number" ? Math.floor(t / 1000) : typeof t === "string" ? Date.parse(t) : Number.NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace("T", " ").slice(0, 19) : "";
};
const text = (v: unknown): string =>
  v === null || v === undefined ? "∅" : typeof v === "object" ? JSON.stringify(v) : String(v);

/** Runs a load whenever its key changes; errors are shown, never thrown into the page. */
function useLoad<T>(key: string, load: () => Promise<T>): { data?: T; error?: string } {
  const [state, setState] = useState<{ key: string; data?: T; error?: string }>({ key: "" });
  useEffect(() => {
    let live = true;
    setState({ key });
    load().then(
      (data) => live && setState({ key, data }),
      (e: unknown) =>
        live && setState({ key, error: e instanceof ApiFailure ? `${e.code}: ${e.message}` : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return state.key === key ? state : {};
}

const selector = (snapshot?: number) => (snapshot !== undefined ? { snapshot: String(snapshot) } : {});

function ErrorBox({ error }: { error?: string }) {
  return error ? html`<p class="error" data-testid="error">${error}</p>` : null;
}

function TokenForm({ onSet }: { onSet: () => void }) {
  const [value, setValue] = useState("");
  return html`<form
    class="token"
    onSubmit=${(e: Event) => {
      e.preventDefault();
      if (value.trim()) {
        setToken(value.trim());
        onSet();
      }
    }}
  >
    <label>Bearer token <input type="password" data-testid="token-input" value=${value} onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} /></label>
    <button type="submit">Use token</button>
    <p class="hint">Kept in this browser tab only (sessionStorage). Links may carry it as <code>#token=…</code>, which never reaches the server.</p>
  </form>`;
}

function Lakes() {
  const { data, error } = useLoad("lakes", async () => {
    const out: { name: string; state: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await unwrap(api().GET("/v1/lakes", { params: { query: cursor ? { cursor } : {} } }));
      out.push(...page.lakes);
      cursor = page.cursor ?? undefined;
    } while (cursor);
    return out;
  });
  return html`<section>
    <h2>Lakes</h2>
    <${ErrorBox} error=${error} />
    ${data && data.length === 0 ? html`<p>No lakes for this token.</p>` : null}
    <ul data-testid="lakes">
      ${(data ?? []).map(
        (l) =>
          html`<li><a href=${href({ view: "lake", lake: l.name })}>${l.name}</a> <small>${l.state}</small></li>`,
      )}
    </ul>
  </section>`;
}

function Charts({ lake }: { lake: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const { data, error } = useLoad(`metrics:${lake}`, () =>
    unwrap(api().GET("/v1/lakes/{lake}/metrics", { params: { path: { lake } } })),
  );
  const [chartError, setChartError] = useState<string | undefined>();
  useEffect(() => {
    const el = ref.current;
    if (!data || !el) return;
    let live = true;
    let plots: { destroy(): void }[] = [];
    // uPlot is its own chunk, fetched the first time a lake page draws (decision 0343-explorer-lazy-chunks.md).
    import("./charts.ts").then(
      (m) => {
        if (live) plots = m.drawActivity(el, data.metrics.activity.buckets, data.metrics.activity.bucketMs);
      },
      (e: unknown) => live && setChartError(`charts failed to load: ${String(e)}`),
    );
    return () => {
      live = false;
      for (const p of plots) p.destroy();
    };
  }, [data]);
  const m = data?.metrics;
  return html`<section>
    <h3>Commit activity <small data-testid="metrics-since">(counted since ${m ? new Date(m.since).toISOString().replace("T", " ").slice(0, 19) : "…"} UTC, across writer restarts; the last hour charted)</small></h3>
    <${ErrorBox} error=${error ?? chartError} />
    ${
      m
        ? html`<p data-testid="metrics-summary">
          ${m.commits.ok} commits ok, ${m.commits.failed} failed, ${m.commits.replayed} replayed · ${m.batches.count}
          batches (${m.batches.members} requests) · ${m.flushes} flushes · ${m.conflicts} conflicts ·
          ${m.retries.total} retries · background: ${m.background.passes} passes, ${m.background.compactions}
          compactions
        </p>`
        : null
    }
    <div ref=${ref} class="charts" data-testid="charts"></div>
  </section>`;
}

interface Snapshot {
  snapshot_id: number;
  snapshot_time: string;
  author: string | null;
  commit_message: string | null;
  changes_made: string | null;
  /** The table behind each id in the changes, as named at this snapshot (the API's naming). */
  table_names: Record<string, string>;
}

/** DuckLake's `changes_made` entries: `kind:value`, the value a number (a table id) or a quoted name. */
const CHANGE = /([a-z_]+):((?:"(?:[^"]|"")*"(?:\.)?)+|\d+)/g;

/**
 * One line per change; a table id becomes the table's name as the snapshot named it (the API's
 * `table_names`; the raw text stays in the tooltip). Schema, view and macro ids are other id spaces: left as ids.
 */
function changeList(changes: string | null, tableNames: Record<string, string>) {
  if (!changes) return "";
  const entries = [...changes.matchAll(CHANGE)].map(([, kind = "", value = ""]) => {
    const name = /^\d+$/.test(value) && !/schema|view|macro/.test(kind) ? tableNames[value] : undefined;
    return `${kind} ${name ?? value}`;
  });
  return html`<div class="changes" title=${changes}>${entries.map((e) => html`<div><code>${e}</code></div>`)}</div>`;
}

/** Timeline rows shown at first and added per "show older" press: a long history renders in steps. */
const TIMELINE_ROWS = 100;
/** Options of the snapshot picker: the newest this many (and the one in view), so a long history stays quick. */
const PICKER_OPTIONS = 500;

/** Snapshots per page the timeline asks for, and the most pages it reads (100,000 snapshots). */
const SNAPSHOT_PAGE = 1000;
const MAX_SNAPSHOT_PAGES = 100;

/** The lake's snapshot list, oldest first (author, message, changes). */
function useSnapshots(lake: string): { data?: Snapshot[]; error?: string } {
  return useLoad(`snapshots:${lake}`, async () => {
    const out: Snapshot[] = [];
    let since: number | undefined;
    for (let page = 0; page < MAX_SNAPSHOT_PAGES; page++) {
      const r = await unwrap(
        api().GET("/v1/lakes/{lake}/snapshots", {
          params: {
            path: { lake },
            query: { limit: String(SNAPSHOT_PAGE), ...(since !== undefined ? { since: String(since) } : {}) },
          },
        }),
      );
      out.push(...(r.snapshots as Snapshot[]));
      if (r.next === null) break;
      since = r.next;
    }
    return out;
  });
}

/** Time travel: pick a snapshot and the same page shows the lake (or the table) as it was then. */
function Travel({ route, snapshots }: { route: Route; snapshots: Snapshot[] }) {
  const snap = route.snapshot;
  const newest = snapshots.slice(-PICKER_OPTIONS).map((x) => x.snapshot_id);
  const ids = snap !== undefined && !newest.includes(snap) ? [snap, ...newest] : newest;
  return html`<div class="travel">
    <label
      >View as of snapshot
      <select
        data-testid="snapshot-select"
        value=${snap === undefined ? "" : String(snap)}
        onChange=${(e: Event) => {
          const v = (e.target as HTMLSelectElement).value;
          const { snapshot: _old, ...rest } = route;
          location.hash = href({ ...rest, ...(v === "" ? {} : { snapshot: Number(v) }) });
        }}
      >
        <option value="">latest</option>
        ${ids.map((id) => html`<option value=${String(id)}>${id}</option>`)}
      </select></label
    >
    ${snap !== undefined ? html`<strong class="pinned">time travel: snapshot ${snap}</strong>` : null}
  </div>`;
}

function Lake({ route }: { route: Route }) {
  const lake = route.lake as string;
  const snap = route.snapshot;
  const key = `${lake}@${snap ?? "head"}`;
  const summary = useLoad(`summary:${key}`, () =>
    unwrap(api().GET("/v1/lakes/{lake}", { params: { path: { lake }, query: selector(snap) } })),
  );
  const snapshots = useSnapshots(lake);
  const [timelineRows, setTimelineRows] = useState(TIMELINE_ROWS);
  const catalog = useLoad(`catalog:${key}`, () =>
    unwrap(api().GET("/v1/lakes/{lake}/catalog", { params: { path: { lake }, query: selector(snap) } })),
  );
  const stats = useLoad(`stats:${key}`, async () => {
    const [files, inlined] = await Promise.all([
      unwrap(
        api().GET("/v1/lakes/{lake}/ducklake/{table}", {
          params: { path: { lake, table: "ducklake_data_file" }, query: selector(snap) },
        }),
      ),
      unwrap(api().GET("/v1/lakes/{lake}/inlined", { params: { path: { lake }, query: selector(snap) } })),
    ]);
    const live = (files as { rows: Row[] }).rows.filter((r) => r.end_snapshot === null);
    const inlinedRows = Object.entries(inlined.tables)
      .filter(([n]) => n.startsWith("ducklake_inlined_data_"))
      .reduce(
        (a, [, t]) =>
          a + t.rows.filter((r) => r.end_snapshot === null || r.end_snapshot === undefined).length,
        0,
      );
    return {
      files: live.length,
      bytes: live.reduce((a, r) => a + Number(r.file_size_bytes ?? 0), 0),
      inlinedRows,
    };
  });
  const writer = useLoad(`writer:${lake}`, () =>
    unwrap(api().GET("/v1/lakes/{lake}/writer", { params: { path: { lake } } })),
  );
  const checkpoints = useLoad(`checkpoints:${lake}`, () =>
    unwrap(api().GET("/v1/lakes/{lake}/checkpoints", { params: { path: { lake } } })),
  );
  // Every table the lake ever had (dropped ones too), so a maintenance run can name the table it worked on.
  const tableNames = useLoad(`table-names:${lake}`, async () => {
    const read = (table: "ducklake_table" | "ducklake_schema") =>
      unwrap(api().GET("/v1/lakes/{lake}/ducklake/{table}", { params: { path: { lake, table } } }));
    const [t, sc] = await Promise.all([read("ducklake_table"), read("ducklake_schema")]);
    const schemas = new Map(
      (sc as { rows: Row[] }).rows.map((r) => [Number(r.schema_id), String(r.schema_name)]),
    );
    return new Map(
      (t as { rows: Row[] }).rows.map((r) => [
        Number(r.table_id),
        `${schemas.get(Number(r.schema_id)) ?? "?"}.${String(r.table_name)}`,
      ]),
    );
  });
  const tables = ((catalog.data?.catalog as { tables?: Row[] } | undefined)?.tables ?? []) as Row[];
  const all = snapshots.data ?? [];
  const s = summary.data;
  const w = writer.data?.writer as Row | null | undefined;
  return html`<section>
    <p><a href="#/">← lakes</a></p>
    <h2 data-testid="lake-name">${lake}</h2>
    <${ErrorBox} error=${summary.error} />
    <${Travel} route=${route} snapshots=${all} />
    ${
      s
        ? html`<dl class="summary" data-testid="summary">
          <dt>snapshot</dt><dd>${s.snapshotId} <small>${s.snapshotTime}</small></dd>
          <dt>schema version</dt><dd>${s.schemaVersion}</dd>
          <dt>snapshots</dt><dd data-testid="snapshot-count">${snapshots.data ? `${all.filter((x) => snap === undefined || x.snapshot_id <= snap).length} snapshots` : "…"}</dd>
          <dt>tables</dt><dd data-testid="table-count">${s.tableCount}</dd>
          <dt>data files</dt><dd>${stats.data ? `${stats.data.files} (${fmtBytes(stats.data.bytes)})` : "…"}</dd>
          <dt>inlined rows</dt><dd>${stats.data?.inlinedRows ?? "…"}</dd>
          <dt>writer</dt><dd data-testid="writer">${writer.error ? writer.error : w ? `open: ${text(w.open)}, batches ${text(w.batches)}, flushes ${text(w.flushes)}${w.terminal ? `, stopped: ${text(w.terminal)}` : ""}` : "not open in this activation"}</dd>
        </dl>`
        : null
    }
    <h3>Tables</h3>
    <${ErrorBox} error=${catalog.error} />
    <table data-testid="tables">
      <thead><tr><th>table</th><th>columns</th></tr></thead>
      <tbody>
        ${tables.map(
          (t) => html`<tr>
            <td><a href=${href({ view: "table", lake, schema: String(t.schema_name), table: String(t.table_name), ...(snap !== undefined ? { snapshot: snap } : {}) })}>${String(t.schema_name)}.${String(t.table_name)}</a></td>
            <td>${((t.columns as Row[]) ?? []).map((c) => `${String(c.column_name)} ${String(c.column_type)}`).join(", ")}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <h3>Snapshot timeline</h3>
    <${ErrorBox} error=${snapshots.error} />
    <table data-testid="timeline">
      <thead><tr><th>id</th><th>time</th><th>author</th><th>message</th><th>changes</th><th></th></tr></thead>
      <tbody>
        ${[...all]
          .reverse()
          .slice(0, timelineRows)
          .map(
            (x) => html`<tr class=${x.snapshot_id === snap ? "selected" : ""}>
            <td>${x.snapshot_id}</td><td>${fmtTime(x.snapshot_time)}</td><td>${x.author ?? ""}</td>
            <td>${x.commit_message ?? ""}</td><td>${changeList(x.changes_made, x.table_names)}</td>
            <td><a href=${href({ view: "lake", lake, snapshot: x.snapshot_id })}>view</a></td>
          </tr>`,
          )}
      </tbody>
    </table>
    ${
      all.length > timelineRows
        ? html`<button data-testid="timeline-older" onClick=${() => setTimelineRows(timelineRows + TIMELINE_ROWS)}>
            show ${Math.min(TIMELINE_ROWS, all.length - timelineRows)} older snapshots (${all.length - timelineRows} not shown)
          </button>`
        : null
    }
    <${Charts} lake=${lake} />
    <h3>Checkpoints</h3>
    ${
      checkpoints.error
        ? html`<p class="hint">${checkpoints.error}</p>`
        : ((checkpoints.data as { checkpoints?: Row[] } | undefined)?.checkpoints ?? []).length === 0
          ? html`<p class="hint" data-testid="checkpoints">No checkpoints.</p>`
          : html`<ul data-testid="checkpoints">
          ${((checkpoints.data as { checkpoints?: Row[] } | undefined)?.checkpoints ?? []).map(
            (c) =>
              html`<li><code>${String(c.id)}</code> manifest ${text(c.manifestVersion)}, expires ${typeof c.expiresAt === "number" ? new Date(c.expiresAt).toISOString() : "never"}</li>`,
          )}
        </ul>`
    }
    <${Maintenance} lake=${lake} names=${tableNames.data} />
  </section>`;
}

/** Runs per history page the explorer asks for. */
const MAINTENANCE_PAGE = 50;

type JobRun = Schemas["JobRun"];

const fmtMs = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** The maintenance history (newest first, paged with "older runs") and which jobs the lake switches on. */
/** `names`: every table the lake ever had (a run may name a table dropped since); undefined while loading. */
function Maintenance({ lake, names }: { lake: string; names: Map<number, string> | undefined }) {
  const first = useLoad(`maintenance:${lake}`, () =>
    unwrap(
      api().GET("/v1/lakes/{lake}/maintenance", {
        params: { path: { lake }, query: { limit: String(MAINTENANCE_PAGE) } },
      }),
    ),
  );
  // Older pages, appended by "older runs"; `paged` says whether `next` comes from them or the first page.
  const [older, setOlder] = useState<{ runs: JobRun[]; next: number | null; paged: boolean; error?: string }>(
    { runs: [], next: null, paged: false },
  );
  useEffect(() => setOlder({ runs: [], next: null, paged: false }), [lake]);
  const next = older.paged ? older.next : (first.data?.next ?? null);
  const more = async (): Promise<void> => {
    if (next === null) return;
    try {
      const page = await unwrap(
        api().GET("/v1/lakes/{lake}/maintenance", {
          params: { path: { lake }, query: { limit: String(MAINTENANCE_PAGE), before: String(next) } },
        }),
      );
      setOlder({ runs: [...older.runs, ...page.runs], next: page.next, paged: true });
    } catch (e) {
      setOlder({ ...older, error: e instanceof ApiFailure ? `${e.code}: ${e.message}` : String(e) });
    }
  };
  const runs = [...(first.data?.runs ?? []), ...older.runs];
  const enabled = Object.entries(first.data?.settings.enabled ?? {});
  const chart = useRef<HTMLDivElement>(null);
  const [chartError, setChartError] = useState<string | undefined>();
  useEffect(() => {
    const el = chart.current;
    if (!el || runs.length === 0) return;
    let live = true;
    let plots: { destroy(): void }[] = [];
    // The charts chunk (uPlot), as for the activity charts (decision 0343-explorer-lazy-chunks.md).
    import("./charts.ts").then(
      (m) => {
        if (live) plots = m.drawMaintenance(el, runs);
      },
      (e: unknown) => live && setChartError(`charts failed to load: ${String(e)}`),
    );
    return () => {
      live = false;
      for (const p of plots) p.destroy();
    };
  }, [first.data, older.runs]);
  return html`<section>
    <h3>Maintenance</h3>
    <${ErrorBox} error=${first.error ?? older.error ?? chartError} />
    ${
      first.data
        ? html`<p class="hint" data-testid="maintenance-settings">
          jobs on: ${
            enabled
              .filter(([, on]) => on)
              .map(([j]) => j)
              .join(", ") || "none"
          }${
            first.data.settings.expireOlderThanMs !== null
              ? ` · expire snapshots older than ${fmtMs(first.data.settings.expireOlderThanMs)}`
              : ""
          }</p>`
        : null
    }
    ${first.data && runs.length === 0 ? html`<p class="hint" data-testid="maintenance-empty">No maintenance has run.</p>` : null}
    <div ref=${chart} class="charts" data-testid="maintenance-chart"></div>
    <table data-testid="maintenance">
      <thead><tr><th>job</th><th>table</th><th>started</th><th>duration</th><th>files in → out</th><th>rows in → out</th><th>snapshot</th><th>error</th></tr></thead>
      <tbody>
        ${runs.map(
          (r) => html`<tr class=${r.error ? "failed" : ""}>
            <td>${r.job}</td>
            <td>${r.tableId === undefined ? "—" : names === undefined ? "…" : (names.get(r.tableId) ?? `table ${r.tableId}`)}</td>
            <td>${new Date(r.startedAt).toISOString().replace("T", " ").slice(0, 19)}</td>
            <td>${fmtMs(r.durationMs)}</td>
            <td>${r.filesIn} → ${r.filesOut}</td>
            <td>${r.rowsIn} → ${r.rowsOut}</td>
            <td>${r.snapshotId === null ? "—" : html`<a href=${href({ view: "lake", lake, snapshot: r.snapshotId })}>${r.snapshotId}</a>`}</td>
            <td>${r.error ?? ""}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${next !== null ? html`<button type="button" data-testid="maintenance-older" onClick=${more}>older runs</button>` : null}
  </section>`;
}

/**
 * Rows per page of the table preview: small enough to render at once, and the rows route's own bound
 * (MAX_ROWS_PAGE) is far above it.
 */
const PREVIEW_PAGE = 50;

/**
 * The table as DuckDB's `SELECT *` answers it at one snapshot: the rows route read at that snapshot (the
 * Worker's one read of a table's rows: data files with their delete files and inlined deletes applied, and
 * inlined rows), paged with its cursor. Values are shown as the API answers them: decimals and integers
 * beyond 2^53 as exact text, never through a float (decision 0650-explorer-preview-and-charts.md).
 */
function TablePreview({
  lake,
  schema,
  table,
  snapshot,
}: {
  lake: string;
  schema: string;
  table: string;
  snapshot: number;
}) {
  // Cursors of the pages before the one shown ("" is the first page), so "previous" needs no re-read.
  const [cursors, setCursors] = useState<string[]>([""]);
  useEffect(() => setCursors([""]), [lake, schema, table, snapshot]);
  const cursor = cursors[cursors.length - 1] ?? "";
  const page = useLoad(`rows:${lake}/${schema}/${table}@${snapshot}:${cursor}`, () =>
    unwrap(
      api().GET("/v1/lakes/{lake}/tables/{schema}/{table}/rows", {
        params: {
          path: { lake, schema, table },
          query: {
            snapshot: String(snapshot),
            limit: String(PREVIEW_PAGE),
            ...(cursor !== "" ? { cursor } : {}),
          },
        },
      }),
    ),
  );
  const rows = (page.data?.rows ?? []) as Row[];
  const names = rows[0] ? Object.keys(rows[0]) : [];
  const first = (cursors.length - 1) * PREVIEW_PAGE;
  return html`<section>
    <h3>Rows at snapshot ${snapshot} <small data-testid="table-preview-range">${page.data ? (rows.length === 0 ? "(no rows)" : `(rows ${first + 1}–${first + rows.length}${page.data.next === null ? ", the last" : ""})`) : "…"}</small></h3>
    <p class="hint">What <code>SELECT * FROM ${schema}.${table}</code> answers at this snapshot: deletes and inlined rows applied; decimals exact.</p>
    <${ErrorBox} error=${page.error} />
    <table data-testid="table-preview">
      <thead><tr>${names.map((c) => html`<th>${c}</th>`)}</tr></thead>
      <tbody>${rows.map((r) => html`<tr>${names.map((c) => html`<td class=${r[c] === null ? "null" : ""}>${text(r[c])}</td>`)}</tr>`)}</tbody>
    </table>
    ${cursors.length > 1 ? html`<button type="button" data-testid="table-preview-previous" onClick=${() => setCursors(cursors.slice(0, -1))}>previous ${PREVIEW_PAGE}</button>` : null}
    ${
      page.data?.next
        ? html`<button type="button" data-testid="table-preview-next" onClick=${() => setCursors([...cursors, page.data?.next ?? ""])}>next ${PREVIEW_PAGE}</button>`
        : null
    }
  </section>`;
}

/** The first rows of one data file as stored (deletes not applied), read with ranged requests. */
function FilePreview({
  lake,
  file,
}: {
  lake: string;
  file: { path: string; resolved_path: string; file_size_bytes: number };
}) {
  const rel = dataRoutePath(lake, file.resolved_path);
  const preview = useLoad(`preview:${lake}:${file.resolved_path}`, () =>
    rel === null
      ? Promise.reject(new Error("this file is outside the lake's data prefix"))
      : // hyparquet is its own chunk, fetched only when a preview opens (decision 0343-explorer-lazy-chunks.md).
        import("../../parquet/preview.ts").then((m) =>
          m.previewParquet(dataFileBuffer(lake, rel, file.file_size_bytes), 20),
        ),
  );
  const p = preview.data;
  return html`<section>
    <h3>File contents of <code>${file.path}</code> <small>${p ? `(first ${p.rows.length} of ${p.totalRows} rows as stored: deletes not applied)` : ""}</small></h3>
    <${ErrorBox} error=${preview.error} />
    <table data-testid="preview">
      <thead><tr>${(p?.columns ?? []).map((c) => html`<th>${c}</th>`)}</tr></thead>
      <tbody>${(p?.rows ?? []).map((r) => html`<tr>${r.map((v) => html`<td>${v}</td>`)}</tr>`)}</tbody>
    </table>
  </section>`;
}

function Table({ route }: { route: Route }) {
  const {
    lake,
    schema,
    table,
    snapshot: snap,
  } = route as Required<Pick<Route, "lake" | "schema" | "table">> & Route;
  const key = `${lake}/${schema}/${table}@${snap ?? "head"}`;
  const plan = useLoad(`plan:${key}`, () =>
    unwrap(
      api().GET("/v1/lakes/{lake}/tables/{schema}/{table}/plan", {
        params: { path: { lake, schema, table }, query: { limit: "1000", ...selector(snap) } },
      }),
    ),
  );
  const snapshots = useSnapshots(lake);
  const history = useLoad(`columns:${key}`, () =>
    unwrap(
      api().GET("/v1/lakes/{lake}/ducklake/{table}", {
        params: { path: { lake, table: "ducklake_column" }, query: selector(snap) },
      }),
    ),
  );
  const p = plan.data;
  // The preview's reader is a chunk of its own, fetched when a person opens a preview.
  const [previewing, setPreviewing] = useState<number | null>(null);
  const previewed = p?.files.find((f) => f.data_file_id === previewing);
  const tableId = (p?.table as Row | undefined)?.table_id;
  const colHistory = ((history.data as { rows?: Row[] } | undefined)?.rows ?? []).filter(
    (r) => r.table_id === tableId,
  );
  const columns = (p?.columns ?? []) as Row[];
  // Stats name their column by id; a person reads names (nested fields too: every column record is here).
  const colName = new Map(columns.map((c) => [Number(c.column_id), String(c.column_name)]));
  const preview = (p?.inlined_rows ?? []).slice(0, 20) as Row[];
  const previewCols = columns.filter((c) => c.parent_column === null).map((c) => String(c.column_name));
  return html`<section>
    <p><a href=${href({ view: "lake", lake, ...(snap !== undefined ? { snapshot: snap } : {}) })}>← ${lake}</a></p>
    <h2 data-testid="table-name">${schema}.${table}</h2>
    <${Travel} route=${route} snapshots=${snapshots.data ?? []} />
    <${ErrorBox} error=${plan.error} />
    ${p ? html`<p>snapshot ${p.snapshot_id}, schema version ${p.schema_version}</p>` : null}
    ${p ? html`<${TablePreview} lake=${lake} schema=${schema} table=${table} snapshot=${p.snapshot_id} />` : null}
    <h3>Columns</h3>
    <table data-testid="columns">
      <thead><tr><th>id</th><th>name</th><th>type</th><th>nullable</th><th>default</th></tr></thead>
      <tbody>
        ${columns.map(
          (c) =>
            html`<tr><td>${text(c.column_id)}</td><td>${text(c.column_name)}</td><td>${text(c.column_type)}</td><td>${text(c.nulls_allowed)}</td><td>${text(c.default_value)}</td></tr>`,
        )}
      </tbody>
    </table>
    <h3>Schema history</h3>
    <table data-testid="column-history">
      <thead><tr><th>column</th><th>type</th><th>from snapshot</th><th>until snapshot</th></tr></thead>
      <tbody>
        ${colHistory.map(
          (c) =>
            html`<tr><td>${text(c.column_name)}</td><td>${text(c.column_type)}</td><td>${text(c.begin_snapshot)}</td><td>${c.end_snapshot === null ? "current" : text(c.end_snapshot)}</td></tr>`,
        )}
      </tbody>
    </table>
    <h3>Data files</h3>
    <table data-testid="files">
      <thead><tr><th>id</th><th>path</th><th>rows</th><th>size</th><th>row ids</th><th>stats (min … max, nulls)</th><th>delete file</th><th></th></tr></thead>
      <tbody>
        ${(p?.files ?? []).map(
          (f) => html`<tr>
            <td>${f.data_file_id}</td><td><code>${f.path}</code></td><td>${f.record_count}</td><td>${fmtBytes(f.file_size_bytes)}</td>
            <td>${f.row_id_start === null || f.row_id_end === null ? html`<small title="a rewritten or merged file carries each row's id (_ducklake_internal_row_id)">in file</small>` : `${f.row_id_start}–${f.row_id_end - 1}`}</td>
            <td>${f.column_stats.map((st) => html`<div>${colName.get(Number(st.column_id)) ?? `#${text(st.column_id)}`}: ${text(st.min_value)} … ${text(st.max_value)}, nulls ${text(st.null_count)}</div>`)}</td>
            <td>${f.delete_file ? html`<code>${text(f.delete_file.path)}</code> (${text(f.delete_file.delete_count)} deleted)` : f.inlined_deleted_positions.length > 0 ? `${f.inlined_deleted_positions.length} inlined deletes` : "—"}</td>
            <td><button type="button" data-testid="preview-button" onClick=${() => setPreviewing(f.data_file_id)}>preview</button></td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${previewed ? html`<${FilePreview} lake=${lake} file=${previewed} />` : null}
    <h3>Inlined rows <small>(first ${preview.length} of ${p?.inlined_rows.length ?? 0})</small></h3>
    <table data-testid="inlined">
      <thead><tr>${previewCols.map((c) => html`<th>${c}</th>`)}</tr></thead>
      <tbody>${preview.map((r) => html`<tr>${previewCols.map((c) => html`<td>${text((r.values as Row | undefined)?.[c] ?? r[c])}</td>`)}</tr>`)}</tbody>
    </table>
  </section>`;
}

function App() {
  const [route, setRoute] = useState<Route>(parseRoute());
  const [token, setTok] = useState<string | null>(getToken());
  useEffect(() => {
    const on = () => setRoute(parseRoute());
    addEventListener("hashchange", on);
    // Effects run after the first paint: a hash change before this listener existed would be lost.
    on();
    return () => removeEventListener("hashchange", on);
  }, []);
  const body = !token
    ? html`<${TokenForm} onSet=${() => setTok(getToken())} />`
    : route.view === "lake"
      ? html`<${Lake} route=${route} />`
      : route.view === "table"
        ? html`<${Table} route=${route} />`
        : html`<${Lakes} />`;
  return html`<header>
      <h1><a href="#/">ducklake-edge</a> <small>explorer</small></h1>
      ${
        token
          ? html`<button onClick=${() => {
              clearToken();
              setTok(null);
            }}>Forget token</button>`
          : null
      }
    </header>
    <main>${body}</main>`;
}

takeTokenFromHash();
render(html`<${App} />`, document.getElementById("app") as HTMLElement);
