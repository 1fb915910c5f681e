/**
 * The writer's alarm runs maintenance job 1 (flush inlined rows, decision 0321): a table past its
 * inlining limit is flushed by the alarm as an ordinary commit, the run is in `status`; a data-file PUT
 * that fails leaves the rows inlined and the next alarm flushes them.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tableFilesAt } from "../../catalog/index.ts";
import { openLatest } from "../../storage/index.ts";
import { createTable, lakeName, realBucket, rigLake, stub, unwrap } from "./support.ts";

async function planAtHead(lake: string): Promise<{ inlined: number; files: number }> {
  // A reader's view of the latest published cut (opening a writer would fence the object's).
  const view = await openLatest(realBucket(), lake);
  const plan = await tableFilesAt(view, { name: "t" });
  return { inlined: plan.inlined_rows.length, files: plan.files.length };
}

/** Job 1 is on by default (decision 0323); the tests say so explicitly, as a user may. */
const FLUSH_ON = [{ op: "set_option", name: "maintenance_flush_inlined", value: "true" }];

/** A rigged lake with job 1 on and table `t` holding 11 inlined rows (one past the default limit of 10). */
async function elevenInlinedRows(lake: string): Promise<ReturnType<typeof stub>> {
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(await s.commit(lake, FLUSH_ON));
  unwrap(await s.commit(lake, createTable("t")));
  for (let i = 0; i < 11; i++)
    unwrap(
      await s.commit(lake, [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: i, v: `v${i}` }] }]),
    );
  return s;
}

describe("maintenance in the alarm", () => {
  it("flushes a table past its inlining limit and records the run", async () => {
    const lake = lakeName("mt-alarm");
    rigLake(lake);
    const s = await elevenInlinedRows(lake);
    expect(await runDurableObjectAlarm(s)).toBe(true);
    const runs = unwrap(await s.status(lake)).writer?.maintenance ?? [];
    expect(runs.map((r) => [r.job, r.rowsIn, r.filesOut, r.error])).toEqual([["flush_inlined", 11, 1, null]]);
    expect(runs[0]?.snapshotId).toBe(13);
    expect(await planAtHead(lake)).toEqual({ inlined: 0, files: 1 });
  });

  it("a failed data-file PUT (the fault fired) leaves the rows inlined; the next alarm flushes them", async () => {
    const lake = lakeName("mt-put-fails");
    const rig = rigLake(lake);
    const s = stub(lake);
    unwrap(await s.createLake(lake, {}));
    unwrap(await s.commit(lake, FLUSH_ON));
    unwrap(await s.commit(lake, createTable("t")));
    for (let i = 0; i < 12; i++)
      unwrap(
        await s.commit(lake, [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: i, v: null }] }]),
      );
    const remove = rig.bucket.fail({ op: "put", prefix: `lakes/${lake}/data/`, kind: "error", times: 1 });
    await runDurableObjectAlarm(s);
    remove();
    expect(rig.bucket.count({ op: "put", prefix: `lakes/${lake}/data/`, outcome: "error" })).toBe(1);
    const first = unwrap(await s.status(lake)).writer?.maintenance ?? [];
    expect(first.map((r) => [r.snapshotId, r.error === null])).toEqual([[null, false]]);
    expect(await planAtHead(lake)).toEqual({ inlined: 12, files: 0 });
    // The writer is not dirty after an alarm that committed nothing: a new commit re-arms it.
    unwrap(
      await s.commit(lake, [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: 99, v: null }] }]),
    );
    await runDurableObjectAlarm(s);
    const runs = unwrap(await s.status(lake)).writer?.maintenance ?? [];
    expect(runs.at(-1)).toMatchObject({ rowsIn: 13, error: null });
    expect(await planAtHead(lake)).toEqual({ inlined: 0, files: 1 });
  });

  it("with scheduled maintenance off (SCHEDULED_MAINTENANCE=disabled, decision 0411) the alarm flushes nothing", async () => {
    const lake = lakeName("mt-off");
    rigLake(lake, { tunables: { scheduledMaintenance: false } });
    const s = await elevenInlinedRows(lake);
    await runDurableObjectAlarm(s);
    expect(unwrap(await s.status(lake)).writer?.maintenance ?? []).toEqual([]);
    expect(await planAtHead(lake)).toEqual({ inlined: 11, files: 0 });
  });
});
