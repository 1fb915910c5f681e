/**
 * What metadata reads loaded from one published cut, kept for the next requests that read the same cut.
 * DuckLake's ATTACH (and every new transaction) sends its catalog load as a dozen separate Quack
 * requests; each opens the latest cut, and while no commit lands in between they all read the same one.
 * A cut is immutable, so what was decoded from it (the `ducklake_*` rows of a kind, the inlined-table
 * declarations, the head snapshot) can be shared by those requests instead of being read again.
 *
 * Only derived, rebuildable values live here: an isolate that restarts rebuilds them on its next read
 * (sessions hold nothing). Entries are bounded in number of cuts (least recently used dropped first)
 * and in age: a deleted lake's name can be created again once its objects are removed, with the same
 * positions, so an entry must not outlive the writer's deletion grace (24 h); it lives CUT_MEMO_LIFETIME_MS.
 * Why and the figures: docs/decisions/0250-quack-catalog-load-cost.md.
 */

/** Cuts kept per isolate: the newest and the one before it (a reader racing a commit). */
export const CUT_MEMO_CUTS = 2;
/** Longest an entry is reused; far below the deletion grace, long enough for one ATTACH's requests. */
export const CUT_MEMO_LIFETIME_MS = 60_000;

/** The identity of a published cut: same identity, same bytes (positions are durable once published). */
export interface CutIdentity {
  lake: string;
  epoch: number;
  manifestVersion: number;
  position: number;
}

interface Entry {
  memo: Map<string, unknown>;
  createdAt: number;
}

export class CutMemos {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxCuts: number = CUT_MEMO_CUTS,
    private readonly lifetimeMs: number = CUT_MEMO_LIFETIME_MS,
  ) {
    if (!Number.isInteger(maxCuts) || maxCuts < 1)
      throw new RangeError(`maxCuts must be ≥ 1, got ${maxCuts}`);
  }

  /** The memo of this cut (a fresh one when it is new or its entry expired). */
  forCut(cut: CutIdentity, now: number): Map<string, unknown> {
    const key = `${cut.lake}\u0000${cut.epoch}\u0000${cut.manifestVersion}\u0000${cut.position}`;
    const hit = this.entries.get(key);
    this.entries.delete(key);
    if (hit && now - hit.createdAt < this.lifetimeMs && now >= hit.createdAt) {
      this.entries.set(key, hit);
      return hit.memo;
    }
    const entry: Entry = { memo: new Map(), createdAt: now };
    this.entries.set(key, entry);
    while (this.entries.size > this.maxCuts) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return entry.memo;
  }

  get size(): number {
    return this.entries.size;
  }
}
