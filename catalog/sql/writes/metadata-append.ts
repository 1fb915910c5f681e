/**
 * A client's INSERT straight into a `ducklake_*` table (the Quack APPEND_REQUEST), applied as one member of
 * the commit core: it mints no snapshot (as on a stock server, where the row is just stored) and lands
 * exactly once with the batch it joins. Which tables accept rows, and what is refused by name, is decision
 * docs/decisions/0710-metadata-appends.md.
 */
import { ValueKind } from "../../codec.ts";
import type { MemberEnv, SelfStagedMember, StagedMember, StagedResult } from "../../commit/member.ts";
import {
  Constraint,
  DuplicateKey,
  InvalidRequest,
  MissingRelation,
  quoteName,
  Unsupported,
} from "../../errors.ts";
import { readHead } from "../../head.ts";
import { Kind, keys } from "../../keys.ts";
import { DUCKLAKE_TABLES } from "../../reads/ducklake-tables.ts";
import type {
  HeadRecord,
  SnapshotRecord,
  TableRecord,
  TableStatsRecord,
  TagContainer,
} from "../../records.ts";
import type { Staging } from "../../staging.ts";
import { VerbContext } from "../../verbs/context.ts";
import { type SqlResult, type SqlValue, T } from "../result.ts";
import type { MetadataAppend } from "./contract.ts";

/** The schema every `ducklake_*` table lives in on this server (DuckLake's `{METADATA_CATALOG}` `main`). */
const METADATA_SCHEMA = "main";

/** Tables a client may append rows to, and why each is safe to accept (decision 0710). */
export const APPENDABLE_TABLES: ReadonlySet<string> = new Set([
  "ducklake_tag",
  "ducklake_column_tag",
  "ducklake_table_stats",
  "ducklake_snapshot_changes",
]);

/** Stock's text for an APPEND_REQUEST naming a table its catalog does not hold. */
function noSuchTable(schema: string, table: string): MissingRelation {
  return new MissingRelation(`${schema}.${table}`);
}

type Row = Record<string, SqlValue>;

function intOf(v: SqlValue, column: string, table: string): number {
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new InvalidRequest(
      `an appended ${table} row holds ${v === null ? "NULL" : String(v)} in ${column}: this server stores a non-negative integer there`,
    );
  }
  return n;
}

function intOrNull(v: SqlValue, column: string, table: string): number | null {
  return v === null ? null : intOf(v, column, table);
}

function textOrNull(v: SqlValue, column: string, table: string): string | null {
  if (v !== null && typeof v !== "string")
    throw new InvalidRequest(`an appended ${table} row holds a non-text value in ${column}`);
  return v;
}

function textOf(v: SqlValue, column: string, table: string): string {
  const s = textOrNull(v, column, table);
  if (s === null)
    throw new InvalidRequest(
      `an appended ${table} row holds NULL in ${column}: this server stores text there`,
    );
  return s;
}

/**
 * Checks the append's shape and names its rows by DuckLake's columns; refuses other tables by name. A
 * `ducklake_snapshot_changes` row can stop every later commit of the lake (below), so only a caller who
 * may create the lake (an admin) appends one.
 */
