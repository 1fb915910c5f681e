/**
 * The commit's header: the `ducklake_snapshot` and `ducklake_snapshot_changes` rows, checked against the
 * premise (head + 1, counters that only grow), and the snapshot record the batch mints.
 */
import { parseChangesMade } from "../../../changes.ts";
import { CommitConflict, Unsupported } from "../../../errors.ts";
import { DUCKLAKE_TABLES } from "../../../reads/ducklake-tables.ts";
import type { SnapshotRecord } from "../../../records.ts";
import type { RowOp } from "../parse.ts";
import type { Batch } from "./batch.ts";
import { bad, type Cells, cellsOf, int, strOrNull } from "./cells.ts";

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

export function readSnapshotRows(batch: Batch): void {
  for (const op of batch.ops) {
    if (op.op !== "insert") continue;
    if (op.table === "ducklake_snapshot") {
      const rows = cellsOf(op, DUCKLAKE_TABLES.ducklake_snapshot ?? []);
      if (rows.length !== 1 || batch.snap) throw bad("a commit inserts exactly one ducklake_snapshot row");
      const r = rows[0] as Cells;
      if (r.snapshot_time?.k !== "now") throw bad("snapshot_time must be NOW()");
      batch.snap = {
        snapshot_id: int(r.snapshot_id, "snapshot_id"),
        schema_version: int(r.schema_version, "schema_version"),
        next_catalog_id: int(r.next_catalog_id, "next_catalog_id"),
        next_file_id: int(r.next_file_id, "next_file_id"),
      };
    } else if (op.table === "ducklake_snapshot_changes") {
      const rows = cellsOf(op, DUCKLAKE_TABLES.ducklake_snapshot_changes ?? []);
      if (rows.length !== 1 || batch.changes)
        throw bad("a commit inserts exactly one ducklake_snapshot_changes row");
      batch.changes = rows[0] as Cells;
    }
  }
  const s = batch.snap;
  if (
    s === undefined &&
    batch.changes === undefined &&
    batch.ops.every(
      (op) =>
        isOptionOp(op) ||
        MINTS_NO_SNAPSHOT.has(op.op) ||
        op.op === "delete" ||
        (op.op === "insert" && op.table === "ducklake_files_scheduled_for_deletion"),
    )
  )
    return;
  if (s === undefined || batch.changes === undefined) {
    throw new Unsupported(
      "a write batch without a ducklake_snapshot and a ducklake_snapshot_changes row (maintenance that mints no snapshot) is not translated yet",
    );
  }
  if (int(batch.changes.snapshot_id, "snapshot_changes.snapshot_id") !== s.snapshot_id) {
    throw bad("the ducklake_snapshot_changes row names another snapshot");
  }
  const p = batch.premise;
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

export function snapshotRecord(batch: Batch): SnapshotRecord {
  const s = batch.snap as NonNullable<Batch["snap"]>;
  const c = batch.changes as Cells;
  const changesMade = strOrNull(c.changes_made, "changes_made");
  const set = parseChangesMade(changesMade);
  // The conflict classifier reads our side from the context, as for a verb member.
  Object.assign(batch.ctx.changes, set);
  batch.ctx.mintsSnapshot = true;
  for (const t of batch.touched) batch.ctx.touchedTables.add(t);
  return {
    snapshot_id: s.snapshot_id,
    snapshot_time: Math.floor(batch.ctx.env.now() * 1000),
    schema_version: s.schema_version,
    next_catalog_id: s.next_catalog_id,
    next_file_id: s.next_file_id,
    changes_made: changesMade,
    author: strOrNull(c.author, "author"),
    commit_message: strOrNull(c.commit_message, "commit_message"),
    commit_extra_info: strOrNull(c.commit_extra_info, "commit_extra_info"),
    x_touched_table_ids: [...batch.touched].sort((a, b) => a - b),
    x_deleted_data_file_ids: [...batch.ctx.deletedDataFileIds].sort((a, b) => a - b),
    x_deletes_untargeted: batch.ctx.deletesUntargeted,
  };
}
