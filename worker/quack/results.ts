/**
 * Paged results between a PREPARE and its FETCHes. A PREPARE answers at most `FETCH_CHUNKS` chunks; the
 * rest is held here, already encoded, one page per FETCH. This is the one piece of Quack state a
 * restarted (or different) isolate does not have: a FETCH that finds nothing answers stock's own
 * "Result has been closed" text plus what to do (decision record `docs/decisions/0203-quack-fetch-paging.md`).
 *
 * A held result is keyed by its connection id (unique per CONNECTION, unguessable) and counted against
 * its owner's budget (one lake and one token): nothing another connection, token or lake does can close
 * or evict it. When a budget is full the *new* result is refused, never an older one dropped
 * (docs/decisions/0402-quack-held-results-per-owner.md). Like stock, a connection holds one open result.
 */
import { QuackLimit } from "./errors.ts";

/** Chunks per PREPARE/FETCH response (stock's `quack_fetch_batch_chunks` default). */
export const FETCH_CHUNKS = 12;
/** Most rows one statement may answer (a larger result is refused, never truncated). */
export const MAX_RESULT_ROWS = 1_000_000;
/** Most paged results one owner (a lake and a token) holds at once in one isolate. */
export const MAX_HELD_RESULTS_PER_OWNER = 64;
/** Most bytes of encoded pages one owner holds at once in one isolate; a larger result is refused. */
export const MAX_HELD_BYTES_PER_OWNER = 32 * 1024 * 1024;
/** Most bytes of encoded pages one isolate holds for all owners together (its 128 MB is shared). */
export const MAX_HELD_BYTES = 64 * 1024 * 1024;
/** How long a paged result waits for its FETCHes. */
export const HELD_RESULT_TTL_MS = 10 * 60 * 1000;

/** Who holds a result: the connection it answers and the owner whose budget it counts against. */
export interface Holder {
  connectionId: string;
  owner: string;
}

interface Held {
  owner: string;
  uuid: bigint;
  /** Encoded FETCH_RESPONSE message bodies, in order. */
  pages: Uint8Array[];
  next: number;
  bytes: number;
  expiresAt: number;
  /** Every page taken (or the result closed): it no longer counts in its owner's results. */
  finished: boolean;
}

interface Budget {
  results: number;
  bytes: number;
}

export type Page = { body: Uint8Array; batchIndex: number } | "done" | "lost";

export class ResultStore {
  private readonly byConnection = new Map<string, Held>();
  private readonly byOwner = new Map<string, Budget>();
  private bytes = 0;

  /** Holds the pages after a PREPARE's first response; replaces the connection's previous result. */
  hold(holder: Holder, uuid: bigint, pages: Uint8Array[], now: number): void {
    this.close(holder.connectionId);
    this.expire(now);
    const bytes = pages.reduce((n, p) => n + p.length, 0);
    const mine = this.byOwner.get(holder.owner) ?? { results: 0, bytes: 0 };
    const minutes = HELD_RESULT_TTL_MS / 60_000;
    if (bytes > MAX_HELD_BYTES_PER_OWNER) {
      throw new QuackLimit(
        `the result needs ${bytes} bytes of FETCH pages, more than the ${MAX_HELD_BYTES_PER_OWNER} this server holds for one lake and token; narrow the query`,
      );
    }
    if (mine.results >= MAX_HELD_RESULTS_PER_OWNER || mine.bytes + bytes > MAX_HELD_BYTES_PER_OWNER) {
      throw new QuackLimit(
        `this token already holds ${mine.results} paged results (${mine.bytes} bytes) on this lake, the most this server holds (${MAX_HELD_RESULTS_PER_OWNER} results, ${MAX_HELD_BYTES_PER_OWNER} bytes); a result is released when it is fetched to its end, by its connection's next query or DISCONNECT, or after ${minutes} minutes`,
      );
    }
    if (this.bytes + bytes > MAX_HELD_BYTES) {
      throw new QuackLimit(
        `this server holds ${this.bytes} bytes of paged results, near its limit of ${MAX_HELD_BYTES}; retry shortly or narrow the query`,
      );
    }
    const held: Held = {
      owner: holder.owner,
      uuid,
      pages,
      next: 0,
      bytes,
      expiresAt: now + HELD_RESULT_TTL_MS,
      finished: false,
    };
    this.byConnection.set(holder.connectionId, held);
    this.byOwner.set(holder.owner, { results: mine.results + 1, bytes: mine.bytes + bytes });
    this.bytes += bytes;
    if (pages.length === 0) this.finish(held);
  }

  /**
   * The next page of the connection's open result `uuid`. Each page's bytes are released as it is
   * taken, and the last one frees the owner's result slot; the (tiny) entry stays so that the FETCHes
   * after it answer "done", until the connection's next query, its DISCONNECT or the TTL.
   */
  take(connectionId: string, uuid: bigint, now: number): Page {
    this.expire(now);
    const held = this.byConnection.get(connectionId);
    if (!held || held.uuid !== uuid) return "lost";
    const body = held.pages[held.next];
    if (!body) return "done";
    held.pages[held.next] = EMPTY;
    held.next++;
    this.release(held, body.length);
    if (held.next === held.pages.length) this.finish(held);
    return { body, batchIndex: held.next };
  }

  /** Drops a connection's open result (a new PREPARE, a DISCONNECT, the end of its pages). */
  close(connectionId: string): void {
    const held = this.byConnection.get(connectionId);
    if (!held) return;
    this.byConnection.delete(connectionId);
    this.release(held, held.bytes);
    this.finish(held);
  }

  /** Bytes of pages held by the isolate (all owners). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Results held for one owner. */
  heldResults(owner: string): number {
    return this.byOwner.get(owner)?.results ?? 0;
  }

  /** Frees the result's slot in its owner's count (once). */
  private finish(held: Held): void {
    if (held.finished) return;
    held.finished = true;
    const mine = this.byOwner.get(held.owner);
    if (!mine) return;
    mine.results--;
    if (mine.results <= 0 && mine.bytes <= 0) this.byOwner.delete(held.owner);
  }

  private release(held: Held, bytes: number): void {
    held.bytes -= bytes;
    this.bytes -= bytes;
    const mine = this.byOwner.get(held.owner);
    if (mine) mine.bytes -= bytes;
  }

  private expire(now: number): void {
    for (const [id, held] of this.byConnection) if (held.expiresAt <= now) this.close(id);
  }
}

const EMPTY = new Uint8Array(0);

/** The isolate's store (module state: it lives as long as the isolate, and nothing depends on it). */
export const isolateResults = new ResultStore();
