/**
 * The commit core: a group of members staged one after another against the state the previous members
 * left, each minting its own consecutive snapshot, all landed in one store transaction whose head write is
 * the conflict anchor. A lost head race is classified against the intervening snapshots with DuckLake's
 * matrix; benign ⇒ every unresolved member re-runs after the backoff, true conflict ⇒ that member gets
 * CommitConflict. A commit is a group of one.
 */
import type { Store, Transaction } from "../../storage/api.ts";
import { parseChangesMade, unionChangeSets } from "../changes.ts";
import { encodeValue, ValueKind } from "../codec.ts";
import { type ConflictSide, findConflict, type OurSide } from "../conflict.ts";
import {
  CodedError,
  CommitConflict,
  DuplicateKey,
  isMemberError,
  isTransactionConflict,
  RetryBudgetExhausted,
} from "../errors.ts";
import { readHead, readSnapshot, readSnapshotsBetween, reservedChanges } from "../head.ts";
import { checkInlineFloors } from "../inline-floor.ts";
import { keys } from "../keys.ts";
import type { SnapshotRecord } from "../records.ts";
import { Staging } from "../staging.ts";
import { ShapeMemo } from "../verbs/shape-memo.ts";
import { backoffDelay, MAX_COMMIT_ATTEMPTS, sleep } from "./backoff.ts";
import { lookupIdempotency, stampedIdempotency } from "./idempotency.ts";
import {
  type GroupMember,
  isSelfStaged,
  type MemberEnv,
  type StagedMember,
  type StagedResult,
  stageMember,
} from "./member.ts";

export interface CommitResult extends StagedResult {
  /** The store position of the batch (read-your-writes token). */
  position: number;
}

export type MemberResult =
  | { ok: true; value: CommitResult }
  | { ok: false; error: { code: string; message: string } };

export interface GroupOutcome {
  results: MemberResult[];
  /** Settles when the batch (or, if nothing was written, the state the answers rest on) is durable. */
  durable: Promise<void>;
  /** Attempts the group took (1 = no head race lost); the writer's metrics count the retries. */
  attempts?: number;
}

/** The typed errors behind failed results, by member index (so `commit()` can rethrow the real class). */
export const MEMBER_ERRORS: unique symbol = Symbol("member errors");
type WithErrors = GroupOutcome & { [MEMBER_ERRORS]?: (CodedError | undefined)[] };

export function memberError(outcome: GroupOutcome, i: number): CodedError | undefined {
  return (outcome as WithErrors)[MEMBER_ERRORS]?.[i];
}

export interface GroupEnv extends MemberEnv {
  random: () => number;
  log: (message: string) => void;
}

const originals = new WeakMap<object, CodedError>();

function failure(e: CodedError): MemberResult {
  const error = { code: e.code, message: e.message };
  originals.set(error, e);
  return { ok: false, error };
}

/** Attaches the typed errors (non-enumerable: results stay plain envelopes for RPC). */
function finish(results: (MemberResult | undefined)[], durable: Promise<void>): GroupOutcome {
  const outcome: GroupOutcome = { results: results as MemberResult[], durable };
  Object.defineProperty(outcome, MEMBER_ERRORS, {
    value: outcome.results.map((r) => (r && !r.ok ? originals.get(r.error) : undefined)),
    enumerable: false,
  });
  return outcome;
}

/** A staged member's side of the conflict matrix (undefined for a replay, which changes nothing). */
export function ourSide(m: StagedMember): OurSide | undefined {
  const ctx = m.ctx;
  if (!ctx) return undefined;
  return {
    changes: ctx.changes,
    deletedDataFileIds: [...ctx.deletedDataFileIds],
    deletesUntargeted: ctx.deletesUntargeted,
    droppedSchemaNames: ctx.droppedSchemaNames,
    createdInSchemaIds: ctx.createdInSchemaIds,
  };
}

/** The union of the intervening snapshots, as DuckLake's STRING_AGG over changes_made sees them. */
export function theirSide(records: SnapshotRecord[]): ConflictSide {
  const sets = records.map((r) => parseChangesMade(r.changes_made));
  const untargeted = records.some(
    (r, i) =>
      r.x_deletes_untargeted === true ||
      ((sets[i]?.deletedFromTable.length ?? 0) > 0 && (r.x_deleted_data_file_ids ?? []).length === 0),
  );
  return {
    changes: unionChangeSets(sets),
    deletedDataFileIds: records.flatMap((r) => r.x_deleted_data_file_ids ?? []),
    deletesUntargeted: untargeted,
  };
}

type Attempt =
  | { kind: "landed"; outcome: GroupOutcome }
  | { kind: "lost"; premise: SnapshotRecord; staged: Map<number, StagedMember> };

