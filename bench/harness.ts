/**
 * Node-side harness for benchmarks: a real local R2 bucket from Miniflare 4 (the same simulator wrangler
 * dev uses), so benchmarks measure the store against real R2 semantics rather than a fake.
 * storage/ and catalog/ run in Node unchanged; in workerd `performance.now()` does not advance during
 * pure CPU work, which is why benchmarks live here.
 */
import { Miniflare } from "miniflare";
import type { Bucket } from "../storage/api.ts";

export interface LocalBucket {
  bucket: Bucket;
  dispose(): Promise<void>;
}

/** Starts a throwaway Miniflare instance with one in-memory R2 bucket. */
export async function localBucket(): Promise<LocalBucket> {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response('bench'); } }",
    r2Buckets: ["B"],
    r2Persist: false,
  });
  await mf.ready;
  const bucket = (await mf.getR2Bucket("B")) as unknown as Bucket;
  return { bucket, dispose: () => mf.dispose() };
}
