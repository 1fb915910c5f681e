/**
 * Reaching a lake's writer: one Durable Object per lake, addressed by name. The object answers with
 * envelopes; a thrown RPC (reset, overloaded, code update) means the object could not answer at all.
 */
import type { Envelope } from "../durable-objects/envelope.ts";
import type { LakeWriter } from "../durable-objects/lake-writer.ts";
import type { Env } from "./env.ts";
import { ApiError } from "./errors.ts";

export type DurableObjectStubOf = DurableObjectStub<LakeWriter>;

export function writerStub(env: Env, lake: string): DurableObjectStub<LakeWriter> {
  return env.LAKE_WRITER.get(env.LAKE_WRITER.idFromName(lake));
}

export async function callWriter<T>(
  env: Env,
  lake: string,
  call: (stub: DurableObjectStub<LakeWriter>) => Promise<Envelope<T>>,
): Promise<T> {
  let result: Envelope<T>;
  try {
    result = await call(writerStub(env, lake));
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    if (cannotBeSent(err)) {
      // Deterministic: the same request fails the same way, so it is the request's error, never an
      // outage to retry (docs/decisions/0403-validation-is-not-an-outage.md).
      throw new ApiError(
        "InvalidRequest",
        `the request could not be sent to the writer for lake '${lake}' (${detail}): it nests too deeply or holds a value that cannot be sent`,
      );
    }
    throw new ApiError(
      "Unavailable",
      `the writer for lake '${lake}' could not be reached (${detail}); retry shortly`,
    );
  }
  if (!result.ok) throw new ApiError(result.error.code, result.error.message);
  return result.value;
}

/**
 * An argument the RPC cannot serialise: structured clone overflows its stack on a deeply nested value
 * (RangeError) or meets a value it cannot clone (DataCloneError).
 */
function cannotBeSent(err: unknown): boolean {
  return err instanceof RangeError || (err instanceof Error && err.name === "DataCloneError");
}
