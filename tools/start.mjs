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
const child = spawn(process.execPath, [wrangler, ...args], {
  stdio: "inherit",
  env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
