/**
 * Job 5's orphan sweep (decision docs/decisions/0330-maintenance-orphans.md): objects a writer PUT whose
 * commit never happened are deleted once they stayed unreferenced for the grace, never before, and never
 * a file a retained snapshot or an in-flight commit references.
 *  - a crash at every write boundary of jobs 1–3 (FaultBucket `crashAfterWrites(n)`, each proved to fire)
 *    leaves orphans that the sweep collects after the grace and not a moment before, every snapshot
 *    reading the same rows;
 *  - a registration racing the sweep, ordered with fault-bucket gates: applied before the fence it is kept,
 *    arriving after the fence it is refused;
 *  - a crash at every write boundary of the sweep itself leaves the lake readable and the next pass finishes;
 *  - a model test over seeded random histories of uploads, commits, in-flight commits, ended files, expiry
 *    and sweeps: no file a retained snapshot references is ever missing, a commit that succeeds always
 *    finds its file, and in the end no orphan is left.
 */
import { describe, expect, it } from "vitest";
import { FileScheduledForDeletion } from "../../catalog/fences.ts";
import { ducklakeTable } from "../../catalog/index.ts";
import type { JobName } from "../../catalog/maintenance/runs.ts";
import { runMergeJob, runRewriteJob } from "../../maintenance/compaction.ts";
import { runDeleteFilesJob } from "../../maintenance/delete-files.ts";
import { runExpireJob } from "../../maintenance/expire.ts";
import { runFlushJob } from "../../maintenance/inline-flush.ts";
import type { JobContext } from "../../maintenance/registry.ts";
import type { Bucket } from "../../storage/api.ts";
import { FaultBucket, seeded } from "../../storage/fault-bucket.ts";
import { bucket, settle } from "../catalog/support.ts";
import {
  appendFile,
  commit,
  deleteWithFile,
  everySnapshot,
  freshLake,
  jobCommit,
  type Lake,
  reopen,
} from "./lake.ts";

const GRACE = 60_000;
const ALL_ON = Object.fromEntries(
  ["flush_inlined", "merge_adjacent", "rewrite_deletes", "expire_snapshots", "delete_files"].map((j) => [
    j,
    true,
  ]),
) as Record<JobName, boolean>;

interface Clock {
  at: number;
}
/** The writer's clock starts a grace after R2's, so R2's own upload times never hold a file back here. */
const startClock = (): Clock => ({ at: Date.now() + 2 * GRACE });

function jobCtx(
  l: Lake,
  clock: Clock,
  o: { bucket?: Bucket; graceMs?: number; expireOlderThanMs?: number } = {},
): JobContext {
  return {
    lake: l.lake,
    bucket: o.bucket ?? l.b,
    view: () => l.store.snapshot(),
    commit: jobCommit(l),
    exclusive: async (fn) => {
      const r = await fn(l.store);
      await settle(l.store, r.durable);
      return r.value;
    },
    pinnedSnapshots: async () => [],
    now: () => clock.at,
    settings: {
      enabled: ALL_ON,
      expireOlderThanMs: o.expireOlderThanMs ?? null,
      deleteOlderThanMs: o.graceMs ?? GRACE,
      options: {},
    },
  };
}

/** Every object under the lake's data prefix (relative paths). */
async function objects(l: Lake): Promise<Set<string>> {
  const prefix = `lakes/${l.lake}/data/`;
  const out = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket().list({ prefix, ...(cursor !== undefined ? { cursor } : {}) });
    for (const o of page.objects) out.add(o.key.slice(prefix.length));
    if (!page.truncated || page.cursor === undefined) return out;
    cursor = page.cursor;
  }
}

/** The model's answer: every data and delete file row DuckLake's tables show (all versions), as paths. */
async function referenced(l: Lake): Promise<Set<string>> {
  const out = new Set<string>();
  for (const table of ["ducklake_data_file", "ducklake_delete_file", "ducklake_files_scheduled_for_deletion"])
    for (const r of await ducklakeTable(l.store.snapshot(), table)) {
      const path = String(r.path);
      out.add(table.endsWith("deletion") || r.path_is_relative === false ? path : `main/t/${path}`);
    }
  return out;
}

const minus = (a: Set<string>, b: Set<string>) => new Set([...a].filter((x) => !b.has(x)));

async function createT(l: Lake): Promise<void> {
  await commit(l, [
    {
      op: "create_table",
      name: "t",
      columns: [
        { name: "id", type: "int64" },
        { name: "s", type: "varchar" },
      ],
    },
  ]);
}

