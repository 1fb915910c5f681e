/**
 * `ducklake_rewrite_data_files` over Quack (client-side commit) translated onto the catalog's one
 * compaction rule, the `rewrite_data_files` verb (`catalog/verbs/ops/compaction.ts`, decision
 * docs/decisions/0322-compaction-output.md). DuckLake's batch inserts each rewritten file with
 * `row_id_start` NULL (its rows carry `_ducklake_internal_row_id`), ends every input data file and its
 * delete files one `UPDATE … WHERE <id> = k` at a time, sets the output's `begin_snapshot`, and then
 * updates the table's stats. Here the inputs are grouped per table and partition, each group is one verb
 * call, and DuckLake's statements are checked against what the verb did
 * (docs/decisions/0243-quack-rewrite-data-files.md).
 */
import { ValueKind } from "../../codec.ts";
import { applyVerb } from "../../commit/apply.ts";
import { InvalidRequest, Unsupported } from "../../errors.ts";
import { Kind, keys } from "../../keys.ts";
import { verbColumnStats } from "../../parquet-layout.ts";
import type {
  DataFileRecord,
  FileColumnStats,
  TableColumnStatsRecord,
  TableStatsRecord,
} from "../../records.ts";
import type { VerbContext } from "../../verbs/context.ts";
import { liveDeleteFilesOf } from "../../verbs/ops/files.ts";
import {
  readColumnStats,
  readTableStats,
  writeColumnStats,
  writeTableStats,
} from "../../verbs/ops/stats-support.ts";
import type { DataFileSpec } from "../../verbs/schema.ts";

/** A data file DuckLake inserts with `row_id_start` NULL: a rewrite's output. */
export interface RewriteOutput {
  dataFileId: number;
  tableId: number;
  path: string;
  pathIsRelative: boolean;
  format: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize: number | null;
  encryptionKey: string | null;
  stats: readonly FileColumnStats[];
  partitionValues: DataFileRecord["x_partition_values"];
}

export interface RewriteInput {
  /** The tables `changes_made` names as `rewrite_delete`. */
  tables: readonly number[];
  outputs: readonly RewriteOutput[];
  /** data_file_ids and delete_file_ids the batch ends one by one. */
  endedData: readonly number[];
  endedDeletes: readonly number[];
  /**
   * The tables whose stats the batch itself sets (`UPDATE ducklake_table_stats`). DuckLake sends them only
   * for a rewrite of every live file of the table; after a rewrite of some of them the table's stats stay
   * as they were (measured, docs/decisions/0247-quack-partial-rewrites.md).
   */
  statsSet: ReadonlySet<number>;
}

/** What the verbs did, for checking DuckLake's per-file statements as they arrive. */
export interface RewriteStaged {
  outputs: ReadonlySet<number>;
  endedData: ReadonlySet<number>;
  endedDeletes: ReadonlySet<number>;
}

function bad(detail: string): InvalidRequest {
  return new InvalidRequest(`staged rows: ${detail}`);
}

/** A partition as the compaction groups it: the file's partition id and values. */
function partitionKey(values: DataFileRecord["x_partition_values"]): string {
  return JSON.stringify(
    [...values]
      .sort((a, b) => a.partition_key_index - b.partition_key_index)
      .map((v) => [v.partition_key_index, v.partition_value]),
  );
}

function specOf(o: RewriteOutput): DataFileSpec {
  return {
    path: o.path,
    pathIsRelative: o.pathIsRelative,
    format: o.format,
    recordCount: o.recordCount,
    fileSizeBytes: o.fileSizeBytes,
    ...(o.footerSize !== null ? { footerSize: o.footerSize } : {}),
    ...(o.encryptionKey !== null ? { encryptionKey: o.encryptionKey } : {}),
    columnStats: verbColumnStats(o.stats),
    ...(o.partitionValues.length > 0
      ? {
          partitionValues: o.partitionValues.map((p) => ({
            index: p.partition_key_index,
            value: p.partition_value,
          })),
        }
      : {}),
  };
}

interface Group {
  tableId: number;
  inputs: DataFileRecord[];
  output: RewriteOutput | undefined;
}

/**
 * Stages the rewrite through the verb, before the batch's statements run: the inputs go (with their
 * delete files) and each output is written with the id DuckLake gave it.
 */
