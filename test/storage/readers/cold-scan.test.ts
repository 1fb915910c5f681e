/**
 * A cold scan through a stateless reader (no cache) over sorted tables: its block GETs are coalesced
 * into range GETs of up to MAX_COALESCE_BLOCKS and kept SCAN_READAHEAD deep, and every layer's first
 * entry is fetched at once, so GETs and serial round trips grow far slower than the blocks read.
 */
import { describe, expect, it } from "vitest";
import { openLatest } from "../../../storage/reader/index.ts";
import { MAX_COALESCE_BLOCKS } from "../../../storage/sst/reader.ts";
import type { LakeStore } from "../../../storage/store.ts";
import { b, faultBucket, lakeName, open } from "../helpers.ts";

const KEYS = 6_000;

describe("cold scans", () => {
  it("a cold full scan costs few GETs and few serial rounds (coalesced, parallel readahead)", async () => {
    const lake = lakeName("cold-scan");
    const st = (await open(faultBucket(), lake, {
      maintenance: { partitionBytes: 64 * 1024 * 1024, l0CompactionTrigger: 100 },
    })) as LakeStore;
    const value = new Uint8Array(200).fill(7);
    for (let i = 0; i < KEYS; i += 500) {
      st.write(
        Array.from({ length: 500 }, (_, j) => ({ key: b(`k${String(i + j).padStart(6, "0")}`), value })),
      );
    }
    await st.flush();
    await st.flushMemtable();
    // A second, newer table over part of the range: the scan merges two layers.
    st.write([{ key: b("k000100"), value: b("new") }]);
    await st.flush();
    await st.flushMemtable();
    const tables = st.manifest.sortedTables as unknown as { key: string; blocks: number }[];
    expect(tables).toHaveLength(2);
    const blocks = tables.reduce((n, t) => n + t.blocks, 0);
    expect(blocks).toBeGreaterThan(60);
    await st.close();

    const fb = faultBucket();
    const reader = await openLatest(fb, lake);
    fb.resetCounters();
    let n = 0;
    for await (const _ of reader.scan({})) n++;
    expect(n).toBe(KEYS);
    const sst = `lakes/${lake}/sst/`;
    const gets = fb.count({ op: "get", prefix: sst });
    const rounds = fb.serialRounds({ prefix: sst });
    // Per table: one metadata GET, then requests of 1, 2, 4 and then 8 blocks.
    expect(gets).toBeLessThanOrEqual(tables.length * 4 + Math.ceil(blocks / MAX_COALESCE_BLOCKS));
    // One block at a time this was one round per block; now both tables open in the same round and a
    // round moves up to four requests of eight blocks.
    expect(rounds).toBeLessThanOrEqual(Math.ceil(blocks / (2 * MAX_COALESCE_BLOCKS)) + 4);
  });
});