export function appendRows(append: MetadataAppend, admin: boolean): Row[] {
  const columns = DUCKLAKE_TABLES[append.table];
  if (append.schema !== METADATA_SCHEMA || columns === undefined) {
    if (append.schema === METADATA_SCHEMA && /^ducklake_inlined_(data|delete)_/.test(append.table)) {
      throw new Unsupported(
        `rows appended to ${quoteName(append.table)}: a table's inlined rows are written by DuckLake's commits only, never appended directly (docs/decisions/0710-metadata-appends.md)`,
      );
    }
    throw noSuchTable(append.schema, append.table);
  }
  if (!APPENDABLE_TABLES.has(append.table)) {
    throw new Unsupported(
      `rows appended to ${append.table}: this server derives that table from the lake's records and does not store rows appended to it directly; appends are accepted for ${[...APPENDABLE_TABLES].join(", ")} (docs/decisions/0710-metadata-appends.md)`,
    );
  }
  if (append.table === "ducklake_snapshot_changes" && !admin) {
    throw new Unsupported(
      "rows appended to ducklake_snapshot_changes: such a row can stop the lake's commits for good, so only a token with admin scope appends one (docs/decisions/0710-metadata-appends.md)",
    );
  }
  if (append.types.length !== columns.length) {
    throw new InvalidRequest(
      `an append to ${append.table} carries ${append.types.length} columns, the table has ${columns.length}`,
    );
  }
  return append.rows.map((values) => {
    if (values.length !== columns.length)
      throw new InvalidRequest(
        `an appended ${append.table} row holds ${values.length} values for ${columns.length} columns`,
      );
    const row: Row = {};
    columns.forEach((c, i) => {
      row[c] = values[i] as SqlValue;
    });
    return row;
  });
}

/** The commit member of one append: every row applied, or none. */
export class MetadataAppendMember implements SelfStagedMember {
  readonly kind = "staged-rows" as const;

  constructor(
    private readonly table: string,
    private readonly rows: readonly Row[],
  ) {}

  async stage(group: Staging, premise: SnapshotRecord, env: MemberEnv): Promise<StagedMember> {
    const layer = group.child();
    const ctx = new VerbContext(layer, premise, env);
    for (const r of this.rows) await this.apply(ctx, premise, r);
    const result: StagedResult = {
      snapshotId: null,
      schemaVersion: premise.schema_version,
      assigned: [],
    };
    return { layer, ctx, result, snapshot: null };
  }

  private async apply(ctx: VerbContext, premise: SnapshotRecord, r: Row): Promise<void> {
    const t = this.table;
    switch (t) {
      case "ducklake_tag": {
        const id = intOf(r.object_id ?? null, "object_id", t);
        return addTag(ctx, keys.current(Kind.tag, id), r, t, `object ${id}`);
      }
      case "ducklake_column_tag": {
        const table = intOf(r.table_id ?? null, "table_id", t);
        const column = intOf(r.column_id ?? null, "column_id", t);
        return addTag(
          ctx,
          keys.current(Kind.columnTag, table, column),
          r,
          t,
          `column ${column} of table ${table}`,
        );
      }
      case "ducklake_table_stats":
        return seedTableStats(ctx, premise, r);
      case "ducklake_snapshot_changes":
        return reserveChanges(ctx, premise, r);
      default:
        throw new Unsupported(`rows appended to ${t} (docs/decisions/0710-metadata-appends.md)`);
    }
  }
}

/**
 * A tag row joins its object's container as given (stock stores it without a check). One live row per key
 * and object is the container's rule, so a second live row for a key is refused by name.
 */
async function addTag(ctx: VerbContext, k: Uint8Array, r: Row, table: string, what: string): Promise<void> {
  const key = textOf(r.key ?? null, "key", table);
  const begin = intOf(r.begin_snapshot ?? null, "begin_snapshot", table);
  const end = intOrNull(r.end_snapshot ?? null, "end_snapshot", table);
  if (end !== null && end < begin)
    throw new InvalidRequest(`an appended ${table} row ends at snapshot ${end}, before it begins (${begin})`);
  const c = (await ctx.read<TagContainer>(k, ValueKind.tagContainer, "tag")) ?? { entries: [] };
  if (end === null && c.entries.some((e) => e.key === key && e.end_snapshot === null)) {
    throw new Constraint(
      `an appended ${table} row for ${what}: tag ${quoteName(key)} is live there already, and this server keeps one live row per key (docs/decisions/0710-metadata-appends.md)`,
    );
  }
  const entry = {
    key,
    value: textOrNull(r.value ?? null, "value", table),
    begin_snapshot: begin,
    end_snapshot: end,
  };
  ctx.write(k, ValueKind.tagContainer, { entries: [...c.entries, entry] } satisfies TagContainer);
}