export async function stageRewrites(ctx: VerbContext, input: RewriteInput): Promise<RewriteStaged> {
  const groups = new Map<string, Group>();
  for (const id of new Set(input.endedData)) {
    let found: DataFileRecord | undefined;
    for (const t of input.tables) {
      found = await ctx.read<DataFileRecord>(
        keys.current(Kind.dataFile, t, id),
        ValueKind.dataFile,
        "data file",
      );
      if (found) break;
    }
    if (!found) throw bad(`a rewrite ends data file ${id}, which is not a live file of a table it rewrites`);
    const key = `${found.table_id}/${partitionKey(found.x_partition_values)}`;
    const g = groups.get(key) ?? { tableId: found.table_id, inputs: [], output: undefined };
    g.inputs.push(found);
    groups.set(key, g);
  }
  for (const o of input.outputs) {
    if (!input.tables.includes(o.tableId))
      throw bad(`data file ${o.dataFileId} has no row_id_start outside a rewrite`);
    const g = groups.get(`${o.tableId}/${partitionKey(o.partitionValues)}`);
    if (!g) throw bad(`the rewritten data file ${o.dataFileId} replaces no file the batch ends`);
    if (g.output) {
      throw new Unsupported(
        `a rewrite writing several files (${g.output.dataFileId}, ${o.dataFileId}) for one partition of table ${o.tableId} is not translated yet`,
      );
    }
    g.output = o;
  }
  const expectedDeletes = new Set<number>();
  for (const g of groups.values()) {
    for (const f of g.inputs) {
      for (const d of await liveDeleteFilesOf(ctx, g.tableId, f.data_file_id))
        expectedDeletes.add(d.delete_file_id);
    }
  }
  const ended = new Set(input.endedDeletes);
  if (ended.size !== expectedDeletes.size || [...ended].some((d) => !expectedDeletes.has(d))) {
    throw bad(
      `a rewrite ends delete files ${[...ended].join(", ")}, but its inputs' live delete files are ${[...expectedDeletes].join(", ")}`,
    );
  }
  const kept = await premiseStats(
    ctx,
    [...new Set(input.tables)].filter((t) => !input.statsSet.has(t)),
  );
  // The verb takes file ids in order: apply the groups in the order of DuckLake's output ids.
  const ordered = [...groups.values()].sort(
    (a, b) =>
      (a.output?.dataFileId ?? Number.MAX_SAFE_INTEGER) - (b.output?.dataFileId ?? Number.MAX_SAFE_INTEGER),
  );
  for (const g of ordered) {
    const o = g.output;
    // The rewritten file's own row ids are in its rows; its record keeps the inputs' lowest row id as the
    // lower bound this catalog's readers index by (decision 0322), shown as NULL in ducklake_data_file.
    const assigned = await applyVerb(ctx, {
      op: "rewrite_data_files",
      table: { id: g.tableId },
      dataFileIds: g.inputs.map((f) => f.data_file_id),
      ...(o ? { file: specOf(o), rowIdStart: Math.min(...g.inputs.map((f) => f.row_id_start)) } : {}),
    });
    if (o && assigned.dataFileId !== o.dataFileId) {
      throw bad(
        `the rewritten data file is ${o.dataFileId}, but the next free file id is ${String(assigned.dataFileId)}`,
      );
    }
  }
  await restoreStats(ctx, kept);
  return {
    outputs: new Set(input.outputs.map((o) => o.dataFileId)),
    endedData: new Set(input.endedData),
    endedDeletes: ended,
  };
}

interface KeptStats {
  tableId: number;
  table: TableStatsRecord | undefined;
  columns: TableColumnStatsRecord[];
}

/** The stats of the tables whose stats the batch leaves alone, as they are before the verbs run. */
async function premiseStats(ctx: VerbContext, tables: readonly number[]): Promise<KeptStats[]> {
  const out: KeptStats[] = [];
  for (const t of tables) {
    const columns: TableColumnStatsRecord[] = [];
    for (const c of await ctx.columns(t)) {
      const rec = await readColumnStats(ctx, t, c.column_id);
      if (rec) columns.push(rec);
    }
    out.push({ tableId: t, table: await readTableStats(ctx, t), columns });
  }
  return out;
}

/**
 * The compaction verb's own stats rule (the lake's compaction job) shrinks the table's stats; a Quack
 * batch that sends none keeps DuckLake's, which are the premise's: put back every value the verb changed.
 */
async function restoreStats(ctx: VerbContext, kept: readonly KeptStats[]): Promise<void> {
  for (const k of kept) {
    const now = await readTableStats(ctx, k.tableId);
    if (k.table && now && !sameTableStats(k.table, now)) {
      writeTableStats(ctx, now, {
        table_id: k.tableId,
        record_count: k.table.record_count,
        next_row_id: k.table.next_row_id,
        file_size_bytes: k.table.file_size_bytes,
      });
    }
    for (const old of k.columns) {
      const cur = await readColumnStats(ctx, k.tableId, old.column_id);
      if (!cur || sameColumnStats(old, cur)) continue;
      writeColumnStats(ctx, cur, { ...old, begin_snapshot: ctx.snapshotId, end_snapshot: null });
    }
  }
}

function sameTableStats(a: TableStatsRecord, b: TableStatsRecord): boolean {
  return (
    a.record_count === b.record_count &&
    a.next_row_id === b.next_row_id &&
    a.file_size_bytes === b.file_size_bytes
  );
}

function sameColumnStats(a: TableColumnStatsRecord, b: TableColumnStatsRecord): boolean {
  return (
    a.contains_null === b.contains_null &&
    a.contains_nan === b.contains_nan &&
    a.min_value === b.min_value &&
    a.max_value === b.max_value &&
    a.extra_stats === b.extra_stats
  );
}
