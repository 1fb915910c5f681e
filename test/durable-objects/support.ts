/**
 * Helpers for lake-writer tests: real Durable Objects over the real miniflare bucket, wrapped per lake in
 * storage's fault-injecting bucket through the writer's setup seam. Nothing here fakes the store.
 */
import { env } from "cloudflare:workers";
import type { CommitRequest } from "../../catalog/index.ts";
import type { Envelope } from "../../durable-objects/envelope.ts";
import type { LakeWriter } from "../../durable-objects/lake-writer.ts";
import { setWriterSetup, type WriterSetup } from "../../durable-objects/setup.ts";
import type { WriterStats } from "../../durable-objects/types.ts";
import type { Bucket } from "../../storage/api.ts";
import { FaultBucket } from "../../storage/fault-bucket.ts";

let counter = 0;
/** Storage is isolated per test file, not per test: every test uses its own lake. */
export function lakeName(tag: string): string {
  counter++;
  return `dow-${tag}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
}

export function realBucket(): Bucket {
  return env.BUCKET as unknown as Bucket;
}

interface LakeRig {
  bucket: FaultBucket;
  setup: WriterSetup;
  aborts: { reason: string; stats: WriterStats | undefined }[];
}

const rigs = new Map<string, LakeRig>();
setWriterSetup((lake) => rigs.get(lake)?.setup);

/**
 * Registers a lake with its own fault bucket (shared by every activation of its object, so counters
 * and crash state survive restarts) and test tunables. Fast retries, no background alarms during tests.
 */
export function rigLake(lake: string, setup: Omit<WriterSetup, "bucket" | "onAbort"> = {}): LakeRig {
  const bucket = new FaultBucket(realBucket(), { seed: 7 });
  const rig: LakeRig = {
    bucket,
    aborts: [],
    setup: {
      ...setup,
      bucket: () => bucket,
      tunables: {
        storeRetry: { attempts: 3, backoffMs: 0 },
        backgroundIdleDelayMs: 3_600_000,
        ...setup.tunables,
      },
      onAbort: (reason, stats) => rig.aborts.push({ reason, stats }),
    },
  };
  rigs.set(lake, rig);
  return rig;
}

export function stub(lake: string): DurableObjectStub<LakeWriter> {
  return env.LAKE_WRITER.get(env.LAKE_WRITER.idFromName(lake));
}

export function unwrap<T>(e: Envelope<T>): T {
  if (!e.ok) throw new Error(`expected success, got ${e.error.code}: ${e.error.message}`);
  return e.value;
}

/**
 * Runs `commits` at once with the lake's next WAL segment PUT held at a gate until every one of them has
 * been applied and nothing is being submitted (the writer's own counters say so), then lets it through.
 * Every commit after the first batch then waits for that PUT, so the next flush carries them all: the
 * grouping no longer depends on how fast the calls arrive.
 */
export async function burstBehindFirstPut<T>(
  rig: LakeRig,
  lake: string,
  commits: (() => Promise<Envelope<T>>)[],
): Promise<T[]> {
  const s = stub(lake);
  const base = unwrap(await s.status(lake)).writer?.batchedRequests ?? 0;
  const gate = rig.bucket.hold({ op: "put", prefix: `lakes/${lake}/wal/`, nth: 1 });
  const answers = commits.map((c) => c());
  await until(
    lake,
    async () => {
      const w = unwrap(await s.status(lake)).writer;
      return gate.held > 0 && w !== null && w.batchedRequests - base === commits.length && !w.slotHeld;
    },
    `all ${commits.length} commits applied behind the held segment PUT`,
  );
  gate.release();
  return Promise.all(answers.map(async (a) => unwrap(await a)));
}

/** WAL segment PUTs that landed for the lake since the bucket's counters were last reset. */
export function walPuts(b: FaultBucket, lake: string): number {
  return b.count({ op: "put", prefix: `lakes/${lake}/wal/`, outcome: "ok" });
}

export const COLS = [
  { name: "id", type: "int64" },
  { name: "v", type: "varchar" },
];

export const createTable = (name: string): CommitRequest["verbs"] => [
  { op: "create_table", name, columns: COLS },
];

export const appendFile = (table: string, path: string, rows: number): CommitRequest["verbs"] => [
  {
    op: "register_data_file",
    table: { name: table },
    file: { path, recordCount: rows, fileSizeBytes: 100 + rows },
  },
];

/**
 * Calls the lake's object after its previous instance asked to end itself. The runtime ends it a moment
 * later (the host aborts once every answer is out); until then the doomed instance still answers, as
 * terminal. So this asks for the writer's status, one RPC at a time, until an instance that is not
 * terminal answers (bounded), then makes the call; a call refused while the old instance goes away is
 * retried once. No sleeps.
 */
export async function afterAbort<T = { snapshotId: number | null; replayed?: boolean }>(
  lake: string,
  call: (s: DurableObjectStub<LakeWriter>) => Promise<unknown>,
): Promise<Envelope<T>> {
  await until(
    lake,
    async () => {
      const st = await stub(lake)
        .status(lake)
        .catch(() => undefined);
      return st?.ok === true && (st.value.writer?.terminal ?? null) === null;
    },
    "a fresh writer instance",
  );
  try {
    return (await call(stub(lake))) as Envelope<T>;
  } catch {
    return (await call(stub(lake))) as Envelope<T>;
  }
}

/**
 * Checks `cond` once per round trip to the lake's object, until it holds (e.g. a fault-bucket gate holds
 * a call). A gate's own `reached` promise resolves inside the object's I/O context, which the test may
 * not continue in; polling through the stub keeps the test in its own. Bounded; never a sleep.
 */
export async function until(
  lake: string,
  cond: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  for (let i = 0; i < UNTIL_POLLS; i++) {
    if (await cond()) return;
    await stub(lake)
      .status(lake)
      .catch(() => undefined);
  }
  throw new Error(`gave up waiting for ${what} after ${UNTIL_POLLS} round trips`);
}

const UNTIL_POLLS = 500;
