/**
 * The sweep of expired idempotency records, run by the writer's alarm. A head-preserving batch: it mints
 * no snapshot but writes the head with the batch count advanced, so a commit racing it re-runs.
 */
import type { Store } from "../../storage/api.ts";
import { MAX_CATALOG_BATCH_ATTEMPTS, retryOnConflict } from "../batch-retry.ts";
import { decodeValue, encodeValue, ValueKind } from "../codec.ts";
import { CodedError } from "../errors.ts";
import { readHead } from "../head.ts";
import { keyIds, keys } from "../keys.ts";
import type { IdempotencyRecord } from "../records.ts";

export async function sweepIdempotencyKeys(
  store: Store,
  now: number,
  limit: number,
): Promise<{ removed: number; durable: Promise<void> }> {
  return retryOnConflict(store, MAX_CATALOG_BATCH_ATTEMPTS, sweepBusy, async (tx) => {
    const head = await readHead(tx);
    let removed = 0;
    let touched = 0;
    for await (const kv of tx.scan({
      prefix: keys.idempotencyExpiryPrefix(),
      end: keys.idempotencyExpiry(Math.floor(now) + 1, 0, 0),
      limit,
    })) {
      // Only client keys have expiry entries: their records are at the entry's two hash components.
      const [, h1 = 0, h2 = 0] = keyIds(kv.key, 2);
      const recKey = keys.idempotency(h1, h2);
      const raw = await tx.get(recKey);
      const rec =
        raw === undefined
          ? undefined
          : decodeValue<IdempotencyRecord>(ValueKind.idempotency, raw, "idempotency record");
      if (rec && rec.expires_at <= now) {
        tx.delete(recKey);
        removed++;
      }
      tx.delete(kv.key);
      touched++;
    }
    // Minted keys' records, oldest first (docs/decisions/0189-time-ordered-minted-keys.md): removed while
    // expired; the first live one ends the walk. Mint order is expiry order while the lifetime holds; a
    // record minted later with a shorter lifetime waits for the ones before it, never goes early.
    if (touched < limit) {
      for await (const kv of tx.scan({ prefix: keys.idempotencyMintedPrefix(), limit: limit - touched })) {
        const rec = decodeValue<IdempotencyRecord>(ValueKind.idempotency, kv.value, "idempotency record");
        if (rec.expires_at > now) break;
        tx.delete(kv.key);
        removed++;
        touched++;
      }
    }
    if (touched === 0) return { removed: 0, durable: tx.commit().durable };
    tx.put(keys.head(), encodeValue(ValueKind.head, { ...head, batch_count: head.batch_count + 1 }));
    return { removed, durable: tx.commit().durable };
  });
}

/** The sweep lost every attempt to racing batches; nothing was removed and the next pass sweeps again. */
export class SweepBusy extends CodedError {
  readonly code = "Unavailable";
}

const sweepBusy = (bound: number): SweepBusy =>
  new SweepBusy(
    `the idempotency sweep lost ${bound} races in a row; nothing was removed, the next pass retries`,
  );
