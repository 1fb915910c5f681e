/**
 * The Worker for benchmarks, served by Miniflare directly (no `wrangler dev`): `wrangler dev` puts a
 * ProxyWorker in front of the Worker, one more workerd hop per request, and under many concurrent
 * long-held requests that hop answers POSTs with its own `503 Your worker restarted mid-request`
 * (wrangler-dist/ProxyWorker.js: a failed forward while its proxy data is being replaced) — the 64-client
 * ATTACH failures of bench/quack-commit.py. A deployed Worker has no such hop. This serves the same bundle
 * `wrangler deploy` builds (`wrangler deploy --dry-run --outdir`), with the bindings of wrangler.toml,
 * persisted under a directory, on 127.0.0.1.
 *
 *     npx tsx bench/quack-serve.ts <bundle dir> <port> <persist dir> [NAME=value …] [--node-port N]
 *
 * With `--node-port`, the same `createApp()` is also served from Node on that port, over the same R2
 * (Miniflare's bucket binding) and the same lake writers: Node's clock runs during CPU work, workerd's does
 * not, so with `REQUEST_TIMING=enabled` its `Server-Timing` splits the CPU phases too (bench/quack-wire,
 * docs/decisions/0640-quack-request-timing.md). Its `store` includes the Node-to-workerd hop of each R2 call.
 *
 * Prints `Ready on http://127.0.0.1:<port>` when serving; stops on SIGTERM/SIGINT.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import type { Bucket, BucketObject } from "../storage/api.ts";
import { stableBucket } from "./read-harness.ts";

const argv = process.argv.slice(2);
const nodeAt = argv.indexOf("--node-port");
const nodePort = nodeAt >= 0 ? Number(argv[nodeAt + 1]) : null;
if (nodeAt >= 0) argv.splice(nodeAt, 2);
const [bundle, portText, persist, ...vars] = argv;
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
if (nodePort !== null) await serveFromNode(nodePort);
console.log(`Ready on ${url.href}`);

/**
 * Miniflare's bucket with every answer copied into plain objects inside the call: a property of its
 * proxied answers is a synchronous round trip to workerd, which would otherwise be timed as the reader's
 * own CPU rather than as `store`.
 */
function materialised(inner: Bucket): Bucket {
  const plain = (o: BucketObject): BucketObject => ({
    key: o.key,
    size: o.size,
    etag: o.etag,
    uploaded: o.uploaded,
    ...(o.customMetadata ? { customMetadata: { ...o.customMetadata } } : {}),
  });
  const stable = stableBucket(inner);
  return {
    ...stable,
    async head(key) {
      const o = await inner.head(key);
      return o === null ? null : plain(o);
    },
    async list(options) {
      const r = await inner.list(options);
      return {
        objects: r.objects.map(plain),
        truncated: r.truncated,
        ...(r.cursor !== undefined ? { cursor: r.cursor } : {}),
        ...(r.delimitedPrefixes ? { delimitedPrefixes: [...r.delimitedPrefixes] } : {}),
      };
    },
  };
}

/** `createApp()` in this Node process, with Miniflare's bindings. */
async function serveFromNode(port: number): Promise<void> {
  const { createApp } = await import("../worker/app.ts");
  const app = createApp();
  const env = {
    ...bindings,
    BUCKET: materialised((await mf.getR2Bucket("BUCKET")) as unknown as Bucket),
    LAKE_WRITER: await mf.getDurableObjectNamespace("LAKE_WRITER"),
  };
  const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const body = Buffer.concat(parts);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://127.0.0.1:${port}${req.url ?? "/"}`, {
      method: req.method ?? "GET",
      headers,
      ...(body.length > 0 && req.method !== "GET" && req.method !== "HEAD" ? { body } : {}),
    });
    const answer = await app.fetch(request, env as never, ctx as never);
    const out = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(out);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((ok) => server.listen(port, "127.0.0.1", ok));
}
const stop = async () => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
