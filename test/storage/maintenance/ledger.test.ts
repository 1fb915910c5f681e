/**
 * GC ledgers (storage/gc-ledger.ts): under a long commit stream the manifest stays small because the
 * unreferenced records move into immutable ledgers; GC still waits out the grace from unreferenced time,
 * keeps what a checkpoint or the published cut pins, and collects the ledgers themselves.
 */
import { describe, expect, it } from "vitest";
import type { MaintenancePolicy } from "../../../storage/api.ts";
import { LruCache } from "../../../storage/cache.ts";
import {
  LEDGER_SEAL_RECORDS,
  MAX_LEDGER_REFS,
  mergeCandidates,
  readLedgers,
} from "../../../storage/gc-ledger.ts";
import { gcPrefix } from "../../../storage/keys.ts";
import { encodeManifest, type GcLedgerRef, ledgerRefs, type Manifest } from "../../../storage/manifest.ts";
import { openCheckpoint } from "../../../storage/reader/open-checkpoint.ts";
import { retryPolicy } from "../../../storage/retry.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { BACKSTOP_L0_FACTOR } from "../../../storage/writer-maintenance.ts";
import { b, dump, faultBucket, lakeName, objectKeys, realBucket } from "../helpers.ts";
import { accountedKeys, Clock, expectNeededObjectsPresent, openLake } from "./support.ts";

const GRACE_10M = 10 * 60_000;
/** A memtable flush on every maintain() call: the most manifest edits (and records) per commit. */
const STREAM: MaintenancePolicy = {
  flushAfterSegments: 1,
  forceFlushAfterSegments: 1_000,
  l0CompactionTrigger: 4,
  partitionBytes: 4096,
  stepBytes: 1 << 20,
  gcGraceMs: GRACE_10M,
};
const MANIFEST_LIMIT = 64 * 1024;
const ROUNDS = 300;

/** Bytes the ledgered records would add to the manifest's JSON if they were inline. */
async function sealedBytes(st: LakeStore, lake: string): Promise<number> {
  const ctx = { bucket: realBucket(), lake, retry: retryPolicy({ attempts: 2 }), cache: new LruCache(0) };
  const records = (await readLedgers(ctx, ledgerRefs(st.manifest))).flat();
  return records.reduce((n, r) => n + JSON.stringify(r).length + 1, 0);
}

/** One commit per round, made durable, then one maintenance call; the clock moves `stepMs` a round. */
async function stream(
  st: LakeStore,
  clock: Clock,
  state: Record<string, string>,
  rounds: number,
  stepMs: number,
  onRound?: (m: Manifest) => void,
): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const k = `k${String(i % 97).padStart(3, "0")}`;
    state[k] = `v${i}`;
    st.write([{ key: b(k), value: b(state[k]) }]);
    await st.flush();
    await st.maintain();
    clock.advance(stepMs);
    onRound?.(st.manifest);
  }
}

/** Maintenance until nothing is due; bounded, so a loop that never settles fails instead of hanging. */
async function settle(st: LakeStore): Promise<void> {
  for (let i = 0; st.needsMaintenance; i++) {
    if (i >= 100) throw new Error("maintenance did not settle in 100 calls");
    await st.maintain();
  }
}

