// `npm start [-- wrangler dev flags]`: serves the API locally with the documented dev token, no other
// step. Every argument after `--` passes through to `wrangler dev` (`npm start -- --port 9000`).
//
// Local only: the dev token is set on the command line of `wrangler dev`, never in wrangler.toml, which
// pins DEV_AUTH = "disabled" so a deployment stays deny-by-default (test/worker/auth.test.ts).
// CLOUDFLARE_CF_FETCH_ENABLED=false stops miniflare fetching the `Request.cf` sample from
// workers.cloudflare.com, which offline printed two getaddrinfo ENOTFOUND stack traces; the Worker
// never reads `request.cf`. Set it to "true" to fetch it anyway.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const DEV_TOKEN = "dev-token-change-me";

const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const args = [
  "dev",
  "--local",
  "--var",
  "DEV_AUTH:enabled",
  "--var",
  `DEV_TOKEN:${DEV_TOKEN}`,
  ...process.argv.slice(2),
];
// The Worker logs every request itself as one JSON line (worker/middleware.ts); wrangler's proxy prints a
// second, `[wrangler:info] GET /path 200 OK (5ms)`, which cannot be switched off alone (its log level hides
// the Worker's lines too). Those lines are dropped here, so a request is one line; everything else passes.
const ACCESS_LINE = /^\S*\[wrangler:info\]\S* (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \S+ \d{3} /;
const child = spawn(process.execPath, [wrangler, ...args], {
  stdio: ["inherit", "pipe", "pipe"],
  env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env },
});
for (const [from, to] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (!ACCESS_LINE.test(line)) to.write(`${line}\n`);
  });
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
