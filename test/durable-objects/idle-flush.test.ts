/**
 * The idle memtable flush (docs/decisions/0178-idle-memtable-flush.md): once no commit has arrived for
 * `idleFlushAfterMs`, the alarm's pass flushes the memtable, so the manifest covers the WAL and the next
 * wake replays nothing. Real objects over miniflare R2; the writer's wall clock is injected and moved
 * (no sleeps); the alarm is run by the test; ordering through fault-bucket gates.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { IDLE_FLUSH_AFTER_MS } from "../../durable-objects/idle-flush.ts";
import type { LakeRecord } from "../../durable-objects/registry.ts";
import type { Bucket } from "../../storage/api.ts";
import type { FaultBucket } from "../../storage/fault-bucket.ts";
import { walPrefix } from "../../storage/keys.ts";
import type { Manifest } from "../../storage/manifest.ts";
import { newestManifest } from "../../storage/recovery.ts";
import { retryPolicy } from "../../storage/retry.ts";
import { parseSegmentSummary } from "../../storage/segment.ts";
import { sstPrefix } from "../../storage/sst/key.ts";
import { createTable, lakeName, realBucket, rigLake, stub, until, unwrap } from "./support.ts";

const COMMITS = 12;
/** Alarm passes the run-once test makes after the idle flush. */
const PASSES = 4;

const insert = (id: number) => [
  { op: "inline_insert", table: { name: "t" }, rows: [{ id, v: `row ${id}` }] },
];

async function manifest(lake: string): Promise<Manifest> {
  const m = await newestManifest(realBucket(), lake, retryPolicy({ attempts: 1, backoffMs: 0 }));
  if (m === undefined) throw new Error(`lake ${lake} has no manifest`);
  return m;
}

