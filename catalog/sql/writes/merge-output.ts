/**
 * The one rule for where a `merge_adjacent` output file begins (DuckLake's `GetCompactionChanges` for
 * MERGE_ADJACENT_TABLES): at its first source's begin, in the compaction's source order (not the earliest
 * of them), with `partial_max` the newest snapshot any source answers (its own `partial_max`, else its
 * begin) when it merges more than one file, else none. The staged translation (`staged-compaction.ts`)
 * derives the output's row from it; the client-side translation (`translate.ts`) checks a merged file
 * against it (docs/decisions/0610-merge-output-per-compaction.md).
 */

/** What the rule reads of a source file. */
export interface MergeSource {
  begin_snapshot: number;
  partial_max: number | null;
}

export interface MergeSpan {
  begin: number;
  partialMax: number | null;
}

/** The output's begin and `partial_max` for `sources` in source order (at least one). */
export function mergeSpan(sources: readonly MergeSource[]): MergeSpan {
  const first = sources[0];
  if (first === undefined) throw new RangeError("a merge has at least one source");
  const newest = Math.max(...sources.map((s) => s.partial_max ?? s.begin_snapshot));
  return { begin: first.begin_snapshot, partialMax: sources.length > 1 ? newest : null };
}
