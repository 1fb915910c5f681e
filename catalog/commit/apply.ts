/**
 * Dispatches each verb to its operation: one file per verb group under verbs/ops/, the row-log verbs'
 * under ingest/. It sits above both (decision docs/decisions/0460-layer-check.md), so a drop_table also
 * leaves the row log's drop tombstone here rather than the table verb reaching up into ingest/.
 */
import { rowsDeadLetter, rowsDeadLetterDiscard, rowsDeadLetterReplay } from "../ingest/dead-letter.ts";
import { rowsKeyIndex } from "../ingest/key-index.ts";
import { appendDropTombstone, rowsTruncate, rowsWrite, setIngestSettings, setRowKey } from "../ingest/log.ts";
import { rowsFlush } from "../ingest/row-flush.ts";
import type { Assigned, VerbContext } from "../verbs/context.ts";
import { addColumn, alterColumn, dropColumn, renameColumn } from "../verbs/ops/columns.ts";
import { mergeAdjacentFiles, rewriteDataFiles } from "../verbs/ops/compaction.ts";
import {
  expireDataFile,
  expireDeleteFile,
  registerDataFile,
  registerDeleteFile,
  setColumnStats,
  setTableStats,
} from "../verbs/ops/files.ts";
import { flushInlined, inlineDelete, inlineInsert } from "../verbs/ops/inline.ts";
import { clearPartitioning, clearSorting, setPartitioning, setSorting } from "../verbs/ops/layout.ts";
import { createMacro, dropMacro } from "../verbs/ops/macros.ts";
import { setOption, unsetOption } from "../verbs/ops/options.ts";
import { createSchema, dropSchema } from "../verbs/ops/schemas.ts";
import { createTable, dropTable, moveTable, renameTable } from "../verbs/ops/tables.ts";
import { removeTag, setComment, setTag } from "../verbs/ops/tags.ts";
import { alterView, createView, dropView, renameView } from "../verbs/ops/views.ts";
import type { Verb, VerbOf } from "../verbs/schema.ts";

export function applyVerb(ctx: VerbContext, v: Verb): Promise<Assigned> {
  switch (v.op) {
    case "create_schema":
      return createSchema(ctx, v);
    case "drop_schema":
      return dropSchema(ctx, v);
    case "create_table":
      return createTable(ctx, v);
    case "rename_table":
      return renameTable(ctx, v);
    case "move_table":
      return moveTable(ctx, v);
    case "drop_table":
      return dropTableWithLog(ctx, v);
    case "add_column":
      return addColumn(ctx, v);
    case "rename_column":
      return renameColumn(ctx, v);
    case "alter_column":
      return alterColumn(ctx, v);
    case "drop_column":
      return dropColumn(ctx, v);
    case "create_view":
      return createView(ctx, v);
    case "alter_view":
      return alterView(ctx, v);
    case "rename_view":
      return renameView(ctx, v);
    case "drop_view":
      return dropView(ctx, v);
    case "create_macro":
      return createMacro(ctx, v);
    case "drop_macro":
      return dropMacro(ctx, v);
    case "set_partitioning":
      return setPartitioning(ctx, v);
    case "clear_partitioning":
      return clearPartitioning(ctx, v);
    case "set_sorting":
      return setSorting(ctx, v);
    case "clear_sorting":
      return clearSorting(ctx, v);
    case "register_data_file":
      return registerDataFile(ctx, v);
    case "expire_data_file":
      return expireDataFile(ctx, v);
    case "register_delete_file":
      return registerDeleteFile(ctx, v);
    case "expire_delete_file":
      return expireDeleteFile(ctx, v);
    case "set_table_stats":
      return setTableStats(ctx, v);
    case "set_column_stats":
      return setColumnStats(ctx, v);
    case "set_tag":
      return setTag(ctx, v);
    case "remove_tag":
      return removeTag(ctx, v);
    case "set_comment":
      return setComment(ctx, v);
    case "set_option":
      return setOption(ctx, v);
    case "unset_option":
      return unsetOption(ctx, v);
    case "inline_insert":
      return inlineInsert(ctx, v);
    case "inline_delete":
      return inlineDelete(ctx, v);
    case "flush_inlined":
      return flushInlined(ctx, v);
    case "merge_adjacent_files":
      return mergeAdjacentFiles(ctx, v);
    case "rewrite_data_files":
      return rewriteDataFiles(ctx, v);
    case "rows_write":
      return rowsWrite(ctx, v);
    case "rows_truncate":
      return rowsTruncate(ctx, v);
    case "rows_flush":
      return rowsFlush(ctx, v);
    case "rows_dead_letter":
      return rowsDeadLetter(ctx, v);
    case "rows_dead_letter_replay":
      return rowsDeadLetterReplay(ctx, v);
    case "rows_dead_letter_discard":
      return rowsDeadLetterDiscard(ctx, v);
    case "rows_key_index":
      return rowsKeyIndex(ctx, v);
    case "set_row_key":
      return setRowKey(ctx, v);
    case "set_ingest_settings":
      return setIngestSettings(ctx, v);
  }
}

/** drop_table, then the row log's drop tombstone (the table's earlier log records are void). */
async function dropTableWithLog(ctx: VerbContext, v: VerbOf<"drop_table">): Promise<Assigned> {
  const tableId = (await ctx.table(v.table)).table_id;
  const assigned = await dropTable(ctx, v);
  await appendDropTombstone(ctx, tableId);
  return assigned;
}
