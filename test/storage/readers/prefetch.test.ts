/**
 * `ReadView.prefetch` on a stateless reader (storage/prefetch.ts): the blocks of the hinted ranges come
 * in one round of at most six GETs, later reads of them cost nothing, answers never change, and the
 * writer's own views (no prefetch budget) fetch nothing.
 */
import { describe, expect, it } from "vitest";
import { PREFETCH_CONNECTIONS } from "../../../storage/prefetch.ts";
import { openLatest } from "../../../storage/reader/index.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, dump, faultBucket, lakeName, open } from "../helpers.ts";

const KEYS = 4_000;
const key = (i: number): string => `k${String(i).padStart(6, "0")}`;

async function lake(): Promise<string> {
  const name = lakeName("prefetch");
  // Small partitions: the run has several, so ranges cross partitions and a `last` range picks one.
  const st = (await open(faultBucket(), name, {
    maintenance: { partitionBytes: 128 * 1024, l0CompactionTrigger: 100 },
  })) as LakeStore;
  const value = new Uint8Array(100).fill(3);
  for (let i = 0; i < KEYS; i += 500)
    st.write(Array.from({ length: 500 }, (_, j) => ({ key: b(key(i + j)), value })));
  await st.flush();
  let r = await st.maintain({ forceFlush: true, forceCompaction: true });
  while (r.more || r.compaction?.finished === false) r = await st.maintain();
  // A newer L0 table over part of the range, and a WAL tail entry.
  st.write([{ key: b(key(10)), value: b("newer") }]);
  await st.flush();
  await st.flushMemtable();
  st.write([{ key: b(key(11)), value: b("tail") }]);
  await st.flush();
  expect(st.manifest.sortedTables.length).toBeGreaterThan(3);
  await st.close();
  return name;
}

describe("prefetch", () => {
  it("fetches the hinted ranges in one round of ≤ 6 GETs; reads after it cost none and answer the same", async () => {
    const name = await lake();
    const plain = await openLatest(faultBucket(), name);
    const expected = await dump(plain);

    const fb = faultBucket();
    const reader = await openLatest(fb, name, { prefetchTables: true });
    const sst = `lakes/${name}/sst/`;
    await reader.prefetch([
      { start: b(key(0)), end: b(key(40)) },
      { prefix: b("k00"), last: true },
      { start: b(key(3990)), end: b(key(3999)) },
    ]);
    // list → manifest + tail → every table's metadata (prefetchTables) → one round of block GETs.
    expect(fb.serialRounds({ prefix: `lakes/${name}/` })).toBeLessThanOrEqual(4);
    const metadata = fb.log.filter((r) => r.op === "get" && r.key.startsWith(sst) && r.round === 3).length;
    expect(fb.count({ op: "get", prefix: sst })).toBeLessThanOrEqual(metadata + PREFETCH_CONNECTIONS);
    fb.resetCounters();
    const got: string[] = [];
    for await (const kv of reader.scan({ start: b(key(0)), end: b(key(40)) }))
      got.push(new TextDecoder().decode(kv.value));
    expect(got).toHaveLength(40);
    expect(got[10]).toBe("newer");
    expect(got[11]).toBe("tail");
    expect(new TextDecoder().decode(await reader.get(b(key(3995))))).toBe(expected[key(3995)] as string);
    // The newest key of the range: the `last` hint held its block.
    expect(await reader.get(b(key(KEYS - 1)))).toBeDefined();
    expect(fb.count({ op: "get", prefix: sst })).toBe(0);
    // Answers are those of a reader that never prefetched.
    expect(await dump(reader)).toEqual(expected);
  });

  it("a hint over the whole keyspace holds every block: a full scan after it costs no GET", async () => {
    const name = await lake();
    const fb = faultBucket();
    const reader = await openLatest(fb, name, { prefetchTables: true });
    await reader.prefetch([{}]);
    fb.resetCounters();
    let n = 0;
    for await (const _ of reader.scan({})) n++;
    expect(n).toBe(KEYS);
    expect(fb.count({ op: "get", prefix: `lakes/${name}/sst/` })).toBe(0);
  });

  it("does nothing on the writer's own views (no budget: a long-lived writer holds no prefetched blocks)", async () => {
    const name = await lake();
    const fb = faultBucket();
    const st = await open(fb, name);
    fb.resetCounters();
    const view = st.snapshot();
    await view.prefetch?.([{}]);
    expect(fb.count({ op: "get", prefix: `lakes/${name}/sst/` })).toBe(0);
    await st.close();
  });
});
