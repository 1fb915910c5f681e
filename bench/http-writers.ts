/**
 * `npx tsx bench/http-writers.ts [port] [seconds] [writers]`: the hang hunt of issue 16 — `wrangler dev`
 * on a fresh lake, `writers` HTTP clients each committing single-row `inline_insert`s back to back for
 * `seconds`, while a watchdog asks `/v1/health` every second (bounded by HEALTH_TIMEOUT_MS) and samples
 * the workerd process's CPU and resident memory from /proc. A health check that times out while the
 * process burns CPU is the reported hang. Prints one line per second and a summary; the server's whole
 * process group is killed with SIGKILL at the end (the hang ignored SIGTERM). Evidence and what it
 * showed: docs/decisions/0172-load-hang.md.
 *
 * Then the figures for the same run: commit p50/p99 per minute, and from the stopped server's
 * local R2 (`dev-r2-usage.ts`) the bytes stored by kind against the live bytes and the manifest's size.
 * Ports: `port` (the server), `port + 1` (its inspector), `port + 2` (Miniflare reading the state).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { DEV_TOKEN, startWrangler } from "../test/support/wrangler-dev.ts";
import { devR2Usage } from "./dev-r2-usage.ts";

/** Bounds: one health probe, one commit request, the whole run. */
const HEALTH_TIMEOUT_MS = 5_000;
const COMMIT_TIMEOUT_MS = 30_000;
const MAX_SECONDS = 600;
/** Latency windows of the summary (the figures are per minute). */
const WINDOW_MS = 60_000;

const port = Number(process.argv[2] ?? 9510);
const seconds = Math.min(MAX_SECONDS, Number(process.argv[3] ?? 60));
const writers = Number(process.argv[4] ?? 16);

const server = await startWrangler(port);
const headers = { authorization: `Bearer ${DEV_TOKEN}`, "content-type": "application/json" };
const call = (path: string, init: RequestInit, ms: number): Promise<Response> =>
  fetch(`${server.url}${path}`, { ...init, headers, signal: AbortSignal.timeout(ms) });

