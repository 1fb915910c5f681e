/**
 * Inlined data (decisions 0120, 0182): the `ducklake_inlined_data_<t>_<sv>` and
 * `ducklake_inlined_delete_<t>` tables' creation, registration and rows, and rows ended by an UPDATE or
 * DELETE.
 */
import { ValueKind } from "../../../codec.ts";
import { NotFound, quoteName, Unsupported } from "../../../errors.ts";
import { inlineRowWriteAt, writeInlinedRows } from "../../../inline-floor.ts";
import { Kind, keys } from "../../../keys.ts";
import type {
  DataFileRecord,
  InlinedTableRecord,
  InlineFileDeleteRecord,
  InlineRowRecord,
  TableMetaRecord,
} from "../../../records.ts";
import { columnTree, parseValue } from "../../../values/index.ts";
import type { Literal, RowOp } from "../parse.ts";
import { cellValue } from "../variant-literal.ts";
import type { Batch } from "./batch.ts";
import { bad, type Cells, cellsOf, INLINED_DATA, INLINED_DELETE, inlineValue, int, str } from "./cells.ts";
import { checkBegin, lineage, liveTable, noEnd, premiseRowIds, useRowIds } from "./checks.ts";

export async function insertInlinedTable(batch: Batch, r: Cells): Promise<void> {
  const t = int(r.table_id, "table_id");
  await liveTable(batch, t);
  const sv = int(r.schema_version, "schema_version");
  const name = str(r.table_name, "table_name");
  if (name !== `ducklake_inlined_data_${t}_${sv}`)
    throw bad(`inlined table ${quoteName(name)} is not named for table ${t}, version ${sv}`);
  const s = batch.snap as NonNullable<Batch["snap"]>;
  if (sv !== s.schema_version)
    throw bad(`inlined table ${name} is not at the commit's schema version ${s.schema_version}`);
  batch.ctx.write(keys.current(Kind.inlinedTable, t, sv), ValueKind.inlinedTable, {
    table_id: t,
    table_name: name,
    schema_version: sv,
    x_begin_snapshot: batch.S,
  } satisfies InlinedTableRecord);
}

/** The data columns of `ducklake_inlined_data_<t>_<sv>`: created by this batch, or the table's current ones. */
async function inlinedColumns(batch: Batch, t: number, sv: number): Promise<string[]> {
  const name = `ducklake_inlined_data_${t}_${sv}`;
  const created = batch.createdInlined.get(name);
  if (created) return created;
  const reg = await batch.ctx.read<InlinedTableRecord>(
    keys.current(Kind.inlinedTable, t, sv),
    ValueKind.inlinedTable,
    "inlined table",
  );
  if (!reg) throw new NotFound(`inlined table ${name} does not exist`);
  let newest = sv;
  for await (const kv of batch.ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, t) })) {
    const rec = await batch.ctx.read<InlinedTableRecord>(kv.key, ValueKind.inlinedTable, "inlined table");
    if (rec && rec.schema_version > newest) newest = rec.schema_version;
  }
  if (newest !== sv)
    throw new Unsupported(
      `rows for ${name}, an inlined table older than the table's newest, are not translated yet`,
    );
  return (await batch.ctx.columns(t))
    .filter((c) => c.parent_column === null)
    .sort((a, b) => a.column_order - b.column_order)
    .map((c) => c.column_name);
}

export async function create(batch: Batch, op: Extract<RowOp, { op: "create" }>): Promise<number> {
  const inl = INLINED_DATA.exec(op.table);
  if (inl) {
    const t = Number(inl[1]);
    const sv = Number(inl[2]);
    await liveTable(batch, t);
    const head = op.columns.slice(0, 3).map((c) => `${c.name} ${c.type}`);
    if (head.join(",") !== "row_id BIGINT,begin_snapshot BIGINT,end_snapshot BIGINT") {
      throw bad(`${op.table} does not start with row_id, begin_snapshot, end_snapshot`);
    }
    const reg = await batch.ctx.read<InlinedTableRecord>(
      keys.current(Kind.inlinedTable, t, sv),
      ValueKind.inlinedTable,
      "inlined table",
    );
    if (!reg) throw bad(`${op.table} is created without its ducklake_inlined_data_tables row`);
    const cols = (await batch.ctx.columns(t))
      .filter((c) => c.parent_column === null)
      .sort((a, b) => a.column_order - b.column_order)
      .map((c) => c.column_name);
    const declared = op.columns.slice(3).map((c) => c.name);
    if (declared.join("\u0000").toLowerCase() !== cols.join("\u0000").toLowerCase()) {
      throw bad(`${op.table} declares columns (${declared.join(", ")}), the table has (${cols.join(", ")})`);
    }
    batch.createdInlined.set(op.table, cols);
    return 0;
  }
  const del = INLINED_DELETE.exec(op.table);
  if (del) {
    const t = Number(del[1]);
    await liveTable(batch, t);
    if (
      op.columns.map((c) => `${c.name} ${c.type}`).join(",") !==
      "file_id BIGINT,row_id BIGINT,begin_snapshot BIGINT"
    ) {
      throw bad(`${op.table} is not (file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)`);
    }
    const k = keys.current(Kind.tableMeta, t);
    const meta = (await batch.ctx.read<TableMetaRecord>(k, ValueKind.tableMeta, "table meta")) ?? {
      table_id: t,
      next_column_id: 1,
    };
    if (meta.x_inlined_delete_since === undefined) {
      batch.ctx.write(k, ValueKind.tableMeta, {
        ...meta,
        x_inlined_delete_since: batch.S,
      } satisfies TableMetaRecord);
    }
    return 0;
  }
  throw new Unsupported(`CREATE TABLE ${op.table} outside a lake's initialization batch`);
}

