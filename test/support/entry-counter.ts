/**
 * Counts the store entries reads step over under a key prefix — tombstones included, which a scan's
 * visible results hide — while `work` runs. Every read of a cut or a transaction merges its layers through
 * `Cut.entries` (storage/read-view.ts); this wraps that method for the duration, delegating every call and
 * changing nothing it yields: a counter over the real store, never a fake.
 */
import type { Bytes, ScanRange, SortedEntry } from "../../storage/api.ts";
import { Cut } from "../../storage/read-view.ts";

function startsWith(k: Bytes, prefix: Bytes): boolean {
  if (k.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (k[i] !== prefix[i]) return false;
  return true;
}

export async function countEntries<T>(
  prefix: Bytes,
  work: () => Promise<T>,
): Promise<{ value: T; entries: number }> {
  const original = Cut.prototype.entries;
  let entries = 0;
  Cut.prototype.entries = function (this: Cut, range: ScanRange): AsyncIterable<SortedEntry> {
    const inner = original.call(this, range);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const e of inner) {
          if (startsWith(e.key, prefix)) entries++;
          yield e;
        }
      },
    };
  };
  try {
    const value = await work();
    return { value, entries };
  } finally {
    Cut.prototype.entries = original;
  }
}
