/**
 * The Worker for benchmarks, served by Miniflare directly (no `wrangler dev`): `wrangler dev` puts a
 * ProxyWorker in front of the Worker, one more workerd hop per request, and under many concurrent
 * long-held requests that hop answers POSTs with its own `503 Your worker restarted mid-request`
 * (wrangler-dist/ProxyWorker.js: a failed forward while its proxy data is being replaced) — the 64-client
 * ATTACH failures of bench/quack-commit.py. A deployed Worker has no such hop. This serves the same bundle
 * `wrangler deploy` builds (`wrangler deploy --dry-run --outdir`), with the bindings of wrangler.toml,
 * persisted under a directory, on 127.0.0.1.
 *
 *     npx tsx bench/quack-serve.ts <bundle dir> <port> <persist dir> [NAME=value …]
 *
 * Prints `Ready on http://127.0.0.1:<port>` when serving; stops on SIGTERM/SIGINT.
 */
import { join } from "node:path";
import { Miniflare } from "miniflare";

const [bundle, portText, persist, ...vars] = process.argv.slice(2);
if (bundle === undefined || portText === undefined || persist === undefined) {
  console.error("usage: quack-serve.ts <bundle dir> <port> <persist dir> [NAME=value …]");
  process.exit(2);
}
const bindings: Record<string, string> = {
  BUCKET_NAME: "ducklake-edge",
  DEV_AUTH: "disabled",
  QUACK_SERVER_COMMIT: "enabled",
  MAX_BODY_BYTES: "1048576",
  LOG_LEVEL: "info",
  MAX_DATA_FILE_BYTES: "104857600",
};
for (const v of vars) {
  const i = v.indexOf("=");
  if (i > 0) bindings[v.slice(0, i)] = v.slice(i + 1);
}

const mf = new Miniflare({
  host: "127.0.0.1",
  port: Number(portText),
  modules: true,
  modulesRoot: bundle,
  scriptPath: join(bundle, "index.js"),
  compatibilityDate: "2026-05-01",
  compatibilityFlags: ["nodejs_compat"],
  durableObjects: { LAKE_WRITER: { className: "LakeWriter", useSQLite: true } },
  r2Buckets: { BUCKET: "ducklake-edge" },
  bindings,
  durableObjectsPersist: join(persist, "do"),
  r2Persist: join(persist, "r2"),
});
const url = await mf.ready;
console.log(`Ready on ${url.href}`);
const stop = async () => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
