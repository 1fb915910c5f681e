/**
 * The table's stats after a staged `rewrite_delete` compaction, as DuckLake's commit recomputes them
 * (`RecomputeGlobalStatsAfterRewrite`): when no deletes remain on the table's files after the rewrite (the
 * post-rewrite files' rows equal the premise's live file rows), every live file's column stats (the
 * unrewritten files' stored ones and the outputs' staged ones) are merged per column, the table's live
 * inlined rows folded in when every top-level column is a foldable scalar, and every column the merge has
 * no data for written unknown. No recompute: no stats row, deletes remaining, or inlined rows beside a
 * column stock cannot fold (docs/decisions/0730-rewrite-inlined-fold.md,
 * docs/decisions/0611-staged-rewrite-inlined-deletes.md).
 */
import { decodeValue, ValueKind } from "../../codec.ts";
import { Unsupported } from "../../errors.ts";
import { scanInlineRows } from "../../inline-floor.ts";
import { Kind, keys } from "../../keys.ts";
import type {
  ColumnRecord,
  DataFileRecord,
  DeleteFileRecord,
  InlinedTableRecord,
  InlineRowRecord,
} from "../../records.ts";
import { compareStat, NESTED } from "../../types.ts";
import { columnTree, toText } from "../../values/index.ts";
import type { VerbContext } from "../../verbs/context.ts";
import { readTableStats } from "../../verbs/ops/stats-support.ts";
import type { Literal, RowOp } from "./parse.ts";
import { stagedAnyValid } from "./staged-file-rows.ts";
import { flag, isNull, NULL, num, type StagedReader, text } from "./staged-literals.ts";
import type { StagedRow } from "./staged-parse.ts";

/** One column's stats as DuckLake's `DuckLakeColumnStats` holds them while merging. */
interface ColumnAcc {
  hasNullCount: boolean;
  nullCount: number;
  hasNumValues: boolean;
  numValues: number;
  hasNan: boolean;
  nan: boolean;
  hasMin: boolean;
  min: string;
  hasMax: boolean;
  max: string;
  anyValidFlag: boolean;
  extra: string | null;
}

function anyValid(s: ColumnAcc): boolean {
  return s.hasNumValues && s.hasNullCount ? s.numValues > s.nullCount : s.anyValidFlag;
}

/** DuckLake's `DuckLakeColumnStats::MergeStats` of `next` into `cur` (one column, one type). */
function mergeInto(cur: ColumnAcc, next: ColumnAcc, type: string): void {
  if (!next.hasNullCount) cur.hasNullCount = false;
  else if (cur.hasNullCount) cur.nullCount += next.nullCount;
  if (!next.hasNumValues) cur.hasNumValues = false;
  else if (cur.hasNumValues) cur.numValues += next.numValues;
  if (!next.hasNan) cur.hasNan = false;
  else if (cur.hasNan && next.nan) cur.nan = true;
  if (!anyValid(next)) return;
  if (!anyValid(cur)) {
    cur.min = next.min;
    cur.hasMin = next.hasMin;
    cur.max = next.max;
    cur.hasMax = next.hasMax;
    cur.anyValidFlag = true;
    return;
  }
  if (!next.hasMin) cur.hasMin = false;
  else if (cur.hasMin && compareStat(type, next.min, cur.min) < 0) cur.min = next.min;
  if (!next.hasMax) cur.hasMax = false;
  else if (cur.hasMax && compareStat(type, next.max, cur.max) > 0) cur.max = next.max;
  if (next.extra !== null) {
    // DuckLake merges extra stats (GEOMETRY boxes, VARIANT fields) here; two different ones are refused.
    if (cur.extra !== null && cur.extra !== next.extra) {
      throw new Unsupported(
        "a staged rewrite merging extra stats of several files is not translated yet (its table stats merge them)",
      );
    }
    cur.extra = next.extra;
  }
}

function emptyAcc(): ColumnAcc {
  return {
    hasNullCount: false,
    nullCount: 0,
    hasNumValues: false,
    numValues: 0,
    hasNan: false,
    nan: false,
    hasMin: false,
    min: "",
    hasMax: false,
    max: "",
    anyValidFlag: true,
    extra: null,
  };
}

/** A stored file's `ducklake_file_column_stats` row as DuckLake's recompute reads it back. */
function storedAcc(s: DataFileRecord["x_column_stats"][number]): ColumnAcc {
  const counts = s.value_count !== null && s.null_count !== null;
  return {
    ...emptyAcc(),
    hasNullCount: counts,
    nullCount: s.null_count ?? 0,
    hasNumValues: counts,
    numValues: (s.value_count ?? 0) + (s.null_count ?? 0),
    hasNan: s.contains_nan !== null,
    nan: s.contains_nan === true,
    hasMin: s.min_value !== null,
    min: s.min_value ?? "",
    hasMax: s.max_value !== null,
    max: s.max_value ?? "",
    extra: s.extra_stats,
  };
}