/** A lake whose next job has writes to interrupt: inlined rows (job 1), small files (2), deletes (3). */
async function lakeFor(job: "flush" | "merge" | "rewrite", l: Lake): Promise<void> {
  await createT(l);
  if (job === "flush") {
    for (let i = 0; i < 6; i++)
      await commit(l, [{ op: "inline_insert", table: { name: "t" }, rows: [{ id: String(i), s: "r" }] }]);
    return;
  }
  const ids: number[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      await appendFile(l, [
        { id: String(2 * i), s: "x" },
        { id: String(2 * i + 1), s: "y" },
      ]),
    );
  if (job === "rewrite") await deleteWithFile(l, ids[0] as number, [0]);
}

function runJob(job: "flush" | "merge" | "rewrite", ctx: JobContext) {
  const deps = { lake: ctx.lake, bucket: ctx.bucket, view: ctx.view, commit: ctx.commit, now: ctx.now };
  if (job === "flush") return runFlushJob({ ...deps, threshold: 0 });
  if (job === "merge") return runMergeJob(deps);
  return runRewriteJob({ ...deps, deleteThreshold: 0.4 });
}

/**
 * The crash sweeps rebuild a lake per boundary and the model walks take 2–15 s each alone; on a shared
 * 2-core machine that passes vitest's 60 s default.
 */
const ORPHAN_TEST_TIMEOUT_MS = 240_000;

