/**
 * What the guarded `/s3/` DELETE costs (issue 27, decision docs/decisions/0630-quack-orphan-listing-grace.md):
 * DeleteObjects of N keys as the lake writer runs it (fence batch → re-check of every file version → R2
 * delete → forget batch, `maintenance/guarded-delete.ts`) against one plain R2 delete of the same N keys,
 * interleaved over one Miniflare R2 bucket, in Node (the writer core, as bench/maintenance.bench.ts). The
 * Worker-to-Durable-Object hop of a deployed call is not in either figure.
 */
import { loadavg } from "node:os";
import { DEFAULT_TUNABLES } from "../durable-objects/options.ts";
import { MemoryRegistry } from "../durable-objects/registry.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { dataObjectKey } from "../storage/keys.ts";
import { makeWriter } from "./commit.bench.ts";
import { localBucket } from "./harness.ts";
import type { Row } from "./report.ts";

/** Rounds per side, interleaved. */
const DELETE_REPS = 3;
const LAKE = "bench-guarded-delete";
/** Objects PUT at a time while setting up (1,000 at once reset Miniflare's proxy connection under load). */
const PUT_GROUP = 50;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export async function guardedDeleteCost(keys: number): Promise<Row[]> {
  const { bucket, dispose } = await localBucket();
  const writer = makeWriter(new FaultBucket(bucket), LAKE, new MemoryRegistry(), DEFAULT_TUNABLES);
  const guarded: number[] = [];
  const plain: number[] = [];
  try {
    await writer.createLake();
    await writer.commit({
      verbs: [{ op: "create_table", name: "t", columns: [{ name: "id", type: "int64" }] }],
    });
    const body = new Uint8Array(64);
    for (let rep = 0; rep < DELETE_REPS; rep++) {
      for (const side of ["guarded", "plain"] as const) {
        const paths = Array.from({ length: keys }, (_, i) => `main/t/${side}-${rep}-${i}.parquet`);
        for (let i = 0; i < paths.length; i += PUT_GROUP) {
          const group = paths.slice(i, i + PUT_GROUP);
          await Promise.all(group.map((p) => bucket.put(dataObjectKey(LAKE, p), body)));
        }
        const t = performance.now();
        if (side === "guarded") {
          const answer = await writer.deleteDataObjects(paths);
          if (answer.deleted.length !== keys)
            throw new Error(`guarded delete removed ${answer.deleted.length}`);
        } else {
          await bucket.delete(paths.map((p) => dataObjectKey(LAKE, p)));
        }
        (side === "guarded" ? guarded : plain).push(performance.now() - t);
      }
    }
  } finally {
    await writer.head().catch(() => undefined);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await dispose();
  }
  const g = median(guarded);
  const p = median(plain);
  return [
    {
      path: "DeleteObjects",
      keys,
      guarded_ms: Math.round(g),
      plain_r2_ms: Math.round(p),
      ratio: Math.round((g / Math.max(p, 0.1)) * 100) / 100,
      reps: DELETE_REPS,
      load: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    },
  ];
}
