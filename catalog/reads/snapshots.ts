/** The snapshot list with its changes (ducklake_snapshots()), and the head. */
import type { ReadView } from "../../storage/api.ts";
import { displayChanges, parseChangesMade } from "../changes.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { readHead } from "../head.ts";
import { keys } from "../keys.ts";
import type { HeadRecord, SnapshotRecord } from "../records.ts";

/** A snapshot as readers see it: DuckLake's columns (no internal fields) plus the parsed changes. */
export type SnapshotInfo = Pick<
  SnapshotRecord,
  | "snapshot_id"
  | "snapshot_time"
  | "schema_version"
  | "next_catalog_id"
  | "next_file_id"
  | "changes_made"
  | "author"
  | "commit_message"
  | "commit_extra_info"
> & { changes: Record<string, string[]> };

export function snapshotInfo(r: SnapshotRecord): SnapshotInfo {
  return {
    snapshot_id: r.snapshot_id,
    snapshot_time: r.snapshot_time,
    schema_version: r.schema_version,
    next_catalog_id: r.next_catalog_id,
    next_file_id: r.next_file_id,
    changes_made: r.changes_made,
    author: r.author,
    commit_message: r.commit_message,
    commit_extra_info: r.commit_extra_info,
    changes: displayChanges(parseChangesMade(r.changes_made)),
  };
}

/** Snapshots after `after` (exclusive), ascending, at most `limit` (default 1000). */
export async function listSnapshots(
  view: ReadView,
  opts: { after?: number; limit?: number } = {},
): Promise<SnapshotInfo[]> {
  const head = await readHead(view);
  const start = opts.after === undefined ? 0 : opts.after + 1;
  const out: SnapshotInfo[] = [];
  if (start > head.snapshot_id) return out;
  for await (const kv of view.scan({
    start: keys.snapshot(start),
    end: keys.snapshot(head.snapshot_id + 1),
    limit: opts.limit ?? 1000,
  })) {
    out.push(snapshotInfo(decodeValue<SnapshotRecord>(ValueKind.snapshot, kv.value, "snapshot")));
  }
  return out;
}

export async function head(view: ReadView): Promise<HeadRecord & { position: number }> {
  return { ...(await readHead(view)), position: view.position };
}