describe("maintenance job 5: orphans", { timeout: ORPHAN_TEST_TIMEOUT_MS }, () => {
  for (const job of ["flush", "merge", "rewrite"] as const) {
    it(`${job}: a crash at every write boundary leaves orphans the sweep deletes after the grace, never before`, async () => {
      let boundaries = 0;
      let orphaned = 0;
      for (let n = 0; ; n++) {
        const fb = new FaultBucket(bucket());
        const l = await freshLake(`mt-orph-${job}-${n}`, fb);
        await lakeFor(job, l);
        const before = await everySnapshot(l);
        const clock = startClock();
        fb.crashAfterWrites(n);
        try {
          await runJob(job, jobCtx(l, clock, { bucket: fb }));
        } catch (e) {
          expect(String(e)).toMatch(/InjectedCrash|crash/);
        }
        const crashed = fb.count({ outcome: "crashed" });
        fb.clearFaults();
        if (crashed === 0) break;
        boundaries++;
        const back = await reopen(l, bucket());
        const orphans = minus(await objects(back), await referenced(back));
        if (orphans.size > 0) orphaned++;
        const sweep = (at: number) => {
          clock.at = at;
          return runDeleteFilesJob(jobCtx(back, clock));
        };
        const t0 = clock.at;
        // First sight: marked, nothing deleted.
        const [first] = await sweep(t0);
        expect([n, first?.orphansMarked ?? 0, first?.orphansDeleted ?? 0]).toEqual([n, orphans.size, 0]);
        // A moment before the grace ends: still nothing deleted.
        const [early] = await sweep(t0 + GRACE - 1);
        expect([n, early?.orphansDeleted ?? 0]).toEqual([n, 0]);
        for (const p of orphans) expect(await bucket().head(`lakes/${l.lake}/data/${p}`)).not.toBeNull();
        // The grace is over: exactly the orphans go.
        const [due] = await sweep(t0 + GRACE);
        expect([n, due?.orphansDeleted ?? 0, due?.error ?? null]).toEqual([n, orphans.size, null]);
        expect([n, ...(await objects(back))].sort()).toEqual([n, ...(await referenced(back))].sort());
        const after = await everySnapshot(back);
        for (const [s, rows] of before) expect([n, s, after.get(s)]).toEqual([n, s, rows]);
        // The interrupted job is resumable over the swept lake, and a later sweep finds no orphan (a merge
        // schedules its inputs, which job 5 then deletes as scheduled files).
        const again = await runJob(job, jobCtx(back, clock));
        expect(again.map((r) => r.error)).toEqual(again.map(() => null));
        const later = await sweep(t0 + 3 * GRACE);
        expect(later.map((r) => [r.orphansMarked, r.orphansDeleted, r.error])).toEqual(
          later.map(() => [0, 0, null]),
        );
        expect(n).toBeLessThan(10);
      }
      expect(boundaries).toBeGreaterThanOrEqual(2);
      // At least one boundary lies between a file's PUT and its commit.
      expect(orphaned).toBeGreaterThanOrEqual(1);
    });
  }

  /** A lake with one live file and an orphan (uploaded, never committed), marked at the clock's start. */
  async function lakeWithOrphan(tag: string) {
    const fb = new FaultBucket(bucket());
    const l = await freshLake(tag, fb);
    await createT(l);
    await appendFile(l, [{ id: "1", s: "kept" }]);
    const orphanKey = `lakes/${l.lake}/data/main/t/orphan.parquet`;
    await bucket().put(orphanKey, new Uint8Array(101));
    const clock = startClock();
    const [marked] = await runDeleteFilesJob(jobCtx(l, clock, { bucket: fb }));
    expect(marked?.orphansMarked).toBe(1);
    clock.at += GRACE;
    const register = () =>
      commit(l, [
        {
          op: "register_data_file",
          table: { name: "t" },
          file: { path: "orphan.parquet", recordCount: 1, fileSizeBytes: 101 },
        },
      ]);
    return { l, fb, clock, orphanKey, register };
  }

  it("a registration applied before the sweep's fence keeps the file, and its fence is lifted (gates)", async () => {
    const { l, fb, clock, orphanKey, register } = await lakeWithOrphan("mt-orph-race-before");
    // Hold the sweep at its HEAD of the due orphan: before the fence batch.
    const gate = fb.hold({ op: "head", prefix: `lakes/${l.lake}/data/` });
    const job = runDeleteFilesJob(jobCtx(l, clock, { bucket: fb }));
    await gate.reached;
    await register();
    gate.release();
    const [run] = await job;
    expect(run).toMatchObject({ orphansDeleted: 0, error: null });
    expect(await bucket().head(orphanKey)).not.toBeNull();
    // No fence is left behind: the path can be ended and registered again.
    await commit(l, [{ op: "expire_data_file", table: { name: "t" }, dataFileId: 1 }]);
    await register();
    expect([...(await objects(l))].sort()).toEqual([...(await referenced(l))].sort());
  });

  it("a registration arriving after the sweep's fence is refused, and the file goes (gates)", async () => {
    const { l, fb, clock, orphanKey, register } = await lakeWithOrphan("mt-orph-race-after");
    // Hold the sweep at its DELETE: the fence is applied and the reference check done.
    const gate = fb.hold({ op: "delete", prefix: `lakes/${l.lake}/data/` });
    const job = runDeleteFilesJob(jobCtx(l, clock, { bucket: fb }));
    await gate.reached;
    await expect(register()).rejects.toBeInstanceOf(FileScheduledForDeletion);
    gate.release();
    const [run] = await job;
    expect(run).toMatchObject({ orphansDeleted: 1, error: null });
    expect(await bucket().head(orphanKey)).toBeNull();
    expect([...(await objects(l))].sort()).toEqual([...(await referenced(l))].sort());
  });

  it("a crash at every write boundary of the sweep leaves the lake readable; the next pass finishes", async () => {
    let boundaries = 0;
    for (let n = 0; ; n++) {
      const fb = new FaultBucket(bucket());
      const l = await freshLake(`mt-orph-sweep-crash-${n}`, fb);
      await createT(l);
      await appendFile(l, [{ id: "1", s: "kept" }]);
      for (const name of ["o1.parquet", "o2.parquet"])
        await bucket().put(`lakes/${l.lake}/data/main/t/${name}`, new Uint8Array(50));
      const before = await everySnapshot(l);
      const live = await referenced(l);
      const clock = startClock();
      fb.crashAfterWrites(n);
      // Grace 0: one pass marks, fences, deletes and forgets.
      try {
        await runDeleteFilesJob(jobCtx(l, clock, { bucket: fb, graceMs: 0 }));
      } catch (e) {
        expect(String(e)).toMatch(/InjectedCrash|crash/);
      }
      const crashed = fb.count({ outcome: "crashed" });
      fb.clearFaults();
      if (crashed === 0) break;
      boundaries++;
      const back = await reopen(l, bucket());
      for (const p of live) expect([n, p, (await objects(back)).has(p)]).toEqual([n, p, true]);
      const seen = await everySnapshot(back);
      for (const [s, rows] of before) expect([n, s, seen.get(s)]).toEqual([n, s, rows]);
      const [next] = await runDeleteFilesJob(jobCtx(back, clock, { graceMs: 0 }));
      expect([n, next?.error ?? null]).toEqual([n, null]);
      expect([n, ...(await objects(back))].sort()).toEqual([n, ...live].sort());
      expect(n).toBeLessThan(12);
    }
    // Mark batch, fence batch, two DELETEs, forget batch.
    expect(boundaries).toBeGreaterThanOrEqual(5);
  });

  /** What the seeds' in-flight commits met, summed (the last test checks every outcome occurred). */
  const tally = { refused: 0, edgeRefused: 0 };
  for (const seed of [11, 12, 13, 14, 15, 16]) {
    it(`seed ${seed}: never deletes a file a retained snapshot or an in-flight commit references (model)`, async () => {
      const rnd = seeded(seed);
      const pick = (k: number) => Math.floor(rnd() * k);
      const l = await freshLake(`mt-orph-model-${seed}`);
      await createT(l);
      const clock = startClock();
      const ctx = () => jobCtx(l, clock, { expireOlderThanMs: GRACE / 2 });
      let seq = 0;
      /** Uploaded, commit not sent (some never are: orphans). */
      const uploaded: string[] = [];
      /** Sent: the edge found the object (worker/file-checks.ts), the writer has not applied it yet. */
      const inFlight: string[] = [];
      /** Data file ids of live files. */
      const live: number[] = [];
      const objectKey = (name: string) => `lakes/${l.lake}/data/main/t/${name}`;
      const upload = async () => {
        const name = `m-${seq++}.parquet`;
        await bucket().put(objectKey(name), new Uint8Array(60));
        return name;
      };
      const counts = { applied: 0, refused: 0, edgeRefused: 0 };
      const apply = async (name: string): Promise<void> => {
        try {
          const r = await l.catalog.commit({
            verbs: [
              {
                op: "register_data_file",
                table: { name: "t" },
                file: { path: name, recordCount: 1, fileSizeBytes: 60 },
              },
            ],
          } as never);
          await settle(l.store, r.durable);
          live.push((r.assigned[0] as { dataFileId: number }).dataFileId);
          counts.applied++;
          // The property: a commit the writer accepts always finds its file.
          expect([seed, name, (await bucket().head(objectKey(name))) !== null]).toEqual([seed, name, true]);
        } catch (e) {
          if (!(e instanceof FileScheduledForDeletion)) throw e;
          counts.refused++;
        }
      };
      // The property: every file a retained snapshot references (any version still held) is in R2.
      const check = async (what: string) => {
        const present = await objects(l);
        for (const p of await versionPaths(l))
          expect([seed, what, p, present.has(p)]).toEqual([seed, what, p, true]);
      };
      for (let step = 0; step < 60; step++) {
        const r = rnd();
        if (r < 0.2) await apply(await upload());
        else if (r < 0.35) uploaded.push(await upload());
        else if (r < 0.5 && uploaded.length > 0) {
          // The client sends its commit: the edge checks the object first.
          const name = uploaded.splice(pick(uploaded.length), 1)[0] as string;
          if ((await bucket().head(objectKey(name))) === null) counts.edgeRefused++;
          else inFlight.push(name);
        } else if (r < 0.6 && inFlight.length > 0)
          await apply(inFlight.splice(pick(inFlight.length), 1)[0] as string);
        else if (r < 0.68 && live.length > 0) {
          const id = live.splice(pick(live.length), 1)[0] as number;
          await commit(l, [{ op: "expire_data_file", table: { name: "t" }, dataFileId: id }]);
        } else if (r < 0.8) {
          // A commit's flight is far shorter than the fence's hold: time passes once flights land.
          for (const name of inFlight.splice(0)) await apply(name);
          clock.at += pick(2 * GRACE);
        } else {
          await runExpireJob(ctx());
          await check(`step ${step} after expiry`);
          await runDeleteFilesJob(ctx());
          await check(`step ${step} after cleanup`);
        }
      }
      for (const name of inFlight.splice(0)) await apply(name);
      expect(counts.applied).toBeGreaterThan(0);
      tally.refused += counts.refused;
      tally.edgeRefused += counts.edgeRefused;
      // In the end, with every in-flight commit abandoned, nothing unreferenced is left.
      for (let i = 0; i < 3; i++) {
        clock.at += 2 * GRACE;
        await runExpireJob(ctx());
        await runDeleteFilesJob(ctx());
        await check(`final pass ${i}`);
      }
      expect([...minus(await objects(l), await referenced(l))]).toEqual([]);
    });
  }

  it("the seeds met both outcomes of a swept in-flight commit: refused at apply, or by the edge", () => {
    expect(tally.refused).toBeGreaterThan(0);
    expect(tally.edgeRefused).toBeGreaterThan(0);
  });
});

/** The paths of every data and delete file version the catalog holds (what retained snapshots see). */
async function versionPaths(l: Lake): Promise<string[]> {
  const rows = [
    ...(await ducklakeTable(l.store.snapshot(), "ducklake_data_file")),
    ...(await ducklakeTable(l.store.snapshot(), "ducklake_delete_file")),
  ];
  return rows.map((r) => `main/t/${String(r.path)}`);
}
