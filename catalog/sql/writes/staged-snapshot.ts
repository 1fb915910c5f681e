/**
 * The two rows every staged-row translation (`staged-compaction.ts`, `staged-deletes.ts`,
 * `staged-flush.ts`, `staged-rewrite.ts`) opens and closes its client-side batch with: the commit's
 * `ducklake_snapshot` on the premise and its `ducklake_snapshot_changes`, as DuckLake's client-side commit
 * sends them (docs/decisions/0263-staged-flush.md).
 */
import type { SnapshotRecord } from "../../records.ts";
import type { Literal, RowOp } from "./parse.ts";
import { NULL, num, text } from "./staged-literals.ts";

/** The commit's author, message and extra info, as staged in `ducklake_staged_commit`. */
export interface CommitText {
  author: string | null;
  message: string | null;
  extraInfo: string | null;
}

/** `INSERT INTO ducklake_snapshot`: snapshot `premise + 1` on the premise's schema and catalog ids. */
export function snapshotRow(premise: SnapshotRecord, nextFileId: number): RowOp {
  return {
    op: "insert",
    table: "ducklake_snapshot",
    columns: null,
    rows: [
      [
        num(premise.snapshot_id + 1),
        { k: "now" },
        num(premise.schema_version),
        num(premise.next_catalog_id),
        num(nextFileId),
      ],
    ],
  };
}

/** `INSERT INTO ducklake_snapshot_changes` of snapshot `premise + 1` (`changes` NULL when empty). */
export function changesRow(premise: SnapshotRecord, changes: readonly string[], commit: CommitText): RowOp {
  const opt = (v: string | null): Literal => (v === null ? NULL : text(v));
  return {
    op: "insert",
    table: "ducklake_snapshot_changes",
    columns: null,
    rows: [
      [
        num(premise.snapshot_id + 1),
        changes.length === 0 ? NULL : text(changes.join(",")),
        opt(commit.author),
        opt(commit.message),
        opt(commit.extraInfo),
      ],
    ],
  };
}
