/**
 * `npm run bench -- store [--quick] [latency=0,50]`: the store against Miniflare's R2 through the
 * fault-injecting bucket. Measures batches/s applied, segment encode/decode MB/s, group-commit flushes
 * (durable batches/s and PUTs per flush) and open cost (R2 operations and ms) for WAL tails of 1, 16 and
 * 1000 segments, with injected PUT latency (ms) as the parameter.
 */
import type { Store } from "../storage/api.ts";
import { FaultBucket } from "../storage/fault-bucket.ts";
import { walPrefix } from "../storage/keys.ts";
import { openWriter } from "../storage/open.ts";
import { decodeSegment, encodeSegment, type Segment } from "../storage/segment.ts";
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult, Row } from "./report.ts";

const enc = new TextEncoder();
const key = (i: number): Uint8Array => enc.encode(`key/${String(i).padStart(10, "0")}`);
const value = new Uint8Array(100).fill(7);

function parseLatencies(args: string[], quick: boolean): number[] {
  const arg = args.find((a) => a.startsWith("latency="));
  const list = arg ? arg.slice("latency=".length) : quick ? "20" : "0,50";
  return list.split(",").map((x) => Number(x));
}

async function applyRate(st: Store, n: number): Promise<Row[]> {
  const keys = Array.from({ length: n }, (_, i) => key(i));
  let t = performance.now();
  for (let i = 0; i < n; i++) st.write([{ key: keys[i]!, value }]);
  const plain = n / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < n; i++) {
    const tx = st.begin();
    await tx.get(keys[i]!);
    tx.put(keys[i]!, value);
    tx.commit();
  }
  const txs = n / ((performance.now() - t) / 1000);
  return [
    { measure: "batches/s applied (write, 1 mutation)", latencyMs: "-", value: plain },
    { measure: "batches/s applied (transaction get+put+commit)", latencyMs: "-", value: txs },
  ];
}

function codecRate(reps: number): Row[] {
  const seg: Segment = {
    header: { epoch: 1, segmentId: 1, manifestVersion: 1, tailStart: 1, writer: "0123456789abcdef" },
    batches: Array.from({ length: 1000 }, (_, i) => ({
      position: i + 1,
      mutations: Array.from({ length: 4 }, (_, j) => ({
        key: key(i * 4 + j),
        value: new Uint8Array(200).fill(j),
      })),
    })),
  };
  let bytes = encodeSegment(seg);
  const mb = bytes.length / 1e6;
  let t = performance.now();
  for (let r = 0; r < reps; r++) bytes = encodeSegment(seg);
  const encMBs = (mb * reps) / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let r = 0; r < reps; r++) decodeSegment(bytes);
  const decMBs = (mb * reps) / ((performance.now() - t) / 1000);
  return [
    { measure: `segment encode MB/s (${mb.toFixed(2)} MB, 4000 mutations)`, latencyMs: "-", value: encMBs },
    { measure: "segment decode+verify MB/s", latencyMs: "-", value: decMBs },
  ];
}

/** Group commit: `writers` concurrent committers, a pacer flushing whenever batches are waiting. */
async function groupCommit(
  fb: FaultBucket,
  lake: string,
  writers: number,
  perWriter: number,
): Promise<Row[]> {
  const st = await openWriter(fb, lake, { retry: { backoffMs: 10 } });
  fb.resetCounters();
  let flushes = 0;
  let done = false;
  const pacer = (async () => {
    while (!done) {
      if (st.unflushedBatches > 0) {
        flushes++;
        await st.flush();
      } else await new Promise((r) => setTimeout(r, 0));
    }
  })();
  const t = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter; i++) {
        const tx = st.begin();
        tx.put(key(w * perWriter + i), value);
        await tx.commit().durable;
      }
    }),
  );
  const secs = (performance.now() - t) / 1000;
  done = true;
  await pacer;
  const segments = fb.count({ op: "put", prefix: walPrefix(lake) });
  await st.close();
  const total = writers * perWriter;
  return [
    {
      measure: `durable batches/s (${writers} committers, group commit)`,
      latencyMs: -1,
      value: total / secs,
    },
    { measure: "PUTs per non-empty flush", latencyMs: -1, value: segments / flushes },
    { measure: "batches per segment", latencyMs: -1, value: total / segments },
  ];
}

async function openCost(inner: FaultBucket, tail: number, latency: number): Promise<Row[]> {
  const lake = `open-${tail}-${latency}-${Math.random().toString(36).slice(2, 7)}`;
  // Build the tail without latency: genesis fence is segment 1, then tail-1 one-batch flushes.
  const st = await openWriter(inner, lake);
  for (let i = 1; i < tail; i++) {
    st.write([{ key: key(i), value }]);
    await st.flush();
  }
  await st.close();
  const fb = new FaultBucket(inner.inner);
  if (latency > 0) fb.delay({ op: "put", ms: latency });
  const t = performance.now();
  const again = await openWriter(fb, lake);
  const ms = performance.now() - t;
  const c = fb.counts();
  await again.close();
  const held = new FaultBucket(inner.inner);
  if (latency > 0) held.delay({ op: "put", ms: latency });
  const t2 = performance.now();
  const cheap = await openWriter(held, lake, { heldEpoch: again.epoch });
  const ms2 = performance.now() - t2;
  const c2 = held.counts();
  await cheap.close();
  return [
    {
      measure: `open, tail ${tail} (new epoch)`,
      latencyMs: latency,
      value: ms,
      list: c.list,
      get: c.get,
      put: c.put,
      ops: c.list + c.get + c.put,
    },
    {
      measure: `open, tail ${tail} (held epoch)`,
      latencyMs: latency,
      value: ms2,
      list: c2.list,
      get: c2.get,
      put: c2.put,
      ops: c2.list + c2.get + c2.put,
    },
  ];
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const latencies = parseLatencies(opts.args, opts.quick);
  const n = opts.quick ? 20_000 : 100_000;
  const { bucket, dispose } = await localBucket();
  const rows: Row[] = [];
  try {
    const base = new FaultBucket(bucket);
    const st = await openWriter(base, "apply");
    rows.push(...(await applyRate(st, n)));
    await st.close();
    rows.push(...codecRate(opts.quick ? 5 : 20));
    for (const latency of latencies) {
      const fb = new FaultBucket(bucket);
      if (latency > 0) fb.delay({ op: "put", ms: latency });
      const gc = await groupCommit(fb, `gc-${latency}`, 64, opts.quick ? 10 : 40);
      rows.push(...gc.map((r) => ({ ...r, latencyMs: latency })));
      for (const tail of [1, 16, 1000]) rows.push(...(await openCost(base, tail, latency)));
    }
  } finally {
    await dispose();
  }
  return {
    name: "store",
    params: {
      quick: opts.quick,
      putLatencyMs: latencies,
      applyBatches: n,
      note: "value = rate or ms (open rows)",
    },
    rows,
  };
}
