/**
 * Stages one commit request (one member) against a premise snapshot: idempotency check, verbs in order,
 * then the rows the commit owes at its end (schema-version rows, inlined-table rotation, DuckLake's
 * next_file_id signal for inline-only inserts) and the snapshot record. The member writes into its own
 * overlay layer; the group folds it in only if the member succeeds.
 */
import { type ChangeSet, writeChangesMade } from "../changes.ts";
import { encodeValue, ValueKind } from "../codec.ts";
import { Constraint, IdempotencyKeyReused, InvalidRequest, quoteName } from "../errors.ts";
import { Kind, keys, OptionScope } from "../keys.ts";
import type { OptionRecord, SnapshotRecord } from "../records.ts";
import type { Staging } from "../staging.ts";
import { type Assigned, VerbContext, type VerbEnv } from "../verbs/context.ts";
import { registerInlinedTable, writeSchemaVersionRow } from "../verbs/ops/tables.ts";
import type { CommitRequest } from "../verbs/schema.ts";
import { applyVerb } from "./apply.ts";
import {
  type IdempotencyEntry,
  lookupIdempotency,
  recordedPosition,
  recordIdempotency,
  requestHash,
} from "./idempotency.ts";

/** What a successful member returns (the position is added once its batch is applied). */
export interface StagedResult {
  snapshotId: number | null;
  schemaVersion: number;
  assigned: Assigned[];
  /** True when the result was replayed from an idempotency record. */
  replayed?: boolean;
}

export interface StagedMember {
  layer: Staging;
  ctx: VerbContext | undefined;
  result: StagedResult;
  /** The snapshot this member minted, if any. */
  snapshot: SnapshotRecord | null;
  /** The key this member records, restamped with the batch position at commit. */
  idempotency?: IdempotencyEntry;
  /** A replay's recorded position (answered instead of the batch's). */
  replayedPosition?: number;
}

export interface MemberEnv extends VerbEnv {
  idempotencyTtlMs: number;
}

/**
 * A member that stages itself: the staged-row path (`catalog/sql/writes/`), whose member is DuckLake's
 * own rows rather than verbs. It stages into `group.child()` against the premise like a verb member and
 * joins the same batch, head check, classification and durability.
 */
export interface SelfStagedMember {
  readonly kind: "staged-rows";
  readonly idempotencyKey?: string;
  stage(group: Staging, premise: SnapshotRecord, env: MemberEnv): Promise<StagedMember>;
}

/** One member of a commit group: a verb request or a self-staged (staged-row) member. */
export type GroupMember = CommitRequest | SelfStagedMember;

export function isSelfStaged(m: GroupMember): m is SelfStagedMember {
  return (m as { kind?: unknown }).kind === "staged-rows";
}

/** The verbs that append to the row log (the writer arms its row flusher after one lands). */
const ROW_LOG_APPENDS: ReadonlySet<string> = new Set([
  "rows_write",
  "rows_truncate",
  "rows_dead_letter_replay",
]);

/** Whether a member appends to the row log. */
export function appendsToRowLog(m: GroupMember): boolean {
  return !isSelfStaged(m) && m.verbs.some((v) => ROW_LOG_APPENDS.has(v.op));
}

/**
 * DuckLake's writer refuses a change set holding a compaction (`merge_adjacent`, `rewrite_delete`) next to
 * any other entry: "Transactions can either make changes OR perform compaction - not both".
 */
function refuseMixedCompaction(changes: ChangeSet): void {
  const compactions = changes.mergeAdjacent.length + changes.rewriteDelete.length;
  if (compactions === 0) return;
  const text = writeChangesMade(changes) ?? "";
  const others = text.split(",").filter((e) => !/^(merge_adjacent|rewrite_delete):/.test(e));
  if (others.length > 0) {
    throw new InvalidRequest(
      `a commit either compacts (merge_adjacent_files, rewrite_data_files, expire_data_file, expire_delete_file) or makes other changes, not both; it also holds ${others.join(",")}: send the expiries as a commit of their own`,
    );
  }
}

