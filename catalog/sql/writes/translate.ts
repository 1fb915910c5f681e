/**
 * DuckLake's staged rows → the catalog's records, against the premise snapshot (docs/decisions/0230-sql-write-translation.md: translate,
 * don't author). Every id, counter and schema_version is DuckLake's value, stored verbatim, but each is
 * checked against the premise before it is trusted: the snapshot id is head + 1 (else the commit lost a
 * race: CommitConflict), catalog and file ids come from the ranges the new snapshot's counters allocate,
 * every begin/end snapshot is the new snapshot, names are free, parents exist and are live, row ids come
 * from the table's next_row_id range. Records are written with the same helpers the verbs use
 * (`VerbContext`: versions, history, the name index), so both front doors leave identical keys.
 */
import { parseChangesMade } from "../../changes.ts";
import { decodeValue, ValueKind } from "../../codec.ts";
import { applyVerb } from "../../commit/apply.ts";
import {
  AlreadyExists,
  CommitConflict,
  Constraint,
  InvalidRequest,
  NotFound,
  quoteName,
  Unsupported,
} from "../../errors.ts";
import { inlineRowWriteAt, scanInlineRows, settleInlineFloor, writeInlinedRows } from "../../inline-floor.ts";
import { Kind, keys, NameSpace, OptionScope } from "../../keys.ts";
import { DUCKLAKE_TABLES } from "../../reads/ducklake-tables.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  DeleteFileRecord,
  FileColumnStats,
  FileVariantStats,
  GcFileRecord,
  InlinedTableRecord,
  InlineFileDeleteRecord,
  InlineRowRecord,
  InlineValue,
  MacroImpl,
  MacroParameter,
  MacroRecord,
  OptionRecord,
  PartitionRecord,
  SchemaRecord,
  SchemaVersionRecord,
  SnapshotRecord,
  SortRecord,
  TableColumnStatsRecord,
  TableMetaRecord,
  TableRecord,
  TableStatsRecord,
  TagContainer,
  Versioned,
  ViewRecord,
} from "../../records.ts";
import { columnTree, parseValue } from "../../values/index.ts";
import type { VerbContext } from "../../verbs/context.ts";
import {
  checkFilePath,
  checkScheduledPath,
  dropDataFile,
  tableOfDroppedFile,
} from "../../verbs/ops/files.ts";
import { endMacro, macroEntryKind } from "../../verbs/ops/macros.ts";
import { checkFileMapping, type NameMapColumn, writeNameMap } from "../../verbs/ops/name-maps.ts";
import {
  readColumnStats,
  readTableStats,
  writeColumnStats,
  writeTableStats,
} from "../../verbs/ops/stats-support.ts";
import { type MergeSpan, mergeSpan } from "./merge-output.ts";
import type { Literal, RowOp } from "./parse.ts";
import { type RewriteOutput, type RewriteStaged, stageRewrites } from "./rewrite.ts";
import { cellValue } from "./variant-literal.ts";

type Cells = Record<string, Literal>;

/** One inlined table's flush in a batch: the rows it removes and what the flushed files account for. */
interface Flush {
  t: number;
  keys: Uint8Array[];
  rows: InlineRowRecord[];
  /** Rows the flushed data files hold so far (all of `rows` once the batch is applied). */
  carried: number;
  fileIds: number[];
  /** Ended rows the flushed files' delete files hold so far. */
  ended: number;
  /** What the files are checked against, computed once (a loop: a spread of many rows would overflow). */
  summary?: FlushSummary;
}

interface FlushSummary {
  first: number;
  last: number;
  lo: number;
  hi: number;
  snapshots: Set<number>;
  ids: Set<number>;
  /** The ended rows' end snapshots. */
  ends: number[];
}

function summarise(f: Flush): FlushSummary {
  if (f.summary) return f.summary;
  const s: FlushSummary = {
    first: Number.POSITIVE_INFINITY,
    last: Number.NEGATIVE_INFINITY,
    lo: Number.POSITIVE_INFINITY,
    hi: Number.NEGATIVE_INFINITY,
    snapshots: new Set(),
    ids: new Set(),
    ends: [],
  };
  for (const x of f.rows) {
    s.first = Math.min(s.first, x.begin_snapshot);
    s.last = Math.max(s.last, x.begin_snapshot);
    s.lo = Math.min(s.lo, x.row_id);
    s.hi = Math.max(s.hi, x.row_id + 1);
    s.snapshots.add(x.begin_snapshot);
    s.ids.add(x.row_id);
    if (x.end_snapshot !== null) s.ends.push(x.end_snapshot);
  }
  f.summary = s;
  return s;
}

/**
 * Options and the deletion schedule's cleanup live outside the snapshot protocol: a batch of them alone
 * mints no snapshot (it writes the head with the batch count advanced).
 */
function isOptionOp(op: RowOp): boolean {
  return (
    op.op === "option_update" ||
    (op.op === "insert" && op.table === "ducklake_metadata") ||
    (op.op === "delete" && op.table === "ducklake_files_scheduled_for_deletion")
  );
}

/**
 * Statements that change no snapshot's contents, so a request of them alone mints none: the flush's lone
 * pre-commit DELETE (it only counts) and expire_snapshots' removals, each its own request
 * (docs/decisions/0240-quack-flush-inlined-data.md, docs/decisions/0241-quack-expire-snapshots.md).
 */
const MINTS_NO_SNAPSHOT = new Set<RowOp["op"]>([
  "flush_inlined",
  "flush_inlined_deletes",
  "expire_snapshots",
  "prune_versions",
  "prune_orphans",
  "expire_table_rows",
  "drop_inlined",
  "retire_inlined",
]);

/** Per-table kinds whose records (current and history) go with a table dropped whole and expired. */
const TABLE_ROW_KINDS: Record<string, Kind[]> = {
  ducklake_table: [Kind.table, Kind.tableMeta],
  ducklake_table_stats: [Kind.tableStats],
  ducklake_table_column_stats: [Kind.tableColumnStats],
  ducklake_partition_info: [Kind.partition],
  ducklake_partition_column: [], // inside ducklake_partition_info's records
  ducklake_column: [Kind.column],
  ducklake_column_tag: [Kind.columnTag],
  ducklake_sort_info: [Kind.sort],
  ducklake_sort_expression: [], // inside ducklake_sort_info's records
  ducklake_schema_versions: [Kind.schemaVersion],
  ducklake_inlined_data_tables: [Kind.inlinedTable],
  ducklake_column_mapping: [Kind.mapping],
};

/** The versioned kinds expire_snapshots prunes by range (ducklake_tag's entries live in containers). */
const PRUNE_KINDS: Record<string, { kind: Kind; vk: ValueKind }> = {
  ducklake_schema: { kind: Kind.schema, vk: ValueKind.schema },
  ducklake_view: { kind: Kind.view, vk: ValueKind.view },
  ducklake_macro: { kind: Kind.macro, vk: ValueKind.macro },
};

function optionKey(scope: string | null, scopeId: number | null): Uint8Array {
  if (scope === null) return keys.current(Kind.option, OptionScope.global, 0);
  return keys.current(Kind.option, scope === "schema" ? OptionScope.schema : OptionScope.table, scopeId ?? 0);
}

const INLINED_DATA = /^ducklake_inlined_data_(\d+)_(\d+)$/;
const INLINED_DELETE = /^ducklake_inlined_delete_(\d+)$/;

function bad(detail: string): InvalidRequest {
  return new InvalidRequest(`staged rows: ${detail}`);
}

function int(l: Literal | undefined, what: string): number {
  if (l?.k !== "num" || !/^-?[0-9]+$/.test(l.text)) throw bad(`${what} must be an integer`);
  const n = Number(l.text);
  if (!Number.isSafeInteger(n)) throw bad(`${what} ${l.text} is out of range`);
  return n;
}
function intOrNull(l: Literal | undefined, what: string): number | null {
  return l?.k === "null" ? null : int(l, what);
}
function str(l: Literal | undefined, what: string): string {
  if (l?.k === "str") return l.v;
  throw bad(`${what} must be a string`);
}
function strOrNull(l: Literal | undefined, what: string): string | null {
  return l?.k === "null" ? null : str(l, what);
}
function bool(l: Literal | undefined, what: string): boolean {
  if (l?.k === "bool") return l.v;
  throw bad(`${what} must be true or false`);
}
function boolOrNull(l: Literal | undefined, what: string): boolean | null {
  return l?.k === "null" ? null : bool(l, what);
}

/**
 * A DuckDB literal as the JSON value `catalog/values/` `parseValue` takes: numbers that round-trip exactly
 * as JS numbers, other numeric text (DECIMAL's `1.50`, HUGEINT) as its text, strings, booleans, NULL.
 */
export function inlineValue(l: Literal): InlineValue {
  switch (l.k) {
    case "null":
      return null;
    case "bool":
      return l.v;
    case "str":
      return l.v;
    case "num": {
      const n = Number(l.text);
      return Number.isFinite(n) && String(n) === l.text ? n : l.text;
    }
    // Nested values take the JSON forms parseValue checks per column type (docs/decisions/0244-quack-nested-literals.md).
    case "list":
      return l.items.map(inlineValue);
    case "struct": {
      const out: { [field: string]: InlineValue } = {};
      for (const f of l.fields) out[f.name] = inlineValue(f.v);
      return out;
    }
    case "map":
      return l.keys.map((k, i) => ({ key: inlineValue(k), value: inlineValue(l.values[i] as Literal) }));
    default:
      throw bad(`${l.k.toUpperCase()}() is not a value an inlined row can hold`);
  }
}

/** The rows of an INSERT as named cells, in the table's DuckLake column order. */
function cellsOf(op: Extract<RowOp, { op: "insert" }>, columns: readonly string[]): Cells[] {
  const names = op.columns ?? columns;
  if (op.columns?.some((c) => !columns.includes(c))) {
    throw bad(`INSERT INTO ${op.table} names a column it does not have`);
  }
  return op.rows.map((row) => {
    if (row.length !== names.length) {
      throw bad(`INSERT INTO ${op.table} gives ${row.length} values for ${names.length} columns`);
    }
    const out: Cells = {};
    names.forEach((n, i) => {
      out[n] = row[i] as Literal;
    });
    return out;
  });
}

/** Versioned DuckLake tables whose rows are ended by `UPDATE … SET end_snapshot … WHERE <key> IN (…)`. */
const ENDABLE: Record<string, { kind: Kind; vk: ValueKind; key: string }> = {
  ducklake_column: { kind: Kind.column, vk: ValueKind.column, key: "table_id" },
  ducklake_data_file: { kind: Kind.dataFile, vk: ValueKind.dataFile, key: "table_id" },
  ducklake_delete_file: { kind: Kind.deleteFile, vk: ValueKind.deleteFile, key: "table_id" },
  ducklake_partition_info: { kind: Kind.partition, vk: ValueKind.partition, key: "table_id" },
  ducklake_sort_info: { kind: Kind.sort, vk: ValueKind.sort, key: "table_id" },
};

export interface Translated {
  /** The snapshot the batch mints; null for a batch of options alone (they mint none). */
  snapshot: SnapshotRecord | null;
  /** Rows each statement touched, in statement order (the answer is the last one's). */
  counts: number[];
}

/** The stats cells a `ducklake_file_column_stats` and a `ducklake_file_variant_stats` row share. */
function fileStatCells(r: Cells): FileColumnStats {
  return {
    column_id: int(r.column_id, "column_id"),
    column_size_bytes: intOrNull(r.column_size_bytes, "column_size_bytes"),
    value_count: intOrNull(r.value_count, "value_count"),
    null_count: intOrNull(r.null_count, "null_count"),
    min_value: strOrNull(r.min_value, "min_value"),
    max_value: strOrNull(r.max_value, "max_value"),
    contains_nan: boolOrNull(r.contains_nan, "contains_nan"),
    extra_stats: strOrNull(r.extra_stats, "extra_stats"),
  };
}

