/**
 * Jobs 4 (expire snapshots) and 5 (delete scheduled files) in the lake writer, on real miniflare R2 and
 * Durable Objects: a live checkpoint's snapshot is never expired; a deleted file is never one a retained
 * snapshot or an in-flight commit references (the race ordered with fault-bucket gates); a crash at every
 * write boundary of both jobs leaves the lake readable and the next run finishes the work; an orphan (a
 * PUT never committed) is collected after the grace, in the writer.
 * Decisions docs/decisions/0328-maintenance-expire.md, 0329-maintenance-delete-files.md and
 * 0330-maintenance-orphans.md.
 */
import { describe, expect, it } from "vitest";
import { ducklakeTable, listSnapshots } from "../../catalog/index.ts";
import type { StoredJobRun } from "../../maintenance/history.ts";
import { openCheckpoint, openLatest } from "../../storage/index.ts";
import { dataObjectKey } from "../../storage/keys.ts";
import { afterAbort, createTable, lakeName, realBucket, rigLake, stub, until, unwrap } from "./support.ts";

const options = (grace: string) => [
  { op: "set_option", name: "expire_older_than", value: "1 second" },
  { op: "set_option", name: "delete_older_than", value: grace },
  // The test runs the jobs itself: the alarm must not run them at a moment it does not choose.
  { op: "set_option", name: "maintenance_expire_snapshots", value: "false" },
  { op: "set_option", name: "maintenance_delete_files", value: "false" },
];
const register = (path: string) => [
  { op: "register_data_file", table: { name: "t" }, file: { path, recordCount: 1, fileSizeBytes: 101 } },
];
const objectKey = (lake: string, file: string) => dataObjectKey(lake, `main/t/${file}`);

/** A lake whose clock the test moves; `t` holds file a (then ended) and file b (live). */
async function lakeWithEndedFile(tag: string, opts: { checkpoint?: boolean; grace?: string } = {}) {
  const lake = lakeName(tag);
  let clock = 1_800_000_000_000;
  const now = () => clock;
  const rig = rigLake(lake, { now });
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(await s.commit(lake, options(opts.grace ?? "1 minute")));
  unwrap(await s.commit(lake, createTable("t")));
  for (const f of ["a.parquet", "b.parquet"]) await realBucket().put(objectKey(lake, f), new Uint8Array(101));
  unwrap(await s.commit(lake, register("a.parquet")));
  const checkpoint = opts.checkpoint ? unwrap(await s.createCheckpoint(lake, {})).id : undefined;
  unwrap(await s.commit(lake, [{ op: "expire_data_file", table: { name: "t" }, dataFileId: 0 }]));
  unwrap(await s.commit(lake, register("b.parquet")));
  return {
    lake,
    rig,
    s,
    checkpoint,
    advance: (ms: number) => {
      clock += ms;
    },
    /** A fresh fault bucket for the next instance (a crashed one stays crashed), on the same clock. */
    rerig: () => rigLake(lake, { now }),
    run: async (jobs: string[]) =>
      unwrap(await s.runMaintenance(lake, { jobs: jobs as StoredJobRun["job"][] })) as StoredJobRun[],
  };
}

async function snapshotIds(lake: string): Promise<number[]> {
  return (await listSnapshots(await openLatest(realBucket(), lake))).map((x) => x.snapshot_id);
}
async function scheduled(lake: string): Promise<unknown[]> {
  const rows = await ducklakeTable(
    await openLatest(realBucket(), lake),
    "ducklake_files_scheduled_for_deletion",
  );
  return rows.map((r) => r.path);
}
const exists = async (lake: string, file: string) =>
  (await realBucket().head(objectKey(lake, file))) !== null;

/** Four passes through the writer: seconds alone, but it passed vitest's 60 s default once on a loaded machine. */
const ORPHAN_TEST_TIMEOUT_MS = 180_000;

