/**
 * Group commit without a timer (docs/decisions/0463-commit-protocol-rules.md). A commit that finds the slot
 * free and nobody on the way in submits at once; one that finds a batch forming joins it; one that finds
 * a batch being submitted waits for the next. A batch seals when no caller is on its way in (so the
 * submission in progress is the batching window) or when it holds `maxMembers` requests.
 *
 * The one submission slot is released by ownership: the submitting task owns a claim and drops it in
 * `finally`, so a thrown or abandoned submission still admits the next batch. The submission is bounded:
 * past `slotBoundMs` its members are told the outcome is unknown (the write may still land, so nothing is
 * replayed), the claim is dropped and `onAbandoned` tells the host, which treats it as terminal.
 *
 * Generic over the member type `M` and the batch result `B`; it knows nothing of catalogs or stores.
 */
import type { Clock } from "./clock.ts";
import type { Parked, StallWatch } from "./stall.ts";

/** How one member's wait in the coalescer ended. */
export type Settled<B> =
  /** The batch's submission returned `batch`; this member is `index` within it. */
  | { kind: "submitted"; batch: B; index: number }
  /** The submission threw: a bug in the submitter, since it is meant to report failures in `B`. */
  | { kind: "threw"; error: unknown }
  /** The submission held the slot past the bound: its outcome is unknown and stays so. */
  | { kind: "abandoned"; boundMs: number }
  /** Never submitted (admission failed or the coalescer shut down): nothing was written. */
  | { kind: "dropped"; error: unknown };

export interface CoalescerOptions {
  clock: Clock;
  stall: StallWatch;
  /** A batch seals at this many requests (decision 0463: 64). */
  maxMembers: number;
  /** How long one submission may hold the slot (decision 0463: five minutes). */
  slotBoundMs: number;
  /** A submission was abandoned at the bound; the host decides what that means for its instance. */
  onAbandoned: (detail: { members: number; boundMs: number }) => void;
}

interface Entry<M, B> {
  member: M;
  /** Requests this member carries (a caller's own group counts as many). */
  weight: number;
  parked: Parked;
  settle: (s: Settled<B>) => void;
}

interface Batch<M, B> {
  entries: Entry<M, B>[];
  weight: number;
}

type Work<M, B> =
  | { kind: "batch"; batch: Batch<M, B> }
  | {
      kind: "task";
      run: () => Promise<void>;
      fail: (e: unknown) => void;
      abandon: (boundMs: number) => void;
    };

export class Coalescer<M, B> {
  private forming: Batch<M, B> | undefined;
  private readonly queue: Work<M, B>[] = [];
  private arriving = 0;
  private slot: object | undefined;
  private stopped: { error: unknown } | undefined;
  private batches = 0;
  private members = 0;

  constructor(
    private readonly submit: (members: M[]) => Promise<B>,
    private readonly options: CoalescerOptions,
  ) {}

  /** True while a submission (or exclusive task) holds the slot. */
  get slotHeld(): boolean {
    return this.slot !== undefined;
  }

  /** Batches submitted and the members they carried, for logs and benchmarks. */
  get stats(): { batches: number; members: number } {
    return { batches: this.batches, members: this.members };
  }

  /**
   * Joins the next batch. `admit` runs first while the caller counts as on its way in (the writer passes
   * its lazy open); a batch does not seal while anyone is still there. An `alone` member (a row
   * transaction) rides a batch of its own: merging transactions into one physical commit would let each
   * see the others' uncommitted writes (docs/decisions/0312-ingest-writer.md).
   */
  async join(
    member: M,
    weight: number,
    parked: Parked,
    admit?: () => Promise<void>,
    alone = false,
  ): Promise<Settled<B>> {
    if (this.stopped) return { kind: "dropped", error: this.stopped.error };
    this.arriving++;
    this.options.stall.enter(parked, "admission");
    try {
      if (admit) await admit();
    } catch (error) {
      this.arriving--;
      this.pump();
      return { kind: "dropped", error };
    }
    this.arriving--;
    // The coalescer may have shut down while this caller was being admitted.
    const stopped = this.stopped as { error: unknown } | undefined;
    if (stopped) {
      this.pump();
      return { kind: "dropped", error: stopped.error };
    }
    return new Promise<Settled<B>>((settle) => {
      const w = Math.max(1, weight);
      let b = this.forming;
      if (b !== undefined && (alone || b.weight + w > this.options.maxMembers)) {
        this.seal(b);
        b = undefined;
      }
      if (b === undefined) {
        b = { entries: [], weight: 0 };
        this.forming = b;
      }
      b.entries.push({ member, weight: w, parked, settle });
      b.weight += w;
      this.options.stall.enter(parked, "open");
      if (alone || b.weight >= this.options.maxMembers) this.seal(b);
      this.pump();
    });
  }

  /** Runs `task` holding the slot (after the batches already queued), under the same bound. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped.error);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        kind: "task",
        run: async () => resolve(await task()),
        fail: reject,
        abandon: (boundMs) =>
          reject(new Error(`background work held the submission slot past its ${boundMs} ms bound`)),
      });
      this.pump();
    });
  }

  /**
   * Drops every batch not yet submitted (their members are told `dropped` with `error`: nothing of
   * theirs was written) and accepts nothing more. A submission in progress runs on to its own end.
   */
  shutdown(error: unknown): void {
    if (this.stopped) return;
    this.stopped = { error };
    const work = [...this.queue];
    this.queue.length = 0;
    if (this.forming) work.push({ kind: "batch", batch: this.forming });
    this.forming = undefined;
    for (const w of work) {
      if (w.kind === "task") w.fail(error);
      else for (const e of w.batch.entries) e.settle({ kind: "dropped", error });
    }
  }

  private seal(b: Batch<M, B>): void {
    if (this.forming === b) this.forming = undefined;
    this.queue.push({ kind: "batch", batch: b });
    for (const e of b.entries) this.options.stall.enter(e.parked, "staging");
  }

  private pump(): void {
    if (this.slot !== undefined || this.stopped) return;
    let work = this.queue.shift();
    if (work === undefined && this.forming !== undefined && this.arriving === 0) {
      work = { kind: "batch", batch: this.forming };
      this.forming = undefined;
    }
    if (work === undefined) return;
    const claim = {};
    this.slot = claim;
    void this.run(work, claim);
  }

  private release(claim: object): void {
    if (this.slot !== claim) return;
    this.slot = undefined;
    this.pump();
  }

  private async run(work: Work<M, B>, claim: object): Promise<void> {
    const bound = this.options.slotBoundMs;
    let done = false;
    const entries = work.kind === "batch" ? work.batch.entries : [];
    const cancel = this.options.clock.after(bound, () => {
      if (done) return;
      done = true;
      if (work.kind === "task") work.abandon(bound);
      for (const e of entries) e.settle({ kind: "abandoned", boundMs: bound });
      this.release(claim);
      this.options.onAbandoned({ members: entries.length, boundMs: bound });
    });
    try {
      if (work.kind === "task") {
        await work.run();
        done = true;
        return;
      }
      this.batches++;
      this.members += work.batch.weight;
      for (const e of entries) this.options.stall.enter(e.parked, "submission");
      const value = await this.submit(entries.map((e) => e.member));
      if (!done) {
        done = true;
        entries.forEach((e, index) => {
          e.settle({ kind: "submitted", batch: value, index });
        });
      }
    } catch (error) {
      if (!done) {
        done = true;
        if (work.kind === "task") work.fail(error);
        for (const e of entries) e.settle({ kind: "threw", error });
      }
    } finally {
      cancel();
      this.release(claim);
    }
  }
}