async function attempt(
  store: Store,
  members: GroupMember[],
  pending: number[],
  results: (MemberResult | undefined)[],
  env: GroupEnv,
): Promise<Attempt> {
  const tx: Transaction = store.begin();
  let committed = false;
  try {
    const head = await readHead(tx);
    const premise = await readSnapshot(tx, head.snapshot_id);
    const group = Staging.over(tx);
    const staged = new Map<number, StagedMember>();
    const errors = new Map<number, CodedError>();
    let current = premise;
    // One memo of resolved table shapes per attempt (docs/decisions/0318-packed-log-runs.md), cleared
    // after any member that may have changed what a table name resolves to.
    const shapes = new ShapeMemo();
    const memberEnv: GroupEnv = { ...env, shapes };
    for (const i of pending) {
      const req = members[i] as GroupMember;
      try {
        const s = isSelfStaged(req)
          ? await req.stage(group, current, memberEnv)
          : await stageMember(group, current, memberEnv, req);
        // The inlined-row floor's invariant, checked on what this member staged (decision 0182).
        await checkInlineFloors(s.layer);
        if (isSelfStaged(req) || s.ctx?.schemaChanged === true) shapes.clear();
        if (s.snapshot) {
          // An appended ducklake_snapshot_changes row holds this id: the commit fails on the key (0710).
          if (reservedChanges(await readHead(group), s.snapshot.snapshot_id))
            throw new DuplicateKey("snapshot_id", s.snapshot.snapshot_id);
          current = s.snapshot;
        }
        s.layer.commitToParent();
        staged.set(i, s);
      } catch (e) {
        // A staged-row member whose rows were stamped against an older head declines with CommitConflict:
        // its own lost race, which must not poison the other members (docs/decisions/0230-sql-write-translation.md).
        if (!isMemberError(e) && !(e instanceof CommitConflict)) throw e;
        errors.set(i, e);
      }
    }
    const writes = group.entries();
    if (writes.length > 0) {
      for (const w of writes) {
        if (w.value === undefined) tx.delete(w.key);
        else tx.put(w.key, w.value);
      }
      // The head as the members left it (an append may have added reserved changes rows, 0710).
      const headNow = await readHead(group);
      tx.put(
        keys.head(),
        encodeValue(ValueKind.head, {
          ...headNow,
          snapshot_id: current.snapshot_id,
          batch_count: head.batch_count + 1,
        }),
      );
    }
    // Each recorded key is restamped with the position this batch gets, so a replay answers it exactly.
    const stamp = (position: number) =>
      [...staged.values()].flatMap((s) =>
        s.idempotency ? [stampedIdempotency(s.idempotency, { ...s.result }, position)] : [],
      );
    let handle: ReturnType<Transaction["commit"]>;
    try {
      handle = tx.commit(stamp);
      committed = true;
    } catch (e) {
      if (!isTransactionConflict(e)) throw e;
      return { kind: "lost", premise, staged };
    }
    for (const [i, s] of staged) {
      results[i] = { ok: true, value: { ...s.result, position: s.replayedPosition ?? handle.position } };
    }
    for (const [i, e] of errors) results[i] = failure(e);
    return { kind: "landed", outcome: finish(results, handle.durable) };
  } finally {
    if (!committed) tx.abort();
  }
}

/** Records the attempt count on the outcome itself (a copy would lose the member errors attached to it). */
function withAttempts(outcome: GroupOutcome, attempts: number): GroupOutcome {
  outcome.attempts = attempts;
  return outcome;
}

export async function runGroup(store: Store, members: GroupMember[], env: GroupEnv): Promise<GroupOutcome> {
  const results: (MemberResult | undefined)[] = members.map(() => undefined);
  let pending = members.map((_, i) => i);
  let startHead: number | undefined;
  const lostTo: number[] = [];
  for (let n = 0; n < MAX_COMMIT_ATTEMPTS; n++) {
    if (n > 0) await sleep(backoffDelay(n, env.random()));
    let outcome: Attempt;
    try {
      outcome = await attempt(store, members, pending, results, env);
    } catch (e) {
      if (!(e instanceof CodedError)) throw e;
      // A store or corruption failure: nothing landed; every unresolved member gets it.
      for (const i of pending) results[i] = failure(e);
      return finish(results, Promise.resolve());
    }
    if (outcome.kind === "landed") return withAttempts(outcome.outcome, n + 1);
    // Lost the head race: classify each staged member against what landed since its premise.
    const view = store.snapshot();
    const head = await readHead(view);
    startHead ??= outcome.premise.snapshot_id;
    const theirsRecords = await readSnapshotsBetween(view, outcome.premise.snapshot_id, head.snapshot_id);
    lostTo.push(...theirsRecords.map((r) => r.snapshot_id));
    const theirs = theirSide(theirsRecords);
    const still: number[] = [];
    for (const i of pending) {
      const s = outcome.staged.get(i);
      const ours = s ? ourSide(s) : undefined;
      const conflict = ours ? findConflict(ours, theirs) : null;
      const key = members[i]?.idempotencyKey;
      if (conflict !== null && !(key !== undefined && (await lookupIdempotency(Staging.over(view), key)))) {
        results[i] = failure(new CommitConflict(conflict));
      } else {
        still.push(i);
      }
    }
    pending = still;
    if (pending.length === 0) return withAttempts(finish(results, Promise.resolve()), n + 1);
  }
  const detail = `gave up after ${MAX_COMMIT_ATTEMPTS} attempts that each lost the head race; started from snapshot ${startHead}, lost to snapshots ${lostTo.join(",") || "(head-only batches)"}`;
  env.log(`catalog: ${detail}`);
  for (const i of pending) results[i] = failure(new RetryBudgetExhausted(detail));
  return withAttempts(finish(results, Promise.resolve()), MAX_COMMIT_ATTEMPTS);
}
