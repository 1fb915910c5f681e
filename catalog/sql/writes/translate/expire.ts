/**
 * ducklake_expire_snapshots and the cleanup around it (docs/decisions/0241-quack-expire-snapshots.md):
 * snapshots, files no remaining snapshot sees, per-table rows of tables dropped whole, emptied inlined
 * tables and ended versions.
 */
import { decodeValue, ValueKind } from "../../../codec.ts";
import { Constraint } from "../../../errors.ts";
import { scanInlineRows } from "../../../inline-floor.ts";
import { Kind, keys } from "../../../keys.ts";
import type {
  DataFileRecord,
  DeleteFileRecord,
  InlinedTableRecord,
  InlineRowRecord,
  SnapshotRecord,
  TableRecord,
  TagContainer,
  Versioned,
} from "../../../records.ts";
import type { RowOp } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, INLINED_DATA, INLINED_DELETE } from "./cells.ts";

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

function expiryOnly(batch: Batch, what: string): void {
  if (batch.snap !== undefined) throw bad(`${what} arrives in a commit that mints a snapshot`);
}

/**
 * `DELETE FROM ducklake_snapshot WHERE snapshot_id IN (…)`: the snapshots' records go, their
 * ducklake_snapshot_changes rows with them (one record holds both). The head is never expired, nor a
 * snapshot a live checkpoint pins: the whole request is refused and nothing changes.
 */
export async function expireSnapshots(
  batch: Batch,
  op: Extract<RowOp, { op: "expire_snapshots" }>,
): Promise<number> {
  expiryOnly(batch, `DELETE FROM ${op.table}`);
  let n = 0;
  for (const id of op.ids) {
    if (id >= batch.premise.snapshot_id)
      throw bad(
        `snapshot ${id} is the head or beyond it (head ${batch.premise.snapshot_id}); the head is never expired`,
      );
    const pin = batch.pinned.get(id);
    if (pin !== undefined)
      throw new Constraint(
        `snapshot ${id} is pinned by live checkpoint ${pin}: expire older snapshots only, or delete the checkpoint first`,
      );
    const k = keys.snapshot(id);
    const exists = (await batch.ctx.st.get(k)) !== undefined;
    if (op.table === "ducklake_snapshot_changes") {
      // Its row went with the snapshot's record; a changes row never outlives or predeceases it.
      if (exists) throw bad(`snapshot ${id}'s changes row is removed while the snapshot stays`);
      continue;
    }
    if (!exists) continue;
    batch.ctx.st.delete(k);
    batch.remaining = undefined;
    n++;
  }
  return n;
}

/** Every version (current and history) of a per-table or lake-wide kind, with its key. */
async function versionsOf<T>(
  batch: Batch,
  kind: Kind,
  vk: ValueKind,
  ...ids: number[]
): Promise<[Uint8Array, T][]> {
  const out: [Uint8Array, T][] = [];
  for (const prefix of [keys.current(kind, ...ids), keys.historyPrefix(kind, ...ids)])
    for await (const kv of batch.ctx.st.scan({ prefix }))
      out.push([kv.key, decodeValue<T>(vk, kv.value, "record")]);
  return out;
}

/** True when no remaining snapshot lies in [begin, end) (a live version, end NULL, is always seen). */
async function unseen(batch: Batch, rec: Versioned): Promise<boolean> {
  if (rec.end_snapshot === null) return false;
  const e = rec.end_snapshot;
  return !(await remainingSnapshots(batch)).some((id) => id >= rec.begin_snapshot && id < e);
}

/** A table every version of which has ended outside every remaining snapshot (none left counts). */
async function tableExpired(batch: Batch, t: number): Promise<boolean> {
  for (const [, rec] of await versionsOf<TableRecord>(batch, Kind.table, ValueKind.table, t))
    if (!(await unseen(batch, rec))) return false;
  return true;
}

