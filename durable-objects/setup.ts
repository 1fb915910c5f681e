/**
 * The seam through which a LakeWriter gets its bucket and tunables. Production installs nothing: the
 * object writes to `env.BUCKET` with the defaults. Tests (which share the isolate with the objects)
 * install a provider that wraps the bucket in storage's fault-injecting bucket, shortens bounds and
 * thresholds, or hooks the submitting task — per lake, so test cases stay independent.
 */
import type { Bucket } from "../storage/api.ts";
import type { WriterTunables } from "./options.ts";
import type { SubmitStep, WriterStats } from "./types.ts";

export interface WriterSetup {
  /** Wraps the real bucket (e.g. in a FaultBucket). */
  bucket?: (real: Bucket) => Bucket;
  tunables?: Partial<WriterTunables>;
  /** Wall clock (snapshot times, idempotency expiry, deletion grace); tests move it instead of sleeping. */
  now?: () => number;
  /** Runs after each await of the submitting task; may throw. */
  afterSubmitStep?: (step: SubmitStep) => void;
  /** Told when the instance is about to abort itself, with the writer's state at that moment. */
  onAbort?: (reason: string, stats: WriterStats | undefined) => void;
}

type Provider = (lake: string) => WriterSetup | undefined;

let provider: Provider | undefined;

/** Installs (or, with undefined, removes) the provider consulted when a writer is created. */
export function setWriterSetup(p: Provider | undefined): void {
  provider = p;
}

export function writerSetup(lake: string): WriterSetup {
  return provider?.(lake) ?? {};
}
