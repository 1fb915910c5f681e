/**
 * The export's user-row count (catalog/reads/plan-count.ts, decision 0653): counted from scan-plan records
 * alone, it must equal what the exact reader (the rows route, which reads every file) answers, at every
 * snapshot of a seeded random history of appends, delete files, inlined deletes, updates and inlined
 * rows — or be null, never a different number.
 */
import { describe, expect, it } from "vitest";
import { type CountedFile, planRowCount } from "../../catalog/index.ts";
import { randomHistory } from "../maintenance/lake.ts";
import { call } from "../support/http.ts";
import { commitVia, HISTORY_TABLE, httpHistoryOps } from "./http-lake.ts";

const LAKE = "plan-count";

async function json<T>(path: string): Promise<T> {
  const res = await call(path);
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as T;
}

describe("user rows counted from the scan plan", () => {
  it("equal the rows route's count at every snapshot, or are null", async () => {
    expect((await call(`/v1/lakes/${LAKE}`, { method: "PUT" })).status).toBe(201);
    await commitVia(LAKE, {
      verbs: [
        // The writer's own jobs would rewrite files under the history; the history is the test's alone.
        { op: "set_option", name: "maintenance_flush_inlined", value: "false" },
        HISTORY_TABLE,
      ],
    });
    const ops = httpHistoryOps(LAKE);
    await randomHistory(ops, 653, 24);
    await ops.commit([{ op: "inline_insert", table: { name: "t" }, rows: [{ id: "900", s: "inl" }] }]);
    const { snapshots } = await json<{ snapshots: { snapshot_id: number }[] }>(
      `/v1/lakes/${LAKE}/snapshots?limit=1000`,
    );
    let exact = 0;
    for (const { snapshot_id: s } of snapshots) {
      const plan = await call(`/v1/lakes/${LAKE}/tables/main/t/plan?snapshot=${s}`);
      if (plan.status === 404) continue; // before the table existed
      const p = (await plan.json()) as { files: CountedFile[]; inlined_rows: unknown[] };
      const counted = planRowCount(p.files, p.inlined_rows.length);
      const read = await json<{ rows: unknown[] }>(`/v1/lakes/${LAKE}/tables/main/t/rows?snapshot=${s}`);
      if (counted !== null) {
        exact++;
        expect(counted, `snapshot ${s}`).toBe(read.rows.length);
      }
    }
    // The count answered at most snapshots, not only the easy ones.
    expect(exact).toBeGreaterThan(snapshots.length / 2);
  });
});
