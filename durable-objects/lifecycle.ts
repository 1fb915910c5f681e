/**
 * The writer's lifecycle: live → draining (a delete closes admission) → deleted, or terminal at any point
 * (`Fenced`, or an outcome the writer can no longer resolve). Terminal answers every pending caller and
 * asks the host to end the instance; it never reopens in place.
 */
import { quoteName } from "../catalog/index.ts";
import { type CodedError, Fenced } from "../storage/errors.ts";
import { CommitOutcomeUnknown, LakeWasDeleted, Unavailable } from "./errors.ts";
import type { SharedState, WriterHost } from "./types.ts";

/** What ending the instance closes, wired by the front: before the callers are answered, and after. */
export interface TerminalEffects {
  /** Stops flushing and refuses what was admitted but not submitted with `notSubmitted`. */
  closeAdmission(notSubmitted: CodedError): void;
  /** Closes the stall watch and the store. */
  closeRest(): void;
}

export class Lifecycle {
  /** Set once: why this instance stopped. */
  terminal: CodedError | undefined;
  /** True while a delete drains and writes its marker: new work is refused as Unavailable. */
  draining = false;
  /** Set once this instance has seen the lake's deletion marker land (ms since the epoch). */
  deletedAt: number | undefined;
  /** True once a deleted lake's objects are all removed: the host serves the name with a fresh writer. */
  removed = false;

  constructor(
    private readonly host: WriterHost,
    private readonly shared: SharedState,
    private readonly effects: TerminalEffects,
  ) {}

  throwIfStopped(): void {
    if (this.terminal) {
      throw this.terminal instanceof Fenced
        ? this.terminal
        : new Unavailable(`this writer instance stopped (${this.terminal.code}) and is restarting`);
    }
  }

  /** While a delete is in progress its outcome is not known yet: the caller retries and learns it. */
  throwIfDeleting(): void {
    if (this.draining) {
      throw new Unavailable(
        `lake ${quoteName(this.host.lake)} is being deleted; retry to learn whether the delete completed`,
      );
    }
  }

  /** Refuses work on a stopped, deleted or deleting writer (the checks before any open). */
  throwIfClosed(): void {
    this.throwIfStopped();
    if (this.deletedAt !== undefined) throw new LakeWasDeleted(this.host.lake, this.deletedAt);
    this.throwIfDeleting();
  }

  /** The store failed to confirm a segment: terminal; the error every waiter of it gets. */
  durabilityFailed(e: unknown): CodedError {
    const err =
      e instanceof Fenced
        ? e
        : new CommitOutcomeUnknown(
            `its WAL segment could not be confirmed (${e instanceof Error ? e.message : String(e)})`,
            { cause: e },
          );
    this.terminate(err);
    return err;
  }

  /** Terminal: answer every pending caller, stop flushing and ask the host to end the instance. */
  terminate(reason: CodedError): void {
    if (this.terminal) return;
    this.terminal = reason;
    const fenced = reason instanceof Fenced;
    this.host.log("error", {
      msg: "lake writer is terminal: answering every pending commit, then ending this instance",
      lake: this.host.lake,
      code: reason.code,
      error: reason.message,
      pending: this.shared.tickets.size,
    });
    const notSubmitted = fenced
      ? reason
      : new Unavailable(`the writer stopped (${reason.code}) before this commit was submitted`);
    this.effects.closeAdmission(notSubmitted);
    for (const t of this.shared.tickets) {
      const submitted = t.phase === "submission" || t.phase === "durability";
      t.stop(
        fenced
          ? reason
          : submitted
            ? reason instanceof CommitOutcomeUnknown
              ? reason
              : new CommitOutcomeUnknown(`the writer stopped (${reason.code}) while it was in flight`)
            : notSubmitted,
      );
    }
    this.effects.closeRest();
    this.host.abort(`${reason.code}: ${reason.message}`);
  }
}
