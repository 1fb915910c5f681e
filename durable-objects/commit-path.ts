/**
 * The commit path: admit → coalesce → submit (`catalog.commitGroup`) → durable → answer. A member is
 * answered only once its batch is durable and published (the newest segment names the cut, so `durable`
 * settling is both). It reports a landed batch to the front, which arms the alarm and the row flusher.
 */
import type {
  CommitRequest,
  CommitResult,
  GroupMember,
  GroupOutcome,
  MemberResult,
} from "../catalog/index.ts";
import type { Store } from "../storage/api.ts";
import { CodedError, Fenced } from "../storage/errors.ts";
import { Coalescer, type Settled } from "./coalescer.ts";
import { CommitOutcomeUnknown, Unavailable } from "./errors.ts";
import type { WriterMetrics } from "./metrics.ts";
import type { StallWatch } from "./stall.ts";
import { Ticket } from "./ticket.ts";
import {
  type FrontDeps,
  MemberFailed,
  type Origin,
  type Session,
  type Submitted,
  type Unit,
} from "./types.ts";

/** What the commit path needs from the front (it never calls another part). */
export interface CommitPathDeps extends FrontDeps {
  stall: StallWatch;
  metrics: WriterMetrics;
  /** Before a batched arrival joins (the yield's hold). */
  beforeJoin(): Promise<void>;
  /** No commit is in flight any more. */
  quiet(): void;
  /** A batch holding these requests is durable and published. */
  landed(requests: GroupMember[]): void;
}

export class CommitPath {
  readonly coalescer: Coalescer<Unit, Submitted>;
  /** Time batches held the submission slot (capacity wait + catalog.commitGroup), in ms. */
  submitMs = 0;

  constructor(private readonly d: CommitPathDeps) {
    const { host } = d;
    this.coalescer = new Coalescer<Unit, Submitted>((units) => this.submit(units), {
      clock: host.clock,
      stall: d.stall,
      maxMembers: host.tunables.maxBatchMembers,
      slotBoundMs: host.tunables.slotBoundMs,
      onAbandoned: ({ members, boundMs }) =>
        d.terminate(
          new CommitOutcomeUnknown(
            `a batch of ${members} commit(s) held the submission slot past its ${boundMs} ms bound`,
          ),
        ),
    });
  }

  /** One request through the path; its result, or its failure rebuilt with its own code. */
  async commitOne(request: CommitRequest, alone = false, origin: Origin = "caller"): Promise<CommitResult> {
    const r = await this.one(request, alone, origin);
    if (!r.ok) throw new MemberFailed(r.error.code, r.error.message);
    return r.value;
  }

  /** One member's result (ok or not), once its batch is durable. */
  async one(member: GroupMember, alone = false, origin: Origin = "caller"): Promise<MemberResult> {
    const r = (await this.run([member], alone, origin))[0];
    if (r === undefined) throw new Error("the batch returned no result for a member");
    return r;
  }

  /** A head-preserving batch in the submission slot (as the idempotency sweep), awaited durable. */
  async exclusiveBatch<T>(
    s: Session,
    fn: (store: Store) => Promise<{ value: T; durable: Promise<void> }>,
  ): Promise<T> {
    const out = await this.coalescer.exclusive(async () => {
      const before = s.store.position;
      try {
        return await fn(s.store);
      } finally {
        if (s.store.position !== before) s.pacer.arrived(1);
      }
    });
    await out.durable;
    return out.value;
  }

  async run(requests: GroupMember[], alone = false, origin: Origin = "caller"): Promise<MemberResult[]> {
    const { host, shared, stall, metrics } = this.d;
    this.d.throwIfStopped();
    if (!alone) await this.d.beforeJoin();
    const ticket = new Ticket();
    shared.tickets.add(ticket);
    if (origin === "caller") shared.lastCommitAt = host.now();
    const t0 = host.clock.now();
    let joined: number | undefined;
    let submitMs: number | undefined;
    try {
      const settled = await Promise.race([
        this.coalescer.join(
          { requests },
          requests.length,
          ticket,
          () => this.d.ready().then(() => {}),
          alone,
        ),
        ticket.stopped,
      ]);
      joined = host.clock.now();
      if (settled.kind === "submitted" && settled.batch.kind === "group") submitMs = settled.batch.submitMs;
      const { outcome, offset } = this.interpret(settled);
      stall.enter(ticket, "durability");
      const durable = await Promise.race([
        outcome.durable.then(
          () => undefined,
          (e: unknown) => e ?? new Error("durability failed"),
        ),
        ticket.stopped,
      ]);
      if (durable !== undefined) throw this.d.durabilityFailed(durable);
      this.d.landed(requests);
      const mine = outcome.results.slice(offset, offset + requests.length);
      const end = host.clock.now();
      const phases = {
        queue: joined - t0 - (submitMs ?? 0),
        ...(submitMs !== undefined ? { submit: submitMs } : {}),
        durability: end - joined,
        total: end - t0,
      };
      for (const r of mine) metrics.commit(r.ok, r.ok ? null : r.error.code, phases);
      return mine;
    } catch (e) {
      const code = e instanceof CodedError ? e.code : "Internal";
      const end = host.clock.now();
      for (let i = 0; i < requests.length; i++) {
        metrics.commit(false, code, {
          total: end - t0,
          ...(joined !== undefined ? { durability: end - joined } : {}),
        });
      }
      throw e;
    } finally {
      if (origin === "caller") shared.lastCommitAt = host.now();
      stall.leave(ticket);
      shared.tickets.delete(ticket);
      ticket.close();
      if (shared.tickets.size === 0) this.d.quiet();
    }
  }

