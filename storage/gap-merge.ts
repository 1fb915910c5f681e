/**
 * One home for "coalesce neighbouring reads across their smallest gap until they fit the connections":
 * the block runs of a prefetch (`prefetch.ts`) and the fence windows read before a table's metadata
 * (`fence-windows.ts`) both merge this way, in their own units (blocks, bytes).
 */

/** How one kind of read span merges with its neighbour. */
export interface GapMerge<T> {
  /** The gap between two neighbours, or undefined when they must not merge (other table, over a cap). */
  gap(a: T, b: T): number | undefined;
  /** `a` extended over `b` (the span that replaces both). */
  join(a: T, b: T): T;
}

/**
 * Merges neighbours across the smallest gap first until at most `n` spans remain or no pair may merge;
 * the caller decides what to do with spans past `n`. The input is not modified.
 */
export function mergeSmallestGaps<T>(spans: readonly T[], n: number, rule: GapMerge<T>): T[] {
  const out = [...spans];
  while (out.length > n) {
    let best = -1;
    let smallest = Number.POSITIVE_INFINITY;
    for (let i = 1; i < out.length; i++) {
      const g = rule.gap(out[i - 1]!, out[i]!);
      if (g !== undefined && g < smallest) {
        smallest = g;
        best = i;
      }
    }
    if (best < 0) break;
    out.splice(best - 1, 2, rule.join(out[best - 1]!, out[best]!));
  }
  return out;
}
