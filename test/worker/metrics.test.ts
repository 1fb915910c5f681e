import { describe, expect, it } from "vitest";
import { call, expectError, TOKENS } from "../support/http.ts";

interface Histogram {
  bounds: number[];
  counts: number[];
  count: number;
}
interface Metrics {
  lake: string;
  metrics: {
    commits: { ok: number; failed: number; replayed: number; byCode: Record<string, number> };
    batches: { count: number; members: number; sizes: Histogram };
    flushes: number;
    latencyMs: Record<"queue" | "submit" | "durability" | "total", Histogram>;
    activity: { bucketMs: number; buckets: { commits: number; batches: number; failures: number }[] };
  };
}

const commit = (lake: string, verbs: unknown[], key?: string) =>
  call(`/v1/lakes/${lake}/commits`, {
    method: "POST",
    body: { verbs },
    ...(key ? { headers: { "idempotency-key": key } } : {}),
  });

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("GET /v1/lakes/{lake}/metrics", () => {
  it("counts commits, failures by code, replays, batches and latency, consistently with each other", async () => {
    const lake = "metrics-a";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    const concurrent = 6;
    const answers = await Promise.all(
      Array.from({ length: concurrent }, (_, i) =>
        commit(lake, [{ op: "create_table", name: `t${i}`, columns: [{ name: "id", type: "int64" }] }]),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(concurrent).fill(200));
    const keyed = [{ op: "create_table", name: "k", columns: [{ name: "id", type: "int64" }] }];
    expect((await commit(lake, keyed, "metrics-key-1")).status).toBe(200);
    const replay = await commit(lake, keyed, "metrics-key-1");
    expect(replay.status).toBe(200);
    await expectError(await commit(lake, [{ op: "drop_table", table: { name: "nope" } }]), 404, "NotFound");

    const res = await call(`/v1/lakes/${lake}/metrics`, { token: TOKENS.adminAll });
    expect(res.status).toBe(200);
    const { metrics: m } = (await res.json()) as Metrics;
    const ok = concurrent + 2;
    expect(m.commits.ok).toBe(ok);
    expect(m.commits.replayed).toBe(1);
    expect(m.commits.failed).toBe(1);
    expect(m.commits.byCode).toEqual({ NotFound: 1 });
    expect(m.batches.members).toBe(ok + 1);
    expect(sum(m.batches.sizes.counts)).toBe(m.batches.count);
    expect(m.batches.count).toBeLessThanOrEqual(ok + 1);
    expect(m.batches.sizes.counts.length).toBe(m.batches.sizes.bounds.length + 1);
    expect(m.latencyMs.total.count).toBe(ok + 1);
    expect(sum(m.latencyMs.total.counts)).toBe(ok + 1);
    expect(m.latencyMs.durability.count).toBe(ok + 1);
    expect(m.flushes).toBeGreaterThan(0);
    expect(sum(m.activity.buckets.map((b) => b.commits))).toBe(ok);
    expect(sum(m.activity.buckets.map((b) => b.failures))).toBe(1);
    expect(sum(m.activity.buckets.map((b) => b.batches))).toBe(m.batches.count);
  });

  it("needs read scope on the lake and never wakes a writer for a missing lake", async () => {
    await expectError(await call("/v1/lakes/metrics-none/metrics"), 404, "NotFound");
    await expectError(
      await call("/v1/lakes/metrics-a/metrics", { token: TOKENS.readSales }),
      403,
      "Forbidden",
    );
    await expectError(await call("/v1/lakes/metrics-a/metrics", { token: null }), 401, "Unauthorized");
  });
});
