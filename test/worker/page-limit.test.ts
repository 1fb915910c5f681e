/**
 * Every paged route takes `limit` through one schema (worker/page-limit.ts): an integer from 1 to the
 * route's bound, and anything else is the same 400 naming that range — including the dead-letter page,
 * which used to check its bound by hand after opening a cut.
 */
import { describe, expect, it } from "vitest";
import { MAX_DEAD_LETTERS_PAGE, MAX_ROWS_PAGE } from "../../catalog/index.ts";
import { MAX_JOB_RUNS_PAGE } from "../../catalog/maintenance/runs.ts";
import { MAX_DUCKLAKE_PAGE_ROWS } from "../../catalog/reads/ducklake-dump.ts";
import { call, expectError } from "../support/http.ts";

const LAKE = "page-limit";
const ROUTES: [path: string, max: number][] = [
  ["/v1/lakes", 100],
  [`/v1/lakes/${LAKE}/snapshots`, 1000],
  [`/v1/lakes/${LAKE}/tables/main/t/plan`, 1000],
  [`/v1/lakes/${LAKE}/ducklake/ducklake_snapshot`, MAX_DUCKLAKE_PAGE_ROWS],
  [`/v1/lakes/${LAKE}/tables/main/t/rows`, MAX_ROWS_PAGE],
  [`/v1/lakes/${LAKE}/dead-letters`, MAX_DEAD_LETTERS_PAGE],
  [`/v1/lakes/${LAKE}/maintenance`, MAX_JOB_RUNS_PAGE],
];

describe("page limits", () => {
  it("every paged route accepts 1..its bound and refuses the rest alike", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    const created = await call(`/v1/lakes/${LAKE}/commits`, {
      method: "POST",
      body: { verbs: [{ op: "create_table", name: "t", columns: [{ name: "id", type: "int64" }] }] },
    });
    expect(created.status).toBe(200);
    for (const [path, max] of ROUTES) {
      for (const limit of ["1", String(max)]) {
        const ok = await call(`${path}?limit=${limit}`);
        expect([path, limit, ok.status]).toEqual([path, limit, 200]);
      }
      for (const limit of ["0", String(max + 1), "abc", "-1"]) {
        const body = await expectError(await call(`${path}?limit=${limit}`), 400, "InvalidRequest");
        expect([path, body.error.message]).toEqual([
          path,
          expect.stringContaining(`limit must be an integer from 1 to ${max}`),
        ]);
      }
    }
  });
});
