/**
 * Every paged route with a numeric cursor takes it through one schema and answers `next` by one rule
 * (worker/page-cursor.ts): a cursor that is not a non-negative integer is the same 400 naming the
 * parameter on every route (the rows cursor and the maintenance `before` used to word or parse it their
 * own way), and walking a route page by page with its `next` returns every item once, ending at null.
 */
import { describe, expect, it } from "vitest";
import { nextAfter } from "../../worker/page-cursor.ts";
import { call, expectError } from "../support/http.ts";

const LAKE = "page-cursor";
const base = `/v1/lakes/${LAKE}`;

const CURSORS: [path: string, param: string][] = [
  [`${base}/snapshots`, "since"],
  [`${base}/tables/main/t/plan`, "after_file"],
  [`${base}/tables/main/t/rows`, "cursor"],
  [`${base}/dead-letters`, "after"],
  [`${base}/maintenance`, "before"],
];

async function ok<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as T;
}

describe("page cursors", () => {
  it("every numeric cursor refuses a non-integer alike", async () => {
    expect((await call(base, { method: "PUT" })).status).toBe(201);
    await ok(
      await call(`${base}/commits`, {
        method: "POST",
        body: { verbs: [{ op: "create_table", name: "t", columns: [{ name: "id", type: "int64" }] }] },
      }),
    );
    for (const [path, param] of CURSORS) {
      for (const bad of ["abc", "-1", "1.5"]) {
        const body = await expectError(await call(`${path}?${param}=${bad}`), 400, "InvalidRequest");
        expect([path, bad, body.error.message]).toEqual([
          path,
          bad,
          expect.stringContaining(`${param} must be a non-negative integer`),
        ]);
      }
    }
  });

  it("walking the snapshot list by `next` returns every snapshot once and ends at null", async () => {
    const lake = "page-cursor-walk";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    for (const name of ["a", "b", "c", "d"]) {
      await ok(
        await call(`/v1/lakes/${lake}/commits`, {
          method: "POST",
          body: { verbs: [{ op: "create_schema", name }] },
        }),
      );
    }
    const all = await ok<{ snapshots: { snapshot_id: number }[]; next: number | null }>(
      await call(`/v1/lakes/${lake}/snapshots`),
    );
    expect(all.next).toBeNull();
    for (const limit of [1, 2, 3]) {
      const seen: number[] = [];
      let since: number | null = 0;
      let pages = 0;
      while (since !== null) {
        const page: { snapshots: { snapshot_id: number }[]; next: number | null } = await ok(
          await call(`/v1/lakes/${lake}/snapshots?limit=${limit}&since=${since}`),
        );
        seen.push(...page.snapshots.map((s) => s.snapshot_id));
        since = page.next;
        pages++;
        expect(pages).toBeLessThanOrEqual(all.snapshots.length + 1);
      }
      expect([limit, seen]).toEqual([limit, all.snapshots.map((s) => s.snapshot_id).filter((id) => id > 0)]);
    }
  });

  it("next: the last key while more may follow, else null", () => {
    const key = (n: number): number => n;
    expect(nextAfter([], key, { limit: 2 })).toBeNull();
    expect(nextAfter([1, 2], key, { limit: 2 })).toBe(2);
    expect(nextAfter([1], key, { limit: 2 })).toBeNull();
    expect(nextAfter([], key, { through: 5 })).toBeNull();
    expect(nextAfter([3, 4], key, { through: 5 })).toBe(4);
    expect(nextAfter([4, 5], key, { through: 5 })).toBeNull();
  });
});
