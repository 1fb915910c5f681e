/**
 * When jobs 4 and 5 next have work, from the catalog alone: the writer's alarm sleeps until then, so a
 * lake that stops committing still expires its old snapshots, deletes its scheduled files and collects its
 * marked orphans once their retention or grace ends (decisions docs/decisions/0324-maintenance-alarm.md,
 * docs/decisions/0331-orphan-grace-alarm.md). Jobs 1-3 need no time: only a commit gives them work, and a
 * commit arms the alarm itself.
 */
import type { ReadView } from "../../storage/api.ts";
import { decodeValue, ValueKind } from "../codec.ts";
import { readHead } from "../head.ts";
import { Kind, keys } from "../keys.ts";
import type { GcFileRecord, SnapshotRecord } from "../records.ts";
import { earliestOrphanMark } from "./orphans.ts";

/**
 * Scheduled-file rows one look examines for the earliest grace end. Past it the earliest seen is answered:
 * job 5 deletes at most a step's files per pass and re-arms while more are due, so a later row is reached.
 */
export const MAX_SCHEDULED_FILES_EXAMINED = 10_000;

/**
 * Orphan-mark records one look examines for the earliest first sighting. Past it the earliest seen is
 * answered: a pass deletes the due marks it finds and re-arms, so a later mark is reached in time.
 */
export const MAX_ORPHAN_MARKS_EXAMINED = 10_000;

/**
 * When job 4 next has a snapshot to expire (ms since the epoch): the oldest snapshot that is neither the
 * head nor pinned, plus the retention; null when there is none. Already past when a bounded run left some.
 */
export async function nextExpiryAt(
  view: ReadView,
  o: { olderThanMs: number; pinned: readonly number[] },
): Promise<number | null> {
  const head = await readHead(view);
  const pinned = new Set(o.pinned);
  for await (const kv of view.scan({ prefix: keys.snapshotPrefix() })) {
    const s = decodeValue<SnapshotRecord>(ValueKind.snapshot, kv.value, "snapshot");
    if (s.snapshot_id >= head.snapshot_id) return null;
    if (pinned.has(s.snapshot_id)) continue;
    return Math.floor(s.snapshot_time / 1000) + o.olderThanMs;
  }
  return null;
}

/** When job 5 next has a file to delete (ms since the epoch): the earliest schedule plus the grace. */
export async function nextDeleteAt(view: ReadView, o: { graceMs: number }): Promise<number | null> {
  let earliest: number | null = null;
  let seen = 0;
  for await (const kv of view.scan({ prefix: keys.current(Kind.gcFile) })) {
    const g = decodeValue<GcFileRecord>(ValueKind.gcFile, kv.value, "scheduled file");
    const at = Math.floor(g.schedule_start / 1000) + o.graceMs;
    if (earliest === null || at < earliest) earliest = at;
    if (++seen >= MAX_SCHEDULED_FILES_EXAMINED) break;
  }
  return earliest;
}

/**
 * When job 5 next has an orphan to collect (ms since the epoch): the earliest mark's first sighting plus
 * the grace (decision 0330 counts the grace from the mark); null when nothing is marked.
 */
export async function nextOrphanDeleteAt(view: ReadView, o: { graceMs: number }): Promise<number | null> {
  const first = await earliestOrphanMark(view, MAX_ORPHAN_MARKS_EXAMINED);
  return first === null ? null : first + o.graceMs;
}
