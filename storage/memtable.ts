/**
 * The memtable: an ordered map from key to value-or-tombstone, as a copy-on-write B+ tree (sorted-btree).
 * `clone()` is O(1) (it marks the root shared; later writes copy only the path they touch), so every read
 * view and transaction gets its own frozen cut without version chains to trim.
 */
import BTreeImport from "sorted-btree";
import type { Bytes, SortedEntry } from "./api.ts";
import { type Bounds, compareBytes } from "./bytes.ts";

/** `null` is a tombstone: it must hide the key in older layers, so it cannot simply be removed. */
export type MemValue = Bytes | null;

/**
 * sorted-btree is CommonJS with `exports.default`: bundlers (workerd tests) hand us the class, Node's ESM
 * loader (benchmarks) hands us the exports object. Accept both.
 */
const BTree: typeof BTreeImport =
  (BTreeImport as unknown as { default?: typeof BTreeImport }).default ?? BTreeImport;

export type MemTree = BTreeImport<Bytes, MemValue>;

export function newMemTree(): MemTree {
  return new BTree<Bytes, MemValue>(undefined, compareBytes);
}

/** Entries of `tree` within bounds, in key order, tombstones as `value: undefined`. */
export function* memEntries(tree: MemTree, b: Bounds): Generator<SortedEntry> {
  for (const [key, v] of tree.entries(b.lo)) {
    if (b.hi !== undefined && compareBytes(key, b.hi) >= 0) return;
    yield { key, value: v ?? undefined };
  }
}

export async function* asAsync<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}
