/**
 * `rows`: stream CSV or NDJSON (a file or stdin) into the rows API
 * (`POST /v1/lakes/{lake}/tables/{schema}/{table}/rows`), in batches of `--batch` ops with at most
 * `--in-flight` requests open. Each batch carries the idempotency key `<prefix>-<n>`, so a batch retried
 * after a lost answer lands once, and a rerun with the same `--idempotency-prefix` (the input fixed in
 * place) replays the batches that landed and sends only the rest. A batch is all or nothing: the API
 * refuses the whole request when one row is bad and names it `ops[i]`, which maps back to its line.
 * CSV cells are typed by the table's columns: the catalog route gives them, nested columns (list, struct,
 * map) take JSON text, and scalar text goes to the API, whose value rules (catalog/values/) type it.
 */

import { randomUUID } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { MAX_OPS_PER_WRITE } from "../catalog/row-log-limits.ts";
import { ApiFailure, unwrap } from "../client/index.ts";
import { CsvReader } from "./csv.ts";
import { CliError, describeFailure } from "./errors.ts";
import { RowsProgress } from "./progress.ts";
import type { Api } from "./upload.ts";

/** Ops per request unless `--batch` says otherwise. */
export const DEFAULT_ROWS_BATCH = 1000;
/** The API's own bound on ops per request. */
export const MAX_ROWS_BATCH = MAX_OPS_PER_WRITE;
/** Requests open at once unless `--in-flight` says otherwise. */
export const DEFAULT_ROWS_IN_FLIGHT = 4;
export const MAX_ROWS_IN_FLIGHT = 16;
/** Sends of one batch (the first plus retries) before the command gives up on it. */
export const MAX_BATCH_ATTEMPTS = 4;
/** Wait before retry n is n × this (the API's Retry-After for these codes is 1-2 s). */
export const RETRY_BASE_MS = 1000;
/** Characters of one NDJSON line (one row). */
export const MAX_NDJSON_LINE_CHARS = 1024 * 1024;
/**
 * Flushes in a row that drained nothing before the command gives up on a full log (another writer keeps
 * it full, or every record is poison): backpressure waits for progress, never forever.
 */
export const MAX_IDLE_FLUSHES = 3;

/**
 * Codes after which the same batch is sent again under the same key: the writer was busy or moving
 * (worker/errors.ts gives these Retry-After), or the answer was lost (the key makes the resend a replay).
 */
const RETRYABLE = new Set([
  "Transport",
  "RetryBudgetExhausted",
  "Fenced",
  "Unavailable",
  "StoreUnavailable",
  "StoreClosed",
  "CommitOutcomeUnknown",
]);

const NESTED_TYPES = new Set(["list", "struct", "map"]);

export type RowsFormat = "csv" | "ndjson";

export interface RowsOptions {
  lake: string;
  /** `schema.table` (schema defaults to main). */
  table: string;
  /** A path, or `-`/undefined for stdin. */
  file?: string | undefined;
  format?: RowsFormat | undefined;
  op?: "insert" | "upsert" | undefined;
  writePath?: "wal" | "lake" | undefined;
  batch?: number | undefined;
  inFlight?: number | undefined;
  idempotencyPrefix?: string | undefined;
}

export interface RowsFailure {
  /** The line of the refused row, or null when the API named no row (then `lines` is the batch). */
  line: number | null;
  lines: [number, number];
  code: string;
  message: string;
}

export interface RowsResult {
  table: string;
  /** Rows of batches that landed (a replayed batch counts: its rows are in the table once). */
  rows: number;
  batches: number;
  replayedBatches: number;
  /** The newest watermark seen: pass as minWatermark to read these rows back. */
  watermark: number | null;
  idempotencyPrefix: string;
  /** Line ranges of the batches that landed, merged and in order. */
  landed: [number, number][];
  /** Flushes this run asked for because the lake's row log was full (backpressure). */
  flushes: number;
  failed: RowsFailure | null;
}

interface InputRow {
  line: number;
  row: Record<string, unknown>;
}

