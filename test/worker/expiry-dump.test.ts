/**
 * Jobs 4 and 5 against stock DuckDB, over seeded random histories (`randomHistory`: appends, delete files,
 * inlined file deletes, updates, a column add) fed through the routes on the writer's test clock, with a
 * checkpoint taken at a seeded step. Each history is dumped before expiry; then `expire_older_than` is set
 * so the cutoff falls after the checkpoint's snapshot, `POST …/maintenance` runs expire_snapshots and
 * delete_files (grace 0, so the expired-only files are gone), and the lake is dumped again. This test
 * proves the checkpoint's snapshot and the head survive, that something was expired, and that the test
 * reader sees the same rows at every retained snapshot as before; `tools/ducklake-dump-check.py
 * test-output/expiry-dump` (CI) has stock DuckLake 1.5.5 time-travel both dumps to those rows.
 * Decision docs/decisions/0328-maintenance-expire.md.
 */
import { describe, expect, it } from "vitest";
import { listSnapshots } from "../../catalog/index.ts";
import { setWriterSetup } from "../../durable-objects/setup.ts";
import type { StoredJobRun } from "../../maintenance/history.ts";
import { seeded } from "../../storage/fault-bucket.ts";
import { openCheckpoint } from "../../storage/index.ts";
import { everySnapshot, type Rows, randomHistory } from "../maintenance/lake.ts";
import { call } from "../support/http.ts";
import {
  b,
  commitVia,
  dumpLake,
  expectedOf,
  HISTORY_TABLE,
  httpHistoryOps,
  latest,
  latestView,
} from "./http-lake.ts";

/** The writer's clock for these lakes: one second per history step, so a cutoff is exact. */
const clock = { at: Date.now() };
setWriterSetup((lake) => (lake.startsWith("expiry-dump-") ? { now: () => clock.at } : undefined));

const STEPS = 12;
/**
 * One seed's bound: a history, two dumps of all 28 tables through the route and the jobs take 5–40 s on
 * a loaded 2-core machine, above vitest's default.
 */
const SEED_TIMEOUT_MS = 120_000;

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await call(path, { method: "POST", body });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

describe("expiry read back by stock DuckDB across random histories", () => {
  for (const seed of [3, 5, 8]) {
    it(
      `seed ${seed}: every retained snapshot reads the same rows after jobs 4 and 5; the checkpoint's stays`,
      async () => {
        const lake = `expiry-dump-${seed}`;
        const rnd = seeded(seed * 7919);
        const pick = (k: number) => Math.floor(rnd() * k);
        const cpStep = 2 + pick(4);
        // The cutoff lies at least two steps after the checkpoint's, so only the pin keeps its snapshot.
        const retainSteps = 2 + pick(STEPS - cpStep - 4);
        expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
        await commitVia(lake, {
          verbs: [
            // The test runs the jobs itself, at the moment it chooses.
            { op: "set_option", name: "maintenance_expire_snapshots", value: "false" },
            { op: "set_option", name: "maintenance_delete_files", value: "false" },
            { op: "set_option", name: "delete_older_than", value: "0 seconds" },
            HISTORY_TABLE,
          ],
        });
        let pinned: number | null = null;
        await randomHistory(
          {
            ...httpHistoryOps(lake),
            afterStep: async (step) => {
              if (step === cpStep) {
                // The checkpoint's own cut, not the latest state: a background job (1-3 stay on) may
                // commit between the checkpoint and this read.
                const cp = await post<{ id: string }>(`/v1/lakes/${lake}/checkpoints`, {});
                const at = await openCheckpoint(b, lake, cp.id);
                pinned = Math.max(...(await listSnapshots(at)).map((x) => x.snapshot_id));
              }
              clock.at += 1000;
            },
          },
          seed,
          STEPS,
        );
        const before = await everySnapshot(await latest(lake));
        await dumpLake(lake, `expiry-dump/seed-${seed}-before`, await expectedOf(lake, before));

        await commitVia(lake, {
          verbs: [{ op: "set_option", name: "expire_older_than", value: `${retainSteps} seconds` }],
        });
        const headId = Math.max(...(await listSnapshots(await latestView(lake))).map((x) => x.snapshot_id));
        const { runs } = await post<{ runs: StoredJobRun[] }>(`/v1/lakes/${lake}/maintenance`, {
          jobs: ["expire_snapshots", "delete_files"],
        });
        expect(runs.map((r) => [r.job, r.error])).toEqual([
          ["expire_snapshots", null],
          ["delete_files", null],
        ]);
        const retained = (await listSnapshots(await latestView(lake))).map((x) => x.snapshot_id);
        const lastBefore = Math.max(...before.keys());
        expect(pinned).not.toBeNull();
        expect(retained).toContain(pinned);
        expect(retained).toContain(headId);
        // Something older than the checkpoint's snapshot went, and its files with it.
        expect(retained.length).toBeLessThan(before.size);
        expect(retained.some((s) => s < (pinned ?? 0) && s > 0)).toBe(false);
        expect(runs[0]?.snapshotsExpired ?? 0).toBeGreaterThan(0);

        const after = await everySnapshot(await latest(lake));
        const kept: Map<number, Rows> = new Map();
        for (const s of retained) {
          if (s < 1 || s > lastBefore) continue;
          expect([s, after.get(s)]).toEqual([s, before.get(s)]);
          kept.set(s, before.get(s) as Rows);
        }
        expect(kept.has(pinned ?? -1)).toBe(true);
        await dumpLake(lake, `expiry-dump/seed-${seed}-after`, await expectedOf(lake, kept));
      },
      SEED_TIMEOUT_MS,
    );
  }
});