/** A staged output file's stats row (the flags DuckLake's staged commit carries). */
function stagedAcc(s: StagedRow, read: StagedReader): ColumnAcc {
  const known = (has: Literal | undefined, v: Literal | undefined) => flag(has) && !isNull(v);
  return {
    hasNullCount: known(s.has_null_count, s.null_count),
    nullCount: known(s.has_null_count, s.null_count) ? read.int(s.null_count, "null_count") : 0,
    hasNumValues: known(s.has_num_values, s.num_values),
    numValues: known(s.has_num_values, s.num_values) ? read.int(s.num_values, "num_values") : 0,
    hasNan: known(s.has_contains_nan, s.contains_nan),
    nan: known(s.has_contains_nan, s.contains_nan) && flag(s.contains_nan),
    hasMin: known(s.has_min, s.min_value),
    min: known(s.has_min, s.min_value) ? read.str(s.min_value, "min_value") : "",
    hasMax: known(s.has_max, s.max_value),
    max: known(s.has_max, s.max_value) ? read.str(s.max_value, "max_value") : "",
    anyValidFlag: stagedAnyValid(s),
    extra: isNull(s.extra_stats) ? null : read.str(s.extra_stats, "extra_stats"),
  };
}

/**
 * Types DuckLake folds (`IsFoldableScalarType`: numeric, temporal, VARCHAR, BOOLEAN) whose `MIN(x)::VARCHAR`
 * this catalog reproduces exactly (`toText`, ordered by `compareStat`).
 */
const FOLDED =
  /^(u?int(8|16|32|64|128)|float(32|64)|decimal\(\d+,\d+\)|varchar|boolean|date|time|timestamp(_s|_ms|_ns)?)$/;
/** Types DuckLake does not fold: a live inlined row beside one keeps the table's stats. */
const NOT_FOLDED = /^(blob|uuid|variant|geometry)$/;
/** Dates, times and timestamps whose text orders as their values (no infinities, no BC, four-digit years). */
const PLAIN_TEMPORAL = /^(\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}:\d{2}(\.\d+)?)?|\d{2}:\d{2}:\d{2}(\.\d+)?)$/;

/** A root column's inlined-rows stats as DuckLake's aggregate query gives them, or "bail". */
function inlinedAcc(
  col: ColumnRecord,
  all: readonly ColumnRecord[],
  rows: readonly InlineRowRecord[],
): ColumnAcc {
  const node = columnTree(all, col);
  const float = col.column_type === "float32" || col.column_type === "float64";
  const temporal = /^(date|time|timestamp)/.test(col.column_type);
  let nonNull = 0;
  let nan = false;
  let min: string | null = null;
  let max: string | null = null;
  for (const r of rows) {
    const v = r.values[col.column_name];
    if (v === null || v === undefined) continue;
    nonNull++;
    const t = toText(node, v) ?? "";
    if (float && t === "nan") {
      nan = true;
      continue;
    }
    if (temporal && !PLAIN_TEMPORAL.test(t)) {
      throw new Unsupported(
        `a staged rewrite folding inlined ${col.column_type} value '${t}' into the table's stats is not translated yet`,
      );
    }
    if (min === null || compareStat(col.column_type, t, min) < 0) min = t;
    if (max === null || compareStat(col.column_type, t, max) > 0) max = t;
  }
  const bounds = !(float && nan);
  return {
    ...emptyAcc(),
    hasNumValues: true,
    numValues: rows.length,
    hasNullCount: true,
    nullCount: rows.length - nonNull,
    hasNan: float,
    nan: float && nan,
    hasMin: bounds && min !== null,
    min: min ?? "",
    hasMax: bounds && max !== null,
    max: max ?? "",
  };
}

/** The stats of table `t`'s live inlined rows per root column, or undefined when stock cannot fold them (it keeps the stats). */
async function foldInlined(
  probe: VerbContext,
  t: number,
  columns: readonly ColumnRecord[],
  rows: readonly InlineRowRecord[],
): Promise<Map<number, ColumnAcc> | undefined> {
  const roots = columns.filter((c) => c.parent_column === null);
  for (const c of roots) {
    if (NESTED.has(c.column_type) || NOT_FOLDED.test(c.column_type)) return undefined;
    if (!FOLDED.test(c.column_type)) {
      throw new Unsupported(
        `a staged rewrite of table ${t} folding inlined rows into the stats of a ${c.column_type} column is not translated yet`,
      );
    }
  }
  // DuckLake aggregates every inlined-data table of the table by the current column names; a table whose
  // columns changed after its inlined-data table was made is refused rather than guessed.
  const inlinedTables = await probe.scan<InlinedTableRecord>(
    keys.current(Kind.inlinedTable, t),
    ValueKind.inlinedTable,
    "inlined table",
  );
  const [only] = inlinedTables;
  if (
    inlinedTables.length !== 1 ||
    only?.x_begin_snapshot === undefined ||
    roots.some((c) => c.begin_snapshot > (only.x_begin_snapshot ?? 0)) ||
    rows.some((r) => r.schema_version !== only.schema_version)
  ) {
    throw new Unsupported(
      `a staged rewrite of table ${t} folding inlined rows of another schema version into its stats is not translated yet`,
    );
  }
  return new Map(roots.map((c) => [c.column_id, inlinedAcc(c, columns, rows)]));
}

