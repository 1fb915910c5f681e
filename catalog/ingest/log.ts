/**
 * Appending to the row-ingestion log: `rows_write` (insert / upsert / delete records), `rows_truncate`
 * (a tombstone), the drop tombstone `drop_table` leaves, and the per-table key and lake settings.
 *
 * Why an outbox gap (a record acknowledged but not yet visible to the flusher) cannot occur here (docs/decisions/0310-row-ingestion-log.md): a sequence
 * number is taken from the log head *inside the member's staging layer*, and members are staged one after
 * another by the lake's single writer, into one store batch that lands (or not) whole. A number is
 * therefore never visible before every smaller one: a reader's cut holds either the whole batch or none
 * of it, a failed member's layer is discarded before the next member takes numbers (so they stay dense),
 * and a second writer is fenced by the store. No lock is needed because there is no concurrency to order.
 */
import { Constraint, FlushPlanStale, InvalidRequest, LogFull, NotFound, quoteName } from "../errors.ts";
import type { InlineValue } from "../records.ts";
import { MAX_FLUSH_RECORDS, MAX_UNFLUSHED_RECORDS } from "../row-log-limits.ts";
import { refuseFoldedTwice } from "../values/errors.ts";
import { parseValue, type StoredValue } from "../values/index.ts";
import type { Assigned, VerbContext } from "../verbs/context.ts";
import { canonicalRow } from "../verbs/ops/inline.ts";
import { readTableStats } from "../verbs/ops/stats-support.ts";
import type { VerbOf } from "../verbs/schema.ts";
import { resolveTableShape, type TableShape, tableShape } from "../verbs/shape-memo.ts";
import { writeIndexMarker } from "./key-index.ts";
import { ingestKeys } from "./keys.ts";
import type { IngestTableRecord, LogRecord, WritePath } from "./records.ts";
import { flushLog } from "./row-flush.ts";
import {
  readIngestHead,
  readIngestTable,
  readSettings,
  readTail,
  writeIngestHead,
  writeIngestTable,
  writeRecordRun,
  writeSettings,
} from "./state.ts";

/** Appends records (given without their sequence numbers) and answers the range they took. */
export async function appendRecords(
  ctx: VerbContext,
  records: Omit<LogRecord, "seq">[],
): Promise<{ first: number; last: number }> {
  const head = await readIngestHead(ctx.st);
  const pending = head.next_seq - 1 - head.drained;
  if (pending + records.length > MAX_UNFLUSHED_RECORDS) {
    throw new LogFull(
      `the lake's log holds ${pending} unflushed records and this write adds ${records.length}, above the limit of ${MAX_UNFLUSHED_RECORDS}; flush the lake (POST /flush) and resend`,
    );
  }
  // One stored value for the whole append (docs/decisions/0318-packed-log-runs.md).
  writeRecordRun(ctx.st, head.next_seq, records);
  const next = head.next_seq + records.length;
  writeIngestHead(ctx.st, { next_seq: next, drained: head.drained });
  return { first: head.next_seq, last: next - 1 };
}

/** The key of a row or a key object, canonical, in key-column order; every key column must be non-null. */
function keyOf(
  shape: TableShape,
  keyColumns: string[],
  source: Record<string, unknown>,
  path: string,
): InlineValue[] {
  const seen = new Map<string, string>();
  for (const k of Object.keys(source)) refuseFoldedTwice(seen, k, k.toLowerCase(), path);
  const given = new Map(Object.entries(source).map(([k, v]) => [k.toLowerCase(), v]));
  return keyColumns.map((name) => {
    const c = shape.byName.get(name.toLowerCase());
    if (c === undefined)
      throw new NotFound(`key column ${quoteName(name)} no longer exists in table ${shape.tableId}`);
    const raw = given.get(name.toLowerCase());
    const v =
      raw === undefined || raw === null
        ? null
        : parseValue(c.node, raw as StoredValue, `${path}.${c.col.column_name}`);
    if (v === null)
      throw new Constraint(
        `${path}.${c.col.column_name}: key column of table ${shape.tableId} needs a value`,
      );
    return v as InlineValue;
  });
}

/**
 * When the write lands in DuckLake: on the lake path, drain the log through this write in the same commit.
 * With the writer's plan (docs/decisions/0316-lake-write-parquet.md) the earlier records are drained
 * first, as the flusher would inline them, and this write's own records then land with the planned file.
 */
async function landIfLakePath(
  ctx: VerbContext,
  path: WritePath | undefined,
  range: { first: number; last: number },
  plan?: VerbOf<"rows_write">["lakePlan"],
): Promise<void> {
  const chosen = path ?? (await readSettings(ctx.st)).write_path;
  if (chosen !== "lake") {
    // The lake's setting moved to `wal` since the plan: the writer plans again (and finds none to make).
    if (plan)
      throw new FlushPlanStale(`the lake write was planned for writePath "lake", the lake writes "wal" now`);
    return;
  }
  if (plan) {
    const head = await readIngestHead(ctx.st);
    const earlier = range.first - 1 - head.drained;
    if (earlier > MAX_FLUSH_RECORDS) throw tooManyEarlier(earlier);
    if (earlier > 0)
      await flushLog(ctx, MAX_FLUSH_RECORDS, {
        expectDrained: head.drained,
        through: range.first - 1,
        files: [],
      });
    await flushLog(ctx, MAX_FLUSH_RECORDS, {
      expectDrained: range.first - 1,
      through: range.last,
      files: plan.files,
    });
    return;
  }
  const r = await flushLog(ctx, MAX_FLUSH_RECORDS);
  if (r.drained < range.last) throw tooManyEarlier(range.last - r.drained);
}

