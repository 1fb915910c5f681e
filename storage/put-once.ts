/**
 * Put-if-absent with ambiguity resolved rather than guessed. A PUT that throws may or may not have
 * landed, so it is retried with the identical bytes; a retry that finds the key taken reads it back and
 * compares: our bytes mean the earlier attempt landed (durable), anyone else's mean another writer owns
 * the id. Only when the bucket stays unreachable past the bound is the outcome unknown.
 */
import type { Bucket } from "./api.ts";
import { bytesEqual } from "./bytes.ts";
import { OutcomeUnknown } from "./errors.ts";
import { backoff, type RetryPolicy } from "./retry.ts";

export type PutOutcome = { kind: "ours" } | { kind: "theirs"; body: Uint8Array };

export async function putOnce(
  bucket: Bucket,
  key: string,
  bytes: Uint8Array,
  customMetadata: Record<string, string> | undefined,
  policy: RetryPolicy,
): Promise<PutOutcome> {
  let last: unknown;
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (attempt > 0) await backoff(policy, attempt);
    let stored: unknown;
    try {
      stored = await bucket.put(key, bytes, {
        onlyIf: { etagDoesNotMatch: "*" },
        ...(customMetadata ? { customMetadata } : {}),
      });
    } catch (e) {
      last = e;
      continue;
    }
    if (stored !== null) return { kind: "ours" };
    try {
      const obj = await bucket.get(key);
      if (obj === null) {
        last = new Error(`${key} was taken but then read back as absent`);
        continue;
      }
      const body = new Uint8Array(await obj.arrayBuffer());
      return bytesEqual(body, bytes) ? { kind: "ours" } : { kind: "theirs", body };
    } catch (e) {
      last = e;
    }
  }
  throw new OutcomeUnknown(
    `could not confirm whether ${key} was written after ${policy.attempts} attempts (last error: ${String((last as Error)?.message ?? last)}); this writer is stopped and the id is never reused: reopen the lake, which recovers whatever did land`,
    { cause: last },
  );
}
