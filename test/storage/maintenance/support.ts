/** Helpers for the maintenance tests: a settable clock, writer options, and "every needed object exists". */
import { expect } from "vitest";
import type { Bucket, MaintenancePolicy, WriterOptions } from "../../../storage/api.ts";
import { LruCache } from "../../../storage/cache.ts";
import { readLedgers } from "../../../storage/gc-ledger.ts";
import { walKey } from "../../../storage/keys.ts";
import { ledgerRefs, type Manifest } from "../../../storage/manifest.ts";
import { newestManifest, publishedHead, readManifest } from "../../../storage/recovery.ts";
import { retryPolicy } from "../../../storage/retry.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { FAST, open } from "../helpers.ts";

export const GRACE = 60_000;

export class Clock {
  t = 1_700_000_000_000;
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Small tables so a handful of keys makes several partitions and multi-step compactions. */
export const TINY: MaintenancePolicy = {
  flushAfterSegments: 1_000,
  forceFlushAfterSegments: 1_000,
  l0CompactionTrigger: 3,
  partitionBytes: 300,
  stepBytes: 600,
  gcGraceMs: GRACE,
};

export function options(clock: Clock, policy: MaintenancePolicy = TINY): WriterOptions {
  return { ...FAST, now: clock.now, maintenance: policy };
}

export async function openLake(
  bucket: Bucket,
  lake: string,
  clock: Clock,
  policy: MaintenancePolicy = TINY,
  extra: Partial<WriterOptions> = {},
): Promise<LakeStore> {
  return (await open(bucket, lake, { ...options(clock, policy), ...extra })) as LakeStore;
}

/**
 * Every object the lake's newest manifest and its published cut need is in the bucket: the manifests,
 * their sorted tables and the WAL from the published tail start to the newest segment.
 */
export async function expectNeededObjectsPresent(bucket: Bucket, lake: string): Promise<void> {
  const policy = retryPolicy({ attempts: 2, backoffMs: 0 });
  const newest = await newestManifest(bucket, lake, policy);
  expect(newest).toBeDefined();
  const head = await publishedHead(bucket, lake, policy);
  const manifests = [newest!];
  if (head && head.manifestVersion !== newest!.version)
    manifests.push(await readManifest(bucket, lake, head.manifestVersion, policy));
  for (const m of manifests) {
    for (const t of m.sortedTables) expect(await bucket.head(t.key), t.key).not.toBeNull();
  }
  const from = Math.min(newest!.wal.replayAfter + 1, head?.tailStart ?? Number.POSITIVE_INFINITY);
  for (let id = from; head && id <= head.segmentId; id++) {
    expect(await bucket.head(walKey(lake, id)), `segment ${id}`).not.toBeNull();
  }
}

/**
 * Every key manifest `m` accounts for: its sorted tables, its unreferenced records (inline and inside
 * its GC ledgers) and the ledgers themselves.
 */
export async function accountedKeys(bucket: Bucket, lake: string, m: Manifest): Promise<Set<string>> {
  const refs = ledgerRefs(m);
  const ctx = { bucket, lake, retry: retryPolicy({ attempts: 2, backoffMs: 0 }), cache: new LruCache(0) };
  const sealed = (await readLedgers(ctx, refs)).flat();
  return new Set([
    ...m.sortedTables.map((t) => t.key),
    ...m.unreferenced.map((r) => r.key),
    ...refs.map((r) => r.key),
    ...sealed.map((r) => r.key),
  ]);
}
