/**
 * The one retry-on-conflict loop of a catalog batch, and its bounds (decision
 * docs/decisions/0660-retry-bounds.md). A batch that lost a race to another batch on the same keys
 * (`TransactionConflict`) is re-run from a fresh transaction; past its bound the caller's typed error is
 * thrown. The commit group's own budget (with backoff, shared by a group's members) is `commit/backoff.ts`.
 */
import type { Store, Transaction } from "../storage/api.ts";
import { isTransactionConflict } from "./errors.ts";

/**
 * Attempts of one head-preserving catalog batch (the idempotency sweep, file cleanup, snapshot expiry,
 * the job history) against racing batches. The writer is single, so a race is not expected: a guard.
 */
export const MAX_CATALOG_BATCH_ATTEMPTS = 10;
/** Attempts at bootstrapping or adopting a store's catalog while another open races it. */
export const MAX_OPEN_ATTEMPTS = 3;

/**
 * Runs `run` in a fresh transaction, at most `bound` times while it loses a race (`TransactionConflict`
 * from a read or from its commit); any other error is thrown as is. `run` commits when it wants to; an
 * uncommitted transaction is aborted. Past the bound, `exhausted(bound)` is thrown.
 */
export async function retryOnConflict<T>(
  store: Store,
  bound: number,
  exhausted: (bound: number) => Error,
  run: (tx: Transaction) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; attempt < bound; attempt++) {
    const tx = store.begin();
    try {
      return await run(tx);
    } catch (e) {
      if (!isTransactionConflict(e)) throw e;
    } finally {
      tx.abort(); // a no-op once committed
    }
  }
  throw exhausted(bound);
}
