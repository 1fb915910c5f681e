/**
 * Forwarding a write to the lake's writer under an idempotency key — the client's, or one the Worker
 * mints — so an object that could not be reached is retried without writing twice. The one home of that
 * retry rule (commits, row writes, row transactions, truncates, settings).
 */
import type { Context } from "hono";
import { mintIdempotencyKey } from "../catalog/index.ts";
import type { Envelope } from "../durable-objects/envelope.ts";
import type { AppEnv } from "./app-env.ts";
import { ApiError } from "./errors.ts";
import type { DurableObjectStubOf } from "./lake-rpc.ts";
import { callWriter } from "./lake-rpc.ts";
import { log } from "./log.ts";

/** How long the catalog keeps an idempotency record (catalog default), advertised to clients. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/**
 * Attempts at reaching the writer for one write (first try plus retries under the same key); past it the
 * answer is `Unavailable` (a client key) or `CommitOutcomeUnknown` (a minted one). Decision 0660.
 */
export const MAX_FORWARD_ATTEMPTS = 3;

export async function forwardWithKey<T>(
  c: Context<AppEnv>,
  lake: string,
  clientKey: string | undefined,
  call: (stub: DurableObjectStubOf, key: string) => Promise<Envelope<T>>,
): Promise<T> {
  const key = clientKey ?? mintIdempotencyKey(Date.now());
  let lastUnavailable: ApiError | undefined;
  for (let attempt = 1; attempt <= MAX_FORWARD_ATTEMPTS; attempt++) {
    try {
      const result = await callWriter(c.env, lake, (stub) => call(stub, key));
      c.header("idempotency-key-ttl", String(IDEMPOTENCY_TTL_SECONDS));
      if (clientKey) c.header("idempotency-key", clientKey);
      return result;
    } catch (err) {
      // Only an unreachable object is retried, always under the same key, so a write that did land
      // is answered from its record rather than made twice.
      if (!(err instanceof ApiError) || err.code !== "Unavailable") throw err;
      lastUnavailable = err;
      log(
        "warn",
        { msg: "commit retry after writer unavailable", lake, attempt, requestId: c.get("requestId") },
        c.env.LOG_LEVEL,
      );
    }
  }
  if (clientKey) throw lastUnavailable ?? new ApiError("Unavailable", "the lake writer could not be reached");
  throw new ApiError(
    "CommitOutcomeUnknown",
    `the writer for lake '${lake}' could not be reached after ${MAX_FORWARD_ATTEMPTS} attempts and the commit may or may not have landed; read the lake's snapshots before retrying, or send an Idempotency-Key so retries are safe`,
  );
}
