/**
 * Deleting a lake: close admission, let admitted commits finish (bounded by `deleteDrainBoundMs`), then,
 * holding the submission slot, make every applied batch durable and write the deletion marker; only once
 * the marker has landed does the front stop the store. A step that fails before the marker landed reopens
 * admission and leaves the lake exactly as it was. A marker write whose outcome is unknown is resolved by
 * reading the lake state; if even that fails the instance ends, and the next one learns the truth from R2.
 * Concurrent deletes share one attempt; a delete of a lake already marked deleted answers what the first
 * did (and re-arms its removal). Then, after the grace, removal in slices. Why this order:
 * docs/decisions/0110-lake-deletion-order.md.
 */
import { quoteName } from "../catalog/index.ts";
import { lakeState, markLakeDeleted, removeDeletedLake } from "../storage/lakes.ts";
import { LakeWasDeleted, Unavailable } from "./errors.ts";
import { graceOf } from "./options.ts";
import type { LakeRecord } from "./registry.ts";
import type { DeleteAnswer, FrontDeps, PurgeAnswer, Session } from "./types.ts";

/** Objects of a deleted lake one background pass removes before it re-arms (one R2 list page). */
export const REMOVAL_SLICE_OBJECTS = 1000;
/** Objects one admin purge removes before it answers `purged: false` (repeat the purge for the rest). */
export const PURGE_MAX_OBJECTS = 50_000;

/** What a delete needs from the front (it never calls another part). */
export interface DeletionDeps extends FrontDeps {
  /** Admission closed (true) while the delete drains and writes its marker; reopened (false) after. */
  draining(on: boolean): void;
  /** The marker landed: nothing may be written from here on. */
  deleted(deletedAt: number, s: Session): Promise<void>;
  /** Every object of the deleted lake is gone. */
  removed(): void;
}

export class Deletion {
  /** The delete in progress: admission is closed while it drains and writes the marker. */
  private deletion: Promise<DeleteAnswer> | undefined;

  constructor(private readonly d: DeletionDeps) {}

  deleteLake(): Promise<DeleteAnswer> {
    this.deletion ??= this.runDelete().finally(() => {
      this.deletion = undefined;
    });
    return this.deletion;
  }

  /**
   * Admin purge: deletes the lake if it is live, then removes its objects now, skipping the grace, so the
   * name is free after `purgedNameReuseMs` (docs/decisions/0480-lake-purge.md).
   */
  async purge(): Promise<PurgeAnswer> {
    await this.deleteLake();
    const { host } = this.d;
    const { bucket, lake, registry } = host;
    const rec = registry.get();
    if (rec !== undefined && !rec.purged) registry.put({ ...rec, purged: true });
    const p = await removeDeletedLake(bucket, lake, {
      now: host.now(),
      graceMs: 0,
      maxObjects: PURGE_MAX_OBJECTS,
      keepMarker: true,
    });
    const answer = this.recordDeleted(rec?.deletedAt ?? host.now());
    host.log("info", { msg: "lake purged", lake, objects: p.deletedObjects, done: p.done });
    return { ...answer, purged: p.done, objectsRemoved: p.deletedObjects };
  }

  private async runDelete(): Promise<DeleteAnswer> {
    const { host } = this.d;
    this.d.throwIfStopped();
    const known = host.registry.get();
    if (known?.state === "deleted") return this.recordDeleted(known.deletedAt ?? host.now());
    let s: Session;
    try {
      s = await this.d.ready();
    } catch (e) {
      if (e instanceof LakeWasDeleted) return this.recordDeleted(e.deletedAt);
      throw e;
    }
    let deletedAt: number;
    this.d.draining(true);
    try {
      await this.drain();
      deletedAt = await this.d.exclusive(() => this.writeMarker(s));
    } finally {
      this.d.draining(false);
    }
    // The marker has landed: from here on nothing may be written, and every step is local.
    await this.d.deleted(deletedAt, s);
    const answer = this.recordDeleted(deletedAt);
    host.log("info", { msg: "lake deleted", ...answer });
    return answer;
  }

  /** Waits for every admitted commit to be answered, up to the drain bound; nothing new is admitted. */
  private async drain(): Promise<void> {
    const { host } = this.d;
    const pending = [...this.d.shared.tickets].map((t) => t.done);
    if (pending.length === 0) return;
    const bound = host.tunables.deleteDrainBoundMs;
    let cancel = (): void => {};
    const timedOut = new Promise<"timeout">((resolve) => {
      cancel = host.clock.after(bound, () => resolve("timeout"));
    });
    try {
      const r = await Promise.race([Promise.all(pending).then(() => "drained" as const), timedOut]);
      if (r === "timeout") {
        throw new Unavailable(
          `lake ${quoteName(host.lake)} was not deleted: ${pending.length} admitted commit(s) were still in flight after the ${bound} ms drain bound (deleteDrainBoundMs); the lake is unchanged, retry the delete`,
        );
      }
    } finally {
      cancel();
    }
    const stopped = this.d.terminal();
    if (stopped) throw stopped;
  }

  /** In the submission slot: flush what is applied, then write the marker (resolving a lost answer). */
  private async writeMarker(s: Session): Promise<number> {
    const { bucket, lake } = this.d.host;
    try {
      // Every applied batch is durable before the marker hides the WAL from readers.
      await s.store.flush();
    } catch (e) {
      throw this.d.durabilityFailed(e);
    }
    try {
      return await markLakeDeleted(bucket, lake, this.d.host.now());
    } catch (e) {
      let state: Awaited<ReturnType<typeof lakeState>>;
      try {
        state = await lakeState(bucket, lake);
      } catch (probe) {
        // Whether the marker landed cannot be known here: this instance must not write again. The next
        // activation's open reads R2 and finds the lake live or deleted.
        const err = new Unavailable(
          `could not learn whether lake ${quoteName(lake)} was marked deleted (${String(e)}; then ${String(probe)}); retry the delete`,
        );
        this.d.terminate(err);
        throw err;
      }
      if (state.state === "deleted") return state.deletedAt;
      throw new Unavailable(
        `the deletion marker of lake ${quoteName(lake)} could not be written (${String(e)}), so the lake was not deleted and is unchanged; retry the delete`,
        { cause: e },
      );
    }
  }

  /** Records the deletion, (re-)arms removal for the end of the grace period, and answers it. */
  recordDeleted(deletedAt: number): DeleteAnswer {
    const { host } = this.d;
    const { lake, registry, tunables } = host;
    const rec = registry.get();
    registry.put({ ...rec, lake, state: "deleted", deletedAt, dirty: false });
    const removeAfter = deletedAt + graceOf(tunables, rec);
    host.scheduleBackground(Math.max(0, removeAfter - host.now()));
    return { lake, deletedAt, removeAfter };
  }

  /** One slice of a deleted lake's removal, once its grace has passed. */
  async removeDeleted(rec: LakeRecord): Promise<void> {
    const { host } = this.d;
    const now = host.now();
    const grace = graceOf(host.tunables, rec);
    const due = (rec.deletedAt ?? now) + grace;
    if (now < due) {
      host.scheduleBackground(due - now);
      return;
    }
    const p = await removeDeletedLake(host.bucket, host.lake, {
      now,
      graceMs: grace,
      maxObjects: REMOVAL_SLICE_OBJECTS,
    });
    if (p.done) {
      host.registry.delete();
      this.d.removed();
      host.log("info", { msg: "deleted lake removed", lake: host.lake, objects: p.deletedObjects });
    } else {
      host.scheduleBackground(host.tunables.backgroundSliceDelayMs);
    }
  }
}
