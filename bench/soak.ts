/**
 * `npm run soak -- [--quick] [--seconds N] [--seed S]`: concurrent writers against the lake writer core
 * (durable-objects/writer.ts, the code the Durable Object hosts) in Node over Miniflare's R2, with random
 * faults from the fault-injecting bucket — errors, latency, lost acknowledgements, and crashes after
 * which a fresh writer (a new "process" over the same bucket and the same object registry) takes over.
 *
 * Workload: appends to one table (register_data_file), races of same-name creates, drops of created
 * tables, and idempotent replays of acknowledged commits. Every commit carries an idempotency key and a
 * unique author; an answer that leaves the outcome unknown is retried with the same key until it is
 * definite (bounded). Afterwards a history checker reads the lake, recovered from R2 by a fresh store with
 * no faults, and asserts:
 *  - every acknowledged commit is visible (its snapshot exists and carries its author);
 *  - snapshot ids are dense (0..head);
 *  - row ids are dense per table with no overlap, and each acknowledged append's rowIdStart is its file's;
 *  - one winner per name (at most one create of a name acknowledged, at most one landed);
 *  - idempotent retries land once (no author in two snapshots; a replay answers the recorded result,
 *    position included), and no commit answered with a definite failure landed.
 * Prints its figures and writes bench-results/soak.json; exits 1 on any violation.
 */
import { parseArgs } from "node:util";
import { type CommitRequest, type CommitResult, ducklakeTable, openCatalog } from "../catalog/index.ts";
import { systemClock } from "../durable-objects/clock.ts";
import { DEFAULT_TUNABLES, type WriterTunables } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
import type { Bucket } from "../storage/api.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { openWriter } from "../storage/index.ts";
import { localBucket } from "./harness.ts";
import { printTable, type Row, writeResult } from "./report.ts";

// --- bounds (every loop and wait below is held by one of these) -------------------------------------
/** `--quick`: the CI run. */
const QUICK_SECONDS = 8;
const DEFAULT_SECONDS = 30;
/** No run lasts longer than this, whatever `--seconds` says. */
const MAX_SECONDS = 3600;
const WRITERS = 12;
/** Operations one writer may start in a run (a backstop to the time bound). */
const MAX_OPS_PER_WRITER = 100_000;
/** Tries of one commit (first send + retries with its key) before it is left unresolved. */
const MAX_ATTEMPTS = 40;
/** Pause between those tries, ms (lets a crashed writer be replaced). */
const RETRY_PAUSE_MS = 5;
/** Racers per same-name create. */
const RACERS = 3;
/**
 * Writer replacements (crashes and terminal writers) a run may go through before it stops early: a crash
 * is armed about every CRASH_EVERY_MS, so this allows ten times that rate plus a margin.
 */
const RESTARTS_PER_SECOND_BOUND = 10;
const RESTARTS_MARGIN = 100;
/** How long after the workload stops the checker waits for in-flight answers, ms. */
const DRAIN_MS = 60_000;

// --- fault mix ---------------------------------------------------------------------------------------
const P_READ_ERROR = 0.03;
const P_PUT_ERROR = 0.05;
const P_PUT_LOST_ACK = 0.05;
const P_LATENCY = 0.3;
const MAX_LATENCY_MS = 8;
/** Mean time between armed crashes, ms. */
const CRASH_EVERY_MS = 700;

const LAKE = "soak";
const TABLE = "events";
const COLUMNS = [{ name: "id", type: "int64" }];

/** Codes after which the commit certainly did not land and will not: the answer is final. */
const DEFINITE_FAILURES = new Set([
  "CommitConflict",
  "AlreadyExists",
  "NotFound",
  "InvalidRequest",
  "Constraint",
  "IdempotencyKeyReused",
  "RetryBudgetExhausted",
]);

type Kind = "append" | "create" | "drop" | "replay";

