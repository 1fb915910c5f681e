/**
 * The staged-row member: DuckLake's commit batch as one member of the commit core (`commit/group.ts`).
 * It stages into its own layer against the premise the group hands it, like a verb member, so it shares
 * the batch, the head check, conflict classification, durability and publication. Its rows were stamped
 * by DuckLake against the head it read; staged on any other premise they are refused as a lost race
 * (CommitConflict) — re-deriving them on a new head is the rebase of a later change (docs/decisions/0230-sql-write-translation.md).
 */

import { encodeValue, ValueKind } from "../../codec.ts";
import { canonicalJson, lookupIdempotency, recordIdempotency, sha256Hex } from "../../commit/idempotency.ts";
import type { MemberEnv, SelfStagedMember, StagedMember, StagedResult } from "../../commit/member.ts";
import { IdempotencyKeyReused, InvalidRequest, quoteName } from "../../errors.ts";
import { keys } from "../../keys.ts";
import type { SnapshotRecord } from "../../records.ts";
import type { Staging } from "../../staging.ts";
import { VerbContext } from "../../verbs/context.ts";
import type { RowOp } from "./parse.ts";
import { Translator } from "./translate.ts";

/** The `assigned` entry a staged-row member reports: rows touched by the request's last statement. */
export const LAST_COUNT = "lastStatementRows";

export class StagedRowsMember implements SelfStagedMember {
  readonly kind = "staged-rows" as const;
  readonly idempotencyKey?: string;

  constructor(
    private readonly ops: readonly RowOp[],
    private readonly sql: string,
    idempotencyKey?: string,
    /** Snapshots live checkpoints pin (→ checkpoint id), for expire_snapshots. */
    private readonly pinned: ReadonlyMap<number, string> = new Map(),
    /** Runs on the member's context after its rows are translated (a staged flush's stats merge). */
    private readonly after?: (ctx: VerbContext) => Promise<void>,
  ) {
    if (idempotencyKey !== undefined) this.idempotencyKey = idempotencyKey;
  }

  async stage(group: Staging, premise: SnapshotRecord, env: MemberEnv): Promise<StagedMember> {
    const layer = group.child();
    let hash: string | undefined;
    if (this.idempotencyKey !== undefined) {
      hash = await sha256Hex(canonicalJson({ sql: this.sql }));
      const prior = await lookupIdempotency(layer, this.idempotencyKey);
      if (prior && prior.expires_at > env.now()) {
        if (prior.request_hash !== hash) {
          throw new IdempotencyKeyReused(
            `key ${quoteName(this.idempotencyKey)} was used for a different request; use a fresh key for a new request`,
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
    const translator = new Translator(ctx, premise, this.ops, this.pinned);
    const { snapshot, counts } = await translator.run();
    if (this.after !== undefined) await this.after(ctx);
    const orphans = translator.leftovers();
    if (orphans.length > 0) {
      throw new InvalidRequest(
        `staged rows: file statistics name data files ${orphans.join(", ")}, which this commit does not add`,
      );
    }
    if (snapshot) layer.put(keys.snapshot(snapshot.snapshot_id), encodeValue(ValueKind.snapshot, snapshot));
    const result: StagedResult = {
      snapshotId: snapshot?.snapshot_id ?? null,
      schemaVersion: snapshot?.schema_version ?? premise.schema_version,
      assigned: [{ [LAST_COUNT]: counts[counts.length - 1] ?? 0 }],
    };
    if (this.idempotencyKey !== undefined && hash !== undefined) {
      await recordIdempotency(layer, this.idempotencyKey, hash, result, env.now(), env.idempotencyTtlMs);
    }
    return { layer, ctx, result, snapshot };
  }
}
