/**
 * A `lake` row write, run by the lake writer (docs/decisions/0316-lake-write-parquet.md): the catalog
 * plans it (`planLakeWrite`: a Parquet file for this write's rows when they pass the table's inlining
 * limit), the file is PUT (put-if-absent), then the planned request commits — one DuckLake commit,
 * acknowledged only once durable. A crash or a refusal after a PUT leaves an unreferenced file and an
 * unacknowledged write; a plan the table moved past (an ALTER landed first) is refused whole
 * (`FlushPlanStale`) and made again, at most MAX_LAKE_WRITE_ATTEMPTS times.
 */
import { type CommitRequest, planLakeWrite } from "../catalog/index.ts";
import type { ReadView } from "../storage/api.ts";
import { CodedError } from "../storage/errors.ts";
import { yieldToEventLoop } from "../storage/maintenance.ts";
import { putPlanned } from "./put-planned.ts";
import type { RowsFlushDeps } from "./rows-flush.ts";

/**
 * Plans one `lake` write makes before it gives up with the last `FlushPlanStale` (each refused plan means
 * an ALTER of the table landed between its PUT and its commit; a handful covers all but a storm of them).
 */
export const MAX_LAKE_WRITE_ATTEMPTS = 8;

export interface LakeWriteDeps
  extends Pick<RowsFlushDeps, "lake" | "bucket" | "bucketName" | "now" | "pause"> {
  view: () => ReadView;
}

/**
 * Commits `request` through `commit`, with a Parquet plan when it is a `lake` write that needs one;
 * anything else commits unchanged.
 */
export async function commitLakeWrite<T>(
  deps: LakeWriteDeps,
  request: CommitRequest,
  commit: (request: CommitRequest) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const plan = await planLakeWrite(deps.view(), request, deps.now, deps.pause ?? yieldToEventLoop);
    if (plan === null) return commit(request);
    await putPlanned(deps, plan.objects);
    try {
      return await commit(plan.request);
    } catch (e) {
      if (!(e instanceof CodedError && e.code === "FlushPlanStale") || attempt >= MAX_LAKE_WRITE_ATTEMPTS)
        throw e;
    }
  }
}