interface Op {
  id: string;
  kind: Kind;
  name?: string;
  request: CommitRequest;
  /** The path of an append's file and its rows. */
  path?: string;
  rows?: number;
  outcome?: { ok: true; value: CommitResult } | { ok: false; code: string } | { unresolved: true };
  attempts: number;
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function errorCode(e: unknown): string {
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === "string" ? c : e instanceof Error ? e.name : "Error";
}

interface Process {
  bucket: FaultBucket;
  writer: Writer;
  dead: boolean;
}

class Soak {
  readonly ops: Op[] = [];
  readonly violations: string[] = [];
  readonly faults = { error: 0, lostAck: 0, crashed: 0, latency: 0, crashesArmed: 0 };
  restarts = 0;
  terminals = 0;
  unknownAnswers = 0;
  replays = 0;
  /** Longest single commit call, ms (a stuck wait shows here). */
  slowest = 0;
  private proc: Process;
  private seq = 0;
  private faulty = false;
  private readonly registry = new MemoryRegistry();
  private readonly created: string[] = [];
  private readonly dropping = new Set<string>();
  /** Acknowledged commits (not replays), the pool replays draw from. */
  private readonly acked: Op[] = [];

  constructor(
    private readonly inner: Bucket,
    private readonly random: () => number,
    private readonly seed: number,
    private readonly tunables: WriterTunables,
    private readonly maxRestarts: number,
  ) {
    this.proc = this.spawn();
  }

  /** The current writer "process"; a crashed or terminal one is replaced by a fresh one. */
  current(): Process {
    if ((this.proc.dead || this.proc.bucket.crashed) && !this.stopped) {
      this.retire(this.proc);
      this.restarts++;
      this.proc = this.spawn();
    }
    return this.proc;
  }

  get stopped(): boolean {
    return this.restarts >= this.maxRestarts;
  }

  /** Arms a crash of the current process after a few more writes (the chaos loop calls this). */
  armCrash(): void {
    this.faults.crashesArmed++;
    this.proc.bucket.crashAfterWrites(Math.floor(this.random() * 4));
  }

  /** From now on every process (the current one included) runs with the fault mix. */
  startFaults(): void {
    this.faulty = true;
    this.armFaults(this.proc.bucket);
  }

  private armFaults(bucket: FaultBucket): void {
    bucket.fail({ op: ["get", "list", "head"], probability: P_READ_ERROR });
    bucket.fail({ op: "put", probability: P_PUT_ERROR });
    bucket.fail({ op: "put", kind: "ambiguous", probability: P_PUT_LOST_ACK });
    bucket.delay({
      ms: (r) => {
        if (r() >= P_LATENCY) return 0;
        this.faults.latency++;
        return r() * MAX_LATENCY_MS;
      },
    });
  }

  private spawn(): Process {
    const bucket = new FaultBucket(this.inner, { seed: this.seed + this.restarts + 1 });
    if (this.faulty) this.armFaults(bucket);
    const proc: Process = { bucket, writer: undefined as unknown as Writer, dead: false };
    proc.writer = new Writer({
      lake: LAKE,
      bucket,
      identity: "soak",
      registry: this.registry,
      clock: systemClock,
      now: () => Date.now(),
      tunables: this.tunables,
      abort: () => {
        if (!proc.dead) this.terminals++;
        proc.dead = true;
      },
      scheduleBackground: () => {},
      log: (level, fields) => {
        if (level === "error" && process.env.SOAK_VERBOSE) console.error(JSON.stringify(fields));
      },
    });
    return proc;
  }

  /** Counts a finished process's injected faults; it writes nothing more (its bucket is crashed). */
  private retire(p: Process): void {
    this.countFaults(p.bucket);
    p.bucket.clearFaults();
    p.bucket.crashAfterWrites(0);
  }

  countFaults(b: FaultBucket): void {
    this.faults.error += b.count({ outcome: "error" });
    this.faults.lostAck += b.count({ outcome: "ambiguous" });
    this.faults.crashed += b.count({ outcome: "crashed" });
    b.resetCounters();
  }

