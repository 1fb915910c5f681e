/**
 * The per-batch state record of the client-side translation: what one batch has seen so far (ids it
 * allocated, rows it ended or removed, child rows waiting for their parent, flushes), passed to every part.
 */
import type {
  DataFileRecord,
  DeleteFileRecord,
  FileColumnStats,
  FileVariantStats,
  InlineRowRecord,
  MacroImpl,
  MacroParameter,
  PartitionRecord,
  SnapshotRecord,
  SortRecord,
  TableRecord,
  ViewRecord,
} from "../../../records.ts";
import type { VerbContext } from "../../../verbs/context.ts";
import type { NameMapColumn } from "../../../verbs/ops/name-maps.ts";
import type { RowOp } from "../parse.ts";
import type { RewriteStaged } from "../rewrite.ts";
import type { Cells } from "./cells.ts";

/** The batch's `ducklake_snapshot` row: the counters DuckLake stamped, checked against the premise. */
export interface SnapshotRow {
  snapshot_id: number;
  schema_version: number;
  next_catalog_id: number;
  next_file_id: number;
}

/**
 * Everything one batch's translation reads and accumulates, passed explicitly to every part (one record,
 * not fields of a class): the inputs (context, premise, statements, pins), then what the batch has seen so
 * far. Made by `newBatch`; only the parts of `translate/` mutate it, within one `run`
 * (docs/decisions/0741-translator-parts.md).
 */
export interface Batch {
  readonly ctx: VerbContext;
  readonly premise: SnapshotRecord;
  readonly ops: readonly RowOp[];
  /** Snapshots a live checkpoint pins (→ its id): expire_snapshots never removes them. */
  readonly pinned: ReadonlyMap<number, string>;
  /** The snapshot this batch mints: the premise's + 1. */
  readonly S: number;
  snap: SnapshotRow | undefined;
  changes: Cells | undefined;
  readonly touched: Set<number>;
  readonly newCatalogIds: Set<number>;
  /** Tables whose live row this batch ended: a rename re-inserts the same id as the table's next version. */
  readonly endedTables: Map<number, TableRecord>;
  /** Views whose live row this batch ended: ALTER VIEW … RENAME re-inserts the same id, as for tables. */
  readonly endedViews: Map<number, ViewRecord>;
  readonly newFileIds: Set<number>;
  /** ducklake_file_column_stats / file_partition_value rows, by data file, attached to the file's record. */
  readonly fileStats: Map<number, FileColumnStats[]>;
  readonly partitionValues: Map<number, DataFileRecord["x_partition_values"]>;
  /** `ducklake_name_mapping` rows by mapping id, embedded in their `ducklake_column_mapping` record (0600). */
  readonly nameMapColumns: Map<number, NameMapColumn[]>;
  /** ducklake_file_variant_stats rows, by data file (docs/decisions/0620-extra-stats.md). */
  readonly variantStats: Map<number, FileVariantStats[]>;
  /** Delete files this batch removes (DuckLake rewrites a file's deletes into a new delete file), by data file. */
  readonly replacedDeletes: Map<number, DeleteFileRecord>;
  readonly removedDeleteIds: Set<number>;
  /** Data files this batch removes (a merge), by id, in the order the batch removes them. */
  readonly removedData: Map<number, DataFileRecord>;
  /** Removed data files a merged output already replaced (each output replaces those removed before it). */
  readonly mergedSources: Set<number>;
  readonly macroImpls: Map<number, MacroImpl[]>;
  readonly macroParams: Map<string, MacroParameter[]>;
  readonly partitionColumns: Map<number, PartitionRecord["x_columns"]>;
  /** ducklake_sort_expression rows by sort id, embedded in their ducklake_sort_info record. */
  readonly sortExpressions: Map<number, { tableId: number; expr: SortRecord["x_expressions"][number] }[]>;
  /** Inlined-data tables this batch creates (by name → its data columns). */
  readonly createdInlined: Map<string, string[]>;
  /** Per table: the next_row_id at the premise (first read), for the row-id range check. */
  readonly premiseNextRowId: Map<number, number>;
  readonly rowIdsUsed: Map<number, [number, number][]>;
  /** Row ids this batch deletes, per table: an UPDATE's new version may take one over (row lineage). */
  readonly deletedRowIds: Map<number, Set<number>>;
  /** The snapshot ids left, once read (reset when this request removes snapshots). */
  remaining: number[] | undefined;
  /**
   * Per inlined table (one per schema version; flushed to one file, or one per partition): the rows this
   * batch's flushes remove, the data files that carry them and the rows those files' delete files end.
   */
  readonly flushes: Map<string, Flush>;
  /** Tables this batch adds a delete file to (its positions are in Parquet: lineage is not checkable). */
  readonly parquetDeletes: Set<number>;
  /** A ducklake_rewrite_data_files batch, staged through the compaction verb up front (rewrite.ts). */
  rewrite: RewriteStaged | undefined;
}

/** A fresh record for one batch of `ops` against `premise`. */
export function newBatch(
  ctx: VerbContext,
  premise: SnapshotRecord,
  ops: readonly RowOp[],
  pinned: ReadonlyMap<number, string>,
): Batch {
  return {
    ctx,
    premise,
    ops,
    pinned,
    S: premise.snapshot_id + 1,
    snap: undefined,
    changes: undefined,
    touched: new Set(),
    newCatalogIds: new Set(),
    endedTables: new Map(),
    endedViews: new Map(),
    newFileIds: new Set(),
    fileStats: new Map(),
    partitionValues: new Map(),
    nameMapColumns: new Map(),
    variantStats: new Map(),
    replacedDeletes: new Map(),
    removedDeleteIds: new Set(),
    removedData: new Map(),
    mergedSources: new Set(),
    macroImpls: new Map(),
    macroParams: new Map(),
    partitionColumns: new Map(),
    sortExpressions: new Map(),
    createdInlined: new Map(),
    premiseNextRowId: new Map(),
    rowIdsUsed: new Map(),
    deletedRowIds: new Map(),
    remaining: undefined,
    flushes: new Map(),
    parquetDeletes: new Set(),
    rewrite: undefined,
  };
}

/** One inlined table's flush in a batch: the rows it removes and what the flushed files account for. */
export interface Flush {
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

export function summarise(f: Flush): FlushSummary {
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
