/**
 * The per-key last-write index behind transaction conflict detection. It records the position of the
 * newest batch that wrote each key, independent of the memtable (which sorted tables will flush away), and
 * is trimmed only below the oldest live transaction: a write at or before every live transaction's begin
 * can never conflict with any of them.
 */
export class LastWriteIndex {
  private readonly last = new Map<string, number>();
  /** Ascending by position; `start` skips trimmed entries so trimming is amortised O(1). */
  private history: { position: number; keys: string[] }[] = [];
  private start = 0;

  record(position: number, keys: string[]): void {
    for (const k of keys) this.last.set(k, position);
    this.history.push({ position, keys });
  }

  /** True when some batch after `position` wrote `key`. */
  writtenAfter(key: string, position: number): boolean {
    const p = this.last.get(key);
    return p !== undefined && p > position;
  }

  /** Forgets every write at or below `position` (pass Infinity when no transaction is live). */
  trimThrough(position: number): void {
    const h = this.history;
    while (this.start < h.length && h[this.start]!.position <= position) {
      const e = h[this.start]!;
      for (const k of e.keys) if (this.last.get(k) === e.position) this.last.delete(k);
      this.start++;
    }
    if (this.start > 1024 && this.start * 2 > h.length) {
      this.history = h.slice(this.start);
      this.start = 0;
    }
  }

  /** Keys currently remembered (for tests and stall reports). */
  get size(): number {
    return this.last.size;
  }
}