/**
 * A table's stats row seeded before its first commit writes one (DuckLake then updates it in place and
 * takes its `next_row_id`). A table that holds a stats row already would get a second one, which stock
 * stores and then reads ambiguously: refused by name.
 */
async function seedTableStats(ctx: VerbContext, premise: SnapshotRecord, r: Row): Promise<void> {
  const t = "ducklake_table_stats";
  const tableId = intOf(r.table_id ?? null, "table_id", t);
  const live = await ctx.read<TableRecord>(keys.current(Kind.table, tableId), ValueKind.table, "table");
  if (!live) {
    throw new Constraint(
      `an appended ducklake_table_stats row names table ${tableId}, which does not exist at snapshot ${premise.snapshot_id} (docs/decisions/0710-metadata-appends.md)`,
    );
  }
  const k = keys.current(Kind.tableStats, tableId);
  if (await ctx.read<TableStatsRecord>(k, ValueKind.tableStats, "table stats")) {
    throw new Constraint(
      `an appended ducklake_table_stats row for table ${tableId}, which has its stats row already: this server keeps one per table (docs/decisions/0710-metadata-appends.md)`,
    );
  }
  const rec: TableStatsRecord = {
    table_id: tableId,
    record_count: intOf(r.record_count ?? null, "record_count", t),
    next_row_id: intOf(r.next_row_id ?? null, "next_row_id", t),
    file_size_bytes: intOf(r.file_size_bytes ?? null, "file_size_bytes", t),
    begin_snapshot: premise.snapshot_id,
    end_snapshot: null,
  };
  ctx.write(k, ValueKind.tableStats, rec);
}

/**
 * `ducklake_snapshot_changes` has a primary key on `snapshot_id`: a row for a snapshot that exists is
 * stock's duplicate-key error. A row for a later snapshot is kept on the head (`x_reserved_changes`),
 * shown as a row of the table, and makes the commit that would mint that snapshot fail whole with the
 * same error, as stock's commit fails on it.
 */
async function reserveChanges(ctx: VerbContext, premise: SnapshotRecord, r: Row): Promise<void> {
  const t = "ducklake_snapshot_changes";
  const id = intOf(r.snapshot_id ?? null, "snapshot_id", t);
  const head = await readHead(ctx.st);
  const reserved = head.x_reserved_changes ?? [];
  if (id <= premise.snapshot_id || reserved.some((c) => c.snapshot_id === id)) {
    throw new DuplicateKey("snapshot_id", id, "Failed to append: ");
  }
  if (reserved.length >= MAX_RESERVED_CHANGES) {
    throw new Constraint(
      `the lake holds ${reserved.length} appended ducklake_snapshot_changes rows for future snapshots, the most this server keeps (MAX_RESERVED_CHANGES; docs/decisions/0710-metadata-appends.md)`,
    );
  }
  const row = {
    snapshot_id: id,
    changes_made: textOrNull(r.changes_made ?? null, "changes_made", t),
    author: textOrNull(r.author ?? null, "author", t),
    commit_message: textOrNull(r.commit_message ?? null, "commit_message", t),
    commit_extra_info: textOrNull(r.commit_extra_info ?? null, "commit_extra_info", t),
  };
  ctx.write(keys.head(), ValueKind.head, {
    ...head,
    x_reserved_changes: [...reserved, row],
  } satisfies HeadRecord);
}

/** At most this many appended `ducklake_snapshot_changes` rows for future snapshots (kept on the head). */
export const MAX_RESERVED_CHANGES = 16;

/** What an append answers through the writer (the door replies SUCCESS): the rows it stored. */
export function appendResult(rows: number): SqlResult {
  return { columns: [{ name: "Count", type: T.BIGINT }], rows: [[BigInt(rows)]] };
}
