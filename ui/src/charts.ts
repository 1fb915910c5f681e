/**
 * Commit-activity charts drawn with uPlot from the writer's metrics (per-10-second buckets). Loaded on
 * demand (a chunk of its own: uPlot is a third of the explorer's code; docs/decisions/0343-explorer-lazy-chunks.md).
 */
import uPlot from "uplot";
import type { Schemas } from "../../client/index.ts";

/** One activity bucket as the metrics route answers it (the route's schema is the one home of the shape). */
export type Bucket = Schemas["ActivityBucket"];

function series(label: string, stroke: string): uPlot.Series {
  return { label, stroke, width: 2, points: { show: true } };
}

export function drawActivity(el: HTMLElement, buckets: Bucket[], bucketMs: number): uPlot[] {
  el.replaceChildren();
  const xs = buckets.map((b) => b.t / 1000);
  const perSec = (n: number) => n / (bucketMs / 1000);
  const width = Math.max(320, Math.min(900, el.clientWidth || 640));
  // The window is taken from the buckets, never from uPlot's proposal: for one point uPlot proposes
  // 86400 / ms seconds (ms = 1e-3 for second timestamps), an axis of 2.7 years. Show at least ten minutes.
  const span = (bucketMs / 1000) * 60;
  const last = xs[xs.length - 1] ?? Date.now() / 1000;
  const window: [number, number] = [Math.min(xs[0] ?? last, last - span), last + bucketMs / 1000];
  el.dataset.windowSeconds = String(window[1] - window[0]);
  const scales: uPlot.Scales = { x: { time: true, range: () => window } };
  const rate = new uPlot(
    {
      title: "commits/s, batches/s, conflicts, retries",
      width,
      scales,
      height: 200,
      series: [
        {},
        series("commits/s", "#2563eb"),
        series("batches/s", "#16a34a"),
        series("conflicts", "#dc2626"),
        series("retries", "#d97706"),
      ],
    },
    [
      xs,
      buckets.map((b) => perSec(b.commits)),
      buckets.map((b) => perSec(b.batches)),
      buckets.map((b) => b.conflicts),
      buckets.map((b) => b.retries),
    ],
    el,
  );
  const latency = new uPlot(
    {
      title: "commit latency (ms): mean and max per bucket; batch size (mean)",
      width,
      scales,
      height: 200,
      series: [
        {},
        series("mean ms", "#7c3aed"),
        series("max ms", "#db2777"),
        series("batch size", "#0891b2"),
      ],
    },
    [
      xs,
      buckets.map((b) => (b.commits + b.failures > 0 ? b.latencyMsSum / (b.commits + b.failures) : null)),
      buckets.map((b) => b.latencyMsMax),
      buckets.map((b) => (b.batches > 0 ? (b.commits + b.failures) / b.batches : null)),
    ],
    el,
  );
  return [rate, latency];
}
