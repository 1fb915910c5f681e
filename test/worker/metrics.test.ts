import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
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

describe("metrics survive writer restarts; Prometheus text on request (issue 30 item 5)", () => {
  it("keeps counters in the object's storage across an eviction, and answers the exposition format", async () => {
    const lake = "metrics-restart";
    expect((await call(`/v1/lakes/${lake}`, { method: "PUT" })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const r = await commit(lake, [
        { op: "create_table", name: `r${i}`, columns: [{ name: "id", type: "int64" }] },
      ]);
      expect(r.status).toBe(200);
    }
    const before = ((await (await call(`/v1/lakes/${lake}/metrics`)).json()) as Metrics).metrics;
    // The background pass after commits saves the counters; then the object is evicted (a restart).
    const s = env.LAKE_WRITER.get(env.LAKE_WRITER.idFromName(lake));
    await runDurableObjectAlarm(s);
    await evictDurableObject(s);
    const after = ((await (await call(`/v1/lakes/${lake}/metrics`)).json()) as Metrics).metrics;
    expect(after.commits.ok).toBe(before.commits.ok);
    expect(after.batches.count).toBe(before.batches.count);
    expect(sum(after.activity.buckets.map((b) => b.commits))).toBe(before.commits.ok);

    const prom = await call(`/v1/lakes/${lake}/metrics?format=prometheus`);
    expect(prom.status).toBe(200);
    expect(prom.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const text = await prom.text();
    expect(text).toContain("# HELP ducklake_edge_commits_total ");
    expect(text).toContain("# TYPE ducklake_edge_commits_total counter");
    expect(text).toContain(`ducklake_edge_commits_total{lake="${lake}",outcome="ok"} ${before.commits.ok}`);
    expect(text).toContain("# TYPE ducklake_edge_commit_latency_seconds histogram");
    // Buckets are cumulative and end at +Inf = _count.
    const buckets = [
      ...text.matchAll(
        /ducklake_edge_commit_latency_seconds_bucket\{lake="[^"]+",phase="total",le="([^"]+)"\} (\d+)/g,
      ),
    ];
    const counts = buckets.map((m) => Number(m[2]));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(buckets.at(-1)?.[1]).toBe("+Inf");
    expect(text).toContain(
      `ducklake_edge_commit_latency_seconds_count{lake="${lake}",phase="total"} ${counts.at(-1)}`,
    );
    const viaAccept = await call(`/v1/lakes/${lake}/metrics`, { headers: { accept: "text/plain" } });
    expect(await viaAccept.text()).toContain("# TYPE ducklake_edge_batch_size histogram");
  });

  it("wrangler.toml turns on Workers Logs, with the Worker's own line as the one line per request", () => {
    const toml = env.TEST_WRANGLER_TOML ?? "";
    expect(toml).toMatch(/^\[observability\]\nenabled = true$/m);
    expect(toml).toMatch(/^\[observability\.logs\]\ninvocation_logs = false$/m);
  });
});
