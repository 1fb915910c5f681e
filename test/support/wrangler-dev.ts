/**
 * `wrangler dev` for the Node-side tests (CLI, browser): binds 127.0.0.1 on a given port, persists to a
 * fresh temp dir, enables the dev token through --var (never through wrangler.toml), waits for wrangler's
 * "Ready on" line (an event, not a poll) under a bounded deadline, checks /v1/health once, and stops by
 * killing its whole process group.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How long wrangler may take to print "Ready on". */
export const WRANGLER_START_TIMEOUT_MS = 120_000;
/** The hard cap of one wrangler dev process's life (a stuck test cannot leave it behind). */
export const WRANGLER_MAX_LIFE_SECONDS = 900;
export const DEV_TOKEN = "cli-test-token-0123456789";
/**
 * How long `stop` waits after SIGTERM before SIGKILL. A workerd livelocked in its GC ignored SIGTERM
 * (issue 16, docs/decisions/0172-load-hang.md): without the escalation `stop` would wait forever.
 */
export const WRANGLER_STOP_GRACE_MS = 5_000;

export interface DevServer {
  url: string;
  token: string;
  /** The server's local state (`--persist-to`); R2 lives under `v3/r2`. Removed by `stop()`. */
  persistDir: string;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** Ends the server's process group; `keepState` leaves `persistDir` for the caller to read and remove. */
  stop(options?: { keepState?: boolean }): Promise<void>;
}

/** The token `npm start` (tools/start.mjs) enables, as the README documents it. */
export const NPM_START_TOKEN = "dev-token-change-me";

/**
 * Starts the server on `port` (and `port + 1` for the inspector). `npmStart`: exactly what `npm start`
 * runs (tools/start.mjs, its own dev token), as the README's reader does; else `wrangler dev` with the
 * tests' token.
 */
export async function startWrangler(
  port: number,
  options: { npmStart?: boolean; logLevel?: string } = {},
): Promise<DevServer> {
  const persist = mkdtempSync(join(tmpdir(), "ducklake-edge-dev-"));
  const common = [
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(port + 1),
    "--persist-to",
    persist,
    "--var",
    `LOG_LEVEL:${options.logLevel ?? "warn"}`,
  ];
  const command = options.npmStart
    ? ["node", "tools/start.mjs", ...common, "--show-interactive-dev-session=false"]
    : [
        "npx",
        "wrangler",
        "dev",
        "--local",
        ...common,
        "--var",
        "DEV_AUTH:enabled",
        "--var",
        `DEV_TOKEN:${DEV_TOKEN}`,
      ];
  const token = options.npmStart ? NPM_START_TOKEN : DEV_TOKEN;
  const child: ChildProcess = spawn(
    "timeout",
    [
      // After the life cap's SIGTERM, SIGKILL 10 s later if the server ignored it.
      "-k",
      "10",
      String(WRANGLER_MAX_LIFE_SECONDS),
      ...command,
    ],
    {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
    },
  );
  let output = "";
  let markReady: (ready: boolean) => void = () => {};
  const ready = new Promise<boolean>((r) => {
    markReady = r;
  });
  const collect = (d: Buffer): void => {
    output += d.toString();
    if (output.includes("Ready on")) markReady(true);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  child.once("exit", () => markReady(false));
  // A deadline, not a wait: readiness is the "Ready on" line; this only bounds a server that never prints it.
  const timer = setTimeout(() => markReady(false), WRANGLER_START_TIMEOUT_MS);
  const url = `http://127.0.0.1:${port}`;
  const stop = async (options: { keepState?: boolean } = {}): Promise<void> => {
    // Killed by a signal, a child has a signalCode and no exitCode: a second stop() must not wait again.
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const pid = child.pid;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      const signal = (s: NodeJS.Signals): void => {
        try {
          process.kill(-pid, s);
        } catch {
          // already gone
        }
      };
      signal("SIGTERM");
      // A bound, not a wait: the exit event ends this; SIGKILL only for a server that ignores SIGTERM.
      const killer = setTimeout(() => signal("SIGKILL"), WRANGLER_STOP_GRACE_MS);
      await exited;
      clearTimeout(killer);
      // The group may outlive its leader (timeout exits once its child does): make sure nothing stays.
      signal("SIGKILL");
    }
    if (!options.keepState) rmSync(persist, { recursive: true, force: true });
  };
  const isReady = await ready;
  clearTimeout(timer);
  if (isReady) {
    const ok = await fetch(`${url}/v1/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { url, token, persistDir: persist, output: () => output, stop };
  }
  await stop();
  throw new Error(`wrangler dev did not become healthy on ${url}:\n${output.slice(-3000)}`);
}
