/**
 * The writer's plan of the next flush batch (docs/decisions/0313-rows-flush-parquet.md): which records it
 * drains and, for each table whose surviving rows pass the table's inlining limit, the Parquet file that
 * holds them (laid out by `catalog/parquet-layout.ts`, stats as stock DuckLake registers them). Pure: a
 * ReadView in, bytes and the `rows_flush` verb out. The host PUTs the files, then commits the verb, which
 * re-folds the same records and registers each file in place of inlined rows — or, if the log or the
 * table moved in between, applies nothing and leaves the file unreferenced. Laying out and encoding a
 * file is paced as maintenance's are (docs/decisions/0325-paced-maintenance.md): the host's pause after
 * every MAINTENANCE_ROWS_PER_PAUSE rows laid out and after every row group encoded, so a large flush never
 * holds the writer's event loop, and the commits waiting on it, for more than one bounded stretch.
 */

import { type ParquetRow, writeParquetPaced } from "../../parquet/index.ts";
import type { ReadView } from "../../storage/api.ts";
import { ValueKind } from "../codec.ts";
import { CodedError } from "../errors.ts";
import { dataPathPrefix, joinPath, tableDirOf } from "../file-paths.ts";
import { Kind, keys, OptionScope } from "../keys.ts";
import { DUCKLAKE_DEFAULT_INLINING_ROW_LIMIT, type PlannedObject } from "../maintenance/inline-flush-plan.ts";
import { MAINTENANCE_ROWS_PER_ROW_GROUP, Pacer, type Pause } from "../maintenance/pace.ts";
import { readTableOption, storedScope } from "../options.ts";
import { layoutColumns, parquetFields, toParquetRow, writtenFileSpec } from "../parquet-layout.ts";
import { scanAll } from "../reads/versions.ts";
import type { ColumnRecord, SchemaRecord, TableRecord } from "../records.ts";
import { uuidv7 } from "../uuid.ts";
import type { VerbOf } from "../verbs/schema.ts";
import { byTable, foldTable } from "./fold.ts";
import { readIngestHead, readTail } from "./state.ts";

export interface RowsFlushPlan {
  /** Files to PUT (put-if-absent) under the lake's data prefix before committing `verb`. */
  objects: PlannedObject[];
  verb: VerbOf<"rows_flush">;
  /** Tables whose rows stay inlined although they pass the limit, and why (a type not written yet). */
  inlinedBecause: { tableId: number; error: CodedError }[];
}

/** DuckLake's `data_inlining_row_limit` for a table: table option, then schema, then global, then default. */
async function inliningLimit(view: ReadView, table: TableRecord): Promise<number> {
  const v = await readTableOption(
    storedScope(view),
    table.table_id,
    table.schema_id,
    "data_inlining_row_limit",
  );
  return v === undefined ? DUCKLAKE_DEFAULT_INLINING_ROW_LIMIT : Number(v);
}

async function one<T>(
  view: ReadView,
  prefix: Uint8Array,
  vk: ValueKind,
  what: string,
): Promise<T | undefined> {
  return (await scanAll<T>(view, prefix, vk, what))[0];
}

/**
 * The next flush batch after the drained watermark, or null when the log is drained. `pause` is the host's
 * yield between the stretches of laying out and encoding a file (`noPause` only where nothing else runs).
 */
export async function planRowsFlush(
  view: ReadView,
  now: () => number,
  max: number,
  pause: Pause,
): Promise<RowsFlushPlan | null> {
  const head = await readIngestHead(view);
  const records = await readTail(view, head.drained, max);
  const last = records.at(-1);
  if (!last) return null;
  const dataPath = dataPathPrefix((await storedScope(view)(OptionScope.global, 0))?.data_path ?? "");
  const objects: PlannedObject[] = [];
  const files: NonNullable<VerbOf<"rows_flush">["files"]> = [];
  const inlinedBecause: RowsFlushPlan["inlinedBecause"] = [];
  const pacer = new Pacer(pause);
  for (const [t, list] of byTable(records)) {
    const kept = foldTable(list).kept;
    if (kept.length === 0) continue;
    const table = await one<TableRecord>(view, keys.current(Kind.table, t), ValueKind.table, "table");
    if (!table || kept.length <= (await inliningLimit(view, table))) continue;
    const schema = await one<SchemaRecord>(
      view,
      keys.current(Kind.schema, table.schema_id),
      ValueKind.schema,
      "schema",
    );
    if (!schema) continue;
    const cols = (
      await scanAll<ColumnRecord>(view, keys.current(Kind.column, t), ValueKind.column, "column")
    ).sort((a, b) => a.column_order - b.column_order);
    const tableDir = tableDirOf(dataPath, schema, table);
    if (!tableDir.startsWith(dataPath)) continue;
    try {
      const top = layoutColumns(cols);
      const fields = parquetFields(cols);
      const prows: ParquetRow[] = [];
      for (const p of kept) {
        prows.push(toParquetRow(top, p.row));
        await pacer.tick();
      }
      const file = await writeParquetPaced(fields, prows, {
        pause: pacer.pause,
        rowGroupSize: MAINTENANCE_ROWS_PER_ROW_GROUP,
      });
      const name = `ducklake-${uuidv7(now())}.parquet`;
      objects.push({
        relativeToDataPath: joinPath(tableDir, name).slice(dataPath.length),
        bytes: file.bytes,
      });
      files.push({
        tableId: t,
        columnIds: cols.map((c) => c.column_id).sort((a, b) => a - b),
        file: writtenFileSpec(name, cols, file, kept.length),
      });
    } catch (e) {
      // A type the layout does not write yet: the table's rows of this batch stay inlined.
      if (e instanceof CodedError && e.code === "Unsupported") inlinedBecause.push({ tableId: t, error: e });
      else throw e;
    }
  }
  return {
    objects,
    verb: {
      op: "rows_flush",
      maxRecords: max,
      expectDrained: head.drained,
      through: last.seq,
      ...(files.length > 0 ? { files } : {}),
    },
    inlinedBecause,
  };
}