  finish(): void {
    this.countFaults(this.proc.bucket);
  }

  private nextId(kind: Kind): string {
    return `${kind}-${this.seq++}`;
  }

  /** Sends a commit until its answer is definite (same key every time), bounded by MAX_ATTEMPTS. */
  async drive(op: Op): Promise<void> {
    this.ops.push(op);
    for (op.attempts = 1; op.attempts <= MAX_ATTEMPTS && !this.stopped; op.attempts++) {
      const { writer } = this.current();
      const t0 = Date.now();
      try {
        op.outcome = { ok: true, value: await writer.commit(op.request) };
        this.slowest = Math.max(this.slowest, Date.now() - t0);
        if (op.kind !== "replay") this.acked.push(op);
        return;
      } catch (e) {
        this.slowest = Math.max(this.slowest, Date.now() - t0);
        const code = errorCode(e);
        if (DEFINITE_FAILURES.has(code)) {
          op.outcome = { ok: false, code };
          return;
        }
        this.unknownAnswers++;
        await pause(RETRY_PAUSE_MS);
      }
    }
    op.outcome = { unresolved: true };
  }

  async setup(): Promise<void> {
    await this.retryPlain(() => this.current().writer.createLake(), ["AlreadyExists"]);
    await this.drive({
      id: "setup",
      kind: "create",
      name: TABLE,
      request: {
        verbs: [{ op: "create_table", name: TABLE, columns: COLUMNS }],
        idempotencyKey: "setup",
        author: "setup",
      },
      attempts: 0,
    });
  }

  private async retryPlain(fn: () => Promise<unknown>, fine: string[]): Promise<void> {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      try {
        await fn();
        return;
      } catch (e) {
        if (fine.includes(errorCode(e))) return;
        await pause(RETRY_PAUSE_MS);
      }
    }
    throw new Error("the soak's setup could not create its lake");
  }

  async append(): Promise<void> {
    const id = this.nextId("append");
    const rows = 1 + Math.floor(this.random() * 5);
    const path = `${TABLE}/${id}.parquet`;
    await this.drive({
      id,
      kind: "append",
      path,
      rows,
      request: {
        verbs: [
          {
            op: "register_data_file",
            table: { name: TABLE },
            file: { path, recordCount: rows, fileSizeBytes: 100 + rows },
          },
        ],
        idempotencyKey: id,
        author: id,
      },
      attempts: 0,
    });
  }

  async race(): Promise<void> {
    const name = `c${this.seq++}`;
    const racers = Array.from({ length: RACERS }, () => {
      const id = this.nextId("create");
      return this.drive({
        id,
        kind: "create",
        name,
        request: {
          verbs: [{ op: "create_table", name, columns: COLUMNS }],
          idempotencyKey: id,
          author: id,
        },
        attempts: 0,
      });
    });
    await Promise.all(racers);
    if (
      this.ops.some(
        (o) => o.kind === "create" && o.name === name && o.outcome && "ok" in o.outcome && o.outcome.ok,
      )
    ) {
      this.created.push(name);
    }
  }

  async drop(): Promise<void> {
    const candidates = this.created.filter((n) => !this.dropping.has(n));
    const name = candidates[Math.floor(this.random() * candidates.length)];
    if (name === undefined) return this.append();
    this.dropping.add(name);
    const id = this.nextId("drop");
    await this.drive({
      id,
      kind: "drop",
      name,
      request: { verbs: [{ op: "drop_table", table: { name } }], idempotencyKey: id, author: id },
      attempts: 0,
    });
  }

