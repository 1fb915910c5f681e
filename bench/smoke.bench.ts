/** Harness self-check: PUT/GET round trips against Miniflare's R2, so a broken harness shows at once. */
import { localBucket } from "./harness.ts";
import type { BenchOptions, BenchResult } from "./report.ts";

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const n = opts.quick ? 20 : 200;
  const { bucket, dispose } = await localBucket();
  try {
    const body = new Uint8Array(1024);
    let t = performance.now();
    for (let i = 0; i < n; i++) await bucket.put(`k/${i}`, body, { onlyIf: { etagDoesNotMatch: "*" } });
    const putMs = (performance.now() - t) / n;
    t = performance.now();
    for (let i = 0; i < n; i++) await (await bucket.get(`k/${i}`))?.arrayBuffer();
    const getMs = (performance.now() - t) / n;
    return {
      name: "smoke",
      params: { n, bytes: body.length },
      rows: [
        { op: "put", ms: putMs },
        { op: "get", ms: getMs },
      ],
    };
  } finally {
    await dispose();
  }
}
