/**
 * The batch's run: the up-front passes (header, child rows, flushes, rewrites), each statement to the
 * part that owns its table, then the batch-wide checks (row ids, name maps, merges, flushes, replaced
 * delete files).
 */
import { ValueKind } from "../../../codec.ts";
import { quoteName, Unsupported } from "../../../errors.ts";
import { Kind, keys } from "../../../keys.ts";
import { DUCKLAKE_TABLES } from "../../../reads/ducklake-tables.ts";
import type { DeleteFileRecord, SnapshotRecord } from "../../../records.ts";
import type { RowOp } from "../parse.ts";
import { type Batch, summarise } from "./batch.ts";
import { bad, cellsOf, INLINED_DATA, INLINED_DELETE, int } from "./cells.ts";
import { checkRowIds } from "./checks.ts";
import { collectFileChildren } from "./children.ts";
import { checkMergesReplaced, insertDataFile, insertNameMap } from "./data-files.ts";
import {
  insertColumn,
  insertMacro,
  insertSchema,
  insertSchemaVersion,
  insertTable,
  insertView,
} from "./ddl.ts";
import { insertDeleteFile, removeRows, scheduleDeletion } from "./delete-files.ts";
import { end, endColumns } from "./end.ts";
import { dropInlined, expireSnapshots, expireTableRows, pruneVersions, retireInlined } from "./expire.ts";
import { collectFlushes, flushInlined, flushInlinedDeletes } from "./flushes.ts";
import { create, endInlined, insertInlined, insertInlinedDeletes, insertInlinedTable } from "./inlined.ts";
import { insertPartition, insertSort } from "./layout.ts";
import { insertOption, updateOption } from "./options.ts";
import { collectRewrites, rewritten } from "./rewrites.ts";
import { readSnapshotRows, snapshotRecord } from "./snapshot.ts";
import { insertColumnStats, insertTableStats, updateColumnStats, updateTableStats } from "./stats.ts";
import { endTags, insertColumnTag, insertTag } from "./tags.ts";

export interface Translated {
  /** The snapshot the batch mints; null for a batch of options alone (they mint none). */
  snapshot: SnapshotRecord | null;
  /** Rows each statement touched, in statement order (the answer is the last one's). */
  counts: number[];
}

export async function run(batch: Batch): Promise<Translated> {
  readSnapshotRows(batch);
  collectFileChildren(batch);
  await collectFlushes(batch);
  await collectRewrites(batch);
  const counts: number[] = [];
  for (const op of batch.ops) counts.push(await apply(batch, op));
  await checkRowIds(batch);
  for (const m of batch.nameMapColumns.keys()) {
    throw bad(`ducklake_name_mapping rows of mapping ${m} come without its ducklake_column_mapping row`);
  }
  checkMergesReplaced(batch);
  for (const [name, f] of batch.flushes) {
    if (f.carried !== f.rows.length)
      throw bad(
        `${name}: ${f.rows.length} inlined rows are flushed, the data files that hold them carry ${f.carried}`,
      );
    const ended = summarise(f).ends.length;
    if (f.ended !== ended)
      throw bad(`${name}: ${ended} flushed rows were ended, the flushed files' delete files hold ${f.ended}`);
  }
  for (const [f, old] of batch.replacedDeletes) {
    const now = await batch.ctx.scan<DeleteFileRecord>(
      keys.current(Kind.deleteFile, old.table_id),
      ValueKind.deleteFile,
      "delete file",
    );
    if (!now.some((d) => d.data_file_id === f))
      throw bad(`delete file ${old.delete_file_id} is removed without a replacement`);
  }
  return { snapshot: batch.snap ? snapshotRecord(batch) : null, counts };
}

async function apply(batch: Batch, op: RowOp): Promise<number> {
  switch (op.op) {
    case "insert":
      return insert(batch, op);
    case "create":
      return create(batch, op);
    case "end":
      return end(batch, op);
    case "end_file":
      return rewritten(
        batch,
        op.endSnapshot,
        op.id,
        op.table === "ducklake_data_file" ? "endedData" : "endedDeletes",
      );
    case "begin_file":
      return rewritten(batch, op.beginSnapshot, op.id, "outputs");
    case "table_stats":
      return updateTableStats(batch, op);
    case "column_stats":
      return updateColumnStats(batch, op);
    case "end_inlined":
      return endInlined(batch, op);
    case "end_tags":
      return endTags(batch, op);
    case "end_columns":
      return endColumns(batch, op);
    case "option_update":
      return updateOption(batch, op);
    case "delete":
      return removeRows(batch, op);
    case "flush_inlined":
      return flushInlined(batch, op);
    case "flush_inlined_deletes":
      return flushInlinedDeletes(batch, op.table);
    case "expire_snapshots":
      return expireSnapshots(batch, op);
    case "prune_versions":
      return pruneVersions(batch, op.table);
    case "expire_table_rows":
      return expireTableRows(batch, op);
    case "drop_inlined":
      return dropInlined(batch, op.table);
    case "retire_inlined":
      return retireInlined(batch, op.tableId, op.schemaVersion);
    case "prune_orphans":
      // Macro implementations, parameters and name mappings are held inside their parent's record:
      // they went with it, so no row is left to remove.
      return 0;
  }
}

async function insert(batch: Batch, op: Extract<RowOp, { op: "insert" }>): Promise<number> {
  const inl = INLINED_DATA.exec(op.table);
  if (inl) return insertInlined(batch, op, Number(inl[1]), Number(inl[2]));
  const del = INLINED_DELETE.exec(op.table);
  if (del) return insertInlinedDeletes(batch, op, Number(del[1]));
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
        await insertSchema(batch, r);
        break;
      case "ducklake_table":
        await insertTable(batch, r);
        break;
      case "ducklake_column":
        await insertColumn(batch, r);
        break;
      case "ducklake_inlined_data_tables":
        await insertInlinedTable(batch, r);
        break;
      case "ducklake_schema_versions":
        await insertSchemaVersion(batch, r);
        break;
      case "ducklake_table_stats":
        await insertTableStats(batch, r);
        break;
      case "ducklake_table_column_stats":
        await insertColumnStats(batch, r);
        break;
      case "ducklake_data_file":
        await insertDataFile(batch, r);
        break;
      case "ducklake_delete_file":
        await insertDeleteFile(batch, r);
        break;
      case "ducklake_view":
        await insertView(batch, r);
        break;
      case "ducklake_macro":
        await insertMacro(batch, r);
        break;
      case "ducklake_column_mapping":
        await insertNameMap(batch, r);
        break;
      case "ducklake_macro_impl":
      case "ducklake_macro_parameters":
      case "ducklake_partition_column":
      case "ducklake_sort_expression":
      case "ducklake_name_mapping":
        break; // read up front, embedded in their parent
      case "ducklake_partition_info":
        await insertPartition(batch, r);
        break;
      case "ducklake_sort_info":
        await insertSort(batch, r);
        break;
      case "ducklake_tag":
        await insertTag(
          batch,
          keys.current(Kind.tag, int(r.object_id, "object_id")),
          r,
          int(r.object_id, "object_id"),
        );
        break;
      case "ducklake_column_tag":
        await insertColumnTag(batch, r);
        break;
      case "ducklake_metadata":
        await insertOption(batch, r);
        break;
      case "ducklake_files_scheduled_for_deletion":
        await scheduleDeletion(batch, r);
        break;
      default:
        throw new Unsupported(`staged rows for ${op.table} are not translated yet`);
    }
  }
  return rows.length;
}