export class Translator {
  private snap:
    | { snapshot_id: number; schema_version: number; next_catalog_id: number; next_file_id: number }
    | undefined;
  private changes: Cells | undefined;
  private readonly touched = new Set<number>();
  private readonly newCatalogIds = new Set<number>();
  /** Tables whose live row this batch ended: a rename re-inserts the same id as the table's next version. */
  private readonly endedTables = new Map<number, TableRecord>();
  /** Views whose live row this batch ended: ALTER VIEW … RENAME re-inserts the same id, as for tables. */
  private readonly endedViews = new Map<number, ViewRecord>();
  private readonly newFileIds = new Set<number>();
  /** ducklake_file_column_stats / file_partition_value rows, by data file, attached to the file's record. */
  private readonly fileStats = new Map<number, FileColumnStats[]>();
  private readonly partitionValues = new Map<number, DataFileRecord["x_partition_values"]>();
  /** `ducklake_name_mapping` rows by mapping id, embedded in their `ducklake_column_mapping` record (0600). */
  private readonly nameMapColumns = new Map<number, NameMapColumn[]>();
  /** ducklake_file_variant_stats rows, by data file (docs/decisions/0620-extra-stats.md). */
  private readonly variantStats = new Map<number, FileVariantStats[]>();
  /** Delete files this batch removes (DuckLake rewrites a file's deletes into a new delete file), by data file. */
  private readonly replacedDeletes = new Map<number, DeleteFileRecord>();
  private readonly removedDeleteIds = new Set<number>();
  /** Data files this batch removes (a merge), by id, in the order the batch removes them. */
  private readonly removedData = new Map<number, DataFileRecord>();
  /** Removed data files a merged output already replaced (each output replaces those removed before it). */
  private readonly mergedSources = new Set<number>();
  private readonly macroImpls = new Map<number, MacroImpl[]>();
  private readonly macroParams = new Map<string, MacroParameter[]>();
  private readonly partitionColumns = new Map<number, PartitionRecord["x_columns"]>();
  /** ducklake_sort_expression rows by sort id, embedded in their ducklake_sort_info record. */
  private readonly sortExpressions = new Map<
    number,
    { tableId: number; expr: SortRecord["x_expressions"][number] }[]
  >();
  /** Inlined-data tables this batch creates (by name → its data columns). */
  private readonly createdInlined = new Map<string, string[]>();
  /** Per table: the next_row_id at the premise (first read), for the row-id range check. */
  private readonly premiseNextRowId = new Map<number, number>();
  private readonly rowIdsUsed = new Map<number, [number, number][]>();
  /** Row ids this batch deletes, per table: an UPDATE's new version may take one over (row lineage). */
  private readonly deletedRowIds = new Map<number, Set<number>>();
  /** The snapshot ids left, once read (reset when this request removes snapshots). */
  private remaining: number[] | undefined;
  /**
   * Per inlined table (one per schema version; flushed to one file, or one per partition): the rows this
   * batch's flushes remove, the data files that carry them and the rows those files' delete files end.
   */
  private readonly flushes = new Map<string, Flush>();
  /** Tables this batch adds a delete file to (its positions are in Parquet: lineage is not checkable). */
  private readonly parquetDeletes = new Set<number>();
  /** A ducklake_rewrite_data_files batch, staged through the compaction verb up front (rewrite.ts). */
  private rewrite: RewriteStaged | undefined;

  constructor(
    private readonly ctx: VerbContext,
    private readonly premise: SnapshotRecord,
    private readonly ops: readonly RowOp[],
    /** Snapshots a live checkpoint pins (→ its id): expire_snapshots never removes them. */
    private readonly pinned: ReadonlyMap<number, string> = new Map(),
  ) {}

  private get S(): number {
    return this.premise.snapshot_id + 1;
  }

  async run(): Promise<Translated> {
    this.readSnapshotRows();
    this.collectFileChildren();
    await this.collectFlushes();
    await this.collectRewrites();
    const counts: number[] = [];
    for (const op of this.ops) counts.push(await this.apply(op));
    await this.checkRowIds();
    for (const m of this.nameMapColumns.keys()) {
      throw bad(`ducklake_name_mapping rows of mapping ${m} come without its ducklake_column_mapping row`);
    }
    this.checkMergesReplaced();
    for (const [name, f] of this.flushes) {
      if (f.carried !== f.rows.length)
        throw bad(
          `${name}: ${f.rows.length} inlined rows are flushed, the data files that hold them carry ${f.carried}`,
        );
      const ended = summarise(f).ends.length;
      if (f.ended !== ended)
        throw bad(
          `${name}: ${ended} flushed rows were ended, the flushed files' delete files hold ${f.ended}`,
        );
    }
    for (const [f, old] of this.replacedDeletes) {
      const now = await this.ctx.scan<DeleteFileRecord>(
        keys.current(Kind.deleteFile, old.table_id),
        ValueKind.deleteFile,
        "delete file",
      );
      if (!now.some((d) => d.data_file_id === f))
        throw bad(`delete file ${old.delete_file_id} is removed without a replacement`);
    }
    return { snapshot: this.snap ? this.snapshotRecord() : null, counts };
  }

  // --- the snapshot ---------------------------------------------------------------------------------

  private readSnapshotRows(): void {
    for (const op of this.ops) {
      if (op.op !== "insert") continue;
      if (op.table === "ducklake_snapshot") {
        const rows = cellsOf(op, DUCKLAKE_TABLES.ducklake_snapshot ?? []);
        if (rows.length !== 1 || this.snap) throw bad("a commit inserts exactly one ducklake_snapshot row");
        const r = rows[0] as Cells;
        if (r.snapshot_time?.k !== "now") throw bad("snapshot_time must be NOW()");
        this.snap = {
          snapshot_id: int(r.snapshot_id, "snapshot_id"),
          schema_version: int(r.schema_version, "schema_version"),
          next_catalog_id: int(r.next_catalog_id, "next_catalog_id"),
          next_file_id: int(r.next_file_id, "next_file_id"),
        };
      } else if (op.table === "ducklake_snapshot_changes") {
        const rows = cellsOf(op, DUCKLAKE_TABLES.ducklake_snapshot_changes ?? []);
        if (rows.length !== 1 || this.changes)
          throw bad("a commit inserts exactly one ducklake_snapshot_changes row");
        this.changes = rows[0] as Cells;
      }
    }
    const s = this.snap;
    if (
      s === undefined &&
      this.changes === undefined &&
      this.ops.every(
        (op) =>
          isOptionOp(op) ||
          MINTS_NO_SNAPSHOT.has(op.op) ||
          op.op === "delete" ||
          (op.op === "insert" && op.table === "ducklake_files_scheduled_for_deletion"),
      )
    )
      return;
    if (s === undefined || this.changes === undefined) {
      throw new Unsupported(
        "a write batch without a ducklake_snapshot and a ducklake_snapshot_changes row (maintenance that mints no snapshot) is not translated yet",
      );
    }
    if (int(this.changes.snapshot_id, "snapshot_changes.snapshot_id") !== s.snapshot_id) {
      throw bad("the ducklake_snapshot_changes row names another snapshot");
    }
    const p = this.premise;
    if (s.snapshot_id !== p.snapshot_id + 1) {
      // The rows were stamped against an older head: the race is lost, nothing is written (docs/decisions/0230-sql-write-translation.md).
      throw new CommitConflict(
        `the batch's snapshot ${s.snapshot_id} was built on snapshot ${s.snapshot_id - 1}, but snapshot ${p.snapshot_id} is the head`,
      );
    }
    if (s.next_catalog_id < p.next_catalog_id)
      throw bad(`next_catalog_id ${s.next_catalog_id} is below the head's ${p.next_catalog_id}`);
    if (s.next_file_id < p.next_file_id)
      throw bad(`next_file_id ${s.next_file_id} is below the head's ${p.next_file_id}`);
    if (s.schema_version !== p.schema_version && s.schema_version !== p.schema_version + 1) {
      throw bad(`schema_version ${s.schema_version} is neither the head's ${p.schema_version} nor the next`);
    }
  }

  private snapshotRecord(): SnapshotRecord {
    const s = this.snap as NonNullable<Translator["snap"]>;
    const c = this.changes as Cells;
    const changesMade = strOrNull(c.changes_made, "changes_made");
    const set = parseChangesMade(changesMade);
    // The conflict classifier reads our side from the context, as for a verb member.
    Object.assign(this.ctx.changes, set);
    this.ctx.mintsSnapshot = true;
    for (const t of this.touched) this.ctx.touchedTables.add(t);
    return {
      snapshot_id: s.snapshot_id,
      snapshot_time: Math.floor(this.ctx.env.now() * 1000),
      schema_version: s.schema_version,
      next_catalog_id: s.next_catalog_id,
      next_file_id: s.next_file_id,
      changes_made: changesMade,
      author: strOrNull(c.author, "author"),
      commit_message: strOrNull(c.commit_message, "commit_message"),
      commit_extra_info: strOrNull(c.commit_extra_info, "commit_extra_info"),
      x_touched_table_ids: [...this.touched].sort((a, b) => a - b),
      x_deleted_data_file_ids: [...this.ctx.deletedDataFileIds].sort((a, b) => a - b),
      x_deletes_untargeted: this.ctx.deletesUntargeted,
    };
  }

  // --- checks ---------------------------------------------------------------------------------------

  private begin(l: Literal | undefined, what: string): void {
    const b = int(l, `${what}.begin_snapshot`);
    if (b !== this.S) throw bad(`${what} begins at snapshot ${b}, not at the commit's snapshot ${this.S}`);
  }
  private noEnd(l: Literal | undefined, what: string): void {
    if (l?.k !== "null") throw bad(`${what} is inserted with an end_snapshot`);
  }
  private catalogId(id: number, what: string): number {
    const s = this.snap as NonNullable<Translator["snap"]>;
    if (id < this.premise.next_catalog_id || id >= s.next_catalog_id || this.newCatalogIds.has(id)) {
      throw bad(
        `${what} id ${id} is not a fresh id of [${this.premise.next_catalog_id}, ${s.next_catalog_id})`,
      );
    }
    this.newCatalogIds.add(id);
    return id;
  }
  private fileId(id: number, what: string): number {
    const s = this.snap as NonNullable<Translator["snap"]>;
    if (id < this.premise.next_file_id || id >= s.next_file_id || this.newFileIds.has(id)) {
      throw bad(`${what} id ${id} is not a fresh id of [${this.premise.next_file_id}, ${s.next_file_id})`);
    }
    this.newFileIds.add(id);
    return id;
  }
  private async liveTable(tableId: number): Promise<TableRecord> {
    const t = await this.ctx.read<TableRecord>(keys.current(Kind.table, tableId), ValueKind.table, "table");
    if (!t) throw new NotFound(`table id ${tableId} does not exist (or was dropped)`);
    this.touched.add(tableId);
    return t;
  }
  private async premiseRowIds(tableId: number): Promise<void> {
    if (this.premiseNextRowId.has(tableId)) return;
    // Read before this batch's own stats write (the premise value), or 0 for a table without stats yet.
    const st = await this.ctx.read<TableStatsRecord>(
      keys.current(Kind.tableStats, tableId),
      ValueKind.tableStats,
      "table stats",
    );
    this.premiseNextRowId.set(tableId, st?.begin_snapshot === this.S ? -1 : (st?.next_row_id ?? 0));
  }
  private useRowIds(tableId: number, from: number, count: number): void {
    const list = this.rowIdsUsed.get(tableId) ?? [];
    list.push([from, from + count]);
    this.rowIdsUsed.set(tableId, list);
  }
  private lineage(t: number): Set<number> {
    let set = this.deletedRowIds.get(t);
    if (!set) {
      set = new Set();
      this.deletedRowIds.set(t, set);
    }
    return set;
  }

  /**
   * New rows (inlined or in files) take their row ids from [premise next_row_id, staged next_row_id),
   * except an UPDATE's new versions, which keep the row id of a row the same batch deletes.
   */
  private async checkRowIds(): Promise<void> {
    for (const [t, ranges] of this.rowIdsUsed) {
      const lo = this.premiseNextRowId.get(t) ?? 0;
      const st = await readTableStats(this.ctx, t);
      const hi = st?.next_row_id ?? 0;
      const kept = this.deletedRowIds.get(t);
      for (const [a, b] of ranges) {
        if (lo < 0) continue;
        if (b === a + 1 && kept?.has(a)) continue;
        if (b <= lo && this.parquetDeletes.has(t)) continue;
        if (a < lo || b > hi) {
          throw bad(
            `table ${t}: row ids [${a}, ${b}) lie outside the range [${lo}, ${hi}) its next_row_id allocates`,
          );
        }
      }
    }
  }

  // --- statements -----------------------------------------------------------------------------------