describe("maintenance jobs 4 and 5 in the writer", () => {
  it("never expires a live checkpoint's snapshot; once the checkpoint is gone it expires and the file goes", async () => {
    const fx = await lakeWithEndedFile("mt-expire-pin", { checkpoint: true });
    // Snapshots: 0 lake, 1 create t, 2 register a (the checkpoint's head), 3 end a, 4 register b.
    expect(await snapshotIds(fx.lake)).toEqual([0, 1, 2, 3, 4]);
    fx.advance(5_000);
    const [expire] = await fx.run(["expire_snapshots"]);
    expect(expire).toMatchObject({ job: "expire_snapshots", snapshotsExpired: 3, filesOut: 0, error: null });
    expect(await snapshotIds(fx.lake)).toEqual([2, 4]);
    expect(await scheduled(fx.lake)).toEqual([]);
    // The checkpoint still opens and its snapshot still sees file a.
    const cp = await openCheckpoint(realBucket(), fx.lake, fx.checkpoint ?? "");
    expect((await ducklakeTable(cp, "ducklake_data_file")).map((r) => r.path)).toEqual(["a.parquet"]);
    unwrap(await fx.s.deleteCheckpoint(fx.lake, fx.checkpoint ?? ""));
    const [again] = await fx.run(["expire_snapshots"]);
    expect(again).toMatchObject({ snapshotsExpired: 1, filesOut: 1, error: null });
    expect(await snapshotIds(fx.lake)).toEqual([4]);
    expect(await scheduled(fx.lake)).toEqual(["main/t/a.parquet"]);
    // Job 5 waits out delete_older_than (1 minute), then deletes a and never b.
    expect(await fx.run(["delete_files"])).toMatchObject([{ filesIn: 0, filesOut: 0, error: null }]);
    expect(await exists(fx.lake, "a.parquet")).toBe(true);
    fx.advance(61_000);
    expect(await fx.run(["delete_files"])).toMatchObject([{ filesIn: 1, filesOut: 1, error: null }]);
    expect([await exists(fx.lake, "a.parquet"), await exists(fx.lake, "b.parquet")]).toEqual([false, true]);
    expect(await scheduled(fx.lake)).toEqual([]);
  });

  it("a registration of a scheduled path in flight while job 5 deletes it is refused (gates)", async () => {
    const fx = await lakeWithEndedFile("mt-delete-race");
    fx.advance(5_000);
    await fx.run(["expire_snapshots"]);
    fx.advance(61_000);
    // Hold job 5 at its R2 DELETE: the reference check is done, the object is about to go.
    const gate = fx.rig.bucket.hold({ op: "delete", prefix: `lakes/${fx.lake}/data/` });
    const job = fx.run(["delete_files"]);
    await until(fx.lake, () => gate.held >= 1, "job 5's DELETE held at the gate");
    // A commit that checked the object before it went now tries to reference it again.
    const late = await fx.s.commit(fx.lake, register("a.parquet"));
    expect(late.ok ? null : late.error.code).toBe("Constraint");
    expect(late.ok ? "" : late.error.message).toContain("scheduled for deletion");
    gate.release();
    expect(await job).toMatchObject([{ filesIn: 1, filesOut: 1, error: null }]);
    expect(await exists(fx.lake, "a.parquet")).toBe(false);
    // Every file a retained snapshot references is still there.
    const live = await ducklakeTable(await openLatest(realBucket(), fx.lake), "ducklake_data_file");
    for (const r of live) expect(await exists(fx.lake, String(r.path))).toBe(true);
  });

  it("a scheduled path that another version still references is kept", async () => {
    const fx = await lakeWithEndedFile("mt-delete-referenced");
    // The same path registered again (as DuckLake's add_data_files may) before anything was scheduled.
    unwrap(await fx.s.commit(fx.lake, register("a.parquet")));
    fx.advance(5_000);
    await fx.run(["expire_snapshots"]);
    expect(await scheduled(fx.lake)).toEqual(["main/t/a.parquet"]);
    fx.advance(61_000);
    expect(await fx.run(["delete_files"])).toMatchObject([{ filesIn: 1, filesOut: 0, error: null }]);
    expect(await exists(fx.lake, "a.parquet")).toBe(true);
  });

  it("a crash at every write boundary of jobs 4 and 5 leaves the lake readable; the next run finishes", async () => {
    let boundaries = 0;
    for (let n = 0; ; n++) {
      const fx = await lakeWithEndedFile(`mt-crash-${n}`, { grace: "0 seconds" });
      fx.advance(61_000 + 5_000);
      const before = await snapshotIds(fx.lake);
      fx.rig.bucket.crashAfterWrites(n);
      // Both jobs in one pass: expiry's batch (a WAL PUT), job 5's fence batch, the DELETE, the forget batch.
      const r = await fx.s
        .runMaintenance(fx.lake, { jobs: ["expire_snapshots", "delete_files"] })
        .catch(() => null);
      const crashed = fx.rig.bucket.crashed;
      fx.rig.bucket.clearFaults();
      fx.rerig();
      if (!crashed) {
        expect(r?.ok).toBe(true);
        break;
      }
      boundaries++;
      // Readable at the newest cut: every snapshot it lists resolves, every live file it names exists.
      const view = await openLatest(realBucket(), fx.lake);
      const ids = (await listSnapshots(view)).map((x) => x.snapshot_id);
      expect(ids.every((id) => before.includes(id))).toBe(true);
      for (const f of await ducklakeTable(view, "ducklake_data_file"))
        expect(await exists(fx.lake, String(f.path))).toBe(true);
      // A fresh writer resumes: the next run finishes the work.
      const again = await afterAbort<StoredJobRun[]>(fx.lake, (s) =>
        s.runMaintenance(fx.lake, { jobs: ["expire_snapshots", "delete_files"] }),
      );
      expect(again.ok, JSON.stringify(again)).toBe(true);
      expect(await snapshotIds(fx.lake)).toEqual([4]);
      expect(await scheduled(fx.lake)).toEqual([]);
      expect([await exists(fx.lake, "a.parquet"), await exists(fx.lake, "b.parquet")]).toEqual([false, true]);
    }
    // The fault fired at each boundary: expiry, fence, delete, forget and the history append.
    expect(boundaries).toBeGreaterThanOrEqual(4);
  });

  it(
    "an object no commit registered is marked, kept through the grace and then deleted (orphans, 0330)",
    async () => {
      const fx = await lakeWithEndedFile("mt-orphan");
      // A file PUT whose commit never came (a client that gave up, a crash before the commit).
      await realBucket().put(objectKey(fx.lake, "lost.parquet"), new Uint8Array(7));
      const [first] = await fx.run(["delete_files"]);
      expect(first).toMatchObject({ orphansMarked: 1, orphansDeleted: 0, error: null });
      fx.advance(59_000);
      // Nothing new seen, nothing due: the run did nothing (and says so without orphan counts).
      expect((await fx.run(["delete_files"]))[0]?.orphansDeleted ?? 0).toBe(0);
      expect(await exists(fx.lake, "lost.parquet")).toBe(true);
      fx.advance(1_000);
      const [due] = await fx.run(["delete_files"]);
      expect(due).toMatchObject({ orphansDeleted: 1, error: null });
      // Only the orphan went: a and b are referenced (a by the snapshot that ended it, still retained).
      expect(
        await Promise.all(["lost.parquet", "a.parquet", "b.parquet"].map((f) => exists(fx.lake, f))),
      ).toEqual([false, true, true]);
    },
    ORPHAN_TEST_TIMEOUT_MS,
  );
});
