/**
 * The fence that keeps a path scheduled for deletion from being registered again (decision
 * docs/decisions/0329-maintenance-delete-files.md): its record, its key, and the refusal the registration
 * verbs apply. Job 5's catalog half (`maintenance/cleanup.ts`) writes and lifts fences; the verbs only read
 * them, so this sits below both.
 */
import type { ReadView } from "../storage/api.ts";
import { decodeValue, ValueKind } from "./codec.ts";
import { Constraint, quoteName } from "./errors.ts";
import { hash53, key, Subspace } from "./keys.ts";

const FENCE = 0x03;

export interface FenceEntry {
  path: string;
  fenced_at: number;
  deleted_at: number | null;
  /**
   * Set while only the orphan sweep holds the fence (decision 0330): the sweep lifts such a fence when the
   * path proves referenced. A schedule fencing the same path clears the flag, so it is never lifted.
   */
  orphan?: true;
}

export interface FenceRecord {
  /** Every fenced path with this hash (collisions keep them all). */
  paths: FenceEntry[];
}

export const fenceKey = (path: string) => key([Subspace.maintenance, FENCE], hash53(path));
export const fencePrefix = () => key([Subspace.maintenance, FENCE]);

/** A registration of a path scheduled for deletion (or deleted within the fence's hold). */
export class FileScheduledForDeletion extends Constraint {}

export async function readFence(view: Pick<ReadView, "get">, path: string): Promise<FenceRecord> {
  const raw = await view.get(fenceKey(path));
  return raw === undefined
    ? { paths: [] }
    : decodeValue<FenceRecord>(ValueKind.maintenanceFence, raw, "fence");
}

/** Refuses a registration of a fenced path (`relPath`: relative to the data path, as scheduled). */
export async function checkPathNotFenced(view: Pick<ReadView, "get">, relPath: string): Promise<void> {
  const f = await readFence(view, relPath);
  if (f.paths.some((p) => p.path === relPath))
    throw new FileScheduledForDeletion(
      `the file ${quoteName(relPath)} is scheduled for deletion by maintenance and cannot be registered again`,
    );
}