/** The WAL segments after the manifest's replay point, with the batches each holds (listing metadata). */
async function tail(bucket: Bucket, lake: string): Promise<{ id: number; batches: number }[]> {
  const m = await manifest(lake);
  const out: { id: number; batches: number }[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({
      prefix: walPrefix(lake),
      include: ["customMetadata"],
      ...(cursor !== undefined ? { cursor } : {}),
    });
    for (const o of page.objects) {
      const s = parseSegmentSummary(o.customMetadata, o.key);
      if (s.segmentId > m.wal.replayAfter) out.push({ id: s.segmentId, batches: s.batchCount });
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return out;
}

const tablePuts = (fb: FaultBucket, lake: string): number =>
  fb.count({ op: "put", prefix: sstPrefix(lake), outcome: "ok" });

/** Memtable flushes this activation's background passes published (the writer's metrics). */
async function memtableFlushes(lake: string): Promise<number> {
  return unwrap(await stub(lake).metrics(lake)).metrics.background.memtableFlushes;
}

const record = (lake: string): Promise<LakeRecord | undefined> =>
  runInDurableObject(stub(lake), (_i, state) => state.storage.kv.get<LakeRecord>("lake"));

async function lakeWithCommits(
  tag: string,
): Promise<{ lake: string; fb: FaultBucket; skew: { ms: number } }> {
  const lake = lakeName(tag);
  const skew = { ms: 0 };
  // The store's own flush threshold out of the way: only the idle flush covers this tail.
  const rig = rigLake(lake, {
    now: () => Date.now() + skew.ms,
    tunables: { storeMaintenance: { flushAfterSegments: 4 * COMMITS } },
  });
  const s = stub(lake);
  unwrap(await s.createLake(lake, {}));
  unwrap(await s.commit(lake, createTable("t")));
  for (let i = 0; i < COMMITS; i++) unwrap(await s.commit(lake, insert(i)));
  return { lake, fb: rig.bucket, skew };
}

describe("the idle memtable flush", () => {
  it("waits for the lake to go idle, then covers the WAL: a fresh wake replays no batch", async () => {
    const { lake, fb, skew } = await lakeWithCommits("idle");
    const s = stub(lake);
    // The pass right after the commits: not idle yet, so nothing is flushed (the tail is below the
    // store's own threshold), and the idle flush is recorded for a minute after the last commit.
    fb.resetCounters();
    const before = Date.now() + skew.ms;
    expect(await runDurableObjectAlarm(s)).toBe(true);
    expect(tablePuts(fb, lake)).toBe(0);
    expect((await tail(realBucket(), lake)).filter((t) => t.batches > 0).length).toBeGreaterThanOrEqual(
      COMMITS,
    );
    const due = (await record(lake))?.idleFlushAt;
    expect(due).toBeGreaterThan(before);
    expect(due).toBeLessThanOrEqual(Date.now() + skew.ms + IDLE_FLUSH_AFTER_MS);
    const alarm = await runInDurableObject(s, (_i, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm as number).toBeLessThanOrEqual((due as number) - skew.ms + 1);

    // A minute with no commit: the pass flushes the memtable and the manifest covers every batch.
    skew.ms += IDLE_FLUSH_AFTER_MS + 1;
    expect(await runDurableObjectAlarm(s)).toBe(true);
    expect(tablePuts(fb, lake)).toBe(1);
    const after = await tail(realBucket(), lake);
    expect(after.filter((t) => t.batches > 0)).toEqual([]);
    expect((await record(lake))?.idleFlushAt).toBeUndefined();

    // A wake (the object's memory gone): its open replays no batch and reads no WAL segment: the empty
    // publish segment(s) the flush's manifest edits left come from their listed summaries
    // (docs/decisions/0184-cold-round-packing.md; before, one GET each).
    await evictDurableObject(s);
    fb.resetCounters();
    unwrap(await stub(lake).commit(lake, insert(COMMITS)));
    const walGets = fb.count({ op: "get", prefix: walPrefix(lake) });
    expect(after.length).toBeGreaterThan(0);
    expect(walGets).toBe(0);
  });

  it("runs once: with nothing new it is never due again, and an idle lake's alarm stops re-arming", async () => {
    const { lake, fb, skew } = await lakeWithCommits("idle-once");
    skew.ms += IDLE_FLUSH_AFTER_MS + 1;
    fb.resetCounters();
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect(tablePuts(fb, lake)).toBe(1);
    expect(await memtableFlushes(lake)).toBe(1);
    // The metrics route's store bytes are the table's bytes as PUT (and nothing compacted yet).
    const { storeBytes } = unwrap(await stub(lake).metrics(lake)).metrics;
    expect(storeBytes.flushed).toBe(fb.bytesPut({ prefix: sstPrefix(lake), outcome: "ok" }));
    expect(storeBytes.flushed).toBeGreaterThan(0);
    expect(storeBytes.compacted).toBe(0);
    // Later passes, each a day on: no second flush (not even an empty one, which would publish a manifest
    // and a segment and so make itself due again), and the idle flush is never recorded as due.
    for (let pass = 0; pass < PASSES; pass++) {
      skew.ms += 24 * 3600_000;
      await runDurableObjectAlarm(stub(lake));
      expect((await record(lake))?.idleFlushAt).toBeUndefined();
    }
    expect(await memtableFlushes(lake)).toBe(1);
    expect(tablePuts(fb, lake)).toBe(1);
    // What still sets the alarm of this live instance is the store's GC of what each GC pass supersedes
    // (a manifest per pass, every gcGraceMs). Once the runtime evicts the idle object, the next alarm
    // finds nothing due and sets none: the lake is left alone.
    await evictDurableObject(stub(lake));
    await runDurableObjectAlarm(stub(lake));
    expect(await runInDurableObject(stub(lake), (_i, state) => state.storage.getAlarm())).toBeNull();
    expect(await runDurableObjectAlarm(stub(lake))).toBe(false);
    expect(tablePuts(fb, lake)).toBe(1);
  });

  it("an evicted object's alarm still flushes the tail its last instance left", async () => {
    const { lake, fb, skew } = await lakeWithCommits("idle-evicted");
    // The pass after the commits records the idle flush; then the instance goes away before it is due.
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect((await record(lake))?.idleFlushAt).toBeDefined();
    await evictDurableObject(stub(lake));
    skew.ms += IDLE_FLUSH_AFTER_MS + 1;
    fb.resetCounters();
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect(tablePuts(fb, lake)).toBe(1);
    expect((await tail(realBucket(), lake)).filter((t) => t.batches > 0)).toEqual([]);
    expect((await record(lake))?.idleFlushAt).toBeUndefined();
  });

  it("a commit arriving during the idle flush lands while the flush's table PUT is still held", async () => {
    const { lake, fb, skew } = await lakeWithCommits("idle-commit");
    skew.ms += IDLE_FLUSH_AFTER_MS + 1;
    const gate = fb.hold({ op: "put", prefix: sstPrefix(lake), nth: 1 });
    const pass = runDurableObjectAlarm(stub(lake));
    await until(lake, () => gate.held > 0, "the idle flush's table PUT held");
    const landed = unwrap(await stub(lake).commit(lake, insert(COMMITS)));
    // The commit was acknowledged with the flush's PUT still in the air: it did not wait for the flush.
    expect(gate.held).toBe(1);
    gate.release();
    expect(await pass).toBe(true);
    expect(landed.position).toBeGreaterThan(0);
    // It arrived after the flush froze the memtable: the WAL still holds it, and the idle flush is due
    // again a minute after it.
    expect((await tail(realBucket(), lake)).filter((t) => t.batches > 0).length).toBe(1);
    expect((await record(lake))?.idleFlushAt).toBeGreaterThan(Date.now() + skew.ms);
  });

  it("a crash inside the idle flush loses nothing: the next instance's alarm flushes again", async () => {
    // The writes the idle pass makes before the flush's table PUT, counted on a twin lake with the same
    // history (the pass's own batches come first), so the crash below lands inside the flush.
    const twin = await lakeWithCommits("idle-crash-twin");
    twin.skew.ms += IDLE_FLUSH_AFTER_MS + 1;
    twin.fb.resetCounters();
    const logFrom = twin.fb.log.length;
    expect(await runDurableObjectAlarm(stub(twin.lake))).toBe(true);
    const calls = twin.fb.log.slice(logFrom);
    const tableAt = calls.findIndex((c) => c.op === "put" && c.key.startsWith(sstPrefix(twin.lake)));
    expect(tableAt).toBeGreaterThanOrEqual(0);
    const writesBefore = calls.slice(0, tableAt).filter((c) => c.op === "put" || c.op === "delete").length;

    const { lake, fb, skew } = await lakeWithCommits("idle-crash");
    const before = unwrap(await stub(lake).head(lake));
    skew.ms += IDLE_FLUSH_AFTER_MS + 1;
    // The pass's writes and the flush's table PUT land; its manifest PUT, and every call after, fail.
    fb.crashAfterWrites(writesBefore + 1);
    await runDurableObjectAlarm(stub(lake));
    expect(fb.crashed).toBe(true);
    expect(tablePuts(fb, lake)).toBe(1);
    const failed = await record(lake);
    expect(failed?.backgroundFailures).toBeGreaterThanOrEqual(1);
    expect(failed?.idleFlushAt).toBeDefined();
    // A healthy bucket client and a new instance: the re-armed alarm opens the lake and flushes.
    const again = rigLake(lake, {
      now: () => Date.now() + skew.ms,
      tunables: { storeMaintenance: { flushAfterSegments: 4 * COMMITS } },
    });
    await evictDurableObject(stub(lake));
    skew.ms += IDLE_FLUSH_AFTER_MS + 1;
    expect(await runDurableObjectAlarm(stub(lake))).toBe(true);
    expect(tablePuts(again.bucket, lake)).toBe(1);
    expect((await tail(realBucket(), lake)).filter((t) => t.batches > 0)).toEqual([]);
    expect((await record(lake))?.idleFlushAt).toBeUndefined();
    // Every acknowledged commit is still there.
    const after = unwrap(await stub(lake).head(lake));
    expect(after.snapshotId).toBeGreaterThanOrEqual(before.snapshotId);
    expect(after.batchCount).toBeGreaterThanOrEqual(before.batchCount);
  });
});