/** This process's descendants named workerd (the server's; other servers on the machine are not ours). */
function ourWorkerds(): number[] {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const line of execFileSync("ps", ["-e", "-o", "pid=,ppid=,comm="]).toString().split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    names.set(pid, m[3]!.trim());
    children.set(Number(m[2]), [...(children.get(Number(m[2])) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number): void => {
    for (const c of children.get(pid) ?? []) {
      if (names.get(c) === "workerd") out.push(c);
      walk(c);
    }
  };
  walk(process.pid);
  return out;
}

/** The server's workerd processes: summed CPU ticks and resident KiB. */
function workerdStats(): { cpuTicks: number; rssKiB: number; pids: number[] } {
  const pids = ourWorkerds();
  let cpuTicks = 0;
  let rssKiB = 0;
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      cpuTicks += Number(f[11]) + Number(f[12]);
      const st = readFileSync(`/proc/${pid}/status`, "utf8");
      rssKiB += Number(/VmRSS:\s+(\d+)/.exec(st)?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return { cpuTicks, rssKiB, pids };
}

/** The parts of `GET /v1/lakes/{lake}/metrics` this driver reads. */
interface WriterHistogram {
  bounds: number[];
  counts: number[];
  count: number;
  sum: number;
}
interface WriterSample {
  latencyMs: Record<"queue" | "submit" | "durability" | "total", WriterHistogram>;
  background: { passes: number; memtableFlushes: number; compactions: number };
  storeBytes: { flushed: number; compacted: number; moved: number };
}
const emptyHistogram: WriterHistogram = { bounds: [], counts: [], count: 0, sum: 0 };
const EMPTY_SAMPLE: WriterSample = {
  latencyMs: {
    queue: emptyHistogram,
    submit: emptyHistogram,
    durability: emptyHistogram,
    total: emptyHistogram,
  },
  background: { passes: 0, memtableFlushes: 0, compactions: 0 },
  storeBytes: { flushed: 0, compacted: 0, moved: 0 },
};

/**
 * One window as the Durable Object saw it, from two metrics samples: its commits' mean time by phase, the
 * histogram bucket bound holding their p99 (the histograms are cumulative, so a window is a difference),
 * and the background work and maintenance bytes in the window. Beside the client's own p99 it says
 * whether a climb is inside the object or on the way to it (the Worker, the RPC, the dev server).
 */
function inObject(a: WriterSample, b: WriterSample): Record<string, number | null> {
  const mean = (p: keyof WriterSample["latencyMs"]): number | null => {
    const n = b.latencyMs[p].count - a.latencyMs[p].count;
    return n > 0 ? Math.round((b.latencyMs[p].sum - a.latencyMs[p].sum) / n) : null;
  };
  const total = b.latencyMs.total;
  const counts = total.counts.map((c, i) => c - (a.latencyMs.total.counts[i] ?? 0));
  const n = counts.reduce((x, y) => x + y, 0);
  let seen = 0;
  let p99AtMost: number | null = null;
  for (let i = 0; i < counts.length && n > 0; i++) {
    seen += counts[i] ?? 0;
    if (seen >= 0.99 * n) {
      p99AtMost = total.bounds[i] ?? Number.POSITIVE_INFINITY;
      break;
    }
  }
  const mib = (x: number): number => Math.round((x / 1048576) * 10) / 10;
  return {
    commits: n,
    meanMs: mean("total"),
    queueMeanMs: mean("queue"),
    submitMeanMs: mean("submit"),
    durabilityMeanMs: mean("durability"),
    p99AtMostMs: p99AtMost,
    passes: b.background.passes - a.background.passes,
    memtableFlushes: b.background.memtableFlushes - a.background.memtableFlushes,
    compactions: b.background.compactions - a.background.compactions,
    mibFlushed: mib(b.storeBytes.flushed - a.storeBytes.flushed),
    mibCompacted: mib(b.storeBytes.compacted - a.storeBytes.compacted),
  };
}

const lake = `hang-${Date.now().toString(36)}`;
try {
  const made = await call(`/v1/lakes/${lake}`, { method: "PUT", body: "{}" }, COMMIT_TIMEOUT_MS);
  if (made.status !== 201) throw new Error(`lake not created: ${made.status} ${await made.text()}`);
  const created = await call(
    `/v1/lakes/${lake}/commits`,
    {
      method: "POST",
      body: JSON.stringify({
        verbs: [
          {
            op: "create_table",
            name: "t",
            columns: [
              { name: "id", type: "int64" },
              { name: "v", type: "varchar" },
            ],
          },
        ],
      }),
    },
    COMMIT_TIMEOUT_MS,
  );
  if (created.status !== 200) throw new Error(`create_table: ${created.status} ${await created.text()}`);
  const end = Date.now() + seconds * 1000;
  let ok = 0;
  let failed = 0;
  let next = 0;
  const latencies: number[] = [];
  const started = Date.now();
  /** Per window: the latencies of the commits that finished in it. */
  const windows: number[][] = [];
  const writer = async (): Promise<void> => {
    while (Date.now() < end) {
      const id = next++;
      const t = performance.now();
      try {
        const r = await call(
          `/v1/lakes/${lake}/commits`,
          {
            method: "POST",
            body: JSON.stringify({
              verbs: [{ op: "inline_insert", table: { name: "t" }, rows: [{ id, v: `row ${id}` }] }],
            }),
          },
          COMMIT_TIMEOUT_MS,
        );
        await r.arrayBuffer();
        if (r.status === 200) ok++;
        else failed++;
      } catch {
        failed++;
      }
      const ms = performance.now() - t;
      latencies.push(ms);
      const w = Math.floor((Date.now() - started) / WINDOW_MS);
      const window = windows[w] ?? [];
      window.push(ms);
      windows[w] = window;
    }
  };
  /** The writer's own metrics at the start and at the end of each window (the Durable Object's view). */
  const samples: WriterSample[] = [];
  const sample = async (): Promise<void> => {
    const r = await call(`/v1/lakes/${lake}/metrics`, { method: "GET" }, HEALTH_TIMEOUT_MS).catch(
      () => undefined,
    );
    if (r?.status === 200) samples.push(((await r.json()) as { metrics: WriterSample }).metrics);
    else samples.push(samples.at(-1) ?? EMPTY_SAMPLE);
  };
  await sample();
  let hung = 0;
  const watchdog = async (): Promise<void> => {
    let last = workerdStats();
    let lastOk = 0;
    for (let s = 1; Date.now() < end; s++) {
      const t = performance.now();
      const healthy = await call("/v1/health", { method: "GET" }, HEALTH_TIMEOUT_MS)
        .then((r) => r.ok)
        .catch(() => false);
      const probeMs = performance.now() - t;
      if (probeMs < 1000) await new Promise((r) => setTimeout(r, 1000 - probeMs));
      const now = workerdStats();
      if (!healthy) hung++;
      console.log(
        JSON.stringify({
          s,
          commitsPerS: ok - lastOk,
          healthy,
          probeMs: Math.round(probeMs),
          workerdCpuTicks: now.cpuTicks - last.cpuTicks,
          workerdRssMiB: Math.round(now.rssKiB / 1024),
        }),
      );
      last = now;
      lastOk = ok;
      // The metrics at each window's end (the last, partial one is sampled after the run).
      if (Date.now() - started >= samples.length * WINDOW_MS) await sample();
    }
  };
  await Promise.all([watchdog(), ...Array.from({ length: writers }, writer)]);
  if (samples.length <= windows.length) await sample();
  const q = (xs: number[], p: number): number => Math.round(xs[Math.floor(p * (xs.length - 1))] ?? 0);
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      summary: true,
      seconds,
      writers,
      ok,
      failed,
      unhealthyProbes: hung,
      p50: q(latencies, 0.5),
      p99: q(latencies, 0.99),
      max: q(latencies, 1),
      perMinute: windows.map((xs, minute) => {
        const sorted = [...xs].sort((a, b) => a - b);
        const a = samples[minute];
        const b = samples[minute + 1];
        return {
          minute: minute + 1,
          commits: xs.length,
          p50: q(sorted, 0.5),
          p99: q(sorted, 0.99),
          ...(a !== undefined && b !== undefined ? { inObject: inObject(a, b) } : {}),
        };
      }),
    }),
  );
  // The server stopped (its state kept), R2 is read as it was left.
  await server.stop({ keepState: true });
  const usage = await devR2Usage(server.persistDir, lake, port + 2);
  console.log(JSON.stringify({ r2: true, lake, ...usage }));
} finally {
  await server.stop();
  rmSync(server.persistDir, { recursive: true, force: true });
}
