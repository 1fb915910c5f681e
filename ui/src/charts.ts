/**
 * Commit-activity charts drawn with uPlot from the writer's metrics (per-10-second buckets, kept in the
 * writer's object storage across restarts: decision 0483), and the maintenance chart drawn from the lake's
 * durable run history (decision 0650-explorer-preview-and-charts.md). Loaded on
 * demand (a chunk of its own: uPlot is a third of the explorer's code; docs/decisions/0343-explorer-lazy-chunks.md).
 */
import uPlot from "uplot";
import type { Schemas } from "../../client/index.ts";

/** One activity bucket as the metrics route answers it (the route's schema is the one home of the shape). */
export type Bucket = Schemas["ActivityBucket"];
/** One maintenance run as the history route answers it. */
export type Run = Schemas["JobRun"];

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

/**
 * Maintenance over time: one point per run at its start, rows in → out on the left axis and bytes in → out
 * (KiB; only compaction jobs count bytes, other runs leave a gap) on the right. `runs` in any order.
 */
export function drawMaintenance(el: HTMLElement, runs: Run[]): uPlot[] {
  el.replaceChildren();
  const sorted = [...runs].sort((a, b) => a.startedAt - b.startedAt || a.seq - b.seq);
  const xs = sorted.map((r) => r.startedAt / 1000);
  const kib = (n: number | undefined): number | null => (n === undefined ? null : n / 1024);
  const width = Math.max(320, Math.min(900, el.clientWidth || 640));
  // As above: the window comes from the runs (at least ten minutes), never from uPlot's one-point proposal.
  const last = xs[xs.length - 1] ?? Date.now() / 1000;
  const window: [number, number] = [Math.min(xs[0] ?? last, last - 600) - 10, last + 10];
  el.dataset.runs = String(sorted.length);
  const points = (label: string, stroke: string, scale?: string): uPlot.Series => ({
    ...series(label, stroke),
    ...(scale ? { scale } : {}),
    // Runs are events, not a rate: points, joined only to guide the eye.
    points: { show: true, size: 7 },
  });
  const plot = new uPlot(
    {
      title: "maintenance runs: rows in → out (left), KiB in → out (right)",
      width,
      height: 220,
      scales: { x: { time: true, range: () => window }, kib: {} },
      axes: [{}, { label: "rows" }, { scale: "kib", side: 1, label: "KiB", grid: { show: false } }],
      series: [
        {},
        points("rows in", "#2563eb"),
        points("rows out", "#16a34a"),
        points("KiB in", "#d97706", "kib"),
        points("KiB out", "#7c3aed", "kib"),
      ],
    },
    [
      xs,
      sorted.map((r) => r.rowsIn),
      sorted.map((r) => r.rowsOut),
      sorted.map((r) => kib(r.bytesIn)),
      sorted.map((r) => kib(r.bytesOut)),
    ],
    el,
  );
  return [plot];
}