/** DuckLake's `require_commit_message` (global option): a commit that mints a snapshot must carry a message. */
async function enforceRequiredMessage(ctx: VerbContext): Promise<void> {
  const global = await ctx.read<OptionRecord>(
    keys.current(Kind.option, OptionScope.global, 0),
    ValueKind.option,
    "option",
  );
  if (global?.values.require_commit_message === "true") {
    throw new Constraint(
      "this lake requires a commit message (option require_commit_message is true); send the commit with a message, or unset the option",
    );
  }
}

export async function stageMember(
  group: Staging,
  premise: SnapshotRecord,
  env: MemberEnv,
  req: CommitRequest,
  /**
   * Staging a self-staged member needs beyond verbs, run after them with what each verb was assigned
   * (docs/decisions/0260-staged-commit.md); `before` runs ahead of the verbs, for ids DuckLake allocates
   * ahead of the files (a name map's, docs/decisions/0600-staged-name-maps.md).
   */
  afterVerbs?: (ctx: VerbContext, assigned: readonly Assigned[]) => Promise<void>,
  beforeVerbs?: (ctx: VerbContext) => Promise<void>,
): Promise<StagedMember> {
  const layer = group.child();
  let hash: string | undefined;
  if (req.idempotencyKey !== undefined) {
    hash = await requestHash(req);
    const prior = await lookupIdempotency(layer, req.idempotencyKey);
    if (prior && prior.expires_at > env.now()) {
      if (prior.request_hash !== hash) {
        throw new IdempotencyKeyReused(
          `key ${quoteName(req.idempotencyKey)} was used for a different request; use a fresh key for a new request`,
        );
      }
      const { position: _recorded, ...recorded } = prior.result as StagedResult & { position?: unknown };
      const position = recordedPosition(prior.result);
      return {
        layer,
        ctx: undefined,
        result: { ...recorded, replayed: true },
        snapshot: null,
        ...(position !== undefined ? { replayedPosition: position } : {}),
      };
    }
  }
  const ctx = new VerbContext(layer, premise, env);
  const assigned: Assigned[] = [];
  if (beforeVerbs) await beforeVerbs(ctx);
  for (const verb of req.verbs) assigned.push(await applyVerb(ctx, verb));
  if (afterVerbs) await afterVerbs(ctx, assigned);
  refuseMixedCompaction(ctx.changes);
  if (ctx.mintsSnapshot && req.message === undefined) await enforceRequiredMessage(ctx);
  const sv = ctx.schemaVersion;
  for (const t of ctx.inlineRotationTables) await registerInlinedTable(ctx, t, sv);
  for (const t of ctx.schemaVersionTables) writeSchemaVersionRow(ctx, t, sv);
  for (const t of ctx.inlinedInsertTables) if (!ctx.newFileTables.has(t)) ctx.nextFileId++;
  let snapshot: SnapshotRecord | null = null;
  if (ctx.mintsSnapshot) {
    snapshot = {
      snapshot_id: ctx.snapshotId,
      snapshot_time: Math.floor(env.now() * 1000),
      schema_version: sv,
      next_catalog_id: ctx.nextCatalogId,
      next_file_id: ctx.nextFileId,
      changes_made: writeChangesMade(ctx.changes),
      author: req.author ?? null,
      commit_message: req.message ?? null,
      commit_extra_info: req.extraInfo ?? null,
      x_touched_table_ids: [...ctx.touchedTables].sort((a, b) => a - b),
      x_deleted_data_file_ids: [...ctx.deletedDataFileIds].sort((a, b) => a - b),
      x_deletes_untargeted: ctx.deletesUntargeted,
    };
    layer.put(keys.snapshot(snapshot.snapshot_id), encodeValue(ValueKind.snapshot, snapshot));
  }
  const result: StagedResult = {
    snapshotId: snapshot?.snapshot_id ?? null,
    schemaVersion: snapshot?.schema_version ?? premise.schema_version,
    assigned,
  };
  if (req.idempotencyKey !== undefined && hash !== undefined) {
    const idempotency = await recordIdempotency(
      layer,
      req.idempotencyKey,
      hash,
      result,
      env.now(),
      env.idempotencyTtlMs,
    );
    return { layer, ctx, result, snapshot, idempotency };
  }
  return { layer, ctx, result, snapshot };
}
