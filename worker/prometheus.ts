/**
 * The lake writer's counters in Prometheus' text exposition format (version 0.0.4): `# HELP` and `# TYPE`
 * per family, counters named `*_total`, histograms as cumulative `le` buckets with `+Inf`, `_sum` and
 * `_count`, latencies in seconds. Every sample carries `lake`. Decision 0483.
 */
import type { MetricsSnapshot } from "../durable-objects/metrics.ts";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

interface Hist {
  bounds: number[];
  counts: number[];
  count: number;
  sum: number;
}

const escapeLabel = (v: string): string =>
  v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

function labels(l: Record<string, string>): string {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

class Exposition {
  private readonly out: string[] = [];
  constructor(private readonly lake: string) {}

  family(name: string, type: "counter" | "gauge" | "histogram", help: string): void {
    this.out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }

  sample(name: string, value: number, extra: Record<string, string> = {}): void {
    this.out.push(`${name}${labels({ lake: this.lake, ...extra })} ${value}`);
  }

  histogram(name: string, h: Hist, scale: number, extra: Record<string, string> = {}): void {
    let cumulative = 0;
    h.bounds.forEach((b, i) => {
      cumulative += h.counts[i] ?? 0;
      this.sample(`${name}_bucket`, cumulative, { ...extra, le: String(b * scale) });
    });
    this.sample(`${name}_bucket`, h.count, { ...extra, le: "+Inf" });
    this.sample(`${name}_sum`, h.sum * scale, extra);
    this.sample(`${name}_count`, h.count, extra);
  }

  text(): string {
    return `${this.out.join("\n")}\n`;
  }
}

/** The exposition text for one lake's writer metrics. */
export function prometheusText(lake: string, m: MetricsSnapshot): string {
  const e = new Exposition(lake);
  const p = "ducklake_edge";
  e.family(`${p}_metrics_since_seconds`, "gauge", "When the writer's counters began (Unix time, seconds).");
  e.sample(`${p}_metrics_since_seconds`, m.since / 1000);
  e.family(`${p}_commits_total`, "counter", "Commits answered, by outcome (replayed: an idempotent replay).");
  e.sample(`${p}_commits_total`, m.commits.ok, { outcome: "ok" });
  e.sample(`${p}_commits_total`, m.commits.failed, { outcome: "failed" });
  e.sample(`${p}_commits_total`, m.commits.replayed, { outcome: "replayed" });
  e.family(`${p}_commit_failures_total`, "counter", "Failed commits by error code.");
  for (const [code, n] of Object.entries(m.commits.byCode))
    e.sample(`${p}_commit_failures_total`, n, { code });
  e.family(`${p}_batches_total`, "counter", "Group-commit batches submitted.");
  e.sample(`${p}_batches_total`, m.batches.count);
  e.family(`${p}_batch_size`, "histogram", "Commits per batch.");
  e.histogram(`${p}_batch_size`, m.batches.sizes, 1);
  e.family(`${p}_store_flushes_total`, "counter", "WAL flushes of the writer's store in this activation.");
  e.sample(`${p}_store_flushes_total`, m.flushes);
  e.family(`${p}_conflicts_total`, "counter", "Commits refused with CommitConflict.");
  e.sample(`${p}_conflicts_total`, m.conflicts);
  e.family(`${p}_retries_total`, "counter", "Retries, by class.");
  for (const [cls, n] of Object.entries(m.retries.byClass)) e.sample(`${p}_retries_total`, n, { class: cls });
  e.family(
    `${p}_commit_latency_seconds`,
    "histogram",
    "Commit latency by phase (queue, submit, durability, total).",
  );
  for (const [phase, h] of Object.entries(m.latencyMs))
    e.histogram(`${p}_commit_latency_seconds`, h, 1 / 1000, { phase });
  e.family(
    `${p}_background_total`,
    "counter",
    "Background work: passes, swept keys, maintenance steps, flushes, compactions, objects deleted.",
  );
  for (const [what, n] of Object.entries(m.background)) e.sample(`${p}_background_total`, n, { what });
  return e.text();
}
