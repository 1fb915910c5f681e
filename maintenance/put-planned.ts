/**
 * "PUT the planned files, then commit": the one step every writer job that writes objects takes (jobs 1-3,
 * the row flusher, a `lake` write). Each planned file is PUT put-if-absent under the lake's data prefix
 * (a data file never changes once written; R2 throttles same-key writes), then the plan's request commits
 * through the writer. A crash or a refusal after a PUT leaves only an unreferenced file, which the orphan
 * sweep removes (decision 0330); nothing references a file before its commit lands.
 */
import { DataPathExternal, lakeDataPathExternal, type PlannedObject } from "../catalog/index.ts";
import type { Bucket, ReadView } from "../storage/api.ts";
import { CodedError } from "../storage/errors.ts";
import { dataObjectKey } from "../storage/keys.ts";

/** A planned file's name was already taken (uuidv7 names make this a broken invariant). */
export class PlannedObjectExists extends CodedError {
  readonly code = "Corruption";
}

/** Where a plan's files go: the lake's prefix of the bucket, and the state that says whether it is the lake's. */
export interface PutPlannedDeps {
  lake: string;
  bucket: Bucket;
  /** The bucket's name (`BUCKET_NAME`): with the lake it says whether the data path is the writer's (0502). */
  bucketName?: string;
  view: () => ReadView;
}

/**
 * PUTs every planned object put-if-absent, in order; refuses one whose name is taken. A lake whose data path
 * is external gets none: the writer never registers a file where the data path does not hold it (0502).
 */
export async function putPlanned(deps: PutPlannedDeps, objects: readonly PlannedObject[]): Promise<void> {
  if (objects.length === 0) return;
  const external = await lakeDataPathExternal(deps.view(), deps.bucketName, deps.lake);
  if (external !== null) throw new DataPathExternal(external);
  for (const o of objects) {
    const key = dataObjectKey(deps.lake, o.relativeToDataPath);
    const stored = await deps.bucket.put(key, o.bytes, { onlyIf: { etagDoesNotMatch: "*" } });
    if (stored === null) throw new PlannedObjectExists(`a planned data file already exists at ${key}`);
  }
}

/** PUTs the plan's objects, then commits its request. */
export async function putPlannedThenCommit<R, T>(
  deps: PutPlannedDeps,
  plan: { objects: readonly PlannedObject[]; request: R },
  commit: (request: R) => Promise<T>,
): Promise<T> {
  await putPlanned(deps, plan.objects);
  return commit(plan.request);
}