  /** Resends an acknowledged commit with its key: it must answer the recorded result and land nothing. */
  async replay(): Promise<void> {
    const original = this.acked[Math.floor(this.random() * this.acked.length)];
    if (original === undefined || !original.outcome || !("ok" in original.outcome) || !original.outcome.ok) {
      return this.append();
    }
    const first = original.outcome.value;
    const op: Op = { id: this.nextId("replay"), kind: "replay", request: original.request, attempts: 0 };
    await this.drive(op);
    this.replays++;
    const got = op.outcome;
    if (got === undefined || "unresolved" in got) return;
    if (!got.ok) {
      this.violations.push(`replay of ${original.id} answered ${got.code}`);
      return;
    }
    const a = got.value;
    const same =
      a.replayed === true &&
      a.snapshotId === first.snapshotId &&
      a.schemaVersion === first.schemaVersion &&
      a.position === first.position &&
      JSON.stringify(a.assigned) === JSON.stringify(first.assigned);
    if (!same) {
      this.violations.push(
        `replay of ${original.id} answered ${JSON.stringify(a)}, the first answer was ${JSON.stringify(first)}`,
      );
    }
  }

  async actor(deadline: number): Promise<void> {
    for (let n = 0; n < MAX_OPS_PER_WRITER && Date.now() < deadline && !this.stopped; n++) {
      const x = this.random();
      if (x < 0.55) await this.append();
      else if (x < 0.7) await this.race();
      else if (x < 0.8) await this.drop();
      else await this.replay();
    }
  }

  async chaos(deadline: number): Promise<void> {
    while (Date.now() < deadline && !this.stopped) {
      await pause(Math.min(Math.max(0, deadline - Date.now()), this.random() * 2 * CRASH_EVERY_MS));
      if (Date.now() < deadline) this.armCrash();
    }
  }

  async maintainer(deadline: number): Promise<void> {
    while (Date.now() < deadline && !this.stopped) {
      await pause(Math.min(Math.max(0, deadline - Date.now()), 50 + this.random() * 150));
      await this.current().writer.background();
    }
  }
}

interface Catalogue {
  head: number;
  snapshots: number[];
  authors: Map<number, string>;
  files: { path: string; rowIdStart: number; rows: number }[];
  liveTables: Set<string>;
}

/** The lake as R2 holds it, read by a fresh store with no faults (recovery), then closed. */
async function recovered(inner: Bucket): Promise<Catalogue> {
  const store = await openWriter(inner, LAKE, { identity: "soak-checker" });
  try {
    await openCatalog(store);
    const view = store.snapshot();
    const snaps = await ducklakeTable(view, "ducklake_snapshot");
    const changes = await ducklakeTable(view, "ducklake_snapshot_changes");
    const tables = await ducklakeTable(view, "ducklake_table");
    const files = await ducklakeTable(view, "ducklake_data_file");
    const table = tables.find((t) => t.table_name === TABLE && t.end_snapshot === null);
    const ids = snaps.map((s) => Number(s.snapshot_id)).sort((a, b) => a - b);
    return {
      head: ids[ids.length - 1] ?? -1,
      snapshots: ids,
      authors: new Map(
        changes.filter((c) => c.author !== null).map((c) => [Number(c.snapshot_id), String(c.author)]),
      ),
      files: files
        .filter((f) => table !== undefined && Number(f.table_id) === Number(table.table_id))
        .map((f) => ({
          path: String(f.path),
          rowIdStart: Number(f.row_id_start),
          rows: Number(f.record_count),
        })),
      liveTables: new Set(tables.filter((t) => t.end_snapshot === null).map((t) => String(t.table_name))),
    };
  } finally {
    await store.close();
  }
}