/**
 * `DELETE FROM ducklake_data_file | ducklake_delete_file WHERE <id> IN (…)` in a request of its own: the
 * expiry of files no remaining snapshot sees, or of a table dropped whole. Any other file is refused.
 */
export async function expireFiles(batch: Batch, op: Extract<RowOp, { op: "delete" }>): Promise<number> {
  const data = op.table === "ducklake_data_file";
  if (!data && op.table !== "ducklake_delete_file") {
    // Child rows of data files (stats, partition values) live inside the data file's record.
    for (const id of op.ids)
      if ((await fileVersions(batch, true, "data_file_id", id)).length > 0)
        throw bad(`${op.table} rows of data file ${id} are removed while the data file stays`);
    return 0;
  }
  let n = 0;
  for (const id of op.ids) {
    for (const [k, rec] of await fileVersions(batch, data, op.key, id)) {
      if (!(await unseen(batch, rec)) && !(await tableExpired(batch, rec.table_id)))
        throw bad(`${data ? "data" : "delete"} file ${id} is still visible at a remaining snapshot`);
      batch.ctx.st.delete(k);
      n++;
    }
  }
  return n;
}

/** The versions of the data or delete file(s) whose `key` is `id`, in any table. */
export async function fileVersions(
  batch: Batch,
  data: boolean,
  key: string,
  id: number,
): Promise<[Uint8Array, DataFileRecord | DeleteFileRecord][]> {
  const all = data
    ? await versionsOf<DataFileRecord>(batch, Kind.dataFile, ValueKind.dataFile)
    : await versionsOf<DeleteFileRecord>(batch, Kind.deleteFile, ValueKind.deleteFile);
  return all.filter(([, r]) => (r as unknown as Record<string, unknown>)[key] === id);
}

/** `DELETE FROM ducklake_<per-table table> WHERE table_id IN (…)`: only tables dropped whole and expired. */
export async function expireTableRows(
  batch: Batch,
  op: Extract<RowOp, { op: "expire_table_rows" }>,
): Promise<number> {
  expiryOnly(batch, `DELETE FROM ${op.table}`);
  const kinds = TABLE_ROW_KINDS[op.table];
  if (!kinds) throw bad(`${op.table} is not a per-table DuckLake table`);
  let n = 0;
  for (const t of op.ids) {
    if (!(await tableExpired(batch, t))) throw bad(`table ${t} is still visible at a remaining snapshot`);
    for (const kind of kinds) {
      for (const prefix of [keys.current(kind, t), keys.historyPrefix(kind, t)]) {
        for await (const kv of batch.ctx.st.scan({ prefix })) {
          batch.ctx.st.delete(kv.key);
          if (kind !== Kind.tableMeta) n++;
        }
      }
    }
  }
  return n;
}

