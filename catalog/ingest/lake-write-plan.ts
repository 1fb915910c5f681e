/**
 * The writer's plan of a `lake` row write (docs/decisions/0316-lake-write-parquet.md): the write is one
 * DuckLake commit that drains the log through itself, and when a table's surviving rows of that batch
 * pass its inlining limit they go in a Parquet file the writer PUTs before the commit — exactly as a
 * flush batch does (`flush-plan.ts`, the one planner). Pure: the write is staged into a scratch overlay of
 * the writer's view (the verb's own `rowsWrite`, so validation and sequence numbers are the verb's), the
 * flush batch of this write's own records is planned over that overlay, and nothing is kept. The verb
 * drains the earlier records first, then this write's with the file, checking the file's row count and
 * the table's columns (`landIfLakePath`, `flushLog`); a difference (an ALTER in between) is
 * `FlushPlanStale` and the writer plans again.
 */
import type { ReadView } from "../../storage/api.ts";
import { lookupIdempotency } from "../commit/idempotency.ts";
import { isMemberError } from "../errors.ts";
import { readHead, readSnapshot } from "../head.ts";
import type { PlannedObject } from "../maintenance/flush-plan.ts";
import { Staging } from "../staging.ts";
import { VerbContext } from "../verbs/context.ts";
import type { CommitRequest, VerbOf } from "../verbs/schema.ts";
import { planRowsFlush } from "./flush-plan.ts";
import { MAX_FLUSH_RECORDS } from "./limits.ts";
import { rowsWrite } from "./log.ts";
import { readIngestHead, readSettings, writeIngestHead } from "./state.ts";

export interface LakeWritePlan {
  /** Files to PUT (put-if-absent) under the lake's data prefix before committing `request`. */
  objects: PlannedObject[];
  /** The caller's request with the plan attached to its write. */
  request: CommitRequest;
}

/** The one `rows_write` of a request the lake-write plan applies to (a standalone write), if any. */
export function soleRowsWrite(request: CommitRequest): VerbOf<"rows_write"> | undefined {
  const [v, ...rest] = request.verbs;
  return rest.length === 0 && v?.op === "rows_write" && v.lakePlan === undefined ? v : undefined;
}

/**
 * The plan, or null when the request needs none: not a `lake` write, a replay of an idempotency key, no
 * table above its inlining limit in the batch, or a write the verb will refuse anyway (it fails there,
 * with the verb's own error).
 */
export async function planLakeWrite(
  view: ReadView,
  request: CommitRequest,
  now: () => number,
): Promise<LakeWritePlan | null> {
  const v = soleRowsWrite(request);
  if (v === undefined) return null;
  if ((v.writePath ?? (await readSettings(view)).write_path) !== "lake") return null;
  const st = Staging.over(view);
  if (request.idempotencyKey !== undefined && (await lookupIdempotency(st, request.idempotencyKey)))
    return null;
  const premise = await readSnapshot(view, (await readHead(view)).snapshot_id);
  const ctx = new VerbContext(st, premise, { now, dataPath: "", uuid: () => "" });
  let range: { first: number; last: number };
  try {
    const a = await rowsWrite(ctx, { ...v, writePath: "wal" });
    range = { first: Number(a.firstSeq), last: Number(a.lastSeq) };
  } catch (e) {
    if (isMemberError(e)) return null;
    throw e;
  }
  // Only this write's records: the verb drains the earlier ones first (inlined, as a flush batch would
  // without a plan), so the file depends on this write alone and no other write can overtake the plan.
  const head = await readIngestHead(st);
  writeIngestHead(st, { next_seq: head.next_seq, drained: range.first - 1 });
  const overlay: ReadView = { position: view.position, get: (k) => st.get(k), scan: (r) => st.scan(r) };
  const batch = await planRowsFlush(overlay, now, MAX_FLUSH_RECORDS);
  if (batch === null || batch.objects.length === 0 || batch.verb.through !== range.last) return null;
  const lakePlan = { files: batch.verb.files ?? [] };
  return {
    objects: batch.objects,
    request: { ...request, verbs: [{ ...v, lakePlan }] },
  };
}
