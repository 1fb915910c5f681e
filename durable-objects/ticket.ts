/**
 * One caller's commit while the writer holds it: where it is parked (for stall reports) and a way for a
 * terminal writer to answer it wherever it is, so no caller is ever left waiting on a dead instance.
 */
import type { CodedError } from "../storage/errors.ts";
import type { Parked, Phase } from "./stall.ts";

export class Ticket implements Parked {
  phase: Phase = "admission";
  since = 0;
  /** Rejects (never resolves) when the writer answers this caller from outside its own path. */
  readonly stopped: Promise<never>;
  /** Resolves when the caller has its answer, whichever path gave it. */
  readonly done: Promise<void>;
  private reject!: (e: CodedError) => void;
  private finish!: () => void;

  constructor() {
    this.stopped = new Promise<never>((_, reject) => {
      this.reject = reject;
    });
    // Nobody may be racing `stopped` when it fires; that must not become an unhandled rejection.
    this.stopped.catch(() => {});
    this.done = new Promise<void>((resolve) => {
      this.finish = resolve;
    });
  }

  stop(error: CodedError): void {
    this.reject(error);
  }

  close(): void {
    this.finish();
  }
}
