/**
 * `mergeSmallestGaps` (storage/gap-merge.ts), the one merge behind prefetch block runs and fence
 * windows, against a simple model: spans of one group merge, never across groups or a cap; every input
 * span stays covered; the count falls to `n` when the groups and the cap allow it; the input is untouched.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type GapMerge, mergeSmallestGaps } from "../../storage/gap-merge.ts";
import { assertProperty } from "../support/property.ts";

interface Span {
  group: number;
  start: number;
  end: number;
}

const rule = (cap: number): GapMerge<Span> => ({
  gap: (a, b) => (a.group !== b.group || b.end - a.start > cap ? undefined : b.start - a.end),
  join: (a, b) => ({ group: a.group, start: a.start, end: b.end }),
});

/** Sorted, disjoint spans per group, groups in order (as both callers build them). */
const spansArb = fc
  .array(
    fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 9 })),
    {
      maxLength: 30,
    },
  )
  .map((raw) => {
    const out: Span[] = [];
    const sorted = [...raw].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    for (const [group, gapBefore, len] of sorted) {
      const prev = out.at(-1);
      const start = prev !== undefined && prev.group === group ? prev.end + gapBefore : gapBefore;
      out.push({ group, start, end: start + len });
    }
    return out;
  });

describe("mergeSmallestGaps", () => {
  it("merges within a group and under the cap only, keeps every span covered, reaches n when it may", () => {
    assertProperty(
      fc.property(
        spansArb,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 5, max: 400 }),
        (spans, n, cap) => {
          const before = JSON.stringify(spans);
          const out = mergeSmallestGaps(spans, n, rule(cap));
          expect(JSON.stringify(spans)).toBe(before);
          for (const s of spans) {
            const covering = out.filter((o) => o.group === s.group && o.start <= s.start && s.end <= o.end);
            expect(covering).toHaveLength(1);
          }
          for (const o of out) {
            const merged = spans.filter((s) => s.group === o.group && o.start <= s.start && s.end <= o.end);
            if (merged.length > 1) expect(o.end - o.start).toBeLessThanOrEqual(cap);
          }
          if (out.length > n) {
            // Stopped early: no neighbours left that may merge.
            for (let i = 1; i < out.length; i++) expect(rule(cap).gap(out[i - 1]!, out[i]!)).toBeUndefined();
          }
        },
      ),
    );
  });

  it("joins the smallest gap first", () => {
    const spans: Span[] = [
      { group: 0, start: 0, end: 1 },
      { group: 0, start: 10, end: 11 },
      { group: 0, start: 12, end: 13 },
    ];
    expect(mergeSmallestGaps(spans, 2, rule(100))).toEqual([
      { group: 0, start: 0, end: 1 },
      { group: 0, start: 10, end: 13 },
    ]);
  });
});
