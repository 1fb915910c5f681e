/**
 * Finds what blocks the event loop while a job runs (bench only): a ticker records every gap between
 * two of its turns longer than `minGapMs`, and a V8 CPU profile taken over the same window names, for
 * the longest gaps, the functions most often on the stack (by sample count) inside each. Node only
 * (`node:inspector`); the clocks are both the process's monotonic clock.
 */
import { Session } from "node:inspector/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Stall {
  ms: number;
  /** Frames most often on the stack during the gap (ours first: bench/, catalog/, …), with sample counts. */
  frames: string[];
}

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

export async function probeStalls<T>(
  work: () => Promise<T>,
  opts: { minGapMs?: number; top?: number } = {},
): Promise<{ value: T; stalls: Stall[] }> {
  const minGapUs = (opts.minGapMs ?? 20) * 1000;
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  const gaps: [number, number][] = [];
  let last = nowUs();
  let running = true;
  const tick = () => {
    const t = nowUs();
    if (t - last > minGapUs) gaps.push([last, t]);
    last = t;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  let value: T;
  try {
    value = await work();
  } finally {
    running = false;
  }
  const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
  session.disconnect();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const times: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) {
    t += d;
    times.push(t);
  }
  const label = (n: ProfileNode): string => {
    const file = n.callFrame.url.replace(/^.*\/(node_modules\/[^/]+|[^/]+)\/([^/]+)$/, "$1/$2");
    return `${n.callFrame.functionName || "(anon)"} ${file}:${n.callFrame.lineNumber + 1}`;
  };
  const stalls = gaps
    .sort((a, b) => b[1] - b[0] - (a[1] - a[0]))
    .slice(0, opts.top ?? 5)
    .map(([from, to]) => {
      // Per sample: the deepest frame of the project's own code (not node_modules) and the leaf frame.
      const own = new Map<string, number>();
      const leaf = new Map<string, number>();
      profile.samples.forEach((id, i) => {
        const at = times[i] ?? 0;
        if (at < from || at > to) return;
        const top = byId.get(id);
        if (top) leaf.set(label(top), (leaf.get(label(top)) ?? 0) + 1);
        for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
          const node = byId.get(n);
          if (!node?.callFrame.url.includes("/work/") || node.callFrame.url.includes("node_modules"))
            continue;
          own.set(label(node), (own.get(label(node)) ?? 0) + 1);
          break;
        }
      });
      const best = (m: Map<string, number>, k: number) =>
        [...m.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, k)
          .map(([l, c]) => `${c} ${l}`);
      const frames = [...best(own, 6).map((f) => `own ${f}`), ...best(leaf, 4).map((f) => `leaf ${f}`)];
      return { ms: Math.round((to - from) / 1000), frames };
    });
  return { value, stalls };
}