  private collectFileChildren(): void {
    for (const op of this.ops) {
      if (op.op !== "insert") continue;
      if (op.table === "ducklake_macro_impl") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_macro_impl ?? [])) {
          const m = int(r.macro_id, "macro_id");
          const list = this.macroImpls.get(m) ?? [];
          const type = str(r.type, "type");
          if (type !== "scalar" && type !== "table")
            throw bad(`macro type ${quoteName(type)} is not scalar or table`);
          list.push({
            impl_id: int(r.impl_id, "impl_id"),
            dialect: str(r.dialect, "dialect"),
            sql: str(r.sql, "sql"),
            type,
            x_parameters: [],
          });
          this.macroImpls.set(m, list);
        }
      } else if (op.table === "ducklake_macro_parameters") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_macro_parameters ?? [])) {
          const key = `${int(r.macro_id, "macro_id")}/${int(r.impl_id, "impl_id")}`;
          const list = this.macroParams.get(key) ?? [];
          list.push({
            column_id: int(r.column_id, "column_id"),
            parameter_name: str(r.parameter_name, "parameter_name"),
            parameter_type: str(r.parameter_type, "parameter_type"),
            default_value: strOrNull(r.default_value, "default_value"),
            default_value_type: strOrNull(r.default_value_type, "default_value_type"),
          });
          this.macroParams.set(key, list);
        }
      } else if (op.table === "ducklake_partition_column") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_partition_column ?? [])) {
          const p = int(r.partition_id, "partition_id");
          const list = this.partitionColumns.get(p) ?? [];
          list.push({
            partition_key_index: int(r.partition_key_index, "partition_key_index"),
            column_id: int(r.column_id, "column_id"),
            transform: str(r.transform, "transform"),
          });
          this.partitionColumns.set(p, list);
        }
      }
      if (op.table === "ducklake_sort_expression") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_sort_expression ?? [])) {
          const id = int(r.sort_id, "sort_id");
          const direction = str(r.sort_direction, "sort_direction");
          const nulls = str(r.null_order, "null_order");
          if (direction !== "ASC" && direction !== "DESC")
            throw bad(`sort direction ${quoteName(direction)} is not ASC or DESC`);
          if (nulls !== "NULLS_FIRST" && nulls !== "NULLS_LAST")
            throw bad(`null order ${quoteName(nulls)} is not NULLS_FIRST or NULLS_LAST`);
          const list = this.sortExpressions.get(id) ?? [];
          list.push({
            tableId: int(r.table_id, "table_id"),
            expr: {
              sort_key_index: int(r.sort_key_index, "sort_key_index"),
              expression: str(r.expression, "expression"),
              dialect: str(r.dialect, "dialect"),
              sort_direction: direction,
              null_order: nulls,
            },
          });
          this.sortExpressions.set(id, list);
        }
      }
      if (op.table === "ducklake_file_column_stats") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_file_column_stats ?? [])) {
          const f = int(r.data_file_id, "data_file_id");
          const list = this.fileStats.get(f) ?? [];
          list.push(fileStatCells(r));
          this.fileStats.set(f, list);
        }
      } else if (op.table === "ducklake_name_mapping") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_name_mapping ?? [])) {
          const m = int(r.mapping_id, "mapping_id");
          const list = this.nameMapColumns.get(m) ?? [];
          list.push({
            column_id: int(r.column_id, "column_id"),
            source_name: str(r.source_name, "source_name"),
            target_field_id: int(r.target_field_id, "target_field_id"),
            parent_column: intOrNull(r.parent_column, "parent_column"),
            is_partition: bool(r.is_partition, "is_partition"),
          });
          this.nameMapColumns.set(m, list);
        }
      } else if (op.table === "ducklake_file_variant_stats") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_file_variant_stats ?? [])) {
          const f = int(r.data_file_id, "data_file_id");
          const list = this.variantStats.get(f) ?? [];
          list.push({
            ...fileStatCells(r),
            variant_path: str(r.variant_path, "variant_path"),
            shredded_type: strOrNull(r.shredded_type, "shredded_type"),
          });
          this.variantStats.set(f, list);
        }
      } else if (op.table === "ducklake_file_partition_value") {
        for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_file_partition_value ?? [])) {
          const f = int(r.data_file_id, "data_file_id");
          const list = this.partitionValues.get(f) ?? [];
          list.push({
            partition_key_index: int(r.partition_key_index, "partition_key_index"),
            partition_value: strOrNull(r.partition_value, "partition_value"),
          });
          this.partitionValues.set(f, list);
        }
      }
    }
  }

  private async apply(op: RowOp): Promise<number> {
    switch (op.op) {
      case "insert":
        return this.insert(op);
      case "create":
        return this.create(op);
      case "end":
        return this.end(op);
      case "end_file":
        return this.rewritten(
          op.endSnapshot,
          op.id,
          op.table === "ducklake_data_file" ? "endedData" : "endedDeletes",
        );
      case "begin_file":
        return this.rewritten(op.beginSnapshot, op.id, "outputs");
      case "table_stats":
        return this.updateTableStats(op);
      case "column_stats":
        return this.updateColumnStats(op);
      case "end_inlined":
        return this.endInlined(op);
      case "end_tags":
        return this.endTags(op);
      case "end_columns":
        return this.endColumns(op);
      case "option_update":
        return this.updateOption(op);
      case "delete":
        return this.removeRows(op);
      case "flush_inlined":
        return this.flushInlined(op);
      case "flush_inlined_deletes":
        return this.flushInlinedDeletes(op.table);
      case "expire_snapshots":
        return this.expireSnapshots(op);
      case "prune_versions":
        return this.pruneVersions(op.table);
      case "expire_table_rows":
        return this.expireTableRows(op);
      case "drop_inlined":
        return this.dropInlined(op.table);
      case "retire_inlined":
        return this.retireInlined(op.tableId, op.schemaVersion);
      case "prune_orphans":
        // Macro implementations, parameters and name mappings are held inside their parent's record:
        // they went with it, so no row is left to remove.
        return 0;
    }
  }

  // --- ducklake_expire_snapshots (docs/decisions/0241-quack-expire-snapshots.md) ---------------------

  private expiryOnly(what: string): void {
    if (this.snap !== undefined) throw bad(`${what} arrives in a commit that mints a snapshot`);
  }

  /**
   * `DELETE FROM ducklake_snapshot WHERE snapshot_id IN (…)`: the snapshots' records go, their
   * ducklake_snapshot_changes rows with them (one record holds both). The head is never expired, nor a
   * snapshot a live checkpoint pins: the whole request is refused and nothing changes.
   */
  private async expireSnapshots(op: Extract<RowOp, { op: "expire_snapshots" }>): Promise<number> {
    this.expiryOnly(`DELETE FROM ${op.table}`);
    let n = 0;
    for (const id of op.ids) {
      if (id >= this.premise.snapshot_id)
        throw bad(
          `snapshot ${id} is the head or beyond it (head ${this.premise.snapshot_id}); the head is never expired`,
        );
      const pin = this.pinned.get(id);
      if (pin !== undefined)
        throw new Constraint(
          `snapshot ${id} is pinned by live checkpoint ${pin}: expire older snapshots only, or delete the checkpoint first`,
        );
      const k = keys.snapshot(id);
      const exists = (await this.ctx.st.get(k)) !== undefined;
      if (op.table === "ducklake_snapshot_changes") {
        // Its row went with the snapshot's record; a changes row never outlives or predeceases it.
        if (exists) throw bad(`snapshot ${id}'s changes row is removed while the snapshot stays`);
        continue;
      }
      if (!exists) continue;
      this.ctx.st.delete(k);
      this.remaining = undefined;
      n++;
    }
    return n;
  }

  /** Every version (current and history) of a per-table or lake-wide kind, with its key. */
  private async versionsOf<T>(kind: Kind, vk: ValueKind, ...ids: number[]): Promise<[Uint8Array, T][]> {
    const out: [Uint8Array, T][] = [];
    for (const prefix of [keys.current(kind, ...ids), keys.historyPrefix(kind, ...ids)])
      for await (const kv of this.ctx.st.scan({ prefix }))
        out.push([kv.key, decodeValue<T>(vk, kv.value, "record")]);
    return out;
  }

  /** True when no remaining snapshot lies in [begin, end) (a live version, end NULL, is always seen). */
  private async unseen(rec: Versioned): Promise<boolean> {
    if (rec.end_snapshot === null) return false;
    const e = rec.end_snapshot;
    return !(await this.remainingSnapshots()).some((id) => id >= rec.begin_snapshot && id < e);
  }

  /** A table every version of which has ended outside every remaining snapshot (none left counts). */
  private async tableExpired(t: number): Promise<boolean> {
    for (const [, rec] of await this.versionsOf<TableRecord>(Kind.table, ValueKind.table, t))
      if (!(await this.unseen(rec))) return false;
    return true;
  }

  /**
   * `DELETE FROM ducklake_data_file | ducklake_delete_file WHERE <id> IN (…)` in a request of its own: the
   * expiry of files no remaining snapshot sees, or of a table dropped whole. Any other file is refused.
   */
  private async expireFiles(op: Extract<RowOp, { op: "delete" }>): Promise<number> {
    const data = op.table === "ducklake_data_file";
    if (!data && op.table !== "ducklake_delete_file") {
      // Child rows of data files (stats, partition values) live inside the data file's record.
      for (const id of op.ids)
        if ((await this.fileVersions(true, "data_file_id", id)).length > 0)
          throw bad(`${op.table} rows of data file ${id} are removed while the data file stays`);
      return 0;
    }
    let n = 0;
    for (const id of op.ids) {
      for (const [k, rec] of await this.fileVersions(data, op.key, id)) {
        if (!(await this.unseen(rec)) && !(await this.tableExpired(rec.table_id)))
          throw bad(`${data ? "data" : "delete"} file ${id} is still visible at a remaining snapshot`);
        this.ctx.st.delete(k);
        n++;
      }
    }
    return n;
  }

  /** The versions of the data or delete file(s) whose `key` is `id`, in any table. */
  private async fileVersions(
    data: boolean,
    key: string,
    id: number,
  ): Promise<[Uint8Array, DataFileRecord | DeleteFileRecord][]> {
    const all = data
      ? await this.versionsOf<DataFileRecord>(Kind.dataFile, ValueKind.dataFile)
      : await this.versionsOf<DeleteFileRecord>(Kind.deleteFile, ValueKind.deleteFile);
    return all.filter(([, r]) => (r as unknown as Record<string, unknown>)[key] === id);
  }

  /** `DELETE FROM ducklake_<per-table table> WHERE table_id IN (…)`: only tables dropped whole and expired. */
  private async expireTableRows(op: Extract<RowOp, { op: "expire_table_rows" }>): Promise<number> {
    this.expiryOnly(`DELETE FROM ${op.table}`);
    const kinds = TABLE_ROW_KINDS[op.table];
    if (!kinds) throw bad(`${op.table} is not a per-table DuckLake table`);
    let n = 0;
    for (const t of op.ids) {
      if (!(await this.tableExpired(t))) throw bad(`table ${t} is still visible at a remaining snapshot`);
      for (const kind of kinds) {
        for (const prefix of [keys.current(kind, t), keys.historyPrefix(kind, t)]) {
          for await (const kv of this.ctx.st.scan({ prefix })) {
            this.ctx.st.delete(kv.key);
            if (kind !== Kind.tableMeta) n++;
          }
        }
      }
    }
    return n;
  }

  /** `DROP TABLE IF EXISTS ducklake_inlined_data_<t>_<sv> | ducklake_inlined_delete_<t>` of an expired table. */
  private async dropInlined(table: string): Promise<number> {
    this.expiryOnly(`DROP TABLE ${table}`);
    const data = INLINED_DATA.exec(table);
    const t = Number(data ? data[1] : INLINED_DELETE.exec(table)?.[1]);
    const retired =
      data !== null &&
      (await this.retiredInlined(t, Number(data[2]))) &&
      !(await this.rowsLeft(t, Number(data[2])));
    if (!retired && !(await this.tableExpired(t)))
      throw bad(
        `table ${t} is still visible at a remaining snapshot, and ${table} is not an emptied older inlined table`,
      );
    if (data) {
      const sv = Number(data[2]);
      for await (const kv of scanInlineRows(this.ctx.st, t))
        if (decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row").schema_version === sv)
          this.ctx.st.delete(kv.key);
    } else {
      for await (const kv of this.ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t) }))
        this.ctx.st.delete(kv.key);
    }
    return 0;
  }

  /** Whether inlined rows of (t, sv) remain. */
  private async rowsLeft(t: number, sv: number): Promise<boolean> {
    for await (const kv of scanInlineRows(this.ctx.st, t))
      if (decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row").schema_version === sv)
        return true;
    return false;
  }

  /** (t, sv) is not registered (any more) while a newer inlined table of t is. */
  private async retiredInlined(t: number, sv: number): Promise<boolean> {
    if (await this.ctx.st.get(keys.current(Kind.inlinedTable, t, sv))) return false;
    for await (const kv of this.ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, t) }))
      if (
        decodeValue<InlinedTableRecord>(ValueKind.inlinedTable, kv.value, "inlined table").schema_version > sv
      )
        return true;
    return false;
  }

  /**
   * `DELETE FROM ducklake_inlined_data_tables WHERE table_id = t AND schema_version = sv` after a flush: only
   * an older inlined table (a newer one is registered) whose rows are all flushed.
   */
  private async retireInlined(t: number, sv: number): Promise<number> {
    this.expiryOnly("DELETE FROM ducklake_inlined_data_tables");
    const k = keys.current(Kind.inlinedTable, t, sv);
    if (!(await this.ctx.st.get(k))) return 0;
    let newer = false;
    for await (const kv of this.ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, t) }))
      if (
        decodeValue<InlinedTableRecord>(ValueKind.inlinedTable, kv.value, "inlined table").schema_version > sv
      )
        newer = true;
    if (!newer) throw bad(`ducklake_inlined_data_${t}_${sv} is the table's newest inlined table`);
    if (await this.rowsLeft(t, sv))
      throw bad(`ducklake_inlined_data_${t}_${sv} still holds rows; flush them first`);
    this.ctx.st.delete(k);
    return 1;
  }

  /** The snapshot ids left, ascending (after this request's own removals). */
  private async remainingSnapshots(): Promise<number[]> {
    if (this.remaining) return this.remaining;
    const out: number[] = [];
    for await (const kv of this.ctx.st.scan({ prefix: keys.snapshotPrefix() }))
      out.push(decodeValue<SnapshotRecord>(ValueKind.snapshot, kv.value, "snapshot").snapshot_id);
    this.remaining = out;
    return out;
  }

  /**
   * `DELETE FROM ducklake_<schema|view|tag|macro> WHERE end_snapshot IS NOT NULL AND NOT EXISTS(a snapshot
   * in [begin_snapshot, end_snapshot))`: ended versions no remaining snapshot can see.
   */
  private async pruneVersions(table: string): Promise<number> {
    this.expiryOnly(`DELETE FROM ${table}`);
    const left = await this.remainingSnapshots();
    const seen = (b: number, e: number | null): boolean => e === null || left.some((id) => id >= b && id < e);
    let n = 0;
    if (table === "ducklake_tag") {
      for await (const kv of this.ctx.st.scan({ prefix: keys.current(Kind.tag) })) {
        const c = decodeValue<TagContainer>(ValueKind.tagContainer, kv.value, "tag");
        const kept = c.entries.filter((e) => seen(e.begin_snapshot, e.end_snapshot));
        if (kept.length === c.entries.length) continue;
        n += c.entries.length - kept.length;
        if (kept.length === 0) this.ctx.st.delete(kv.key);
        else this.ctx.write(kv.key, ValueKind.tagContainer, { ...c, entries: kept } satisfies TagContainer);
      }
      return n;
    }
    const spec = PRUNE_KINDS[table];
    if (!spec) throw bad(`${table} is not pruned by expire_snapshots`);
    for await (const kv of this.ctx.st.scan({ prefix: keys.historyPrefix(spec.kind) })) {
      const rec = decodeValue<Versioned>(spec.vk, kv.value, table);
      if (seen(rec.begin_snapshot, rec.end_snapshot)) continue;
      this.ctx.st.delete(kv.key);
      n++;
    }
    return n;
  }

  // --- ducklake_rewrite_data_files (docs/decisions/0243-quack-rewrite-data-files.md) ------------------

  /**
   * Before any statement runs: a batch whose `changes_made` names `rewrite_delete` tables is staged
   * through the compaction verb from its outputs (data files without `row_id_start`) and the files it
   * ends by id; the statements are then checked against what the verb did.
   */
  private async collectRewrites(): Promise<void> {
    if (this.changes === undefined) return;
    const tables = parseChangesMade(strOrNull(this.changes.changes_made, "changes_made")).rewriteDelete;
    const outputs: RewriteOutput[] = [];
    const endedData: number[] = [];
    const endedDeletes: number[] = [];
    for (const op of this.ops) {
      if (op.op === "end_file") (op.table === "ducklake_data_file" ? endedData : endedDeletes).push(op.id);
      if (op.op !== "insert" || op.table !== "ducklake_data_file") continue;
      for (const r of cellsOf(op, DUCKLAKE_TABLES.ducklake_data_file ?? [])) {
        if (!this.rewriteOutput(r)) continue;
        const id = this.fileId(int(r.data_file_id, "data_file_id"), "data file");
        this.begin(r.begin_snapshot, "rewritten data file");
        this.noEnd(r.end_snapshot, "rewritten data file");
        if (r.mapping_id?.k !== "null")
          throw new Unsupported("data files with a column mapping are not translated yet");
        outputs.push({
          dataFileId: id,
          tableId: int(r.table_id, "table_id"),
          path: str(r.path, "path"),
          pathIsRelative: bool(r.path_is_relative, "path_is_relative"),
          format: str(r.file_format, "file_format"),
          recordCount: int(r.record_count, "record_count"),
          fileSizeBytes: int(r.file_size_bytes, "file_size_bytes"),
          footerSize: intOrNull(r.footer_size, "footer_size"),
          encryptionKey: strOrNull(r.encryption_key, "encryption_key"),
          stats: this.fileStats.get(id) ?? [],
          partitionValues: this.partitionValues.get(id) ?? [],
        });
        this.fileStats.delete(id);
        this.partitionValues.delete(id);
        // The verb derives the output's VARIANT rows from its column stats, as DuckLake derived these.
        this.variantStats.delete(id);
      }
    }
    if (tables.length === 0) {
      if (outputs.length > 0 || endedData.length > 0 || endedDeletes.length > 0)
        throw bad("files are ended or inserted without row_id_start outside a rewrite_delete commit");
      return;
    }
    for (const t of tables) await this.liveTable(t);
    const statsSet = new Set<number>();
    for (const op of this.ops) if (op.op === "table_stats") statsSet.add(op.tableId);
    this.rewrite = await stageRewrites(this.ctx, { tables, outputs, endedData, endedDeletes, statsSet });
  }

  /** The batch's `changes_made`, parsed (empty without a snapshot_changes row). */
  private changeSet(): ReturnType<typeof parseChangesMade> {
    const c = this.changes?.changes_made;
    return parseChangesMade(c === undefined ? null : strOrNull(c, "changes_made"));
  }

  /**
   * A data file without `row_id_start` (its rows carry their ids) is a rewrite's output, unless the batch
   * merges its table and rewrites none of it: then it is a merge of non-adjacent files (decision 0322).
   */
  private rewriteOutput(r: Cells): boolean {
    if (r.row_id_start?.k !== "null") return false;
    const set = this.changeSet();
    const t = int(r.table_id, "table_id");
    return !(set.mergeAdjacent.includes(t) && !set.rewriteDelete.includes(t));
  }

  /** One of the rewrite's per-file statements: it names a file the verb ended or wrote, at this snapshot. */
  private rewritten(snapshot: number, id: number, set: keyof RewriteStaged): number {
    if (snapshot !== this.S) throw bad(`a rewrite sets snapshot ${snapshot} on file ${id}, not ${this.S}`);
    if (!this.rewrite?.[set].has(id))
      throw bad(`file ${id} is not one this rewrite ${set === "outputs" ? "writes" : "ends"}`);
    return 1;
  }

  // --- ducklake_flush_inlined_data (docs/decisions/0240-quack-flush-inlined-data.md) ------------------

  /** The inlined rows `DELETE FROM ducklake_inlined_data_<t>_<sv> WHERE begin_snapshot <= N` names. */
  private async flushedRows(
    op: Extract<RowOp, { op: "flush_inlined" }>,
  ): Promise<[Uint8Array, InlineRowRecord][]> {
    const m = INLINED_DATA.exec(op.table);
    if (!m) throw bad(`${op.table} is not an inlined data table`);
    const [t, sv] = [Number(m[1]), Number(m[2])];
    const out: [Uint8Array, InlineRowRecord][] = [];
    for await (const kv of scanInlineRows(this.ctx.st, t)) {
      const rec = decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row");
      if (rec.schema_version === sv && rec.begin_snapshot <= op.upTo) out.push([kv.key, rec]);
    }
    return out;
  }

  /**
   * Before any statement runs: the rows each flush of this batch removes, so the data file that carries
   * them (inserted earlier in the batch than the DELETE) is checked against them.
   */
  private async collectFlushes(): Promise<void> {
    if (this.snap === undefined) return;
    for (const op of this.ops) {
      if (op.op !== "flush_inlined") continue;
      if (op.upTo > this.premise.snapshot_id)
        throw bad(
          `a flush removes inlined rows up to snapshot ${op.upTo}, past the head ${this.premise.snapshot_id}`,
        );
      const t = Number(INLINED_DATA.exec(op.table)?.[1]);
      const f = this.flushes.get(op.table) ?? { t, keys: [], rows: [], carried: 0, fileIds: [], ended: 0 };
      for (const [k, rec] of await this.flushedRows(op)) {
        f.keys.push(k);
        f.rows.push(rec);
      }
      this.flushes.set(op.table, f);
    }
  }

  /**
   * A data file a flush writes: back-dated to its first row's snapshot, `partial_max` its last's, holding
   * flushed rows with their own ids, registered from the lowest. One file holds all of a flush's rows; a
   * partitioned table's flush writes one file per partition value, whose ids interleave (decision
   * docs/decisions/0617-partitioned-flush.md). Undefined when this batch flushes nothing of `t`; otherwise
   * whether the file's ids are other than `row_id_start` onward by position (then they are read from it).
   */
  private flushedInto(t: number, id: number, begin: number, r: Cells): { idsInFile: boolean } | undefined {
    const open = [...this.flushes.values()].filter((f) => f.t === t && f.carried < f.rows.length);
    if (open.length === 0) return undefined;
    const start = int(r.row_id_start, "row_id_start");
    const records = int(r.record_count, "record_count");
    const partialMax = intOrNull(r.partial_max, "partial_max");
    const partitioned = intOrNull(r.partition_id, "partition_id") !== null;
    const m = open.find((f) => {
      const e = summarise(f);
      if (f.carried === 0 && records === f.rows.length)
        // Every version goes into the file (an updated row's versions share its row id), ended ones included.
        return begin === e.first && partialMax === e.last && start === e.lo && e.hi - e.lo <= f.rows.length;
      // One partition's file: its first and last snapshots and lowest id are those of flushed rows.
      return (
        partitioned &&
        records > 0 &&
        f.carried + records <= f.rows.length &&
        partialMax !== null &&
        begin <= partialMax &&
        e.snapshots.has(begin) &&
        e.snapshots.has(partialMax) &&
        e.ids.has(start)
      );
    });
    if (!m) {
      const f = open[0] as Flush;
      const e = summarise(f);
      throw bad(
        `table ${t}: a flushed file must begin at snapshot ${e.first} with partial_max ${e.last} and hold the ${f.rows.length - f.carried} flushed rows from row id ${e.lo}, or, of a partitioned table, a partition's share of them`,
      );
    }
    m.carried += records;
    m.fileIds.push(id);
    // Ids by position hold only for a file of all the rows, one version each, without gaps.
    const e = summarise(m);
    const contiguous = records === m.rows.length && e.ids.size === records && e.hi - start === records;
    return { idsInFile: !contiguous };
  }

  /**
   * The delete file of a flushed file: flushed rows that were ended (deleted, or updated away), back-dated
   * to the first end among them; its rows carry their own snapshots. The ended rows of a flush add up over
   * its files' delete files (checked once the batch is applied).
   */
  private flushDeletes(t: number, dataFileId: number, begin: number, r: Cells): boolean {
    const f = [...this.flushes.values()].find((x) => x.t === t && x.fileIds.includes(dataFileId));
    if (!f) return false;
    const ended = summarise(f).ends;
    const count = int(r.delete_count, "delete_count");
    const sole = f.fileIds.length === 1 && f.carried === f.rows.length;
    const fits = sole
      ? ended.every((x) => x >= begin) && ended.includes(begin) && count === ended.length
      : ended.includes(begin) && count > 0;
    if (!fits || f.ended + count > ended.length)
      throw bad(
        `table ${t}: a flushed file's delete file must begin at one of its ended rows' snapshots and hold some of the ${ended.length - f.ended} ended rows left`,
      );
    f.ended += count;
    return true;
  }

  /**
   * `DELETE FROM ducklake_inlined_delete_<t>`, which DuckLake sends alone before the flush's commit batch
   * (stock removes the deletes before the delete files that carry them are committed). Here it only
   * counts; the commit's delete files remove the deletes they carry (`carriedInlinedDeletes`), so the
   * flush is atomic (docs/decisions/0245-quack-flush-inlined-deletes.md).
   */
  private async flushInlinedDeletes(table: string): Promise<number> {
    if (this.snap !== undefined) {
      throw new Unsupported(`removing ${table}'s rows inside a commit batch is not translated yet`);
    }
    const m = INLINED_DELETE.exec(table);
    const t = Number(m?.[1]);
    let n = 0;
    for await (const _ of this.ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t) })) n++;
    return n;
  }

  /**
   * A delete file that carries data file `f`'s inlined deletes (the flush of inlined deletes): its
   * partial_max is the newest of them, below this snapshot; it begins at the oldest (or, replacing the
   * file's delete file, at that file's begin) and holds them all (plus the replaced file's). The carried
   * deletes go, without history, as in stock. False when the file carries none.
   */
  private async carriedInlinedDeletes(
    t: number,
    f: number,
    begin: number,
    r: Cells,
    replaced: DeleteFileRecord | undefined,
  ): Promise<boolean> {
    const partialMax = intOrNull(r.partial_max, "partial_max");
    if (partialMax === null || partialMax >= this.S) return false;
    const carried: Uint8Array[] = [];
    const snaps: number[] = [];
    for await (const kv of this.ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t, f) })) {
      const d = decodeValue<InlineFileDeleteRecord>(ValueKind.inlineFileDelete, kv.value, "inlined delete");
      carried.push(kv.key);
      snaps.push(d.begin_snapshot);
    }
    if (carried.length === 0) return false;
    const from = replaced ? replaced.begin_snapshot : Math.min(...snaps);
    const count = carried.length + (replaced?.delete_count ?? 0);
    if (
      partialMax !== Math.max(...snaps) ||
      begin !== from ||
      int(r.delete_count, "delete_count") !== count
    ) {
      throw bad(
        `table ${t}: the delete file flushing data file ${f}'s ${carried.length} inlined deletes must begin at snapshot ${from}, end its partial_max at ${Math.max(...snaps)} and hold ${count} deletes`,
      );
    }
    for (const k of carried) this.ctx.st.delete(k);
    return true;
  }

  /**
   * In a commit batch: the flushed rows go (without history, as in stock: the new file answers every
   * snapshot they did). Alone — DuckLake sends the DELETE once before its commit batch too — it only
   * counts: removing rows outside the commit that registers their file would lose them if that commit
   * never came.
   */
  private async flushInlined(op: Extract<RowOp, { op: "flush_inlined" }>): Promise<number> {
    const t = Number(INLINED_DATA.exec(op.table)?.[1]);
    await this.liveTable(t);
    const rows = await this.flushedRows(op);
    if (this.snap === undefined) return rows.length;
    for (const [k] of rows) this.ctx.st.delete(k);
    // The rows went by schema version and snapshot, not by a row-id range: the floor rises to the lowest
    // row id still held (decision 0182).
    let past = 0;
    for (const [, r] of rows) past = Math.max(past, r.row_id + 1);
    if (rows.length > 0) await settleInlineFloor(this.ctx, t, { past });
    return rows.length;
  }

  private async insert(op: Extract<RowOp, { op: "insert" }>): Promise<number> {
    const inl = INLINED_DATA.exec(op.table);
    if (inl) return this.insertInlined(op, Number(inl[1]), Number(inl[2]));
    const del = INLINED_DELETE.exec(op.table);
    if (del) return this.insertInlinedDeletes(op, Number(del[1]));
    const columns = DUCKLAKE_TABLES[op.table];
    if (!columns) throw bad(`${quoteName(op.table)} is not a DuckLake table`);
    const rows = cellsOf(op, columns);
    for (const r of rows) {
      switch (op.table) {
        case "ducklake_snapshot":
        case "ducklake_snapshot_changes":
        case "ducklake_file_column_stats":
        case "ducklake_file_partition_value":
        case "ducklake_file_variant_stats":
          break; // read up front
        case "ducklake_schema":
          await this.insertSchema(r);
          break;
        case "ducklake_table":
          await this.insertTable(r);
          break;
        case "ducklake_column":
          await this.insertColumn(r);
          break;
        case "ducklake_inlined_data_tables":
          await this.insertInlinedTable(r);
          break;
        case "ducklake_schema_versions":
          await this.insertSchemaVersion(r);
          break;
        case "ducklake_table_stats":
          await this.insertTableStats(r);
          break;
        case "ducklake_table_column_stats":
          await this.insertColumnStats(r);
          break;
        case "ducklake_data_file":
          await this.insertDataFile(r);
          break;
        case "ducklake_delete_file":
          await this.insertDeleteFile(r);
          break;
        case "ducklake_view":
          await this.insertView(r);
          break;
        case "ducklake_macro":
          await this.insertMacro(r);
          break;
        case "ducklake_column_mapping":
          await this.insertNameMap(r);
          break;
        case "ducklake_macro_impl":
        case "ducklake_macro_parameters":
        case "ducklake_partition_column":
        case "ducklake_sort_expression":
        case "ducklake_name_mapping":
          break; // read up front, embedded in their parent
        case "ducklake_partition_info":
          await this.insertPartition(r);
          break;
        case "ducklake_sort_info":
          await this.insertSort(r);
          break;
        case "ducklake_tag":
          await this.insertTag(
            keys.current(Kind.tag, int(r.object_id, "object_id")),
            r,
            int(r.object_id, "object_id"),
          );
          break;
        case "ducklake_column_tag":
          await this.insertColumnTag(r);
          break;
        case "ducklake_metadata":
          await this.insertOption(r);
          break;
        case "ducklake_files_scheduled_for_deletion":
          await this.scheduleDeletion(r);
          break;
        default:
          throw new Unsupported(`staged rows for ${op.table} are not translated yet`);
      }
    }
    return rows.length;
  }

  private async insertSchema(r: Cells): Promise<void> {
    const ctx = this.ctx;
    const id = this.catalogId(int(r.schema_id, "schema_id"), "schema");
    this.begin(r.begin_snapshot, "schema");
    this.noEnd(r.end_snapshot, "schema");
    const name = str(r.schema_name, "schema_name");
    const existing = await ctx.lookupName(NameSpace.schema, 0, name);
    if (existing) throw new AlreadyExists(`schema ${quoteName(name)} already exists (id ${existing.id})`);
    ctx.putVersion<SchemaRecord>(Kind.schema, [id], ValueKind.schema, {
      schema_id: id,
      schema_uuid: str(r.schema_uuid, "schema_uuid"),
      begin_snapshot: this.S,
      end_snapshot: null,
      schema_name: name,
      path: str(r.path, "path"),
      path_is_relative: bool(r.path_is_relative, "path_is_relative"),
    });
    await ctx.addNameEntry(NameSpace.schema, 0, { name, id, kind: "schema" });
  }

  private async insertTable(r: Cells): Promise<void> {
    const ctx = this.ctx;
    const given = int(r.table_id, "table_id");
    // ALTER TABLE ... RENAME TO ends the table's row and inserts its next version under the same id and
    // uuid (columns, stats and files stay); any other insert must take a fresh catalog id.
    const previous = this.endedTables.get(given);
    const id = previous ? given : this.catalogId(given, "table");
    if (previous) {
      this.endedTables.delete(given);
      if (str(r.table_uuid, "table_uuid") !== previous.table_uuid)
        throw bad(`table id ${id} is re-inserted with a different table_uuid`);
    }
    this.begin(r.begin_snapshot, "table");
    this.noEnd(r.end_snapshot, "table");
    const schema = await ctx.schemaById(int(r.schema_id, "schema_id"));
    const name = str(r.table_name, "table_name");
    await ctx.ensureRelationNameFree(schema, name);
    ctx.putVersion<TableRecord>(Kind.table, [id], ValueKind.table, {
      table_id: id,
      table_uuid: str(r.table_uuid, "table_uuid"),
      begin_snapshot: this.S,
      end_snapshot: null,
      schema_id: schema.schema_id,
      table_name: name,
      path: str(r.path, "path"),
      path_is_relative: bool(r.path_is_relative, "path_is_relative"),
    });
    if (!previous)
      ctx.write(keys.current(Kind.tableMeta, id), ValueKind.tableMeta, {
        table_id: id,
        next_column_id: 1,
      } satisfies TableMetaRecord);
    await ctx.addNameEntry(NameSpace.relation, schema.schema_id, { name, id, kind: "table" });
    ctx.createdInSchemaIds.set(schema.schema_name.toLowerCase(), schema.schema_id);
    this.touched.add(id);
  }

  private async insertColumn(r: Cells): Promise<void> {
    const ctx = this.ctx;
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    const id = int(r.column_id, "column_id");
    this.begin(r.begin_snapshot, "column");
    this.noEnd(r.end_snapshot, "column");
    const k = keys.current(Kind.column, t, id);
    if (await ctx.read<ColumnRecord>(k, ValueKind.column, "column")) {
      throw bad(`column ${id} of table ${t} is already live`);
    }
    const parent = intOrNull(r.parent_column, "parent_column");
    if (
      parent !== null &&
      !(await ctx.read<ColumnRecord>(keys.current(Kind.column, t, parent), ValueKind.column, "column"))
    ) {
      throw new NotFound(`parent column ${parent} of table ${t} does not exist`);
    }
    ctx.putVersion<ColumnRecord>(Kind.column, [t, id], ValueKind.column, {
      column_id: id,
      table_id: t,
      column_order: int(r.column_order, "column_order"),
      column_name: str(r.column_name, "column_name"),
      column_type: str(r.column_type, "column_type"),
      initial_default: strOrNull(r.initial_default, "initial_default"),
      default_value: strOrNull(r.default_value, "default_value"),
      nulls_allowed: bool(r.nulls_allowed, "nulls_allowed"),
      parent_column: parent,
      default_value_type: strOrNull(r.default_value_type, "default_value_type"),
      default_value_dialect: strOrNull(r.default_value_dialect, "default_value_dialect"),
      begin_snapshot: this.S,
      end_snapshot: null,
    });
    const mk = keys.current(Kind.tableMeta, t);
    const meta = (await ctx.read<TableMetaRecord>(mk, ValueKind.tableMeta, "table meta")) ?? {
      table_id: t,
      next_column_id: 1,
    };
    if (id + 1 > meta.next_column_id) ctx.write(mk, ValueKind.tableMeta, { ...meta, next_column_id: id + 1 });
  }

  private async insertInlinedTable(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    const sv = int(r.schema_version, "schema_version");
    const name = str(r.table_name, "table_name");
    if (name !== `ducklake_inlined_data_${t}_${sv}`)
      throw bad(`inlined table ${quoteName(name)} is not named for table ${t}, version ${sv}`);
    const s = this.snap as NonNullable<Translator["snap"]>;
    if (sv !== s.schema_version)
      throw bad(`inlined table ${name} is not at the commit's schema version ${s.schema_version}`);
    this.ctx.write(keys.current(Kind.inlinedTable, t, sv), ValueKind.inlinedTable, {
      table_id: t,
      table_name: name,
      schema_version: sv,
      x_begin_snapshot: this.S,
    } satisfies InlinedTableRecord);
  }

  private async insertSchemaVersion(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    this.begin(r.begin_snapshot, "schema version");
    const s = this.snap as NonNullable<Translator["snap"]>;
    const sv = int(r.schema_version, "schema_version");
    if (sv !== s.schema_version)
      throw bad(`schema_versions row ${sv} is not the commit's ${s.schema_version}`);
    this.ctx.write(keys.current(Kind.schemaVersion, t, this.S), ValueKind.schemaVersion, {
      begin_snapshot: this.S,
      schema_version: sv,
      table_id: t,
    } satisfies SchemaVersionRecord);
  }

  private async insertTableStats(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    await this.premiseRowIds(t);
    if (await readTableStats(this.ctx, t)) throw bad(`table ${t} already has a ducklake_table_stats row`);
    writeTableStats(this.ctx, undefined, {
      table_id: t,
      record_count: int(r.record_count, "record_count"),
      next_row_id: int(r.next_row_id, "next_row_id"),
      file_size_bytes: int(r.file_size_bytes, "file_size_bytes"),
    });
  }

  private async updateTableStats(op: Extract<RowOp, { op: "table_stats" }>): Promise<number> {
    await this.liveTable(op.tableId);
    await this.premiseRowIds(op.tableId);
    const old = await readTableStats(this.ctx, op.tableId);
    if (!old) return 0;
    if (op.nextRowId < old.next_row_id) {
      throw bad(`table ${op.tableId}: next_row_id ${op.nextRowId} is below the head's ${old.next_row_id}`);
    }
    writeTableStats(this.ctx, old, {
      table_id: op.tableId,
      record_count: op.recordCount,
      next_row_id: op.nextRowId,
      file_size_bytes: op.fileSizeBytes,
    });
    return 1;
  }

  private columnStats(t: number, c: number, cells: Literal[]): TableColumnStatsRecord {
    return {
      table_id: t,
      column_id: c,
      contains_null: boolOrNull(cells[0], "contains_null"),
      contains_nan: boolOrNull(cells[1], "contains_nan"),
      min_value: strOrNull(cells[2], "min_value"),
      max_value: strOrNull(cells[3], "max_value"),
      extra_stats: strOrNull(cells[4], "extra_stats"),
      begin_snapshot: this.S,
      end_snapshot: null,
    };
  }

  private async insertColumnStats(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    const c = int(r.column_id, "column_id");
    if (await readColumnStats(this.ctx, t, c))
      throw bad(`column ${c} of table ${t} already has column stats`);
    writeColumnStats(
      this.ctx,
      undefined,
      this.columnStats(t, c, [
        r.contains_null,
        r.contains_nan,
        r.min_value,
        r.max_value,
        r.extra_stats,
      ] as Literal[]),
    );
  }

  private async updateColumnStats(op: Extract<RowOp, { op: "column_stats" }>): Promise<number> {
    let n = 0;
    for (const row of op.rows) {
      const t = int(row[0], "tid");
      const c = int(row[1], "cid");
      await this.liveTable(t);
      const old = await readColumnStats(this.ctx, t, c);
      if (!old) continue; // stock's UPDATE … FROM touches no row for it
      writeColumnStats(this.ctx, old, this.columnStats(t, c, row.slice(2)));
      n++;
    }
    return n;
  }

  private async insertDataFile(r: Cells): Promise<void> {
    // A rewrite's output, written by the compaction verb up front (collectRewrites).
    if (this.rewriteOutput(r)) return;
    const t = int(r.table_id, "table_id");
    const table = await this.liveTable(t);
    await this.premiseRowIds(t);
    const id = this.fileId(int(r.data_file_id, "data_file_id"), "data file");
    const begin = int(r.begin_snapshot, "data file.begin_snapshot");
    const flushed = begin !== this.S ? this.flushedInto(t, id, begin, r) : undefined;
    const merged = flushed ? undefined : this.mergedInto(t, begin, r);
    if (!merged && !flushed) this.begin(r.begin_snapshot, "data file");
    this.noEnd(r.end_snapshot, "data file");
    const rec: DataFileRecord = {
      data_file_id: id,
      table_id: t,
      begin_snapshot: begin,
      end_snapshot: null,
      file_order: intOrNull(r.file_order, "file_order"),
      path: str(r.path, "path"),
      path_is_relative: bool(r.path_is_relative, "path_is_relative"),
      file_format: str(r.file_format, "file_format"),
      record_count: int(r.record_count, "record_count"),
      file_size_bytes: int(r.file_size_bytes, "file_size_bytes"),
      footer_size: intOrNull(r.footer_size, "footer_size"),
      // A merge of non-adjacent files carries its rows' ids: the record keeps the lowest (decision 0322).
      row_id_start: merged && r.row_id_start?.k === "null" ? merged.lo : int(r.row_id_start, "row_id_start"),
      partition_id: intOrNull(r.partition_id, "partition_id"),
      encryption_key: strOrNull(r.encryption_key, "encryption_key"),
      mapping_id: intOrNull(r.mapping_id, "mapping_id"),
      partial_max: intOrNull(r.partial_max, "partial_max"),
      x_column_stats: this.fileStats.get(id) ?? [],
      x_variant_stats: this.variantStats.get(id) ?? [],
      x_partition_values: this.partitionValues.get(id) ?? [],
    };
    this.fileStats.delete(id);
    this.partitionValues.delete(id);
    this.variantStats.delete(id);
    // The verbs' rule (decisions 0105, 0601, and 0329's fence): a batch names no file outside the data path.
    await checkFilePath(this.ctx, table, "data", { path: rec.path, pathIsRelative: rec.path_is_relative });
    if (rec.mapping_id !== null) await checkFileMapping(this.ctx, t, rec.mapping_id);
    if (merged) {
      // The merged rows keep their row ids: within the range the removed files held, all of them.
      if (rec.row_id_start < merged.lo || rec.row_id_start + rec.record_count > merged.hi) {
        throw bad(`merged data file ${id} holds row ids outside the files it replaces`);
      }
      if (rec.record_count !== merged.rows)
        throw bad(
          `merged data file ${id} holds ${rec.record_count} rows, the files it replaces ${merged.rows}`,
        );
      if (r.row_id_start?.k === "null") rec.x_row_ids_in_file = true;
    } else if (flushed?.idsInFile) {
      // DuckLake registers the lowest id; the ids are the file's (docs/decisions/0617-partitioned-flush.md).
      rec.x_row_ids_in_file = true;
      rec.x_row_id_start_shown = true;
    } else if (!flushed) this.useRowIds(t, rec.row_id_start, rec.record_count);
    // Written as is (not putVersion): a merged file keeps the first replaced file's begin.
    this.ctx.write(keys.current(Kind.dataFile, t, id), ValueKind.dataFile, rec);
    this.ctx.newFileTables.add(t);
  }

  /**
   * A name map of `ducklake_add_data_files` (decision 0600): its id is a fresh file id (DuckLake takes it
   * from `next_file_id` ahead of the files), its columns the batch's `ducklake_name_mapping` rows.
   */
  private async insertNameMap(r: Cells): Promise<void> {
    const id = this.fileId(int(r.mapping_id, "mapping_id"), "column mapping");
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    const columns = this.nameMapColumns.get(id) ?? [];
    this.nameMapColumns.delete(id);
    await writeNameMap(this.ctx, {
      mapping_id: id,
      table_id: t,
      type: str(r.type, "type"),
      x_names: columns,
    });
  }

  private async insertDeleteFile(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    const table = await this.liveTable(t);
    const id = this.fileId(int(r.delete_file_id, "delete_file_id"), "delete file");
    const f = int(r.data_file_id, "data_file_id");
    const replaced = this.replacedDeletes.get(f);
    const begin = int(r.begin_snapshot, "delete file.begin_snapshot");
    // A delete file that replaces one this batch removed keeps that file's begin (its rows carry their
    // snapshots, partial_max the newest): DuckLake's rewrite of a file's deletes.
    if (
      !(await this.carriedInlinedDeletes(t, f, begin, r, replaced)) &&
      !(
        replaced &&
        begin === replaced.begin_snapshot &&
        intOrNull(r.partial_max, "partial_max") === this.S
      ) &&
      !(begin !== this.S && this.flushDeletes(t, f, begin, r))
    ) {
      this.begin(r.begin_snapshot, "delete file");
    }
    this.noEnd(r.end_snapshot, "delete file");
    if (
      !(await this.ctx.read<DataFileRecord>(
        keys.current(Kind.dataFile, t, f),
        ValueKind.dataFile,
        "data file",
      ))
    ) {
      throw new NotFound(`data file ${f} of table ${t} does not exist (or was removed)`);
    }
    const path = str(r.path, "path");
    const pathIsRelative = bool(r.path_is_relative, "path_is_relative");
    await checkFilePath(this.ctx, table, "delete", { path, pathIsRelative });
    // Written as is (not putVersion): a replacement keeps the replaced file's begin.
    this.ctx.write(keys.current(Kind.deleteFile, t, id), ValueKind.deleteFile, {
      delete_file_id: id,
      table_id: t,
      data_file_id: f,
      begin_snapshot: begin,
      end_snapshot: null,
      path,
      path_is_relative: pathIsRelative,
      format: str(r.format, "format"),
      delete_count: int(r.delete_count, "delete_count"),
      file_size_bytes: int(r.file_size_bytes, "file_size_bytes"),
      footer_size: intOrNull(r.footer_size, "footer_size"),
      encryption_key: strOrNull(r.encryption_key, "encryption_key"),
      partial_max: intOrNull(r.partial_max, "partial_max"),
    } satisfies DeleteFileRecord);
    this.ctx.deletedDataFileIds.add(f);
    this.parquetDeletes.add(t);
  }

  /**
   * DuckLake's merge output: a data file replacing the next run of files of its table this batch removed
   * (in removal order, which is the compactions' source order) that no earlier output replaced, back-dated
   * by `mergeSpan` (decision 0610). The run holds the output's rows (a merge drops none); of the runs that
   * do (files without rows may end one), the shortest whose span the row names. Its sources' row-id span
   * and row count, or undefined for a file that replaces none.
   */
  private mergedInto(
    t: number,
    begin: number,
    r: Cells,
  ): { lo: number; hi: number; rows: number } | undefined {
    const open = [...this.removedData.values()].filter(
      (f) => f.table_id === t && !this.mergedSources.has(f.data_file_id),
    );
    if (open.length === 0 || begin === this.S) return undefined;
    const rows = int(r.record_count, "record_count");
    const partialMax = intOrNull(r.partial_max, "partial_max");
    let sum = 0;
    let named: MergeSpan | undefined;
    for (let n = 1; n <= open.length && sum <= rows; n++) {
      const run = open.slice(0, n);
      sum += run[n - 1]?.record_count ?? 0;
      if (sum !== rows) continue;
      const span = mergeSpan(run);
      named ??= span;
      if (span.begin !== begin || span.partialMax !== partialMax) continue;
      for (const f of run) this.mergedSources.add(f.data_file_id);
      const held = run.filter((f) => f.record_count > 0);
      return {
        lo: Math.min(...held.map((f) => f.row_id_start)),
        hi: Math.max(...held.map((f) => f.row_id_start + f.record_count)),
        rows,
      };
    }
    throw bad(
      named
        ? `data file begins at snapshot ${begin} with partial_max ${partialMax}: only a merge back-dates a file, to its first file's snapshot ${named.begin} with partial_max ${named.partialMax}`
        : `data file begins at snapshot ${begin}: only a merge back-dates a file, and no run of the files removed before it holds its ${rows} rows`,
    );
  }

  /**
   * A merge whose sources hold no rows writes no output (DuckLake's merge of empty files): any other
   * data file this batch removed from a merged table must have been replaced by a merged output.
   */
  private checkMergesReplaced(): void {
    const merged = this.changeSet().mergeAdjacent;
    for (const f of this.removedData.values()) {
      if (merged.includes(f.table_id) && !this.mergedSources.has(f.data_file_id) && f.record_count > 0) {
        throw bad(`data file ${f.data_file_id} of ${f.record_count} rows is merged into no output file`);
      }
    }
  }

  /**
   * Tables whose new file rows this batch inserts, or that it merges (a merge of empty files inserts
   * none): where the files it removes by id are looked up.
   */
  private fileTables(): number[] {
    const out = new Set<number>(this.changeSet().mergeAdjacent);
    for (const op of this.ops) {
      if (op.op !== "insert" || (op.table !== "ducklake_data_file" && op.table !== "ducklake_delete_file"))
        continue;
      for (const r of cellsOf(op, DUCKLAKE_TABLES[op.table] ?? [])) out.add(int(r.table_id, "table_id"));
    }
    return [...out];
  }

  /**
   * `DELETE FROM ducklake_<file table> WHERE <file id> IN (…)`: DuckLake rewriting files — a data file's
   * delete files merged into one (back-dated to the old file's begin), or adjacent data files merged into
   * one (back-dated to the first file's begin, `partial_max` the last's). The old rows go without history,
   * as in stock: the new file answers every snapshot the old ones did. Their replacement must follow in
   * the same batch, in a table that batch writes files to.
   */
  private async removeRows(op: Extract<RowOp, { op: "delete" }>): Promise<number> {
    const ctx = this.ctx;
    let n = 0;
    if (op.table === "ducklake_files_scheduled_for_deletion") {
      // ducklake_cleanup_old_files: DuckLake removed the objects, then drops their schedule rows.
      for (const id of op.ids) {
        const k = keys.current(Kind.gcFile, id);
        if (!(await ctx.st.get(k))) continue;
        ctx.st.delete(k);
        n++;
      }
      return n;
    }
    if (this.snap === undefined) return this.expireFiles(op);
    for (const id of op.ids) {
      if (op.table === "ducklake_data_file") {
        for (const t of this.fileTables()) {
          const k = keys.current(Kind.dataFile, t, id);
          const rec = await ctx.read<DataFileRecord>(k, ValueKind.dataFile, "data file");
          if (!rec) continue;
          ctx.st.delete(k);
          this.removedData.set(id, rec);
          this.touched.add(t);
          n++;
        }
      } else if (op.table === "ducklake_delete_file") {
        for (const t of this.fileTables()) {
          for (const rec of await ctx.scan<DeleteFileRecord>(
            keys.current(Kind.deleteFile, t),
            ValueKind.deleteFile,
            "delete file",
          )) {
            if ((op.key === "delete_file_id" ? rec.delete_file_id : rec.data_file_id) !== id) continue;
            if (op.key === "data_file_id" && !this.removedData.has(id)) {
              throw bad(`delete files of data file ${id} are removed while the data file stays`);
            }
            ctx.st.delete(keys.current(Kind.deleteFile, t, rec.delete_file_id));
            if (op.key === "delete_file_id") {
              if (this.replacedDeletes.has(rec.data_file_id))
                throw bad(`data file ${rec.data_file_id} loses two delete files`);
              this.replacedDeletes.set(rec.data_file_id, rec);
            }
            this.removedDeleteIds.add(rec.delete_file_id);
            this.touched.add(t);
            n++;
          }
        }
      } else {
        // Child rows embedded in the data file record: they went with it.
        const rec = this.removedData.get(id);
        if (!rec) throw bad(`${op.table} rows of data file ${id} are removed while the data file stays`);
        n +=
          op.table === "ducklake_file_column_stats"
            ? rec.x_column_stats.length
            : op.table === "ducklake_file_partition_value"
              ? rec.x_partition_values.length
              : rec.x_variant_stats.length;
      }
    }
    return n;
  }

  private async scheduleDeletion(r: Cells): Promise<void> {
    const id = int(r.data_file_id, "data_file_id");
    if (this.snap === undefined) {
      // expire_snapshots schedules a file after removing its row, in a request of its own: the file must be
      // one the catalog no longer names (docs/decisions/0241-quack-expire-snapshots.md).
      if (id >= this.premise.next_file_id) throw bad(`file id ${id} was never allocated`);
      if (
        (await this.fileVersions(true, "data_file_id", id)).length > 0 ||
        (await this.fileVersions(false, "delete_file_id", id)).length > 0
      )
        throw bad(`file ${id} is scheduled for deletion while the catalog still names it`);
    } else if (!this.removedDeleteIds.has(id) && !this.removedData.has(id)) {
      throw new Unsupported(
        "scheduling files for deletion outside a delete-file rewrite is not translated yet",
      );
    }
    if (r.schedule_start?.k !== "now") throw bad("schedule_start must be NOW()");
    const path = str(r.path, "path");
    const pathIsRelative = bool(r.path_is_relative, "path_is_relative");
    // The writer's delete job removes what a schedule names: the same rule as a registered file's.
    await checkScheduledPath(this.ctx, { path, pathIsRelative });
    this.ctx.write(keys.current(Kind.gcFile, id), ValueKind.gcFile, {
      data_file_id: id,
      path,
      path_is_relative: pathIsRelative,
      schedule_start: Math.floor(this.ctx.env.now() * 1000),
    } satisfies GcFileRecord);
  }

  /** The data columns of `ducklake_inlined_data_<t>_<sv>`: created by this batch, or the table's current ones. */
  private async inlinedColumns(t: number, sv: number): Promise<string[]> {
    const name = `ducklake_inlined_data_${t}_${sv}`;
    const created = this.createdInlined.get(name);
    if (created) return created;
    const reg = await this.ctx.read<InlinedTableRecord>(
      keys.current(Kind.inlinedTable, t, sv),
      ValueKind.inlinedTable,
      "inlined table",
    );
    if (!reg) throw new NotFound(`inlined table ${name} does not exist`);
    let newest = sv;
    for await (const kv of this.ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, t) })) {
      const rec = await this.ctx.read<InlinedTableRecord>(kv.key, ValueKind.inlinedTable, "inlined table");
      if (rec && rec.schema_version > newest) newest = rec.schema_version;
    }
    if (newest !== sv)
      throw new Unsupported(
        `rows for ${name}, an inlined table older than the table's newest, are not translated yet`,
      );
    return (await this.ctx.columns(t))
      .filter((c) => c.parent_column === null)
      .sort((a, b) => a.column_order - b.column_order)
      .map((c) => c.column_name);
  }

  private async create(op: Extract<RowOp, { op: "create" }>): Promise<number> {
    const inl = INLINED_DATA.exec(op.table);
    if (inl) {
      const t = Number(inl[1]);
      const sv = Number(inl[2]);
      await this.liveTable(t);
      const head = op.columns.slice(0, 3).map((c) => `${c.name} ${c.type}`);
      if (head.join(",") !== "row_id BIGINT,begin_snapshot BIGINT,end_snapshot BIGINT") {
        throw bad(`${op.table} does not start with row_id, begin_snapshot, end_snapshot`);
      }
      const reg = await this.ctx.read<InlinedTableRecord>(
        keys.current(Kind.inlinedTable, t, sv),
        ValueKind.inlinedTable,
        "inlined table",
      );
      if (!reg) throw bad(`${op.table} is created without its ducklake_inlined_data_tables row`);
      const cols = (await this.ctx.columns(t))
        .filter((c) => c.parent_column === null)
        .sort((a, b) => a.column_order - b.column_order)
        .map((c) => c.column_name);
      const declared = op.columns.slice(3).map((c) => c.name);
      if (declared.join("\u0000").toLowerCase() !== cols.join("\u0000").toLowerCase()) {
        throw bad(
          `${op.table} declares columns (${declared.join(", ")}), the table has (${cols.join(", ")})`,
        );
      }
      this.createdInlined.set(op.table, cols);
      return 0;
    }
    const del = INLINED_DELETE.exec(op.table);
    if (del) {
      const t = Number(del[1]);
      await this.liveTable(t);
      if (
        op.columns.map((c) => `${c.name} ${c.type}`).join(",") !==
        "file_id BIGINT,row_id BIGINT,begin_snapshot BIGINT"
      ) {
        throw bad(`${op.table} is not (file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)`);
      }
      const k = keys.current(Kind.tableMeta, t);
      const meta = (await this.ctx.read<TableMetaRecord>(k, ValueKind.tableMeta, "table meta")) ?? {
        table_id: t,
        next_column_id: 1,
      };
      if (meta.x_inlined_delete_since === undefined) {
        this.ctx.write(k, ValueKind.tableMeta, {
          ...meta,
          x_inlined_delete_since: this.S,
        } satisfies TableMetaRecord);
      }
      return 0;
    }
    throw new Unsupported(`CREATE TABLE ${op.table} outside a lake's initialization batch`);
  }

  private async insertInlined(op: Extract<RowOp, { op: "insert" }>, t: number, sv: number): Promise<number> {
    await this.liveTable(t);
    await this.premiseRowIds(t);
    const data = await this.inlinedColumns(t, sv);
    const columns = ["row_id", "begin_snapshot", "end_snapshot", ...data];
    const all = await this.ctx.columns(t);
    const nodes = new Map(
      all.filter((c) => c.parent_column === null).map((c) => [c.column_name, columnTree(all, c)] as const),
    );

    const rows = cellsOf(op, columns);
    for (const r of rows) {
      const rowId = int(r.row_id, "row_id");
      this.begin(r.begin_snapshot, "inlined row");
      this.noEnd(r.end_snapshot, "inlined row");
      const k = keys.inlineRow(t, rowId);
      const prior = await this.ctx.read<InlineRowRecord>(k, ValueKind.inlineRow, "inlined row");
      if (prior) {
        // An UPDATE keeps the row id: the prior version moves aside, to be ended by this batch.
        if (prior.begin_snapshot === this.S)
          throw bad(`inlined row ${rowId} of table ${t} is inserted twice`);
        await writeInlinedRows(this.ctx, t, [{ record: prior, asVersion: true }]);
        this.lineage(t).add(rowId);
      }
      const values: InlineRowRecord["values"] = {};
      // The stored form and what is valid per type are catalog/values/' rules (decision 0120).
      for (const c of data) {
        const node = nodes.get(c);
        if (!node) throw bad(`${op.table} has no column ${quoteName(c)}`);
        const cell = cellValue(node, r[c] as Literal, inlineValue);
        values[c] = parseValue(node, cell, `${op.table}.${c} (row ${rowId})`);
      }
      await writeInlinedRows(this.ctx, t, [
        { record: { row_id: rowId, begin_snapshot: this.S, end_snapshot: null, schema_version: sv, values } },
      ]);
      this.useRowIds(t, rowId, 1);
    }
    this.ctx.inlinedInsertTables.add(t);
    return rows.length;
  }

  private async insertInlinedDeletes(op: Extract<RowOp, { op: "insert" }>, t: number): Promise<number> {
    await this.liveTable(t);
    const rows = cellsOf(op, ["file_id", "row_id", "begin_snapshot"]);
    for (const r of rows) {
      const f = int(r.file_id, "file_id");
      const pos = int(r.row_id, "row_id");
      this.begin(r.begin_snapshot, "inlined delete");
      const file = await this.ctx.read<DataFileRecord>(
        keys.current(Kind.dataFile, t, f),
        ValueKind.dataFile,
        "data file",
      );
      if (!file) throw new NotFound(`data file ${f} of table ${t} does not exist (or was removed)`);
      if (pos < 0 || pos >= file.record_count)
        throw bad(`position ${pos} is outside data file ${f}'s ${file.record_count} rows`);
      // A rewritten file's rows carry their own ids (decision 0322): the id at a position is in the
      // Parquet file, so an UPDATE's new version is not checkable against it (as for a delete file).
      if (file.x_row_ids_in_file) this.parquetDeletes.add(t);
      else this.lineage(t).add(file.row_id_start + pos);
      this.ctx.write(keys.inlineFileDelete(t, f, pos), ValueKind.inlineFileDelete, {
        file_id: f,
        row_id: pos,
        begin_snapshot: this.S,
      } satisfies InlineFileDeleteRecord);
      this.ctx.deletedDataFileIds.add(f);
    }
    return rows.length;
  }

  private async endInlined(op: Extract<RowOp, { op: "end_inlined" }>): Promise<number> {
    const m = INLINED_DATA.exec(op.table);
    if (!m) throw bad(`${op.table} is not an inlined data table`);
    const t = Number(m[1]);
    await this.liveTable(t);
    if (op.endSnapshot !== this.S) throw bad(`rows are ended at snapshot ${op.endSnapshot}, not ${this.S}`);
    let n = 0;
    for (const rowId of op.rowIds) {
      // The live version not begun by this batch: the row's own key, or a version moved aside above.
      for await (const kv of this.ctx.st.scan({ prefix: keys.inlineRow(t, rowId) })) {
        const raw = await this.ctx.read<InlineRowRecord>(kv.key, ValueKind.inlineRow, "inlined row");
        if (!raw || raw.end_snapshot !== null || raw.begin_snapshot === this.S) continue;
        await writeInlinedRows(this.ctx, t, [inlineRowWriteAt(t, kv.key, { ...raw, end_snapshot: this.S })]);
        this.lineage(t).add(rowId);
        n++;
      }
    }
    this.ctx.deletesUntargeted = true;
    return n;
  }

  private async end(op: Extract<RowOp, { op: "end" }>): Promise<number> {
    if (op.endSnapshot !== this.S) throw bad(`rows are ended at snapshot ${op.endSnapshot}, not ${this.S}`);
    const ctx = this.ctx;
    let n = 0;
    const spec = ENDABLE[op.table];
    if (spec && op.key === spec.key) {
      for (const t of op.ids) {
        this.touched.add(t);
        for await (const kv of ctx.st.scan({ prefix: keys.current(spec.kind, t) })) {
          const rec = await ctx.read<Versioned & { table_id: number }>(kv.key, spec.vk, op.table);
          if (!rec) continue;
          const id = this.entityId(op.table, rec);
          ctx.endVersion(spec.kind, [t, id], spec.vk, rec);
          n++;
        }
      }
      return n;
    }
    if (op.table === "ducklake_data_file" && op.key === "data_file_id") return this.dropFiles(op.ids);
    if (op.table === "ducklake_table" && op.key === "table_id") {
      for (const t of op.ids) {
        const rec = await ctx.read<TableRecord>(keys.current(Kind.table, t), ValueKind.table, "table");
        if (!rec) continue;
        ctx.endVersion(Kind.table, [t], ValueKind.table, rec);
        await ctx.removeNameEntry(NameSpace.relation, rec.schema_id, rec.table_name);
        this.endedTables.set(t, rec);
        this.touched.add(t);
        n++;
      }
      return n;
    }
    if (op.table === "ducklake_schema" && op.key === "schema_id") {
      for (const id of op.ids) {
        const rec = await ctx.read<SchemaRecord>(keys.current(Kind.schema, id), ValueKind.schema, "schema");
        if (!rec) continue;
        ctx.endVersion(Kind.schema, [id], ValueKind.schema, rec);
        await ctx.removeNameEntry(NameSpace.schema, 0, rec.schema_name);
        ctx.droppedSchemaNames.set(id, rec.schema_name);
        n++;
      }
      return n;
    }
    if (op.table === "ducklake_macro" && op.key === "macro_id") {
      for (const id of op.ids) {
        const rec = await ctx.read<MacroRecord>(keys.current(Kind.macro, id), ValueKind.macro, "macro");
        if (!rec) continue;
        await endMacro(ctx, rec);
        n++;
      }
      return n;
    }
    if (op.table === "ducklake_view" && op.key === "view_id") {
      for (const v of op.ids) {
        const rec = await ctx.read<ViewRecord>(keys.current(Kind.view, v), ValueKind.view, "view");
        if (!rec) continue;
        ctx.endVersion(Kind.view, [v], ValueKind.view, rec);
        await ctx.removeNameEntry(NameSpace.relation, rec.schema_id, rec.view_name);
        this.endedViews.set(v, rec);
        n++;
      }
      return n;
    }
    if (
      (op.table === "ducklake_tag" && op.key === "object_id") ||
      (op.table === "ducklake_column_tag" && op.key === "table_id")
    ) {
      const kind = op.table === "ducklake_tag" ? Kind.tag : Kind.columnTag;
      for (const id of op.ids) {
        for await (const kv of ctx.st.scan({ prefix: keys.current(kind, id) })) {
          const c = (await ctx.read<TagContainer>(kv.key, ValueKind.tagContainer, "tag")) ?? { entries: [] };
          const live = c.entries.filter((e) => e.end_snapshot === null).length;
          if (live === 0) continue;
          n += live;
          const entries = c.entries
            .filter((e) => !(e.end_snapshot === null && e.begin_snapshot === this.S))
            .map((e) => (e.end_snapshot === null ? { ...e, end_snapshot: this.S } : e));
          ctx.write(kv.key, ValueKind.tagContainer, { entries });
        }
      }
      return n;
    }
    throw new Unsupported(`ending ${op.table} rows by ${op.key} is not translated yet`);
  }

  /**
   * `UPDATE ducklake_data_file SET end_snapshot = N WHERE end_snapshot IS NULL AND data_file_id IN (…)`: a
   * DELETE covering every live row of those files drops them whole instead of writing a delete file
   * (docs/decisions/0248-quack-dropped-files.md). Each must be a live file of a table `changes_made` names
   * as `deleted_from_table`; its delete files stay as they are, as stock leaves them, and the table's stats
   * are not touched (DuckLake sends no update for them).
   */
  private async dropFiles(ids: readonly number[]): Promise<number> {
    if (this.changes === undefined) throw bad("data files are dropped outside a commit");
    const tables = parseChangesMade(strOrNull(this.changes.changes_made, "changes_made")).deletedFromTable;
    let n = 0;
    for (const id of new Set(ids)) {
      const t = await tableOfDroppedFile(this.ctx, tables, id);
      await dropDataFile(this.ctx, await this.liveTable(t), id);
      this.touched.add(t);
      n++;
    }
    return n;
  }

  private entityId(table: string, rec: Versioned): number {
    switch (table) {
      case "ducklake_column":
        return (rec as ColumnRecord).column_id;
      case "ducklake_data_file":
        return (rec as DataFileRecord).data_file_id;
      case "ducklake_delete_file":
        return (rec as DeleteFileRecord).delete_file_id;
      case "ducklake_partition_info":
        return (rec as PartitionRecord).partition_id;
      default:
        return (rec as SortRecord).sort_id;
    }
  }

  /** Child rows (file stats, partition values and columns, macro impls and parameters) no parent claimed. */
  leftovers(): string[] {
    return [
      ...[...this.fileStats.keys(), ...this.partitionValues.keys(), ...this.variantStats.keys()].map(
        (f) => `data file ${f}`,
      ),
      ...[...this.partitionColumns.keys()].map((p) => `partition ${p}`),
      ...[...this.sortExpressions.keys()].map((x) => `sort ${x}`),
      ...[...this.macroImpls.keys()].map((m) => `macro ${m}`),
      ...[...this.macroParams.keys()].map((k) => `macro impl ${k}`),
    ];
  }

  private async insertView(r: Cells): Promise<void> {
    const ctx = this.ctx;
    const given = int(r.view_id, "view_id");
    // ALTER VIEW … RENAME TO ends the view's row and inserts its next version under the same id and uuid.
    const previous = this.endedViews.get(given);
    const id = previous ? given : this.catalogId(given, "view");
    if (previous) {
      this.endedViews.delete(given);
      if (str(r.view_uuid, "view_uuid") !== previous.view_uuid)
        throw bad(`view id ${id} is re-inserted with a different view_uuid`);
    }
    this.begin(r.begin_snapshot, "view");
    this.noEnd(r.end_snapshot, "view");
    const schema = await ctx.schemaById(int(r.schema_id, "schema_id"));
    const name = str(r.view_name, "view_name");
    await ctx.ensureRelationNameFree(schema, name);
    ctx.putVersion<ViewRecord>(Kind.view, [id], ValueKind.view, {
      view_id: id,
      view_uuid: str(r.view_uuid, "view_uuid"),
      begin_snapshot: this.S,
      end_snapshot: null,
      schema_id: schema.schema_id,
      view_name: name,
      dialect: str(r.dialect, "dialect"),
      sql: str(r.sql, "sql"),
      column_aliases: strOrNull(r.column_aliases, "column_aliases"),
    });
    await ctx.addNameEntry(NameSpace.relation, schema.schema_id, { name, id, kind: "view" });
    ctx.createdInSchemaIds.set(schema.schema_name.toLowerCase(), schema.schema_id);
  }

  private async insertMacro(r: Cells): Promise<void> {
    const ctx = this.ctx;
    const id = this.catalogId(int(r.macro_id, "macro_id"), "macro");
    this.begin(r.begin_snapshot, "macro");
    this.noEnd(r.end_snapshot, "macro");
    const schema = await ctx.schemaById(int(r.schema_id, "schema_id"));
    const name = str(r.macro_name, "macro_name");
    const impls = (this.macroImpls.get(id) ?? []).map((i) => {
      const key = `${id}/${i.impl_id}`;
      const params = this.macroParams.get(key) ?? [];
      this.macroParams.delete(key);
      return { ...i, x_parameters: params };
    });
    this.macroImpls.delete(id);
    if (impls.length === 0) throw bad(`macro ${id} has no ducklake_macro_impl row`);
    // A scalar and a table macro of one name coexist, as in DuckDB's catalog.
    const kind = macroEntryKind(impls.every((i) => i.type === "table") ? "table" : "scalar");
    const existing = await ctx.lookupName(NameSpace.macro, schema.schema_id, name, kind);
    if (existing)
      throw new AlreadyExists(`macro ${quoteName(schema.schema_name)}.${quoteName(name)} already exists`);
    ctx.putVersion<MacroRecord>(Kind.macro, [id], ValueKind.macro, {
      macro_id: id,
      schema_id: schema.schema_id,
      macro_name: name,
      begin_snapshot: this.S,
      end_snapshot: null,
      x_impls: impls,
    });
    await ctx.addNameEntry(NameSpace.macro, schema.schema_id, { name, id, kind });
    ctx.createdInSchemaIds.set(schema.schema_name.toLowerCase(), schema.schema_id);
  }

  private async insertPartition(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    const id = this.catalogId(int(r.partition_id, "partition_id"), "partition");
    this.begin(r.begin_snapshot, "partition");
    this.noEnd(r.end_snapshot, "partition");
    const cols = this.partitionColumns.get(id) ?? [];
    this.partitionColumns.delete(id);
    for (const c of cols) {
      if (
        !(await this.ctx.read<ColumnRecord>(
          keys.current(Kind.column, t, c.column_id),
          ValueKind.column,
          "column",
        ))
      ) {
        throw new NotFound(`partition column ${c.column_id} of table ${t} does not exist`);
      }
    }
    this.ctx.putVersion<PartitionRecord>(Kind.partition, [t, id], ValueKind.partition, {
      partition_id: id,
      table_id: t,
      begin_snapshot: this.S,
      end_snapshot: null,
      x_columns: cols.sort((a, b) => a.partition_key_index - b.partition_key_index),
    });
  }

  /**
   * `ALTER TABLE … SET SORTED BY`: a new sort version of a live table (its expressions embedded, in key
   * order), after the `UPDATE ducklake_sort_info SET end_snapshot` that ends the previous one. The
   * expressions are DuckDB SQL kept as text, as stock keeps them.
   */
  private async insertSort(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    await this.liveTable(t);
    const id = this.catalogId(int(r.sort_id, "sort_id"), "sort");
    this.begin(r.begin_snapshot, "sort");
    this.noEnd(r.end_snapshot, "sort");
    const exprs = this.sortExpressions.get(id) ?? [];
    this.sortExpressions.delete(id);
    const live = await this.ctx.scan<SortRecord>(keys.current(Kind.sort, t), ValueKind.sort, "sort");
    if (live.some((x) => x.end_snapshot === null))
      throw bad(`table ${t} already has a live sort order; end it before inserting sort ${id}`);
    const wrong = exprs.find((e) => e.tableId !== t);
    if (wrong) throw bad(`sort ${id}'s expression names table ${wrong.tableId}, not ${t}`);
    const x_expressions = exprs.map((e) => e.expr).sort((a, b) => a.sort_key_index - b.sort_key_index);
    this.ctx.putVersion<SortRecord>(Kind.sort, [t, id], ValueKind.sort, {
      sort_id: id,
      table_id: t,
      begin_snapshot: this.S,
      end_snapshot: null,
      x_expressions,
    });
  }

  private async insertTag(k: Uint8Array, r: Cells, objectId: number): Promise<void> {
    this.begin(r.begin_snapshot, "tag");
    this.noEnd(r.end_snapshot, "tag");
    const exists =
      (await this.ctx.read(keys.current(Kind.schema, objectId), ValueKind.schema, "schema")) ??
      (await this.ctx.read(keys.current(Kind.table, objectId), ValueKind.table, "table")) ??
      (await this.ctx.read(keys.current(Kind.view, objectId), ValueKind.view, "view"));
    if (!exists) throw new NotFound(`object id ${objectId} (schema, table or view) does not exist`);
    const key = str(r.key, "key");
    const c = (await this.ctx.read<TagContainer>(k, ValueKind.tagContainer, "tag")) ?? { entries: [] };
    if (c.entries.some((e) => e.key === key && e.end_snapshot === null)) {
      throw bad(`tag ${quoteName(key)} is still live on object ${objectId}; end it first`);
    }
    const entries = [
      ...c.entries,
      { key, value: strOrNull(r.value, "value"), begin_snapshot: this.S, end_snapshot: null },
    ];
    this.ctx.write(k, ValueKind.tagContainer, { entries } satisfies TagContainer);
  }

  private async insertColumnTag(r: Cells): Promise<void> {
    const t = int(r.table_id, "table_id");
    const c = int(r.column_id, "column_id");
    await this.liveTable(t);
    // DuckLake's batch writes column tags before new columns (COMMENT ON COLUMN of a column added in the
    // same transaction): a column this batch inserts is one the tag may name (decision 0613).
    if (
      !(await this.ctx.read<ColumnRecord>(keys.current(Kind.column, t, c), ValueKind.column, "column")) &&
      !this.insertsColumn(t, c)
    ) {
      throw new NotFound(`column ${c} of table ${t} does not exist`);
    }
    await this.insertTag(keys.current(Kind.columnTag, t, c), r, t);
  }

  /** True when this batch inserts column `c` of table `t` (a later statement of it). */
  private insertsColumn(t: number, c: number): boolean {
    return this.ops.some(
      (op) =>
        op.op === "insert" &&
        op.table === "ducklake_column" &&
        cellsOf(op, DUCKLAKE_TABLES.ducklake_column ?? []).some(
          (r) => int(r.table_id, "table_id") === t && int(r.column_id, "column_id") === c,
        ),
    );
  }

  private async endTags(op: Extract<RowOp, { op: "end_tags" }>): Promise<number> {
    if (op.endSnapshot !== this.S) throw bad(`tags are ended at snapshot ${op.endSnapshot}, not ${this.S}`);
    let n = 0;
    for (const row of op.rows) {
      const column = op.table === "ducklake_column_tag";
      const id = int(row[0], "tid");
      const k = column ? keys.current(Kind.columnTag, id, int(row[1], "cid")) : keys.current(Kind.tag, id);
      const key = str(row[column ? 2 : 1], "key");
      const c = await this.ctx.read<TagContainer>(k, ValueKind.tagContainer, "tag");
      if (!c) continue;
      const live = c.entries.find((e) => e.key === key && e.end_snapshot === null);
      if (!live) continue;
      const entries = c.entries
        .filter((e) => e !== live || e.begin_snapshot !== this.S)
        .map((e) => (e === live ? { ...e, end_snapshot: this.S } : e));
      this.ctx.write(k, ValueKind.tagContainer, { entries } satisfies TagContainer);
      n++;
    }
    return n;
  }

  private async endColumns(op: Extract<RowOp, { op: "end_columns" }>): Promise<number> {
    if (op.endSnapshot !== this.S)
      throw bad(`columns are ended at snapshot ${op.endSnapshot}, not ${this.S}`);
    let n = 0;
    for (const row of op.rows) {
      const t = int(row[0], "tid");
      const c = int(row[1], "cid");
      await this.liveTable(t);
      const rec = await this.ctx.read<ColumnRecord>(
        keys.current(Kind.column, t, c),
        ValueKind.column,
        "column",
      );
      if (!rec) continue;
      this.ctx.endVersion(Kind.column, [t, c], ValueKind.column, rec);
      n++;
    }
    return n;
  }

  /** ducklake_metadata rows are options: the set_option verb applies them, so its validation holds. */
  private async insertOption(r: Cells): Promise<void> {
    const key = str(r.key, "key");
    const value = str(r.value, "value");
    const scope = strOrNull(r.scope, "scope");
    const scopeId = intOrNull(r.scope_id, "scope_id");
    const k = optionKey(scope, scopeId);
    const prior = await this.ctx.read<OptionRecord>(k, ValueKind.option, "option");
    if (prior?.values[key] !== undefined) throw bad(`option ${quoteName(key)} is already set at that scope`);
    await this.setOption(key, value, scope, scopeId);
  }

  private async updateOption(op: Extract<RowOp, { op: "option_update" }>): Promise<number> {
    const prior = await this.ctx.read<OptionRecord>(
      optionKey(op.scope, op.scopeId),
      ValueKind.option,
      "option",
    );
    if (prior?.values[op.key] === undefined) return 0;
    await this.setOption(op.key, op.value, op.scope, op.scopeId);
    return 1;
  }

  private async setOption(
    name: string,
    value: string,
    scope: string | null,
    scopeId: number | null,
  ): Promise<void> {
    const scopeRef =
      scope === null
        ? undefined
        : scope === "schema"
          ? { schema: { id: scopeId ?? -1 } }
          : scope === "table"
            ? { table: { id: scopeId ?? -1 } }
            : undefined;
    if (scope !== null && scopeRef === undefined)
      throw bad(`option scope ${quoteName(scope)} is not schema or table`);
    await applyVerb(this.ctx, { op: "set_option", name, value, ...(scopeRef ? { scope: scopeRef } : {}) });
    const stored = await this.ctx.read<OptionRecord>(optionKey(scope, scopeId), ValueKind.option, "option");
    if (stored?.values[name] !== value) {
      throw bad(
        `option ${quoteName(name)} = ${quoteName(value)} is not in the form DuckLake's set_option stores`,
      );
    }
  }
}
