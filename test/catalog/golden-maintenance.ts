/**
 * The maintenance steps of the DuckLake golden scenarios (`ducklake-golden-scenarios.ts` `MaintenanceStep`),
 * run against a test store: shared by every test that replays a scenario (goldens, metadata reads).
 */
import { expect } from "vitest";
import { dueFiles, forgetDeleted } from "../../catalog/maintenance/cleanup.ts";
import { expireSnapshotsStep } from "../../catalog/maintenance/expire.ts";
import type { Store } from "../../storage/api.ts";
import type { MaintenanceStep } from "./ducklake-golden-scenarios.ts";
import { settle } from "./support.ts";

/** Job 4's step, or job 5's catalog half with every schedule due (`cleanup_all`; no objects here). */
export async function maintenanceStep(store: Store, step: MaintenanceStep): Promise<void> {
  if (step.maintenance === "expire") {
    const r = await expireSnapshotsStep(store, {
      now: Date.now(),
      olderThanMs: 0,
      pinned: [],
      versions: step.versions,
    });
    expect(r.more).toBe(false);
    await settle(store, r.durable);
    return;
  }
  const due = await dueFiles(store.snapshot(), { nowMs: Number.MAX_SAFE_INTEGER, graceMs: 0 });
  await settle(store, (await forgetDeleted(store, due, Date.now())).durable);
}
