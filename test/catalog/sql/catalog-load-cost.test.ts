/**
 * What the Quack catalog load costs (issue 11; docs/decisions/0250-quack-catalog-load-cost.md): the
 * twelve reads DuckLake sends on ATTACH read each record kind in one range scan, so the number of store
 * reads is the same at 3 tables as at 40 (it grew by two scans per table before); and requests reading
 * the same published cut share what the first one decoded (`CutMemos`), so a second catalog load at
 * that cut reads nothing. Counts only, never times.
 */
import { describe, expect, it } from "vitest";
import { openCatalog } from "../../../catalog/index.ts";
import { CUT_MEMO_CUTS, CutMemos } from "../../../catalog/sql/cut-memo.ts";
import { answerRead, splitStatements } from "../../../catalog/sql/index.ts";
import type { SqlReadContext } from "../../../catalog/sql/reads.ts";
import type { ReadView, Store } from "../../../storage/api.ts";
import {
  CountingBucket,
  FaultBucket,
  LruCache,
  openLatest,
  openWriter,
  ReaderCounters,
} from "../../../storage/index.ts";
import { sstPrefix } from "../../../storage/sst/key.ts";
import captured from "../../fixtures/quack/captured-reads.json";
import { bucket, lakeName, lakeWithTables, ReadCounter, settle } from "../support.ts";

/** The catalog load of an ATTACH, in the order DuckLake sends it (captured-reads.json 0–11). */
const ATTACH_READS = (captured.reads as { example: string }[]).slice(0, 12).map((r) => {
  const [stmt] = splitStatements(r.example);
  if (!stmt) throw new Error("no statement");
  return stmt;
});

const columns = [
  { name: "id", type: "int64" },
  { name: "s", type: "varchar" },
];

function lakeWith(tables: number): Promise<ReadView> {
  return lakeWithTables(`load-cost-${tables}`, tables, columns);
}

/** Runs the whole catalog load as one request each; returns the total rows answered. */
async function catalogLoad(ctx: () => SqlReadContext): Promise<number> {
  let rows = 0;
  for (const stmt of ATTACH_READS) rows += (await answerRead(ctx(), stmt)).rows.length;
  return rows;
}

describe("the Quack catalog load's cost does not grow with the table count", () => {
  it("store reads per catalog load are the same at 3 and 40 tables (one range scan per kind)", async () => {
    const measured: { reads: number; gets: number; rows: number }[] = [];
    for (const n of [3, 40]) {
      const view = await lakeWith(n);
      const counter = new ReadCounter();
      const rows = await catalogLoad(() => ({ view: counter.wrapView(view), memo: new Map() }));
      measured.push({ reads: counter.reads, gets: counter.gets, rows });
    }
    const [small, large] = measured;
    if (!small || !large) throw new Error("nothing measured");
    // The larger lake answers more (duckdb_tables() lists a CREATE TABLE per inlined table) ...
    expect(large.rows).toBeGreaterThanOrEqual(small.rows + 37);
    // ... from exactly as many store reads.
    expect(large.reads).toBe(small.reads);
    expect(large.gets).toBe(small.gets);
  });

  it("requests sharing a cut memo read each kind once; a second catalog load at that cut reads nothing", async () => {
    const view = await lakeWith(5);
    const counter = new ReadCounter();
    const wrapped = counter.wrapView(view);
    const cutMemo = new Map<string, unknown>();
    const perRequest = new ReadCounter();
    const rowsAlone = await catalogLoad(() => ({ view: perRequest.wrapView(view), memo: new Map() }));
    const rowsShared = await catalogLoad(() => ({ view: wrapped, memo: new Map(), cutMemo }));
    expect(rowsShared).toBe(rowsAlone);
    // Twelve requests each reading alone repeat kinds the others already read; sharing reads fewer.
    expect(counter.reads).toBeGreaterThan(0);
    expect(counter.reads).toBeLessThan(perRequest.reads);
    counter.reset();
    expect(await catalogLoad(() => ({ view: wrapped, memo: new Map(), cutMemo }))).toBe(rowsAlone);
    expect(counter.reads).toBe(0);
  });

  it("a load that fails is forgotten: the next request at the same cut reads again", async () => {
    const view = await lakeWith(2);
    const cutMemo = new Map<string, unknown>();
    let fail = true;
    const flaky: ReadView = {
      position: view.position,
      get: (key) => view.get(key),
      scan(range) {
        if (fail) throw new Error("store unavailable (injected)");
        return view.scan(range);
      },
    };
    const [schemas] = splitStatements((captured.reads as { example: string }[])[6]?.example ?? "");
    if (!schemas) throw new Error("no statement");
    await expect(answerRead({ view: flaky, memo: new Map(), cutMemo }, schemas)).rejects.toThrow(/injected/);
    fail = false;
    const res = await answerRead({ view: flaky, memo: new Map(), cutMemo }, schemas);
    expect(res.rows.length).toBeGreaterThan(0);
  });
});