function check(soak: Soak, cat: Catalogue): string[] {
  const v = [...soak.violations];
  // Snapshot ids dense.
  cat.snapshots.forEach((id, i) => {
    if (id !== i) v.push(`snapshot ids not dense: position ${i} holds ${id}`);
  });
  // Each author in at most one snapshot (an idempotent retry landing twice would show here).
  const snapshotsOf = new Map<string, number[]>();
  for (const [snap, author] of cat.authors)
    snapshotsOf.set(author, [...(snapshotsOf.get(author) ?? []), snap]);
  for (const [author, snaps] of snapshotsOf) {
    if (snaps.length > 1) v.push(`commit ${author} landed in ${snaps.length} snapshots (${snaps.join(",")})`);
  }
  const byId = new Map(soak.ops.filter((o) => o.kind !== "replay").map((o) => [o.id, o]));
  for (const [author, snaps] of snapshotsOf) {
    const op = byId.get(author);
    if (op === undefined) v.push(`snapshot ${snaps[0]} has an author no commit used: ${author}`);
    else if (op.outcome && "ok" in op.outcome && !op.outcome.ok) {
      v.push(
        `commit ${author} answered ${op.outcome.code} (a definite failure) but landed in snapshot ${snaps[0]}`,
      );
    }
  }
  // Every acknowledged commit visible, in the snapshot it was told.
  for (const op of byId.values()) {
    const o = op.outcome;
    if (!o || !("ok" in o) || !o.ok || o.value.snapshotId === null) continue;
    const seen = cat.authors.get(o.value.snapshotId);
    if (seen !== op.id)
      v.push(`acknowledged ${op.id} (snapshot ${o.value.snapshotId}) is not visible; it holds ${seen}`);
  }
  // Row ids dense, no overlap; each acknowledged append's rowIdStart is its file's.
  const files = [...cat.files].sort((a, b) => a.rowIdStart - b.rowIdStart);
  let next = 0;
  for (const f of files) {
    if (f.rowIdStart !== next)
      v.push(`row ids not dense: ${f.path} starts at ${f.rowIdStart}, expected ${next}`);
    next = f.rowIdStart + f.rows;
  }
  const fileByPath = new Map<string, number>();
  for (const f of files) fileByPath.set(f.path, (fileByPath.get(f.path) ?? 0) + 1);
  const firstByPath = new Map<string, (typeof files)[number]>();
  for (const f of files) if (!firstByPath.has(f.path)) firstByPath.set(f.path, f);
  for (const op of byId.values()) {
    if (op.kind !== "append" || !op.path) continue;
    const o = op.outcome;
    const count = fileByPath.get(op.path) ?? 0;
    if (count > 1) v.push(`append ${op.id} registered ${count} times`);
    if (o && "ok" in o && o.ok) {
      const f = firstByPath.get(op.path);
      const assigned = (o.value.assigned[0] as { rowIdStart?: number } | undefined)?.rowIdStart;
      if (f === undefined) v.push(`acknowledged append ${op.id} has no file`);
      else if (assigned !== f.rowIdStart)
        v.push(`append ${op.id} was told rowIdStart ${assigned}, the file has ${f.rowIdStart}`);
    }
  }
  // One winner per name.
  const droppedNames = new Set(
    [...byId.values()].filter((o) => o.kind === "drop" && snapshotsOf.has(o.id)).map((o) => o.name),
  );
  const names = new Map<string, Op[]>();
  for (const op of byId.values())
    if (op.kind === "create" && op.name) names.set(op.name, [...(names.get(op.name) ?? []), op]);
  for (const [name, racers] of names) {
    const won = racers.filter((r) => r.outcome && "ok" in r.outcome && r.outcome.ok);
    const landed = racers.filter((r) => snapshotsOf.has(r.id));
    if (won.length > 1) v.push(`${won.length} creates of ${name} were acknowledged`);
    if (landed.length > 1) v.push(`${landed.length} creates of ${name} landed`);
    const dropped = droppedNames.has(name);
    if (landed.length === 1 && !dropped && !cat.liveTables.has(name))
      v.push(`table ${name} was created and never dropped, but is missing`);
    if (dropped && cat.liveTables.has(name)) v.push(`table ${name} was dropped but is still live`);
  }
  return v;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      seconds: { type: "string" },
      seed: { type: "string" },
    },
  });
  const seconds = Math.min(
    MAX_SECONDS,
    Math.max(
      1,
      Number(values.seconds ?? (values.quick ? QUICK_SECONDS : DEFAULT_SECONDS)) || DEFAULT_SECONDS,
    ),
  );
  const seed =
    values.seed !== undefined ? Number(values.seed) >>> 0 : (Date.now() ^ (process.pid << 8)) >>> 0;
  console.log(`soak: ${seconds} s, ${WRITERS} writers, seed ${seed} (rerun with --seed ${seed})`);
  const random = seeded(seed);
  const local = await localBucket();
  const tunables: WriterTunables = {
    ...DEFAULT_TUNABLES,
    flushSpacingMs: 10,
    storeRetry: { attempts: 3, backoffMs: 1, maxBackoffMs: 4 },
    storeMaintenance: { flushAfterSegments: 16, l0CompactionTrigger: 3, gcGraceMs: 1_000 },
    slotBoundMs: 30_000,
  };
  const t0 = Date.now();
  try {
    const maxRestarts = seconds * RESTARTS_PER_SECOND_BOUND + RESTARTS_MARGIN;
    const soak = new Soak(local.bucket, random, seed, tunables, maxRestarts);
    await soak.setup();
    soak.startFaults();
    const deadline = Date.now() + seconds * 1000;
    const work = Promise.all([
      ...Array.from({ length: WRITERS }, () => soak.actor(deadline)),
      soak.chaos(deadline),
      soak.maintainer(deadline),
    ]);
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    const drained = await Promise.race([
      work.then(() => true),
      new Promise<false>((r) => {
        drainTimer = setTimeout(() => r(false), seconds * 1000 + DRAIN_MS);
      }),
    ]);
    clearTimeout(drainTimer);
    soak.finish();
    const cat = await recovered(local.bucket);
    const violations = check(soak, cat);
    if (!drained) violations.push(`the workload did not finish within ${DRAIN_MS} ms of its deadline`);
    if (soak.stopped) violations.push(`stopped after ${maxRestarts} writer restarts`);
    const count = (pred: (o: Op) => boolean): number => soak.ops.filter(pred).length;
    const isOk = (o: Op): boolean => o.outcome !== undefined && "ok" in o.outcome && o.outcome.ok;
    const rows: Row[] = [
      {
        seconds,
        seed,
        commits: count((o) => o.kind !== "replay"),
        acknowledged: count((o) => o.kind !== "replay" && isOk(o)),
        appends: count((o) => o.kind === "append" && isOk(o)),
        creates: count((o) => o.kind === "create" && isOk(o)),
        drops: count((o) => o.kind === "drop" && isOk(o)),
        replays: soak.replays,
        refused: count((o) => o.outcome !== undefined && "ok" in o.outcome && !o.outcome.ok),
        unresolved: count((o) => o.outcome !== undefined && "unresolved" in o.outcome),
        retried: soak.unknownAnswers,
        snapshots: cat.head + 1,
        rows: cat.files.reduce((n, f) => n + f.rows, 0),
        faultErrors: soak.faults.error,
        faultLostAcks: soak.faults.lostAck,
        faultLatency: soak.faults.latency,
        crashesArmed: soak.faults.crashesArmed,
        crashedCalls: soak.faults.crashed,
        restarts: soak.restarts,
        terminal: soak.terminals,
        slowestCallMs: soak.slowest,
        violations: violations.length,
        wallSeconds: Math.round((Date.now() - t0) / 100) / 10,
      },
    ];
    printTable(rows);
    for (const v of violations.slice(0, 50)) console.error(`VIOLATION: ${v}`);
    console.log(
      `wrote ${writeResult({ name: "soak", params: { seconds, seed, writers: WRITERS, quick: values.quick === true }, rows })}`,
    );
    return violations.length === 0 ? 0 : 1;
  } finally {
    await local.dispose();
  }
}

process.exit(await main());
