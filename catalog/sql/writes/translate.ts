/**
 * DuckLake's staged rows → the catalog's records, against the premise snapshot (docs/decisions/0230-sql-write-translation.md: translate,
 * don't author). Every id, counter and schema_version is DuckLake's value, stored verbatim, but each is
 * checked against the premise before it is trusted: the snapshot id is head + 1 (else the commit lost a
 * race: CommitConflict), catalog and file ids come from the ranges the new snapshot's counters allocate,
 * every begin/end snapshot is the new snapshot, names are free, parents exist and are live, row ids come
 * from the table's next_row_id range. Records are written with the same helpers the verbs use
 * (`VerbContext`: versions, history, the name index), so both front doors leave identical keys.
 *
 * This file is the front: the work is in `translate/`, one concern per file, all of them reading and
 * writing one explicit per-batch record (`translate/batch.ts`); `translate/dispatch.ts` runs the batch
 * (docs/decisions/0741-translator-parts.md).
 */
import type { SnapshotRecord } from "../../records.ts";
import type { VerbContext } from "../../verbs/context.ts";
import type { RowOp } from "./parse.ts";
import { type Batch, newBatch } from "./translate/batch.ts";
import { leftovers } from "./translate/children.ts";
import { run, type Translated } from "./translate/dispatch.ts";

export { inlineValue } from "./translate/cells.ts";
export type { Translated } from "./translate/dispatch.ts";

/** One batch's translation: `run` it once, then ask for the child rows no parent claimed. */
export class Translator {
  private readonly batch: Batch;

  constructor(
    ctx: VerbContext,
    premise: SnapshotRecord,
    ops: readonly RowOp[],
    /** Snapshots a live checkpoint pins (→ its id): expire_snapshots never removes them. */
    pinned: ReadonlyMap<number, string> = new Map(),
  ) {
    this.batch = newBatch(ctx, premise, ops, pinned);
  }

  run(): Promise<Translated> {
    return run(this.batch);
  }

  /** Child rows (file stats, partition values and columns, macro impls and parameters) no parent claimed. */
  leftovers(): string[] {
    return leftovers(this.batch);
  }
}
