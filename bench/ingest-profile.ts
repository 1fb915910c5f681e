/**
 * A profile of the writer core (not a bench; docs/decisions/0318-packed-log-runs.md): 64 single-row
 * writers through `Writer.commit` against Miniflare's R2, `wal` or `lake`, for `rounds` rounds after a
 * warm-up of 3, with PUT latency L injected by the fault bucket. Prints rows/s, CPU per member (this
 * process: the writer core and the R2 client), requests per PUT and the mean batch. With PROF=<dir> it
 * also writes a V8 CPU profile of the measured rounds only.
 *   node --import tsx bench/ingest-profile.ts wal|lake [rounds=20] [L=0]
 */

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { systemClock } from "../durable-objects/clock.ts";
import { DEFAULT_TUNABLES } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { Writer } from "../durable-objects/writer.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { localBucket } from "./harness.ts";

const path = (process.argv[2] ?? "wal") as "wal" | "lake";
const rounds = Number(process.argv[3] ?? 20);
const L = Number(process.argv[4] ?? 0);
const { bucket: inner, dispose } = await localBucket();
const bucket = new FaultBucket(inner);
const w = new Writer({
  lake: "prof",
  bucket,
  identity: "bench",
  registry: new MemoryRegistry(),
  clock: systemClock,
  now: () => Date.now(),
  tunables: { ...DEFAULT_TUNABLES },
  abort: (r) => {
    throw new Error(r);
  },
  scheduleBackground: () => {},
  log: () => {},
});
await w.createLake();
await w.commit({
  verbs: [
    {
      op: "create_table",
      name: "events",
      columns: [
        { name: "id", type: "int64" },
        { name: "v", type: "varchar" },
      ],
    },
  ],
});
if (L > 0) bucket.delay({ op: "put", ms: L });
let next = 0;
const go = async (n: number) => {
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      for (let k = 0; k < n; k++)
        await w.commit({
          verbs: [
            {
              op: "rows_write",
              table: { name: "events" },
              ops: [{ op: "insert", row: { id: next++, v: "x" } }],
              writePath: path,
            },
          ],
        });
    }),
  );
};
await go(3); // warm-up
bucket.resetCounters();
const prof = process.env.PROF ? new Session() : undefined;
if (prof) {
  prof.connect();
  await prof.post("Profiler.enable");
  await prof.post("Profiler.start");
}
const c0 = process.cpuUsage();
const t0 = performance.now();
await go(rounds);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
if (prof) {
  const { profile } = await prof.post("Profiler.stop");
  writeFileSync(`${process.env.PROF}/x.cpuprofile`, JSON.stringify(profile));
}
const members = 64 * rounds;
const puts = bucket.count({ op: "put", outcome: "ok" });
const m = w.metricsSnapshot();
console.log(
  JSON.stringify({
    path,
    L,
    members,
    rowsPerSec: Math.round((members / ms) * 1000),
    cpuMsPerMember: Math.round(((cpu.user + cpu.system) / 1000 / members) * 1000) / 1000,
    wallMsPerMember: Math.round((ms / members) * 1000) / 1000,
    puts,
    membersPerPut: Math.round((members / puts) * 10) / 10,
    meanBatch: m.batches.count === 0 ? 0 : Math.round((m.batches.members / m.batches.count) * 10) / 10,
    submitMs: Math.round(m.latencyMs.submit.sum / Math.max(1, m.latencyMs.submit.count)),
  }),
);
await dispose();