  private interpret(settled: Settled<Submitted>): { outcome: GroupOutcome; offset: number } {
    switch (settled.kind) {
      case "dropped":
        throw settled.error instanceof CodedError
          ? settled.error
          : new Unavailable(`the writer could not admit the commit (${String(settled.error)})`);
      case "abandoned":
        throw new CommitOutcomeUnknown(`its submission held the slot past the ${settled.boundMs} ms bound`);
      case "threw":
        this.d.terminate(new CommitOutcomeUnknown(`the submitting task failed (${String(settled.error)})`));
        throw new CommitOutcomeUnknown(`the submitting task failed (${String(settled.error)})`);
      case "submitted": {
        const b = settled.batch;
        if (b.kind === "failed") {
          if (b.applied) {
            throw new CommitOutcomeUnknown(
              `its batch was applied but the submission did not finish (${String(b.error)})`,
              { cause: b.error },
            );
          }
          if (b.error instanceof CodedError) throw b.error;
          throw new Unavailable(`the submission failed before anything was written (${String(b.error)})`, {
            cause: b.error,
          });
        }
        return { outcome: b.outcome, offset: b.offsets[settled.index] ?? 0 };
      }
    }
  }

  /** The submitting task: capacity backpressure, then the catalog's group commit. */
  private async submit(units: Unit[]): Promise<Submitted> {
    const { host, metrics } = this.d;
    const s = this.d.current();
    if (s === undefined) {
      return { kind: "failed", error: new Unavailable("the writer is not open"), applied: false };
    }
    const requests = units.flatMap((u) => u.requests);
    const offsets: number[] = [];
    let at = 0;
    for (const u of units) {
      offsets.push(at);
      at += u.requests.length;
    }
    const before = s.store.position;
    const t0 = host.clock.now();
    try {
      await this.capacity(s);
      host.afterSubmitStep?.("capacity");
      const outcome = await s.catalog.commitGroup(requests);
      host.afterSubmitStep?.("commitGroup");
      this.checkStoreFailure(outcome);
      metrics.batch(
        requests.length,
        outcome.attempts ?? 1,
        outcome.results.map((r) =>
          r.ok ? { ok: true, replayed: r.value.replayed === true } : { ok: false, code: r.error.code },
        ),
      );
      return { kind: "group", outcome, offsets, submitMs: host.clock.now() - t0 };
    } catch (error) {
      return { kind: "failed", error, applied: s.store.position !== before };
    } finally {
      this.submitMs += host.clock.now() - t0;
      // Whatever happened above, an applied batch is flushed: it lands whole or not at all.
      if (s.store.position !== before && !this.d.terminal()) s.pacer.arrived(requests.length);
    }
  }

  /** Waits while too many applied batches are not yet durable (the bucket is slow or not answering). */
  private async capacity(s: Session): Promise<void> {
    while (s.store.unflushedBatches >= this.d.host.tunables.maxUnflushedBatches) {
      if (!s.pacer.inAir && s.pacer.waiting === 0) return;
      await s.pacer.whenLanded();
      const stopped = this.d.terminal();
      if (stopped) throw stopped;
    }
    // Always yield once, so the submitting task's first await is the same whether or not it waited.
    await Promise.resolve();
  }

  /** A store that turned terminal under commitGroup reports it in every member; so do we, once. */
  private checkStoreFailure(outcome: GroupOutcome): void {
    for (const r of outcome.results) {
      if (r.ok) continue;
      if (r.error.code === "Fenced") this.d.terminate(new Fenced(r.error.message));
      else if (r.error.code === "OutcomeUnknown" || r.error.code === "StoreClosed") {
        this.d.terminate(new CommitOutcomeUnknown(`the store stopped: ${r.error.message}`));
      }
    }
  }
}
