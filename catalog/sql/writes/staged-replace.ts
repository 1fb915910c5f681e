/**
 * An UPDATE whose delete files replace live ones beside its new data files: the verbs registered every
 * file (the replaced delete file ended with history, the new one begun at the commit's snapshot); this
 * stores the replacements as DuckLake's commit does (`DeleteOverwrittenDeleteFiles`, `WriteNewDeleteFiles`):
 * the replaced file removed without history and scheduled for deletion, the new file begun at the replaced
 * one's begin with `partial_max` the commit's snapshot, or, without a staged begin (a deletion vector), at
 * the commit's snapshot without `partial_max` (docs/decisions/0618-update-replacing-delete-files.md,
 * docs/decisions/0615-delete-file-replacements.md).
 */
import { ValueKind } from "../../codec.ts";
import { InvalidRequest } from "../../errors.ts";
import { newDeleteFileRecord } from "../../file-records.ts";
import { Kind, keys } from "../../keys.ts";
import type { DeleteFileRecord, GcFileRecord } from "../../records.ts";
import type { VerbContext } from "../../verbs/context.ts";
import { scheduledPath } from "../../verbs/ops/compaction.ts";
import { liveDeleteFilesOf } from "../../verbs/ops/files.ts";
import { replacesCommitted } from "./staged-deletes.ts";
import { isNull, stagedReader } from "./staged-literals.ts";
import type { StagedRow } from "./staged-parse.ts";

const { int } = stagedReader("staged delete file");

export async function replaceDeleteFiles(ctx: VerbContext, staged: readonly StagedRow[]): Promise<void> {
  const S = ctx.snapshotId;
  for (const d of staged) {
    if (!replacesCommitted(d)) continue;
    const t = int(d.table_id, "table_id");
    const f = int(d.data_file_id, "data_file_id");
    const replacedId = int(d.overwrite_delete_file_id, "overwrite_delete_file_id");
    const historyKey = keys.history(Kind.deleteFile, [t, replacedId], S);
    const replaced = await ctx.read<DeleteFileRecord>(historyKey, ValueKind.deleteFile, "delete file");
    if (!replaced || replaced.data_file_id !== f) {
      throw new InvalidRequest(`delete file ${replacedId} is not the live delete file of data file ${f}`);
    }
    const live = await liveDeleteFilesOf(ctx, t, f);
    const next = live[0];
    if (live.length !== 1 || next === undefined || next.begin_snapshot !== S) {
      throw new InvalidRequest(`data file ${f} has no single delete file of this commit`);
    }
    const withSnapshots = !isNull(d.begin_snapshot);
    if (withSnapshots && int(d.begin_snapshot, "begin_snapshot") !== replaced.begin_snapshot) {
      throw new InvalidRequest(
        `the delete file replacing ${replacedId} begins at ${int(d.begin_snapshot, "begin_snapshot")}, the replaced one at ${replaced.begin_snapshot}`,
      );
    }
    ctx.st.delete(historyKey);
    const table = await ctx.table({ id: t });
    ctx.write(keys.current(Kind.gcFile, replacedId), ValueKind.gcFile, {
      data_file_id: replacedId,
      ...(await scheduledPath(ctx, table, replaced)),
      schedule_start: Math.floor(ctx.env.now() * 1000),
    } satisfies GcFileRecord);
    ctx.write(
      keys.current(Kind.deleteFile, t, next.delete_file_id),
      ValueKind.deleteFile,
      newDeleteFileRecord({
        ...next,
        begin_snapshot: withSnapshots ? replaced.begin_snapshot : S,
        partial_max: withSnapshots ? S : null,
      }),
    );
  }
}
