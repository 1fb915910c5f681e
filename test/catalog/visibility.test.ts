/**
 * DuckLake's visibility rule has one home (`catalog/reads/versions.ts`, decision 0462); the SQL readers'
 * forms (`sql/files/common.ts` `visibleWhere`, `sql/metadata/common.ts` `rowVisibleAt`) delegate to it.
 * Each is checked against a model that lists the snapshots a version is visible at, one by one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Row } from "../../catalog/reads/ducklake-tables.ts";
import { visibleAt, visibleIn } from "../../catalog/reads/versions.ts";
import { visibleWhere } from "../../catalog/sql/files/common.ts";
import { rowVisibleAt } from "../../catalog/sql/metadata/common.ts";
import { assertProperty } from "../support/property.ts";

const TOP = 40;

/** The model: the snapshots a version began by (`begin`, …, `TOP`) and is live through (`begin`, …, `end - 1`). */
function model(begin: number, end: number | null) {
  const begun = new Set<number>();
  for (let x = begin; x <= TOP; x++) begun.add(x);
  const live = new Set<number>();
  for (let x = 0; x <= TOP; x++) if (end === null || x < end) live.add(x);
  return { begun, live };
}

const version = fc
  .tuple(fc.integer({ min: 0, max: TOP }), fc.option(fc.integer({ min: 0, max: TOP + 1 }), { nil: null }))
  .map(([begin, end]) => ({ begin_snapshot: begin, end_snapshot: end }));
const snap = fc.integer({ min: 0, max: TOP });

describe("DuckLake's visibility rule (begin ≤ S < end)", () => {
  it("visibleAt, visibleWhere and rowVisibleAt agree with the model at one snapshot", () => {
    assertProperty(
      fc.property(version, snap, (v, s) => {
        const m = model(v.begin_snapshot, v.end_snapshot);
        const want = m.begun.has(s) && m.live.has(s);
        expect(visibleAt(v, s)).toBe(want);
        expect(visibleWhere(s)(v)).toBe(want);
        expect(rowVisibleAt(v as Row, s)).toBe(want);
      }),
    );
  });

  it("the two-literal form takes each bound from its own literal", () => {
    assertProperty(
      fc.property(version, snap, snap, (v, b, e) => {
        const m = model(v.begin_snapshot, v.end_snapshot);
        const want = m.begun.has(b) && m.live.has(e);
        expect(visibleIn(v, b, e)).toBe(want);
        expect(visibleWhere(b, e)(v)).toBe(want);
      }),
    );
  });

  it("a ducklake_* row without integer snapshot bounds is never visible", () => {
    expect(rowVisibleAt({ begin_snapshot: null, end_snapshot: null } as Row, 3)).toBe(false);
    expect(rowVisibleAt({ begin_snapshot: 1, end_snapshot: "9" } as Row, 3)).toBe(false);
    expect(rowVisibleAt({ begin_snapshot: "1", end_snapshot: null } as Row, 3)).toBe(false);
    expect(rowVisibleAt({ begin_snapshot: 1, end_snapshot: null } as Row, 3)).toBe(true);
  });
});
