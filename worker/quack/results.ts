/**
 * Paged results between a PREPARE and its FETCHes. A PREPARE answers at most `FETCH_CHUNKS` chunks; the
 * rest is held here, already encoded, one page per FETCH. This is the one piece of Quack state a
 * restarted (or different) isolate does not have: a FETCH that finds nothing answers stock's own
 * "Result has been closed" text plus what to do (decision record `docs/decisions/0203-quack-fetch-paging.md`).
 * Held results are bounded by count, bytes and age; like stock, a connection holds one open result.
 */
import { QuackLimit } from "./errors.ts";

/** Chunks per PREPARE/FETCH response (stock's `quack_fetch_batch_chunks` default). */
export const FETCH_CHUNKS = 12;
/** Most rows one statement may answer (a larger result is refused, never truncated). */
export const MAX_RESULT_ROWS = 1_000_000;
/** Most paged results held by one isolate at once (the oldest is dropped first). */
export const MAX_HELD_RESULTS = 64;
/** Most bytes of encoded pages held by one isolate at once; one result larger than this is refused. */
export const MAX_HELD_BYTES = 64 * 1024 * 1024;
/** How long a paged result waits for its FETCHes. */
export const HELD_RESULT_TTL_MS = 10 * 60 * 1000;

interface Held {
  connectionId: string;
  uuid: bigint;
  /** Encoded FETCH_RESPONSE message bodies, in order. */
  pages: Uint8Array[];
  next: number;
  bytes: number;
  expiresAt: number;
}

export type Page = { body: Uint8Array; batchIndex: number } | "done" | "lost";

export class ResultStore {
  private readonly byConnection = new Map<string, Held>();
  private bytes = 0;

  /** Holds the pages after a PREPARE's first response; replaces the connection's previous result. */
  hold(connectionId: string, uuid: bigint, pages: Uint8Array[], now: number): void {
    this.close(connectionId);
    const bytes = pages.reduce((n, p) => n + p.length, 0);
    if (bytes > MAX_HELD_BYTES) {
      throw new QuackLimit(
        `the result needs ${bytes} bytes of FETCH pages, more than the ${MAX_HELD_BYTES} this server holds; narrow the query`,
      );
    }
    this.expire(now);
    while (this.byConnection.size >= MAX_HELD_RESULTS || this.bytes + bytes > MAX_HELD_BYTES) {
      const oldest = this.byConnection.keys().next().value;
      if (oldest === undefined) break;
      this.close(oldest);
    }
    this.byConnection.set(connectionId, {
      connectionId,
      uuid,
      pages,
      next: 0,
      bytes,
      expiresAt: now + HELD_RESULT_TTL_MS,
    });
    this.bytes += bytes;
  }

  /** The next page of the connection's open result `uuid`. */
  take(connectionId: string, uuid: bigint, now: number): Page {
    this.expire(now);
    const held = this.byConnection.get(connectionId);
    if (!held || held.uuid !== uuid) return "lost";
    const body = held.pages[held.next];
    if (!body) return "done";
    held.next++;
    return { body, batchIndex: held.next };
  }

  /** Drops a connection's open result (a new PREPARE, a DISCONNECT). */
  close(connectionId: string): void {
    const held = this.byConnection.get(connectionId);
    if (!held) return;
    this.byConnection.delete(connectionId);
    this.bytes -= held.bytes;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  private expire(now: number): void {
    for (const [id, held] of this.byConnection) if (held.expiresAt <= now) this.close(id);
  }
}

/** The isolate's store (module state: it lives as long as the isolate, and nothing depends on it). */
export const isolateResults = new ResultStore();
