/** Reading the head pointer and snapshot records from any ReadView (writer transaction or reader cut). */
import type { ReadView } from "../storage/api.ts";
import { decodeValue, ValueKind } from "./codec.ts";
import { corruption, NotFound } from "./errors.ts";
import { keys } from "./keys.ts";
import type { HeadRecord, SnapshotRecord } from "./records.ts";

export async function readHead(view: Pick<ReadView, "get">): Promise<HeadRecord> {
  const raw = await view.get(keys.head());
  if (raw === undefined)
    throw new NotFound("this store holds no catalog (no head); open it with openCatalog first");
  return decodeValue<HeadRecord>(ValueKind.head, raw, "head");
}

/**
 * True when a client appended a `ducklake_snapshot_changes` row for snapshot `id` before it was minted
 * (docs/decisions/0710-metadata-appends.md): the commit minting `id` fails on the primary key.
 */
export function reservedChanges(head: HeadRecord, id: number): boolean {
  return head.x_reserved_changes?.some((c) => c.snapshot_id === id) ?? false;
}

export async function readSnapshot(view: ReadView, snapshotId: number): Promise<SnapshotRecord> {
  const raw = await view.get(keys.snapshot(snapshotId));
  if (raw === undefined) throw new NotFound(`snapshot ${snapshotId} does not exist`);
  return decodeValue<SnapshotRecord>(ValueKind.snapshot, raw, `snapshot ${snapshotId}`);
}

/** Snapshots in (after, through], ascending. */
export async function readSnapshotsBetween(
  view: Pick<ReadView, "scan">,
  after: number,
  through: number,
): Promise<SnapshotRecord[]> {
  const out: SnapshotRecord[] = [];
  if (through <= after) return out;
  for await (const kv of view.scan({ start: keys.snapshot(after + 1), end: keys.snapshot(through + 1) })) {
    out.push(decodeValue<SnapshotRecord>(ValueKind.snapshot, kv.value, "snapshot"));
  }
  const expected = through - after;
  if (out.length !== expected) {
    throw corruption(`snapshots ${after + 1}..${through} should be ${expected} records, found ${out.length}`);
  }
  return out;
}

/** Resolves an optional snapshot id against the head: beyond head is NotFound. */
export async function resolveSnapshot(view: ReadView, snapshotId?: number): Promise<SnapshotRecord> {
  const head = await readHead(view);
  const id = snapshotId ?? head.snapshot_id;
  if (id > head.snapshot_id) {
    throw new NotFound(`snapshot ${id} is beyond the head (${head.snapshot_id}); read at or before the head`);
  }
  return readSnapshot(view, id);
}
