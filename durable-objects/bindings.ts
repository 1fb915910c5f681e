/**
 * The lake writer's own environment: the bindings the Durable Object reads. The Worker's `Env`
 * (`worker/env.ts`) extends it, so the writer never imports from the layer above it (decision
 * docs/decisions/0460-layer-check.md).
 */
export interface WriterBindings {
  /** The lake's bucket: WAL segments, manifests, sorted tables, checkpoints and data files. */
  BUCKET: R2Bucket;
}

// The runtime hands every object the one environment of the script (`Cloudflare.Env`, which the Worker's
// `Env` also extends); declaring the writer's part here keeps `DurableObject`'s default type parameter, so
// the object is typed as the runtime and the test harness see it while it reads only what it declares.
declare global {
  namespace Cloudflare {
    interface Env extends WriterBindings {}
  }
}
