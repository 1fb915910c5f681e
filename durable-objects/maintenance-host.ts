/**
 * The maintenance jobs' host (issue 14; the jobs are `maintenance/`'s): runs a pass now
 * (`POST …/maintenance`) or on the alarm, one pass at a time, keeps this instance's recent runs for
 * `status`, and records when jobs 4-5 next have work so an evicted object's alarm still runs the pass.
 * Which jobs run, what they do and what their results mean for the next alarm are `maintenance/`'s.
 */

import type { CommitRequest } from "../catalog/index.ts";
import { InvalidRequest, liveTableId } from "../catalog/index.ts";
import { deleteUnreferenced, type GuardedDeleteAnswer } from "../maintenance/guarded-delete.ts";
import { JOB_NAMES, type JobName, type JobRun, type StoredJobRun } from "../maintenance/history.ts";
import { type PassSelection, runMaintenancePass } from "../maintenance/run.ts";
import { nextDueAt } from "../maintenance/schedule.ts";
import type { Store } from "../storage/api.ts";
import { maintenanceWakeAt } from "./schedule.ts";
import { type FrontDeps, fileDeps, type Session } from "./types.ts";

/** Maintenance runs an instance remembers for `status` (a bounded ring; the durable history is the store's). */
export const MAINTENANCE_HISTORY_RUNS = 100;

/** What the maintenance host needs from the front (it never calls another part). */
export interface MaintenanceHostDeps extends FrontDeps {
  /** A commit through the front door, as the writer's own (background) work. */
  commit(request: CommitRequest): Promise<{ snapshotId: number | null }>;
  /** A head-preserving batch in the submission slot, awaited durable. */
  exclusiveBatch<T>(
    s: Session,
    fn: (store: Store) => Promise<{ value: T; durable: Promise<void> }>,
  ): Promise<T>;
  /** The head snapshot of every live checkpoint's cut (expiry keeps them, decision 0328). */
  pinned(s: Session): Promise<number[]>;
  /** The yield between a job's stretches (waits for commits in flight, decision 0326). */
  pause(): Promise<void>;
}

export class MaintenanceHost {
  /** This instance's newest runs, oldest first. */
  readonly runs: JobRun[] = [];
  /** The pass running or last run (passes are serialised: `pass`). */
  private passes: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: MaintenanceHostDeps) {}

  /**
   * Runs maintenance jobs now: the named ones (switched on or not), or every job the lake's settings
   * switch on; optionally one table. Answers the runs as recorded in the history.
   */
  async runNow(
    selection: { jobs?: readonly JobName[]; table?: { schema?: string; name: string } } = {},
  ): Promise<StoredJobRun[]> {
    const stopped = this.d.terminal();
    if (stopped) throw stopped;
    for (const j of selection.jobs ?? [])
      if (!JOB_NAMES.includes(j)) throw new InvalidRequest(`unknown maintenance job ${JSON.stringify(j)}`);
    const s = await this.d.ready();
    const tableId = selection.table ? await liveTableId(s.store.snapshot(), selection.table) : undefined;
    return this.pass(s, {
      ...(selection.jobs !== undefined ? { jobs: selection.jobs } : {}),
      ...(tableId !== undefined ? { tableId } : {}),
    });
  }

  /**
   * A client's DELETE of data objects (the S3 endpoint), behind job 5's fence so no commit registers an
   * object it deletes (`maintenance/guarded-delete.ts`, decision 0630). Not serialised with passes: the
   * fence and re-check are what keep it and the sweep apart.
   */
  async deleteDataObjects(paths: readonly string[]): Promise<GuardedDeleteAnswer> {
    const stopped = this.d.terminal();
    if (stopped) throw stopped;
    const s = await this.d.ready();
    const { host } = this.d;
    return deleteUnreferenced(
      {
        ...fileDeps(host),
        view: () => s.store.snapshot(),
        exclusive: (fn) => this.d.exclusiveBatch(s, fn),
        now: host.now,
      },
      paths,
    );
  }

  /**
   * One maintenance pass at a time: the alarm's and a `POST …/maintenance` would otherwise plan the same
   * work from the same state, and the second's commit would fail after its PUT (an orphan and an error in
   * the history). A pass waits for the one running, then plans from the state it left.
   */
  pass(s: Session, selection: PassSelection): Promise<StoredJobRun[]> {
    const pass = this.passes.then(() => this.runPass(s, selection));
    this.passes = pass.catch(() => undefined);
    return pass;
  }

  private async runPass(s: Session, selection: PassSelection): Promise<StoredJobRun[]> {
    const { host } = this.d;
    // The gating point: which jobs may run for this lake is decided here, before any job plans.
    const runs = await runMaintenancePass(
      {
        ...fileDeps(host),
        view: () => s.store.snapshot(),
        commit: (request) => this.d.commit(request),
        exclusive: (fn) => this.d.exclusiveBatch(s, fn),
        pinnedSnapshots: () => this.d.pinned(s),
        now: host.now,
        pause: () => this.d.pause(),
      },
      selection,
    );
    for (const run of runs) {
      this.runs.push(run);
      if (this.runs.length > MAINTENANCE_HISTORY_RUNS) this.runs.shift();
      host.log(run.error === null ? "info" : "warn", { msg: "maintenance run", lake: host.lake, ...run });
    }
    return runs;
  }

  /**
   * When jobs 4-5 next have work (`maintenance/schedule.ts`), recorded in the registry so that an evicted
   * object's alarm still runs the pass; `progressed`: this pass moved due work (`passFollowUp`).
   */
  async recordDueAt(s: Session, progressed: boolean): Promise<number | undefined> {
    const { host } = this.d;
    const next = await nextDueAt(s.store.snapshot(), await this.d.pinned(s));
    const at = maintenanceWakeAt(next, host.now(), progressed, host.tunables);
    const rec = host.registry.get();
    if (rec !== undefined && rec.state === "live" && rec.maintenanceDueAt !== at) {
      const { maintenanceDueAt: _, ...rest } = rec;
      host.registry.put(at === undefined ? rest : { ...rest, maintenanceDueAt: at });
    }
    return at;
  }
}
