/**
 * The cold paths of `npm run bench -- sustained`: a cold scan plan (a stateless reader with no cache
 * opening the newest cut and planning `main.orders`, by name and by id, at 1k / 10k data files: the
 * Worker's plan route minus HTTP) and a cold-wake commit (a new writer over an existing lake, its held
 * epoch kept, committing one row), each at 0 and 50 ms injected per operation. The wake comes after one
 * of four histories: a long WAL tail (no background pass ran), a crash after the host ran the background
 * passes its writer asked for (the tail since the last memtable flush), a forced memtable flush
 * (`maintainNow`), or the host's own idle flush (its alarm pass once no commit arrived for
 * `IDLE_FLUSH_AFTER_MS`, docs/decisions/0178-idle-memtable-flush.md). Serial round trips come from the
 * fault bucket: the
 * longest chain of calls each started after the previous one completed.
 */
import { tableFilesAt } from "../catalog/index.ts";
import { systemClock } from "../durable-objects/clock.ts";
import { IDLE_FLUSH_AFTER_MS } from "../durable-objects/idle-flush.ts";
import { DEFAULT_TUNABLES } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
import type { Bucket } from "../storage/api.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { openLatest } from "../storage/index.ts";
import { lakePrefix, walPrefix } from "../storage/keys.ts";
import { buildLake } from "./read-lakes.ts";
import type { Row } from "./report.ts";

const OPS = ["put", "get", "head", "list", "delete"] as const;

function costs(fb: FaultBucket, lake: string): Row {
  const k = fb.counts(lakePrefix(lake));
  return {
    gets: k.get,
    lists: k.list,
    heads: k.head,
    puts: k.put,
    serialRounds: fb.serialRounds({ prefix: lakePrefix(lake) }),
  };
}

export async function coldPlans(inner: Bucket, fileCounts: number[], latencies: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const files of fileCounts) {
    const lake = `cold-plan-${files}`;
    await buildLake(inner, { lake, tables: 10, files });
    let ordersId: number | undefined;
    for (const L of latencies)
      for (const byId of [false, true]) {
        const fb = new FaultBucket(inner);
        if (L > 0) fb.delay({ op: [...OPS], ms: L });
        const t = performance.now();
        const reader = await openLatest(fb, lake, { prefetchTables: true });
        const ref = byId && ordersId !== undefined ? ordersId : { name: "orders" };
        const plan = await tableFilesAt(reader, ref, undefined, { limit: 1000 });
        const ms = performance.now() - t;
        ordersId = plan.table.table_id;
        rows.push({
          measure: byId ? "cold scan plan (by id)" : "cold scan plan",
          files,
          latencyMs: L,
          ms,
          filesPlanned: plan.files.length,
          // What block fences' windows cost in bytes (docs/decisions/0175-block-fences.md).
          kibRead: Math.round(reader.counters.bytesRead / 1024),
          ...costs(fb, lake),
        });
      }
  }
  return rows;
}

function writer(
  bucket: Bucket,
  lake: string,
  registry: MemoryRegistry,
  now = () => Date.now(),
  scheduleBackground: (delayMs: number) => void = () => {},
): Writer {
  return new Writer({
    lake,
    bucket,
    identity: "bench",
    registry,
    clock: systemClock,
    now,
    tunables: DEFAULT_TUNABLES,
    abort: (reason) => {
      throw new Error(`writer aborted during the benchmark: ${reason}`);
    },
    scheduleBackground,
    log: (level, f) => {
      if (level === "error") console.error(JSON.stringify(f));
    },
  });
}

const insert = (id: number) => ({
  verbs: [{ op: "inline_insert" as const, table: { name: "t" }, rows: [{ id, v: `row ${id}` }] }],
});

/** What ran between the lake's last commit and the wake. */
type History = "tail" | "crash" | "maintenance" | "idle";

const HISTORY_MEASURE: Record<History, string> = {
  tail: "cold-wake commit (WAL tail)",
  crash: "cold-wake commit (crash, host ran)",
  maintenance: "cold-wake commit (after maintenance)",
  idle: "cold-wake commit (after idle flush)",
};

export async function coldWakes(inner: Bucket, latencies: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const L of latencies) {
    for (const history of ["tail", "crash", "maintenance", "idle"] as const) {
      const lake = `cold-wake-${L}-${history}`;
      const registry = new MemoryRegistry();
      // The writer's wall clock, moved past the idle interval instead of waiting it out.
      let skew = 0;
      // "crash": the host runs the background pass its writer asks for (the object's alarm), and the
      // instance dies after the last commit, so the tail is what came after the last memtable flush.
      let asked = false;
      const first = writer(
        inner,
        lake,
        registry,
        () => Date.now() + skew,
        () => {
          asked = history === "crash";
        },
      );
      await first.createLake();
      await first.commit({
        verbs: [
          {
            op: "create_table",
            name: "t",
            columns: [
              { name: "id", type: "int64" },
              { name: "v", type: "varchar" },
            ],
          },
        ],
      });
      // A lake with history: 200 commits, 8 at a time (a few dozen WAL segments).
      for (let i = 0; i < 200; i += 8) {
        await Promise.all(Array.from({ length: 8 }, (_, j) => first.commit(insert(i + j))));
        if (asked) {
          asked = false;
          await first.background();
        }
      }
      if (history === "maintenance") await first.maintainNow();
      if (history === "idle") {
        // The host's own policy decides: its alarm pass, a minute after the last commit.
        skew += IDLE_FLUSH_AFTER_MS;
        await first.background();
        if (registry.get()?.idleFlushAt !== undefined)
          throw new Error("the idle pass left its flush due: the bench would measure a WAL tail");
      }
      const fb = new FaultBucket(inner);
      if (L > 0) fb.delay({ op: [...OPS], ms: L });
      // A wake: the object's memory is gone, its own storage (existence, held epoch) is kept.
      const woken = writer(fb, lake, registry, () => Date.now() + skew);
      let t = performance.now();
      await woken.commit(insert(10_000));
      rows.push({
        measure: HISTORY_MEASURE[history],
        walGets: fb.count({ op: "get", prefix: walPrefix(lake) }),
        latencyMs: L,
        ms: performance.now() - t,
        ...costs(fb, lake),
      });
      await new Promise((r) => setTimeout(r, DEFAULT_TUNABLES.flushSpacingMs * 1.2));
      fb.resetCounters();
      t = performance.now();
      await woken.commit(insert(10_001));
      rows.push({ measure: "warm commit", latencyMs: L, ms: performance.now() - t, ...costs(fb, lake) });
    }
  }
  return rows;
}
