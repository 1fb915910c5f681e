/**
 * One flush batch of the row log, run by the lake writer (docs/decisions/0313-rows-flush-parquet.md):
 * the catalog plans the batch (`planRowsFlush`: which records, and the Parquet file of each table whose
 * rows pass its inlining limit), the files are PUT under the lake's data prefix (put-if-absent: a data
 * file never changes once written), then the `rows_flush` verb commits through the writer's coalescer —
 * one DuckLake commit registering the files, trimming the records and moving the watermark in one store
 * batch. A crash or a refusal after a PUT leaves only an unreferenced file; the next step plans afresh
 * from the log, so what was drained is never applied twice.
 */
import { planRowsFlush } from "../catalog/ingest/flush-plan.ts";
import type { CommitRequest } from "../catalog/verbs/schema.ts";
import type { Bucket, ReadView } from "../storage/api.ts";
import { CodedError } from "../storage/errors.ts";
import { dataObjectKey } from "../storage/keys.ts";

export interface RowsFlushDeps {
  lake: string;
  bucket: Bucket;
  /** The writer's latest state (the plan is made from it). */
  view: () => ReadView;
  commit: (
    request: CommitRequest,
  ) => Promise<{ snapshotId: number | null; assigned: Record<string, unknown>[] }>;
  now: () => number;
  message: string;
}

export interface RowsFlushStep {
  /** Records the step drained (0: the log was drained, or the plan went stale and nothing applied). */
  records: number;
  drained: number;
  snapshotId: number | null;
  /** The plan was made at a watermark another flush had moved (nothing applied; plan again). */
  stale: boolean;
  /** Parquet files this step registered. */
  files: number;
}

/** A planned data file's name was already taken (uuidv7 names make this a broken invariant). */
export class RowsFlushObjectExists extends CodedError {
  readonly code = "Corruption";
}

export async function runRowsFlushStep(deps: RowsFlushDeps): Promise<RowsFlushStep | null> {
  const plan = await planRowsFlush(deps.view(), deps.now);
  if (plan === null) return null;
  for (const o of plan.objects) {
    const key = dataObjectKey(deps.lake, o.relativeToDataPath);
    const stored = await deps.bucket.put(key, o.bytes, { onlyIf: { etagDoesNotMatch: "*" } });
    if (stored === null) throw new RowsFlushObjectExists(`a planned data file already exists at ${key}`);
  }
  const r = await deps.commit({ verbs: [plan.verb], message: deps.message });
  const a = r.assigned[0] ?? {};
  return {
    records: Number(a.records ?? 0),
    drained: Number(a.drained ?? 0),
    snapshotId: r.snapshotId,
    stale: Number(a.stale ?? 0) === 1,
    files: plan.objects.length,
  };
}
