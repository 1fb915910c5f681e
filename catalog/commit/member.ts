/**
 * Stages one commit request (one member) against a premise snapshot: idempotency check, verbs in order,
 * then the rows the commit owes at its end (schema-version rows, inlined-table rotation, DuckLake's
 * next_file_id signal for inline-only inserts) and the snapshot record. The member writes into its own
 * overlay layer; the group folds it in only if the member succeeds.
 */
import { writeChangesMade } from "../changes.ts";
import { encodeValue, ValueKind } from "../codec.ts";
import { IdempotencyKeyReused, quoteName } from "../errors.ts";
import { keys } from "../keys.ts";
import type { SnapshotRecord } from "../records.ts";
import type { Staging } from "../staging.ts";
import { applyVerb } from "../verbs/apply.ts";
import { type Assigned, VerbContext, type VerbEnv } from "../verbs/context.ts";
import { registerInlinedTable, writeSchemaVersionRow } from "../verbs/ops/tables.ts";
import type { CommitRequest } from "../verbs/schema.ts";
import { lookupIdempotency, recordIdempotency, requestHash } from "./idempotency.ts";

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
}

export interface MemberEnv extends VerbEnv {
  idempotencyTtlMs: number;
}

export async function stageMember(
  group: Staging,
  premise: SnapshotRecord,
  env: MemberEnv,
  req: CommitRequest,
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
      return {
        layer,
        ctx: undefined,
        result: { ...(prior.result as StagedResult), replayed: true },
        snapshot: null,
      };
    }
  }
  const ctx = new VerbContext(layer, premise, env);
  const assigned: Assigned[] = [];
  for (const verb of req.verbs) assigned.push(await applyVerb(ctx, verb));
  const sv = ctx.schemaVersion;
  for (const t of ctx.inlineRotationTables) registerInlinedTable(ctx, t, sv);
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
    await recordIdempotency(layer, req.idempotencyKey, hash, result, env.now() + env.idempotencyTtlMs);
  }
  return { layer, ctx, result, snapshot };
}