interface CatalogColumn {
  column_name: string;
  column_type: string;
  parent_column: number | null;
}

interface CatalogTables {
  tables: { schema_name: string; table_name: string; columns: CatalogColumn[] }[];
}

function formatOf(opts: RowsOptions): RowsFormat {
  if (opts.format) return opts.format;
  const f = opts.file ?? "-";
  if (/\.csv$/i.test(f)) return "csv";
  if (/\.(ndjson|jsonl)$/i.test(f)) return "ndjson";
  throw new CliError("InvalidRequest", "say --format csv or --format ndjson (the input's name does not)");
}

async function* chunks(input: Readable): AsyncGenerator<string> {
  input.setEncoding("utf8");
  for await (const c of input) yield c as string;
}

async function* ndjsonRows(input: AsyncIterable<string>): AsyncGenerator<InputRow> {
  let buf = "";
  let line = 0;
  const parse = (text: string, at: number): InputRow | null => {
    if (text.trim() === "") return null;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new CliError("InvalidJson", `line ${at}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (typeof v !== "object" || v === null || Array.isArray(v))
      throw new CliError("InvalidJson", `line ${at}: a row is a JSON object`);
    return { line: at, row: v as Record<string, unknown> };
  };
  for await (const c of input) {
    buf += c;
    let nl = buf.indexOf("\n");
    while (nl >= 0) {
      line++;
      const r = parse(buf.slice(0, nl).replace(/\r$/, ""), line);
      if (r) yield r;
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
    if (buf.length > MAX_NDJSON_LINE_CHARS)
      throw new CliError(
        "InvalidJson",
        `line ${line + 1}: longer than MAX_NDJSON_LINE_CHARS (${MAX_NDJSON_LINE_CHARS})`,
      );
  }
  const r = parse(buf, line + 1);
  if (r) yield r;
}

async function* csvRows(input: AsyncIterable<string>, columns: CatalogColumn[]): AsyncGenerator<InputRow> {
  const reader = new CsvReader();
  const byName = new Map(columns.map((c) => [c.column_name.toLowerCase(), c]));
  let header: CatalogColumn[] | null = null;
  const typed = (line: number, fields: (string | null)[]): InputRow => {
    if (!header) throw new Error("unreachable: header read first");
    if (fields.length !== header.length)
      throw new CliError(
        "InvalidCsv",
        `line ${line}: ${fields.length} fields, the header has ${header.length}`,
      );
    const row: Record<string, unknown> = {};
    header.forEach((c, i) => {
      const cell = fields[i] ?? null;
      if (cell === null || !NESTED_TYPES.has(c.column_type)) {
        row[c.column_name] = cell;
        return;
      }
      try {
        row[c.column_name] = JSON.parse(cell);
      } catch {
        throw new CliError(
          "InvalidCsv",
          `line ${line}: column ${c.column_name} is ${c.column_type}, given as JSON text; this is not JSON`,
        );
      }
    });
    return { line, row };
  };
  const take = function* (records: ReturnType<CsvReader["push"]>): Generator<InputRow> {
    for (const r of records) {
      if (header) {
        yield typed(r.line, r.fields);
        continue;
      }
      header = r.fields.map((name) => {
        const c = byName.get((name ?? "").toLowerCase());
        if (!c)
          throw new CliError(
            "InvalidCsv",
            `line ${r.line}: header column ${JSON.stringify(name ?? "")} is not a column of the table (${columns.map((x) => x.column_name).join(", ")})`,
          );
        return c;
      });
    }
  };
  for await (const c of input) yield* take(reader.push(c));
  yield* take(reader.end());
}

async function tableColumns(api: Api, lake: string, schema: string, table: string): Promise<CatalogColumn[]> {
  const { catalog } = await unwrap(
    api.client.GET("/v1/lakes/{lake}/catalog", { params: { path: { lake } } }),
  );
  const t = (catalog as unknown as CatalogTables).tables.find(
    (x) => x.schema_name === schema && x.table_name === table,
  );
  if (!t) throw new CliError("NotFound", `table ${schema}.${table} does not exist in lake '${lake}'`);
  return t.columns.filter((c) => c.parent_column === null);
}

function asFailure(e: unknown, url: string): ApiFailure {
  if (e instanceof ApiFailure) return e;
  const f = describeFailure(e, url);
  // Not reaching the API is retried like any lost answer (the key makes a resend a replay).
  return new ApiFailure(f.code === "Unreachable" ? "Transport" : f.code, f.message, 0, null);
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function mergeRanges(ranges: [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

export async function streamRows(api: Api, opts: RowsOptions): Promise<RowsResult> {
  const [schema, table] = opts.table.includes(".")
    ? (opts.table.split(".", 2) as [string, string])
    : ["main", opts.table];
  const format = formatOf(opts);
  const op = opts.op ?? "insert";
  const batchSize = opts.batch ?? DEFAULT_ROWS_BATCH;
  const inFlight = opts.inFlight ?? (op === "upsert" ? 1 : DEFAULT_ROWS_IN_FLIGHT);
  if (batchSize < 1 || batchSize > MAX_ROWS_BATCH)
    throw new CliError("InvalidRequest", `--batch must be 1..${MAX_ROWS_BATCH} (MAX_ROWS_BATCH)`);
  if (inFlight < 1 || inFlight > MAX_ROWS_IN_FLIGHT)
    throw new CliError("InvalidRequest", `--in-flight must be 1..${MAX_ROWS_IN_FLIGHT} (MAX_ROWS_IN_FLIGHT)`);
  // Upserts of one key in two open batches could land in either order; the log keeps arrival order.
  if (op === "upsert" && inFlight > 1)
    throw new CliError(
      "InvalidRequest",
      "--in-flight above 1 with --op upsert could land two upserts of one key out of order",
    );
  const prefix = opts.idempotencyPrefix ?? `rows-${randomUUID()}`;
  if (!/^[A-Za-z0-9._:-]{1,180}$/.test(prefix))
    throw new CliError("InvalidRequest", "--idempotency-prefix must be 1-180 of A-Z a-z 0-9 . _ : -");
  const columns = format === "csv" ? await tableColumns(api, opts.lake, schema, table) : [];

  const fromStdin = opts.file === undefined || opts.file === "-";
  let size: number | null = null;
  if (!fromStdin) {
    try {
      size = statSync(opts.file as string).size;
    } catch (e) {
      throw new CliError("FileNotFound", `${opts.file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const stream = fromStdin ? process.stdin : createReadStream(opts.file as string);
  let bytesRead = 0;
  let landedBytes = 0;
  const counted = async function* (): AsyncGenerator<string> {
    for await (const c of chunks(stream)) {
      bytesRead += Buffer.byteLength(c);
      yield c;
    }
  };
  const source = format === "csv" ? csvRows(counted(), columns) : ndjsonRows(counted());

  const result: RowsResult = {
    table: `${schema}.${table}`,
    rows: 0,
    batches: 0,
    replayedBatches: 0,
    watermark: null,
    idempotencyPrefix: prefix,
    landed: [],
    flushes: 0,
    failed: null,
  };
  const progress = new RowsProgress(`rows ${result.table}`);
  let waitingForFlush = false;
  const report = (): void => {
    progress.update(result.rows, landedBytes, size, waitingForFlush ? "log full: flushing" : "");
  };

  // Backpressure (docs/decisions/0481-cli-rows-backpressure.md): a batch refused with LogFull waits for
  // one flush, shared by every batch in flight, and is resent under its own key.
  let flushing: Promise<void> | null = null;
  let idleFlushes = 0;
  const flushLog = (): Promise<void> => {
    flushing ??= (async () => {
      waitingForFlush = true;
      report();
      try {
        const r = await unwrap(
          api.client.POST("/v1/lakes/{lake}/flush", { params: { path: { lake: opts.lake } } }),
        );
        result.flushes++;
        idleFlushes = r.records === 0 ? idleFlushes + 1 : 0;
      } finally {
        waitingForFlush = false;
        flushing = null;
      }
    })();
    return flushing;
  };

  /** `upTo`: input bytes read when the batch was cut; once it lands, the bar shows at least that much. */
  const send = async (n: number, rows: InputRow[], upTo: number): Promise<void> => {
    const lines: [number, number] = [rows[0]?.line ?? 0, rows[rows.length - 1]?.line ?? 0];
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await unwrap(
          api.client.POST("/v1/lakes/{lake}/tables/{schema}/{table}/rows", {
            params: {
              path: { lake: opts.lake, schema, table },
              header: { "idempotency-key": `${prefix}-${n}` },
            },
            body: {
              ops: rows.map((r) => ({ op, row: r.row })),
              ...(opts.writePath ? { writePath: opts.writePath } : {}),
            },
          }),
        );
        result.rows += rows.length;
        result.batches++;
        if (answer.replayed) result.replayedBatches++;
        result.watermark = Math.max(result.watermark ?? 0, answer.watermark);
        result.landed.push(lines);
        landedBytes = Math.max(landedBytes, upTo);
        report();
        return;
      } catch (e) {
        let failure = asFailure(e, api.config.url);
        if (failure.code === "LogFull" && idleFlushes < MAX_IDLE_FLUSHES) {
          try {
            await flushLog();
            attempt--; // waiting for room is not a failed attempt
            continue;
          } catch (flushError) {
            // The flush itself failed: retried like a send when it may be (the batch is resent after).
            failure = asFailure(flushError, api.config.url);
            failure.message = `the row log is full and the flush that would make room failed: ${failure.message}`;
          }
        }
        if (RETRYABLE.has(failure.code) && attempt < MAX_BATCH_ATTEMPTS) {
          await wait(RETRY_BASE_MS * attempt);
          continue;
        }
        const at = /ops\[(\d+)\]/.exec(failure.message);
        const row = at ? rows[Number(at[1])] : undefined;
        // The first failure in input order is the one to fix first.
        if (!result.failed || lines[0] < result.failed.lines[0])
          result.failed = { line: row?.line ?? null, lines, code: failure.code, message: failure.message };
        return;
      }
    }
  };

  const open = new Set<Promise<void>>();
  const dispatch = async (n: number, rows: InputRow[]): Promise<void> => {
    while (open.size >= inFlight) await Promise.race(open);
    // A batch that failed while this one waited stops the stream: nothing after it is sent.
    if (result.failed) return;
    const upTo = bytesRead;
    const p: Promise<void> = send(n, rows, upTo).finally(() => open.delete(p));
    open.add(p);
  };

  let batch: InputRow[] = [];
  let n = 0;
  let readError: unknown = null;
  try {
    for await (const r of source) {
      if (result.failed) break;
      batch.push(r);
      if (batch.length === batchSize) {
        await dispatch(n++, batch);
        batch = [];
      }
    }
    if (batch.length > 0 && !result.failed) await dispatch(n++, batch);
  } catch (e) {
    readError = e;
  } finally {
    if (!fromStdin) stream.destroy();
  }
  await Promise.all(open);
  result.landed = mergeRanges(result.landed);
  progress.finish(
    result.rows,
    [
      result.flushes > 0 ? `${result.flushes} flushes while the log was full` : "",
      result.failed ? "stopped by an error" : "",
    ]
      .filter((x) => x !== "")
      .join(", "),
  );
  if (readError) {
    // A bad line in the input: what landed before it is reported with the error.
    if (readError instanceof CliError && !result.failed) {
      const line = Number(/^line (\d+)/.exec(readError.message)?.[1] ?? 0) || null;
      result.failed = {
        line,
        lines: [line ?? 0, line ?? 0],
        code: readError.code,
        message: readError.message.replace(/^line \d+: /, ""),
      };
    } else if (!(readError instanceof CliError)) throw readError;
  }
  return result;
}
