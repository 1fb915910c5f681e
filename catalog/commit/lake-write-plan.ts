/**
 * The writer's plan of a `lake` row write or transaction (docs/decisions/0316-lake-write-parquet.md,
 * 0319-lake-transactions-parquet.md): the request is one DuckLake commit in which each write drains the
 * log through itself, and when a write's surviving rows pass its table's inlining limit they go in a
 * Parquet file the writer PUTs before the commit — exactly as a flush batch does (`flush-plan.ts`, the one
 * planner). Pure: the writes are staged into a scratch overlay of the writer's view (the verb's own
 * `rowsWrite`, so validation and sequence numbers are the verb's), the flush batch of each write's own
 * records is planned over that overlay, and nothing is kept. The verb
 * drains the earlier records first, then this write's with the file, checking the file's row count and
 * the table's columns (`landIfLakePath`, `flushLog`); a difference (an ALTER in between) is
 * `FlushPlanStale` and the writer plans again.
 */
import type { ReadView } from "../../storage/api.ts";
import { isMemberError } from "../errors.ts";
import { readHead, readSnapshot } from "../head.ts";
import { rowsWrite } from "../ingest/log.ts";
import { planRowsFlush } from "../ingest/row-flush-plan.ts";
import { readIngestHead, readSettings, writeIngestHead } from "../ingest/state.ts";
import type { PlannedObject } from "../maintenance/inline-flush-plan.ts";
import type { Pause } from "../maintenance/pace.ts";
import { MAX_FLUSH_RECORDS } from "../row-log-limits.ts";
import { Staging } from "../staging.ts";
import { VerbContext } from "../verbs/context.ts";
import type { CommitRequest, VerbOf } from "../verbs/schema.ts";
import { lookupIdempotency } from "./idempotency.ts";

export interface LakeWritePlan {
  /** Files to PUT (put-if-absent) under the lake's data prefix before committing `request`. */
  objects: PlannedObject[];
  /** The caller's request with the plan attached to its write. */
  request: CommitRequest;
}

/**
 * The `rows_write` verbs of a request the lake-write plan applies to: a request of row writes only (a
 * standalone write, or a transaction over one or more tables, docs/decisions/0319-lake-transactions-parquet.md),
 * none of them planned yet; undefined for anything else.
 */
export function plannableRowsWrites(request: CommitRequest): VerbOf<"rows_write">[] | undefined {
  if (request.verbs.length === 0) return undefined;
  const out: VerbOf<"rows_write">[] = [];
  for (const v of request.verbs) {
    if (v.op !== "rows_write" || v.lakePlan !== undefined) return undefined;
    out.push(v);
  }
  return out;
}

/**
 * The plan, or null when the request needs none: no `lake` write, a replay of an idempotency key, no
 * write whose own rows pass its table's inlining limit, or a request the verbs will refuse anyway (it
 * fails there, with the verb's own error). Each `lake` write of the request is planned over its own
 * records, after the writes before it in the request were staged (as the verb will land them: one after
 * another, each draining the log through itself).
 */
export async function planLakeWrite(
  view: ReadView,
  request: CommitRequest,
  now: () => number,
  pause: Pause,
): Promise<LakeWritePlan | null> {
  const writes = plannableRowsWrites(request);
  if (writes === undefined) return null;
  const setting = writes.some((v) => v.writePath === undefined)
    ? (await readSettings(view)).write_path
    : undefined;
  const isLake = (v: VerbOf<"rows_write">): boolean => (v.writePath ?? setting) === "lake";
  if (!writes.some(isLake)) return null;
  const st = Staging.over(view);
  if (request.idempotencyKey !== undefined && (await lookupIdempotency(st, request.idempotencyKey)))
    return null;
  const premise = await readSnapshot(view, (await readHead(view)).snapshot_id);
  const ctx = new VerbContext(st, premise, { now, dataPath: "", uuid: () => "" });
  const ranges: { first: number; last: number }[] = [];
  try {
    for (const v of writes) {
      const a = await rowsWrite(ctx, { ...v, writePath: "wal" });
      ranges.push({ first: Number(a.firstSeq), last: Number(a.lastSeq) });
    }
  } catch (e) {
    if (isMemberError(e)) return null;
    throw e;
  }
  const objects: PlannedObject[] = [];
  const verbs: CommitRequest["verbs"] = [];
  for (const [i, v] of writes.entries()) {
    const range = ranges[i];
    const files = range && isLake(v) ? await ownFiles(st, view, now, pause, range, objects) : [];
    verbs.push(files.length > 0 ? { ...v, lakePlan: { files } } : v);
  }
  if (objects.length === 0) return null;
  return { objects, request: { ...request, verbs } };
}

/**
 * The files of one write's own records: the flush batch of exactly `range`, planned over the scratch
 * overlay with the watermark set just before it. Only its own records: the verb drains the earlier ones
 * first (inlined, as a flush batch would without a plan), so the file depends on this write alone and no
 * other write can overtake the plan.
 */
async function ownFiles(
  st: Staging,
  view: ReadView,
  now: () => number,
  pause: Pause,
  range: { first: number; last: number },
  objects: PlannedObject[],
): Promise<NonNullable<VerbOf<"rows_flush">["files"]>> {
  const head = await readIngestHead(st);
  writeIngestHead(st, { next_seq: head.next_seq, drained: range.first - 1 });
  const overlay: ReadView = { position: view.position, get: (k) => st.get(k), scan: (r) => st.scan(r) };
  const count = range.last - range.first + 1;
  if (count > MAX_FLUSH_RECORDS) return [];
  const batch = await planRowsFlush(overlay, now, count, pause);
  if (batch === null || batch.objects.length === 0 || batch.verb.through !== range.last) return [];
  objects.push(...batch.objects);
  return batch.verb.files ?? [];
}
