/**
 * Whole answers of read statements, kept per published cut: the same statement text read at the same cut
 * gets the same rows, so a warm lake's repeated metadata reads (every DuckLake transaction sends the same
 * handful: latest snapshot, schema, stats, file lists) skip evaluation. A cut is immutable, so an entry
 * never needs invalidating: a commit publishes a new cut, whose identity misses every entry of the old
 * one (read-your-writes unchanged: the answer is the cut's, as it would have been evaluated).
 *
 * Not cached: an answer that consulted the connection's own pending flushes (`flushHidden`: it differs per
 * connection) and every later answer of that request (its memo may carry what was loaded), an answer without a cut (a missing lake), a failed statement, and an answer larger than
 * MAX_CACHED_ANSWER_BYTES. Bounded in entries and in (estimated) bytes, least recently used dropped first,
 * and in age like the cut memo (a deleted lake's name can be created again with the same positions).
 * docs/decisions/0641-warm-cut-answers.md.
 */
import { CUT_MEMO_LIFETIME_MS, type CutIdentity } from "./cut-memo.ts";
import type { Statement } from "./lexer.ts";
import { answerRead, type SqlReadContext } from "./reads.ts";
import type { SqlResult, SqlValue } from "./result.ts";

/** Answers one isolate keeps, across every lake and cut. */
export const MAX_ANSWER_CACHE_ENTRIES = 512;
/** Estimated bytes of every kept answer together (rows and statement texts). */
export const MAX_ANSWER_CACHE_BYTES = 8 * 1024 * 1024;
/** An answer estimated larger than this is not kept (a file list of a wide table, say). */
export const MAX_CACHED_ANSWER_BYTES = 256 * 1024;

interface Entry {
  result: SqlResult;
  bytes: number;
  createdAt: number;
}

/** Estimated bytes of a value, counted until `stop` is passed (then any number above it). */
function valueBytes(v: SqlValue, stop: number): number {
  if (v === null || typeof v === "boolean") return 8;
  if (typeof v === "number") return 8;
  if (typeof v === "bigint") return 16;
  if (typeof v === "string") return 16 + 2 * v.length;
  if (v instanceof Uint8Array) return 16 + v.byteLength;
  let n = 16;
  const parts: SqlValue[] = Array.isArray(v) ? v : (Object.values(v) as SqlValue[]);
  for (const p of parts) {
    n += 8 + valueBytes(p, stop - n);
    if (n > stop) return n;
  }
  return n;
}

/** Estimated bytes of an answer, counted until `stop` is passed. */
export function answerBytes(result: SqlResult, stop: number = MAX_CACHED_ANSWER_BYTES): number {
  let n = 64 + result.columns.length * 64;
  for (const row of result.rows) {
    n += 16;
    for (const v of row) {
      n += valueBytes(v, stop - n);
      if (n > stop) return n;
    }
  }
  return n;
}

function cutKey(cut: CutIdentity & { checkpointId?: string }): string {
  return `${cut.lake}\u0000${cut.epoch}\u0000${cut.manifestVersion}\u0000${cut.position}\u0000${cut.checkpointId ?? ""}`;
}

export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private total = 0;

  constructor(
    private readonly maxEntries: number = MAX_ANSWER_CACHE_ENTRIES,
    private readonly maxBytes: number = MAX_ANSWER_CACHE_BYTES,
    private readonly maxAnswerBytes: number = MAX_CACHED_ANSWER_BYTES,
    private readonly lifetimeMs: number = CUT_MEMO_LIFETIME_MS,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`maxEntries must be ≥ 1, got ${maxEntries}`);
  }

  /**
   * Answers one request's statements at `ctx`'s cut: kept answers, or evaluated by `answerRead` (and kept
   * when they may be). `variant` names whatever else an answer depends on (the server-commit switch). Once
   * any statement of the request consults the connection's pending flushes, no later statement of it is
   * kept either: the request's memo (`ctx.memo`) may carry what that statement loaded.
   */
  forRequest(
    ctx: SqlReadContext,
    cut: CutIdentity & { checkpointId?: string },
    variant: string,
  ): (stmt: Statement, now: number) => Promise<SqlResult> {
    if (ctx.view === null) return (stmt) => answerRead(ctx, stmt);
    let personal = false;
    const flushHidden = ctx.flushHidden;
    const watched: SqlReadContext =
      flushHidden === undefined
        ? ctx
        : {
            ...ctx,
            flushHidden: () => {
              personal = true;
              return flushHidden();
            },
          };
    const prefix = `${cutKey(cut)}\u0000${variant}\u0000`;
    return async (stmt, now) => {
      const key = prefix + stmt.text;
      const hit = personal ? undefined : this.entries.get(key);
      if (hit) {
        this.entries.delete(key);
        if (now - hit.createdAt < this.lifetimeMs && now >= hit.createdAt) {
          this.entries.set(key, hit);
          return hit.result;
        }
        this.total -= hit.bytes;
      }
      const result = await answerRead(watched, stmt);
      if (!personal) this.keep(key, result, now);
      return result;
    };
  }

  private keep(key: string, result: SqlResult, now: number): void {
    const bytes = 2 * key.length + answerBytes(result, this.maxAnswerBytes);
    if (bytes > this.maxAnswerBytes || bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.total -= old.bytes;
    }
    this.entries.set(key, { result, bytes, createdAt: now });
    this.total += bytes;
    while (this.entries.size > this.maxEntries || this.total > this.maxBytes) {
      const oldest = this.entries.entries().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest[0]);
      this.total -= oldest[1].bytes;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.total;
  }
}
