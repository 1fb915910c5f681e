/**
 * The floor under the S3 endpoint's writes (issue 27, docs/decisions/0750-s3-expect-continue.md), served for
 * bench/data-plane.py, which writes the INSERT's own Parquet bytes here right beside each INSERT through the
 * endpoint: Miniflare's R2 (the simulator `wrangler dev` runs, persisted to disk as there) reached three ways.
 *
 *     npx tsx bench/r2-floor.ts <worker port> <node port> <persist dir>
 *
 * - `PUT http://127.0.0.1:<worker port>/put/<key>`: a bare Worker streams the request body into R2
 *   (`put(key, request.body)`: no auth, no checks) and answers the milliseconds it spent (its clock moves
 *   across I/O, so this is the put's wall time, as the endpoint's own `durationMs` is).
 * - `PUT …/sink/<key>`: a Worker reads the body and drops it (HTTP into workerd, no R2).
 * - `PUT http://127.0.0.1:<node port>/direct/<key>`: Node receives the body, then puts it straight into the
 *   same R2 through Miniflare's bucket proxy (no Worker route); the answer is the put's milliseconds alone.
 *
 * Prints `Ready` when serving; stops on SIGTERM/SIGINT.
 */
import { createServer } from "node:http";
import { join } from "node:path";
import { Miniflare } from "miniflare";

const SCRIPT = `export default { async fetch(request, env) {
  const key = new URL(request.url).pathname.slice(1);
  const t0 = Date.now();
  if (key.startsWith("sink/")) { const r = request.body.getReader(); for (;;) { if ((await r.read()).done) break; } }
  else await env.B.put(key, request.body);
  return new Response(String(Date.now() - t0));
} }`;

const [workerPort, nodePort, persist] = process.argv.slice(2);
if (workerPort === undefined || nodePort === undefined || persist === undefined) {
  console.error("usage: r2-floor.ts <worker port> <node port> <persist dir>");
  process.exit(2);
}
const mf = new Miniflare({
  host: "127.0.0.1",
  port: Number(workerPort),
  modules: true,
  script: SCRIPT,
  compatibilityDate: "2026-05-01",
  r2Buckets: { B: "ducklake-edge" },
  r2Persist: join(persist, "r2"),
});
await mf.ready;
const bucket = await mf.getR2Bucket("B");
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const whole = Buffer.concat(chunks);
    const bytes = whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer;
    const t0 = performance.now();
    bucket
      .put(`direct${req.url ?? ""}`, bytes)
      .then(() => res.end(String(Math.round(performance.now() - t0))))
      .catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
  });
});
server.listen(Number(nodePort), "127.0.0.1", () => console.log("Ready"));
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    server.close();
    void mf.dispose().then(() => process.exit(0));
  });
}