export async function insertInlined(
  batch: Batch,
  op: Extract<RowOp, { op: "insert" }>,
  t: number,
  sv: number,
): Promise<number> {
  await liveTable(batch, t);
  await premiseRowIds(batch, t);
  const data = await inlinedColumns(batch, t, sv);
  const columns = ["row_id", "begin_snapshot", "end_snapshot", ...data];
  const all = await batch.ctx.columns(t);
  const nodes = new Map(
    all.filter((c) => c.parent_column === null).map((c) => [c.column_name, columnTree(all, c)] as const),
  );

  const rows = cellsOf(op, columns);
  for (const r of rows) {
    const rowId = int(r.row_id, "row_id");
    checkBegin(batch, r.begin_snapshot, "inlined row");
    noEnd(r.end_snapshot, "inlined row");
    const k = keys.inlineRow(t, rowId);
    const prior = await batch.ctx.read<InlineRowRecord>(k, ValueKind.inlineRow, "inlined row");
    if (prior) {
      // An UPDATE keeps the row id: the prior version moves aside, to be ended by this batch.
      if (prior.begin_snapshot === batch.S) throw bad(`inlined row ${rowId} of table ${t} is inserted twice`);
      await writeInlinedRows(batch.ctx, t, [{ record: prior, asVersion: true }]);
      lineage(batch, t).add(rowId);
    }
    const values: InlineRowRecord["values"] = {};
    // The stored form and what is valid per type are catalog/values/' rules (decision 0120).
    for (const c of data) {
      const node = nodes.get(c);
      if (!node) throw bad(`${op.table} has no column ${quoteName(c)}`);
      const cell = cellValue(node, r[c] as Literal, inlineValue);
      values[c] = parseValue(node, cell, `${op.table}.${c} (row ${rowId})`);
    }
    await writeInlinedRows(batch.ctx, t, [
      { record: { row_id: rowId, begin_snapshot: batch.S, end_snapshot: null, schema_version: sv, values } },
    ]);
    useRowIds(batch, t, rowId, 1);
  }
  batch.ctx.inlinedInsertTables.add(t);
  return rows.length;
}

export async function insertInlinedDeletes(
  batch: Batch,
  op: Extract<RowOp, { op: "insert" }>,
  t: number,
): Promise<number> {
  await liveTable(batch, t);
  const rows = cellsOf(op, ["file_id", "row_id", "begin_snapshot"]);
  for (const r of rows) {
    const f = int(r.file_id, "file_id");
    const pos = int(r.row_id, "row_id");
    checkBegin(batch, r.begin_snapshot, "inlined delete");
    const file = await batch.ctx.read<DataFileRecord>(
      keys.current(Kind.dataFile, t, f),
      ValueKind.dataFile,
      "data file",
    );
    if (!file) throw new NotFound(`data file ${f} of table ${t} does not exist (or was removed)`);
    if (pos < 0 || pos >= file.record_count)
      throw bad(`position ${pos} is outside data file ${f}'s ${file.record_count} rows`);
    // A rewritten file's rows carry their own ids (decision 0322): the id at a position is in the
    // Parquet file, so an UPDATE's new version is not checkable against it (as for a delete file).
    if (file.x_row_ids_in_file) batch.parquetDeletes.add(t);
    else lineage(batch, t).add(file.row_id_start + pos);
    batch.ctx.write(keys.inlineFileDelete(t, f, pos), ValueKind.inlineFileDelete, {
      file_id: f,
      row_id: pos,
      begin_snapshot: batch.S,
    } satisfies InlineFileDeleteRecord);
    batch.ctx.deletedDataFileIds.add(f);
  }
  return rows.length;
}

export async function endInlined(batch: Batch, op: Extract<RowOp, { op: "end_inlined" }>): Promise<number> {
  const m = INLINED_DATA.exec(op.table);
  if (!m) throw bad(`${op.table} is not an inlined data table`);
  const t = Number(m[1]);
  await liveTable(batch, t);
  if (op.endSnapshot !== batch.S) throw bad(`rows are ended at snapshot ${op.endSnapshot}, not ${batch.S}`);
  let n = 0;
  for (const rowId of op.rowIds) {
    // The live version not begun by this batch: the row's own key, or a version moved aside above.
    for await (const kv of batch.ctx.st.scan({ prefix: keys.inlineRow(t, rowId) })) {
      const raw = await batch.ctx.read<InlineRowRecord>(kv.key, ValueKind.inlineRow, "inlined row");
      if (!raw || raw.end_snapshot !== null || raw.begin_snapshot === batch.S) continue;
      await writeInlinedRows(batch.ctx, t, [inlineRowWriteAt(t, kv.key, { ...raw, end_snapshot: batch.S })]);
      lineage(batch, t).add(rowId);
      n++;
    }
  }
  batch.ctx.deletesUntargeted = true;
  return n;
}