/** Memtable out, L0 into the run: the sorted tables a lake writer leaves behind. */
async function toSortedTables(store: Store): Promise<void> {
  let report = await store.maintain({ forceFlush: true, forceCompaction: true });
  while (report.more || report.compaction?.finished === false) report = await store.maintain();
}

describe("the Quack catalog load's R2 GETs", () => {
  it("a cold catalog load of a 600-table lake GETs sorted-table blocks in coalesced runs, not per table", async () => {
    const lake = lakeName("load-r2");
    const store = await openWriter(bucket(), lake);
    const catalog = await openCatalog(store, { dataPath: "data/" });
    for (let start = 0; start < 600; start += 300) {
      const out = await catalog.commit({
        verbs: Array.from({ length: 300 }, (_, i) => ({
          op: "create_table",
          name: `t${start + i}`,
          columns,
        })),
      });
      await settle(store, out.durable);
    }
    await toSortedTables(store);
    await store.close();

    const fault = new FaultBucket(bucket());
    const counters = new ReaderCounters();
    const counting = new CountingBucket(fault, counters);
    // The isolate's object cache, empty: a new isolate.
    const cache = new LruCache(64 * 1024 * 1024);
    const cutMemo = new Map<string, unknown>();
    let rows = 0;
    for (const stmt of ATTACH_READS) {
      const view = await openLatest(counting, lake, { cache });
      rows += (await answerRead({ view, memo: new Map(), cutMemo }, stmt)).rows.length;
    }
    expect(rows).toBeGreaterThan(600);
    const sstGets = fault.count({ op: "get", prefix: sstPrefix(lake) });
    expect(sstGets).toBeGreaterThan(0);
    // Per-table point reads fetch one 16 KiB block each (18 KiB per GET on average, measured before
    // decision 0250); whole-kind scans fetch runs of up to 8 blocks. Bytes include the open's manifest
    // and segments, which are not sorted-table GETs, so this bound is loose on the safe side.
    expect(counters.bytesRead / sstGets).toBeGreaterThan(32 * 1024);
    // And a second catalog load at the same cut costs no GET at all.
    fault.resetCounters();
    for (const stmt of ATTACH_READS) {
      const view = await openLatest(counting, lake, { cache });
      await answerRead({ view, memo: new Map(), cutMemo }, stmt);
    }
    expect(fault.count({ op: "get", prefix: sstPrefix(lake) })).toBe(0);
  });
});

describe("CutMemos", () => {
  const cut = (position: number, lake = "a") => ({ lake, epoch: 1, manifestVersion: 2, position });

  it("one memo per published cut; another position, epoch or lake is another memo", () => {
    const memos = new CutMemos();
    const m = memos.forCut(cut(5), 0);
    expect(memos.forCut(cut(5), 10)).toBe(m);
    expect(memos.forCut(cut(6), 10)).not.toBe(m);
    expect(memos.forCut({ ...cut(5), epoch: 2 }, 10)).not.toBe(memos.forCut(cut(5), 10));
    expect(memos.forCut(cut(5, "b"), 10)).not.toBe(memos.forCut(cut(5), 10));
  });

  it(`keeps at most ${CUT_MEMO_CUTS} cuts, dropping the least recently used`, () => {
    const memos = new CutMemos(2, 1_000);
    const one = memos.forCut(cut(1), 0);
    const two = memos.forCut(cut(2), 0);
    expect(memos.forCut(cut(1), 0)).toBe(one);
    memos.forCut(cut(3), 0);
    expect(memos.size).toBe(2);
    expect(memos.forCut(cut(1), 0)).toBe(one);
    expect(memos.forCut(cut(2), 0)).not.toBe(two);
  });

  it("an entry older than its lifetime is rebuilt (a re-created lake reuses positions)", () => {
    const memos = new CutMemos(2, 1_000);
    const m = memos.forCut(cut(1), 0);
    expect(memos.forCut(cut(1), 999)).toBe(m);
    expect(memos.forCut(cut(1), 1_000)).not.toBe(m);
  });
});