describe("GC ledgers", () => {
  it("keeps the manifest under 64 KiB through a long commit stream within one GC grace", async () => {
    const lake = lakeName("ledger-size");
    const clock = new Clock();
    const st = await openLake(faultBucket(), lake, clock, STREAM);
    const state: Record<string, string> = {};
    let largest = 0;
    await stream(st, clock, state, ROUNDS, 500, (m) => {
      largest = Math.max(largest, encodeManifest(m).length);
    });
    const inline = st.manifest.unreferenced.length;
    // Nothing was due yet (300 × 0.5 s < 10 min): every record of the stream is still remembered, and
    // inline the sealed ones alone would take more than the limit.
    expect(st.maintenanceCounters.objectsDeleted).toBe(0);
    expect(await sealedBytes(st, lake)).toBeGreaterThan(MANIFEST_LIMIT);
    expect(largest).toBeLessThanOrEqual(MANIFEST_LIMIT);
    expect(inline).toBeLessThan(LEDGER_SEAL_RECORDS + 16);
    expect(ledgerRefs(st.manifest).length).toBeLessThanOrEqual(MAX_LEDGER_REFS + 1);
    expect(await dump(st.snapshot())).toEqual(state);
    await st.close();
  });

  it("a host that never calls maintain(): the backstop seals records and compacts L0, so the manifest stays small", async () => {
    const lake = lakeName("ledger-backstop");
    const clock = new Clock();
    // The host only commits (a Durable Object whose catalog jobs hold it for a while): every flush and
    // compaction below is the store's backstop (storage/writer-maintenance.ts afterSegment).
    const policy: MaintenancePolicy = { ...STREAM, flushAfterSegments: 1, forceFlushAfterSegments: 2 };
    const st = await openLake(faultBucket(), lake, clock, policy);
    const state: Record<string, string> = {};
    let largest = 0;
    let mostInline = 0;
    let mostL0 = 0;
    for (let i = 0; i < 600; i++) {
      const k = `k${String(i % 97).padStart(3, "0")}`;
      state[k] = `v${i}`;
      st.write([{ key: b(k), value: b(state[k]) }]);
      await st.flush();
      clock.advance(100);
      const m = st.manifest;
      largest = Math.max(largest, encodeManifest(m).length);
      mostInline = Math.max(mostInline, m.unreferenced.length);
      mostL0 = Math.max(mostL0, m.sortedTables.filter((t) => (t as { level?: number }).level === 0).length);
    }
    // Queued behind the last backstop run: when it returns, every backstop step has finished.
    await st.flushMemtable();
    expect(st.maintenanceCounters.memtableFlushes).toBeGreaterThan(100);
    expect(st.maintenanceCounters.compactionSteps).toBeGreaterThan(0);
    expect(ledgerRefs(st.manifest).length).toBeGreaterThan(0);
    // Without the backstop's seal the inline list held every segment and manifest of the stream (> 600).
    expect(mostInline).toBeLessThan(2 * LEDGER_SEAL_RECORDS);
    // L0 waits for the backstop's next flush at most: twice the trigger plus the tables landing meanwhile.
    expect(mostL0).toBeLessThanOrEqual(BACKSTOP_L0_FACTOR * STREAM.l0CompactionTrigger! + 2);
    expect(largest).toBeLessThanOrEqual(MANIFEST_LIMIT);
    expect(st.backgroundError).toBeUndefined();
    expect(await dump(st.snapshot())).toEqual(state);
    await st.close();
    const re = await openLake(faultBucket(), lake, clock, policy);
    expect(await dump(re.snapshot())).toEqual(state);
    await re.close();
  });

  it("GC waits out the grace from unreferenced time, keeps checkpoint pins, then collects ledgers", async () => {
    const lake = lakeName("ledger-gc");
    const clock = new Clock();
    // Two tail segments before a flush: with one, every manifest's publish segment would make a flush due.
    const policy = { ...STREAM, flushAfterSegments: 2, gcGraceMs: 60_000 };
    const st = await openLake(faultBucket(), lake, clock, policy);
    const state: Record<string, string> = {};
    await stream(st, clock, state, 60, 100);
    const cp = await st.createCheckpoint();
    const atCheckpoint = { ...state };
    await stream(st, clock, state, 60, 100);
    expect(ledgerRefs(st.manifest).length).toBeGreaterThan(0);
    // 12 s of stream: nothing is due before the grace has passed since each record's unreferenced time.
    const before = new Set(await objectKeys(realBucket(), lake));
    await settle(st);
    expect(st.maintenanceCounters.objectsDeleted).toBe(0);
    clock.advance(60_000);
    await settle(st);
    expect(st.maintenanceCounters.objectsDeleted).toBeGreaterThan(0);
    // The checkpoint's cut survives GC through ledgers.
    const r = await openCheckpoint(realBucket(), lake, cp.id, { now: clock.now });
    expect(await dump(r)).toEqual(atCheckpoint);
    await expectNeededObjectsPresent(realBucket(), lake);
    // Release the checkpoint; after two more graces (its cut, then the ledgers retired by the first pass)
    // every early ledger is gone and whatever remains in gc/ is accounted for.
    await st.deleteCheckpoint(cp.id);
    for (let i = 0; i < 3; i++) {
      clock.advance(60_001);
      await settle(st);
    }
    const after = new Set(await objectKeys(realBucket(), lake));
    const gc = gcPrefix(lake).slice(`lakes/${lake}/`.length);
    const early = [...before].filter((k) => k.startsWith(gc));
    expect(early.length).toBeGreaterThan(0);
    for (const k of early) expect(after.has(k), k).toBe(false);
    const accounted = await accountedKeys(realBucket(), lake, st.manifest);
    for (const k of after) if (k.startsWith(gc)) expect(accounted.has(`lakes/${lake}/${k}`), k).toBe(true);
    expect(await dump(st.snapshot())).toEqual(state);
    await st.close();
    const re = await openLake(faultBucket(), lake, clock, policy);
    expect(await dump(re.snapshot())).toEqual(state);
    await re.close();
  });

  it("merges the smallest ledgers of one time bucket once references pile up", () => {
    const grace = 16_000; // buckets of 1 s
    const ref = (i: number, sinceMin: number, sinceMax: number, records = 64): GcLedgerRef => ({
      key: `lakes/x/gc/${String(i).padStart(20, "0")}-0.json`,
      records,
      sinceMin,
      sinceMax,
    });
    const base = 1_000_000;
    const refs: GcLedgerRef[] = [];
    // One ledger per bucket for 30 buckets, a straddler, and 5 ledgers in bucket 40 (one large); at
    // base + 20 s only the first 4 are wholly due, so bucket 40 is the largest group.
    for (let i = 0; i < 30; i++) refs.push(ref(i, base + i * 1000, base + i * 1000 + 500));
    refs.push(ref(30, base + 30_900, base + 31_100));
    for (let j = 0; j < 5; j++)
      refs.push(ref(31 + j, base + 40_000 + j, base + 40_010 + j, j === 0 ? 9000 : 64));
    const m = { gcLedgers: refs } as unknown as Manifest;
    expect(
      mergeCandidates({ gcLedgers: refs.slice(0, MAX_LEDGER_REFS) } as unknown as Manifest, base, grace),
    ).toBe(undefined);
    const picked = mergeCandidates(m, base + 20_000, grace) ?? [];
    expect(picked.map((r) => r.key).sort()).toEqual(
      refs
        .slice(31)
        .map((r) => r.key)
        .sort(),
    );
    // Once wholly due, ledgers of different buckets merge together (smallest first, at most 8).
    const late = mergeCandidates(m, base + 200_000, grace) ?? [];
    expect(late).toHaveLength(8);
    expect(late.every((r) => r.records === 64)).toBe(true);
  });
});