export interface RecomputeInput {
  probe: VerbContext;
  tableId: number;
  /** The premise's snapshot (DuckLake's commit reads the catalog as of it). */
  premise: number;
  sourceIds: readonly number[];
  outputs: readonly StagedRow[];
  stagedStats: readonly StagedRow[];
  read: StagedReader;
}

/** The `table_stats` and `column_stats` row ops of the recompute, or none when DuckLake skips it. */
export async function recomputeAfterRewrite(input: RecomputeInput): Promise<RowOp[]> {
  const { probe, tableId: t, premise, read } = input;
  const columns = await probe.columns(t);
  const old = await readTableStats(probe, t);
  if (columns.length === 0 || !old) return [];
  const types = new Map(columns.map((c) => [c.column_id, c.column_type]));
  const stats = new Map<number, ColumnAcc>();
  const merge = (c: number, s: ColumnAcc) => {
    const type = types.get(c);
    if (type === undefined) return; // a column no longer in the table
    const cur = stats.get(c);
    if (cur === undefined) stats.set(c, s);
    else mergeInto(cur, s, type);
  };
  let recordCount = 0;
  let fileSize = 0;
  let netFileRows = 0;
  const live = (
    await probe.scan<DataFileRecord>(keys.current(Kind.dataFile, t), ValueKind.dataFile, "data file")
  ).sort((a, b) => a.data_file_id - b.data_file_id);
  for (const f of live) {
    netFileRows += f.record_count;
    if (input.sourceIds.includes(f.data_file_id)) continue;
    recordCount += f.record_count;
    fileSize += f.file_size_bytes;
    for (const s of f.x_column_stats) merge(s.column_id, storedAcc(s));
  }
  const locals = new Set(input.outputs.map((o) => read.int(o.data_file_id, "data_file_id")));
  for (const o of input.outputs) {
    recordCount += read.int(o.record_count, "record_count");
    fileSize += read.int(o.file_size_bytes, "file_size_bytes");
    const local = read.int(o.data_file_id, "data_file_id");
    for (const s of input.stagedStats) {
      if (locals.has(local) && read.int(s.data_file_id, "data_file_id") === local)
        merge(read.int(s.column_id, "column_id"), stagedAcc(s, read));
    }
  }
  // The delete-free gate: the post-rewrite files' rows must be the premise's live file rows.
  const liveIds = new Set(live.map((f) => f.data_file_id));
  for (const d of await probe.scan<DeleteFileRecord>(
    keys.current(Kind.deleteFile, t),
    ValueKind.deleteFile,
    "delete file",
  )) {
    if (liveIds.has(d.data_file_id)) netFileRows -= d.delete_count;
  }
  for await (const kv of probe.st.scan({ prefix: keys.inlineFileDeletePrefix(t) })) {
    const d = decodeValue<{ file_id: number; begin_snapshot: number }>(
      ValueKind.inlineFileDelete,
      kv.value,
      "inlined file delete",
    );
    if (liveIds.has(d.file_id) && d.begin_snapshot <= premise) netFileRows--;
  }
  if (recordCount !== netFileRows) return [];
  const inlined: InlineRowRecord[] = [];
  for await (const kv of scanInlineRows(probe.st, t)) {
    const r = decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row");
    if (r.begin_snapshot <= premise && (r.end_snapshot === null || r.end_snapshot > premise)) inlined.push(r);
  }
  if (inlined.length > 0) {
    const folded = await foldInlined(probe, t, columns, inlined);
    if (folded === undefined) return [];
    for (const [c, s] of folded) merge(c, s);
    recordCount += inlined.length;
  }
  const rows: Literal[][] = columns.map((c) => {
    const s = stats.get(c.column_id) ?? emptyAcc();
    return [
      num(t),
      num(c.column_id),
      s.hasNullCount ? { k: "bool", v: s.nullCount > 0 } : NULL,
      s.hasNan ? { k: "bool", v: s.nan } : NULL,
      s.hasMin ? text(s.min) : NULL,
      s.hasMax ? text(s.max) : NULL,
      s.extra === null ? NULL : text(s.extra),
    ];
  });
  return [
    { op: "table_stats", tableId: t, recordCount, fileSizeBytes: fileSize, nextRowId: old.next_row_id },
    { op: "column_stats", rows },
  ];
}