/** `DROP TABLE IF EXISTS ducklake_inlined_data_<t>_<sv> | ducklake_inlined_delete_<t>` of an expired table. */
export async function dropInlined(batch: Batch, table: string): Promise<number> {
  expiryOnly(batch, `DROP TABLE ${table}`);
  const data = INLINED_DATA.exec(table);
  const t = Number(data ? data[1] : INLINED_DELETE.exec(table)?.[1]);
  const retired =
    data !== null &&
    (await retiredInlined(batch, t, Number(data[2]))) &&
    !(await rowsLeft(batch, t, Number(data[2])));
  if (!retired && !(await tableExpired(batch, t)))
    throw bad(
      `table ${t} is still visible at a remaining snapshot, and ${table} is not an emptied older inlined table`,
    );
  if (data) {
    const sv = Number(data[2]);
    for await (const kv of scanInlineRows(batch.ctx.st, t))
      if (decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row").schema_version === sv)
        batch.ctx.st.delete(kv.key);
  } else {
    for await (const kv of batch.ctx.st.scan({ prefix: keys.inlineFileDeletePrefix(t) }))
      batch.ctx.st.delete(kv.key);
  }
  return 0;
}

/** Whether inlined rows of (t, sv) remain. */
async function rowsLeft(batch: Batch, t: number, sv: number): Promise<boolean> {
  for await (const kv of scanInlineRows(batch.ctx.st, t))
    if (decodeValue<InlineRowRecord>(ValueKind.inlineRow, kv.value, "inlined row").schema_version === sv)
      return true;
  return false;
}

/** (t, sv) is not registered (any more) while a newer inlined table of t is. */
async function retiredInlined(batch: Batch, t: number, sv: number): Promise<boolean> {
  if (await batch.ctx.st.get(keys.current(Kind.inlinedTable, t, sv))) return false;
  for await (const kv of batch.ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, t) }))
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
export async function retireInlined(batch: Batch, t: number, sv: number): Promise<number> {
  expiryOnly(batch, "DELETE FROM ducklake_inlined_data_tables");
  const k = keys.current(Kind.inlinedTable, t, sv);
  if (!(await batch.ctx.st.get(k))) return 0;
  let newer = false;
  for await (const kv of batch.ctx.st.scan({ prefix: keys.current(Kind.inlinedTable, t) }))
    if (
      decodeValue<InlinedTableRecord>(ValueKind.inlinedTable, kv.value, "inlined table").schema_version > sv
    )
      newer = true;
  if (!newer) throw bad(`ducklake_inlined_data_${t}_${sv} is the table's newest inlined table`);
  if (await rowsLeft(batch, t, sv))
    throw bad(`ducklake_inlined_data_${t}_${sv} still holds rows; flush them first`);
  batch.ctx.st.delete(k);
  return 1;
}

/** The snapshot ids left, ascending (after this request's own removals). */
async function remainingSnapshots(batch: Batch): Promise<number[]> {
  if (batch.remaining) return batch.remaining;
  const out: number[] = [];
  for await (const kv of batch.ctx.st.scan({ prefix: keys.snapshotPrefix() }))
    out.push(decodeValue<SnapshotRecord>(ValueKind.snapshot, kv.value, "snapshot").snapshot_id);
  batch.remaining = out;
  return out;
}

/**
 * `DELETE FROM ducklake_<schema|view|tag|macro> WHERE end_snapshot IS NOT NULL AND NOT EXISTS(a snapshot
 * in [begin_snapshot, end_snapshot))`: ended versions no remaining snapshot can see.
 */
export async function pruneVersions(batch: Batch, table: string): Promise<number> {
  expiryOnly(batch, `DELETE FROM ${table}`);
  const left = await remainingSnapshots(batch);
  const seen = (b: number, e: number | null): boolean => e === null || left.some((id) => id >= b && id < e);
  let n = 0;
  if (table === "ducklake_tag") {
    for await (const kv of batch.ctx.st.scan({ prefix: keys.current(Kind.tag) })) {
      const c = decodeValue<TagContainer>(ValueKind.tagContainer, kv.value, "tag");
      const kept = c.entries.filter((e) => seen(e.begin_snapshot, e.end_snapshot));
      if (kept.length === c.entries.length) continue;
      n += c.entries.length - kept.length;
      if (kept.length === 0) batch.ctx.st.delete(kv.key);
      else batch.ctx.write(kv.key, ValueKind.tagContainer, { ...c, entries: kept } satisfies TagContainer);
    }
    return n;
  }
  const spec = PRUNE_KINDS[table];
  if (!spec) throw bad(`${table} is not pruned by expire_snapshots`);
  for await (const kv of batch.ctx.st.scan({ prefix: keys.historyPrefix(spec.kind) })) {
    const rec = decodeValue<Versioned>(spec.vk, kv.value, table);
    if (seen(rec.begin_snapshot, rec.end_snapshot)) continue;
    batch.ctx.st.delete(kv.key);
    n++;
  }
  return n;
}