function tooManyEarlier(n: number): InvalidRequest {
  return new InvalidRequest(
    `writePath "lake" needs the log drained through this write, but ${n} earlier records remain after one flush batch of ${MAX_FLUSH_RECORDS}; flush the lake (POST /flush) first or write with writePath "wal"`,
  );
}

export async function rowsWrite(ctx: VerbContext, v: VerbOf<"rows_write">): Promise<Assigned> {
  // Resolved once per batch for a run of writes to one table (docs/decisions/0318-packed-log-runs.md).
  const { table, shape } = await resolveTableShape(ctx, v.table);
  const t = table.table_id;
  const keyColumns = (await ensureIngestTable(ctx, t)).key_columns;
  const records: Omit<LogRecord, "seq">[] = v.ops.map((op, i) => {
    const path = `ops[${i}]`;
    if (op.op === "insert") {
      if (keyColumns.length > 0) {
        throw new InvalidRequest(
          `${path}: table ${t} has key columns (${keyColumns.join(", ")}), so rows go in by upsert; send op "upsert"`,
        );
      }
      return { table_id: t, kind: "insert", row: canonicalRow(shape, op.row, `${path}.row`) };
    }
    if (keyColumns.length === 0) {
      throw new InvalidRequest(
        `${path}: ${op.op} matches rows by key, and table ${t} declares no key columns (set_row_key)`,
      );
    }
    if (op.op === "upsert") {
      const row = canonicalRow(shape, op.row, `${path}.row`);
      return { table_id: t, kind: "upsert", row, key: keyOf(shape, keyColumns, row, `${path}.row`) };
    }
    const extra = Object.keys(op.key).filter(
      (k) => !keyColumns.some((c) => c.toLowerCase() === k.toLowerCase()),
    );
    if (extra.length > 0)
      throw new InvalidRequest(
        `${path}.key: ${extra.map(quoteName).join(", ")} is not a key column of table ${t}`,
      );
    return { table_id: t, kind: "delete", key: keyOf(shape, keyColumns, op.key, `${path}.key`) };
  });
  const { first, last } = await appendRecords(ctx, records);
  await landIfLakePath(ctx, v.writePath, { first, last }, v.lakePlan);
  return { firstSeq: first, lastSeq: last };
}

export async function rowsTruncate(ctx: VerbContext, v: VerbOf<"rows_truncate">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  await ensureIngestTable(ctx, table.table_id);
  const { first, last } = await appendRecords(ctx, [{ table_id: table.table_id, kind: "truncate" }]);
  await landIfLakePath(ctx, v.writePath, { first, last });
  return { firstSeq: first, lastSeq: last };
}

/**
 * Called after drop_table (commit/apply.ts): a table the log has ever written leaves a drop tombstone, so the log itself says
 * its earlier records are void; its ingest state and key index go with it. Records carry the table id,
 * never the name, so a table recreated under the name starts clean.
 */
export async function appendDropTombstone(ctx: VerbContext, t: number): Promise<void> {
  if (!(await readIngestTable(ctx.st, t))) return;
  const head = await readIngestHead(ctx.st);
  writeRecordRun(ctx.st, head.next_seq, [{ table_id: t, kind: "drop" }]);
  writeIngestHead(ctx.st, { next_seq: head.next_seq + 1, drained: head.drained });
  ctx.st.delete(ingestKeys.table(t));
  for await (const kv of ctx.st.scan({ prefix: ingestKeys.keyIndexPrefix(t) })) ctx.st.delete(kv.key);
}

/** Declares the table's key columns; only while the table is empty, so the key index starts complete. */
export async function setRowKey(ctx: VerbContext, v: VerbOf<"set_row_key">): Promise<Assigned> {
  const table = await ctx.table(v.table);
  const t = table.table_id;
  const shape = tableShape(t, await ctx.columns(t));
  const columns = v.columns.map((name) => {
    const c = shape.byName.get(name.toLowerCase());
    if (c === undefined) throw new NotFound(`column ${quoteName(name)} does not exist in table ${t}`);
    if (c.node.children.length > 0)
      throw new InvalidRequest(
        `key column ${quoteName(name)} of table ${t} is nested (${c.col.column_type}); keys are primitive columns`,
      );
    return c.col.column_name;
  });
  if (new Set(columns).size !== columns.length) throw new InvalidRequest("a key column is named twice");
  const stats = await readTableStats(ctx, t);
  const head = await readIngestHead(ctx.st);
  const tail = await readTail(ctx.st, head.drained, MAX_UNFLUSHED_RECORDS);
  if ((stats?.record_count ?? 0) > 0 || tail.some((r) => r.table_id === t)) {
    throw new InvalidRequest(
      `table ${t} already holds rows; key columns are declared while a table is empty`,
    );
  }
  writeIngestTable(ctx.st, { table_id: t, key_columns: columns });
  // The table is empty: its (empty) key index is complete (docs/decisions/0315-key-index-rebuild.md).
  writeIndexMarker(ctx.st, t);
  return { tableId: t };
}

export async function setIngestSettings(
  ctx: VerbContext,
  v: VerbOf<"set_ingest_settings">,
): Promise<Assigned> {
  const now = await readSettings(ctx.st);
  const next = {
    write_path: v.writePath ?? now.write_path,
    flush_interval_ms: v.flushIntervalMs ?? now.flush_interval_ms,
  };
  writeSettings(ctx.st, next);
  return { flushIntervalMs: next.flush_interval_ms };
}

/** Marks a table as written through the log (so a later drop leaves a tombstone); answers its state. */
export async function ensureIngestTable(ctx: VerbContext, tableId: number): Promise<IngestTableRecord> {
  const found = await readIngestTable(ctx.st, tableId);
  if (found) return found;
  const rec = { table_id: tableId, key_columns: [] };
  writeIngestTable(ctx.st, rec);
  return rec;
}
